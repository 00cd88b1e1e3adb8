package kernel

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/copulang/copulang/session"
)

// This file shows the progress of long statements (fit, extend, check,
// compare, fit-file reads) to console front ends, which ignore
// update_display_data.
//
// The Jupyter protocol does not say what a front end can show, so the
// kernel infers it. The protocol describes is_complete_request as for
// console-type front ends. jupyter console 6.4, in its default
// prompt_toolkit mode, sends one for the cell's text on every Enter on its
// last line and executes that same text when the answer is not
// "incomplete" (ptshell.py, init_prompt_toolkit_cli); qtconsole and
// JupyterLab's code console ask on Enter too (from their documentation,
// not checked here). Notebook 6, JupyterLab's notebooks, nbclient and
// nbconvert never send one. So a client session (header.session) whose
// execute_request carries exactly the code of its last is_complete_request
// is a console, from that cell on: the session stays one, so that a cell
// entered with Esc-Enter, which prompt_toolkit accepts without asking the
// kernel, shows its progress too. An is_complete_request alone does not
// make a console: a program that checks some text and runs other cells
// (TestKernelRunsSession's driver does) reads displays as a notebook does.
//
// Other signals were weighed and rejected: history_request is what any
// front end sends for its own input history (jupyter console sends it at
// start, in the prompt_toolkit mode only); allow_stdin is true from
// Notebook 6 as from the console; header.username and the protocol version
// are those of jupyter_client in nbclient as in the console. jupyter
// console --simple-prompt (or with use_kernel_is_complete off) sends
// nothing a notebook client does not, so it gets the display, and the
// states after its first as text beside it, which only a console prints
// (mirror.go).
//
// A console's progress goes to stdout as a stream, one line rewritten in
// place: each state after the first starts with a carriage return and is
// padded with blanks over the longer state before it, each but the last
// ends with a carriage return, which leaves the cursor at the line's start
// (rewriteLine says why; no ANSI escapes, so that front ends that render a
// stream's text rather than a terminal show no stray codes), and the last
// state ends the line, so that it stays in the scroll-back. stdout, not
// stderr: jupyter console prints the fit's
// report, its tables and the cell's result on stdout, and one stream keeps
// them in order even where stdout and stderr are buffered apart (the
// console's output piped to a file), and a front end that renders stderr
// as a warning (a notebook's stderr is shown on red) would flag a progress
// line. The session sends a state every 250 ms at most.

// consoleColumns is the width a console's progress line is cut to, less
// one: the kernel cannot know the terminal's width, and a line longer than
// the terminal wraps, after which a carriage return goes back to its last
// row only and every state would print a new line. 80 columns is the
// terminal's usual least; the last state is not cut, since nothing
// rewrites it.
const consoleColumns = 80

// maxConsoleSessions bounds the client sessions remembered.
const maxConsoleSessions = 64

// consoleSessions remembers, per client session, the code of its last
// is_complete_request and whether it has executed that code, which makes
// it a console.
type consoleSessions struct {
	mu      sync.Mutex
	checked map[string]string // session → code of its last is_complete_request
	console map[string]bool
	fifo    []string // sessions in the order first seen, to bound the maps
}

// checkedCompleteness records that session asked whether code is complete.
func (c *consoleSessions) checkedCompleteness(session, code string) {
	if session == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remember(session)
	c.checked[session] = code
}

// executes reports whether session, executing code, is a console: it is
// once it executes the code of its last is_complete_request.
func (c *consoleSessions) executes(session, code string) bool {
	if session == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.checked[session]; ok && last == code {
		c.console[session] = true
	}
	return c.console[session]
}

// remember adds session, forgetting the oldest beyond maxConsoleSessions;
// c.mu is held.
func (c *consoleSessions) remember(session string) {
	if c.checked == nil {
		c.checked, c.console = map[string]string{}, map[string]bool{}
	}
	if _, seen := c.checked[session]; seen || c.console[session] {
		return
	}
	c.fifo = append(c.fifo, session)
	if len(c.fifo) > maxConsoleSessions {
		delete(c.checked, c.fifo[0])
		delete(c.console, c.fifo[0])
		c.fifo = c.fifo[1:]
	}
}

// consoleOutput is the output of a cell that a console executes: an
// iopubOutput that takes the progress of long statements itself
// (session.ProgressWriter) and writes it as a line of stdout rewritten in
// place. Any other output ends that line first. Its methods may be called
// from several goroutines.
type consoleOutput struct {
	progressLine        // on the cell's own stdout
	session      string // the console's client session
	noted        bool   // whether leftBehind has written its note
}

// newConsoleOutput returns the output of a cell that the console of the
// given client session executes.
func newConsoleOutput(out *iopubOutput, session string) *consoleOutput {
	return &consoleOutput{progressLine: progressLine{iopubOutput: out, write: func(text string) { out.Stream("stdout", text) }}, session: session}
}

// progressLine is a cell's output with a progress line rewritten in place
// (rewriteLine), written by write: the cell's other output ends the line
// first, so that it starts a line of its own. Its methods may be called
// from several goroutines.
type progressLine struct {
	*iopubOutput
	write func(text string)
	mu    sync.Mutex
	width int // runes of the progress line, 0 if none is open
}

// show writes the progress state p on the line.
func (o *progressLine) show(p session.FitProgress) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.write(rewriteLine(&o.width, p))
}

// endLine ends the progress line, if one is open.
func (o *progressLine) endLine() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
}

// endLineLocked is endLine with o.mu held: the cell's other output is
// written under it too, so that no state falls between the line's end and
// that output.
func (o *progressLine) endLineLocked() {
	if o.width > 0 {
		o.width = 0
		o.write("\n")
	}
}

func (o *progressLine) Stream(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.Stream(name, text)
}

func (o *progressLine) Display(bundle session.MimeBundle, displayID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.Display(bundle, displayID)
}

func (o *progressLine) ClearOutput(wait bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.ClearOutput(wait)
}

// leftBehind is called when the console that runs this cell asks whether
// some text is complete before the cell has ended: its user is typing at a
// new prompt while the cell runs on. jupyter console 6.4 to 6.6 gets there
// after Ctrl-C during a cell: prompt_toolkit puts Python's own SIGINT
// handler back over the console's, which would have interrupted the kernel,
// so the KeyboardInterrupt escapes the console's wait for the cell
// ("KeyboardInterrupt escaped interact()"), and it shows its next prompt
// with nothing sent to the kernel (jupyter/jupyter_console#296; ipykernel's
// cells run on as well). The user takes the statement for stopped, and the
// next cell waits for it with no word why. leftBehind writes, once per
// cell, a note that the cell runs on and how to stop it; the console prints
// it at its next Enter or cell (it reads the kernel's output only then).
// Nothing is interrupted here: a console that lets its user type ahead
// (JupyterLab's code console) asks the same, and a fit must not stop for it.
func (o *consoleOutput) leftBehind() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.noted {
		return
	}
	o.noted = true
	o.endLineLocked()
	o.iopubOutput.Stream("stdout", runsOnNote(os.Getpid()))
}

// runsOnNote is leftBehind's note for a kernel of process pid, in lines of
// at most 79 columns. In --simple-prompt mode the console keeps its own
// SIGINT handler, which interrupts the kernel (checked with 6.4.4).
//
// It also tells of the warning that follows, which no reply of the kernel
// can avoid. jupyter console reads the shell channel one message at a time
// and matches loosely (ptshell.py): at every Enter, handle_is_complete_reply
// takes the next message for the reply to its is_complete_request and
// warns "The kernel did not respond properly to an is_complete_request"
// when it is another; run_cell, once an idle status of its session has come,
// takes the next message for its cell's execute_reply, drops it silently
// when it is another, and stops waiting either way; only run_cell's start
// throws away the messages already there, and an empty Enter's run_cell
// returns before it. Ctrl-C abandoned the wait for this cell's reply, so
// one reply too many is on its way, and each such read takes the one before
// its own: with a cell typed meanwhile, that cell's run_cell takes this
// cell's error reply and the next Enter warns of that cell's "aborted" one;
// with none, the next Enter warns of this cell's. An Enter on an empty line
// leaves its own is_complete_reply behind in turn, and the next Enter warns
// again, until a cell runs (checked with 6.4.4 under a pty). Every
// request must have its reply, and a reply held back or sent out of turn
// would make the same count, or hang a front end that waits for its cells'
// replies (JupyterLab's code console asks whether text is complete while a
// cell runs too).
func runsOnNote(pid int) string {
	return fmt.Sprintf("(The cell above still runs in the kernel and the next waits for it: Ctrl-C in\n"+
		"jupyter console 6.4 to 6.6 does not reach the kernel (jupyter_console#296; it\n"+
		"does with --simple-prompt). kill -INT %d stops the cell as an interrupt\n"+
		"does: a fit keeps its draws; a cell sent meanwhile is then not run. Having\n"+
		"stopped waiting for this cell, the console then reads one reply late and warns\n"+
		"at its next Enter that the kernel did not respond properly to an\n"+
		"is_complete_request; nothing is lost.)\n", pid)
}

// FitProgress implements session.ProgressWriter.
func (o *consoleOutput) FitProgress(p session.FitProgress) { o.show(p) }

// rewriteLine returns the text that shows state p on a line of the given
// width (0 if none is open) rewritten in place, and sets width to that of
// the line it leaves open (0 after the last state, which ends it).
//
// A state before the last ends with a carriage return, which leaves the
// cursor at the start of the line it shows: what the terminal prints next
// starts there, over the state, rather than after its text. jupyter
// console's default mode prints the kernel's output at every Enter too,
// before prompt_toolkit redraws the prompt that the Enter accepts (its key
// binding flushes iopub first); after Ctrl-C had left a fit running
// (console.go, leftBehind), the prompt was drawn from the column where the
// state's text ended, as "…, sampling, 2In [4]: summary m.C". With the
// cursor at the line's start, prompt_toolkit's moves back to the prompt's
// start end there, and it erases the state and draws the prompt from the
// first column. It still starts with one too, since a terminal echoes what
// its user types ahead while a cell runs where the cursor is. A carriage
// return at the end is invisible to a front end that renders the text (a
// notebook's \r rules, as for R's and pip's progress).
func rewriteLine(width *int, p session.FitProgress) string {
	text := p.Text
	if !p.Final {
		text = p.Line(consoleColumns - 1)
	}
	var b strings.Builder
	n := utf8.RuneCountInString(text)
	if *width > 0 {
		b.WriteByte('\r')
	}
	b.WriteString(text)
	if pad := *width - n; pad > 0 {
		b.WriteString(strings.Repeat(" ", pad))
	}
	if p.Final {
		b.WriteByte('\n')
		*width = 0
		return b.String()
	}
	b.WriteByte('\r')
	*width = max(n, 1)
	return b.String()
}

// UpdateDisplay ends the progress line too: a console's updates are of
// displays other than the progress, which it takes itself.
func (o *consoleOutput) UpdateDisplay(bundle session.MimeBundle, displayID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLineLocked()
	o.iopubOutput.UpdateDisplay(bundle, displayID)
}
