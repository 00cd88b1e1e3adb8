package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/copulang/copulang/session"
)

// progressEvery is how often the progress of a fit is printed when stderr
// is not a terminal (a log file, a pipe, CI): a new line at most this
// often, besides the first state, the start of each phase and the end.
const progressEvery = 10 * time.Second

// progressPrinter shows the progress of fits on stderr. On a terminal it
// rewrites one line in place (carriage return, the state cut to the
// terminal's width by session.FitProgress.Line, clear to end of line) as often as the session sends a
// state; otherwise it prints a line at a steady rate, never the same line
// twice. Its methods may be called from several goroutines.
type progressPrinter struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	width    int              // columns of the terminal
	now      func() time.Time // the clock, replaced by tests
	every    time.Duration

	open     bool // a progress line is on the terminal, not yet ended
	last     time.Time
	lastText string
	phases   map[string]bool // phases already printed in this fit
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	width := 80
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 20 {
		width = c
	}
	return &progressPrinter{w: w, terminal: isTerminal(w), width: width, now: time.Now, every: progressEvery}
}

// isTerminal reports whether w is a character device other than a dumb
// terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// show prints one state of a fit.
func (p *progressPrinter) show(s session.FitProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Phase == "starting" {
		p.phases = map[string]bool{}
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s\x1b[K", s.Line(p.width-1))
		p.open = true
		if s.Final {
			p.endLineLocked()
		}
		return
	}
	now := p.now()
	due := s.Final || !p.phases[s.Phase] || now.Sub(p.last) >= p.every
	if !due || s.Text == p.lastText {
		return
	}
	fmt.Fprintln(p.w, s.Text)
	p.last, p.lastText = now, s.Text
	if p.phases == nil {
		p.phases = map[string]bool{}
	}
	p.phases[s.Phase] = true
}

// note prints a message on a line of its own, ending the progress line
// first.
func (p *progressPrinter) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
	fmt.Fprintln(p.w, msg)
}

// endLine ends the progress line on the terminal, if one is open.
func (p *progressPrinter) endLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
}

func (p *progressPrinter) endLineLocked() {
	if p.open {
		io.WriteString(p.w, "\n")
		p.open = false
	}
}
