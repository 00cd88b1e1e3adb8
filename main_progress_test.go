package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/session"
)

// fitStates is a fit as the session reports it, four times a second for
// 60 s: starting, 10 s of warm-up, then sampling, with a long iteration
// (no progress for 20 s, the elapsed time moving) and the end.
func fitStates() []session.FitProgress {
	var out []session.FitProgress
	out = append(out, session.FitProgress{Text: "fit m with hmc: 0/100 iterations (0%), starting, 0s elapsed", Phase: "starting"})
	done := 0
	for tick := 1; tick < 240; tick++ {
		elapsed := time.Duration(tick) * 250 * time.Millisecond
		phase := "sampling"
		if elapsed < 10*time.Second {
			phase = "warm-up"
		}
		if elapsed < 20*time.Second || elapsed > 40*time.Second {
			done = tick * 100 / 240
		}
		out = append(out, session.FitProgress{Text: fmt.Sprintf("fit m with hmc: %d/100 iterations, %s, %s elapsed", done, phase, elapsed), Phase: phase})
	}
	return append(out, session.FitProgress{Text: "fit m with hmc: 100/100 iterations (100%), done, 1m0s elapsed", Phase: "done", Final: true})
}

// TestProgressNotTerminal: in a log, the progress of a fit is a line at
// the start, at each phase, every 10 s and at the end, never the same line
// twice (issue 17: the same "0/3 … 0s elapsed" line about 100 times).
func TestProgressNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := &progressPrinter{w: &buf, now: func() time.Time { return clock }, every: progressEvery, width: 80}
	for _, s := range fitStates() {
		p.show(s)
		clock = clock.Add(250 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// starting, warm-up, sampling (at 10 s), 20 s, 30 s, 40 s, 50 s, done.
	if len(lines) != 8 {
		t.Errorf("%d lines, want 8:\n%s", len(lines), buf.String())
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("line printed twice: %q", l)
		}
		seen[l] = true
	}
	if !strings.Contains(lines[0], "starting") || !strings.Contains(lines[len(lines)-1], "done") {
		t.Errorf("first %q, last %q", lines[0], lines[len(lines)-1])
	}
}

// TestProgressTerminal: on a terminal the progress is one line rewritten in
// place, cut to the terminal's width, ended once when the fit ends; a note
// (an interrupt) ends the line first.
func TestProgressTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf, terminal: true, width: 40, now: time.Now, every: progressEvery}
	states := fitStates()
	for _, s := range states[:100] {
		p.show(s)
	}
	p.note("copulang: interrupt")
	for _, s := range states[100:] {
		p.show(s)
	}
	out := buf.String()
	if got := strings.Count(out, "\r"); got != len(states) {
		t.Errorf("%d carriage returns for %d states", got, len(states))
	}
	if got := strings.Count(out, "\x1b[K"); got != len(states) {
		t.Errorf("%d clear-to-end-of-line for %d states", got, len(states))
	}
	if got := strings.Count(out, "\n"); got != 3 {
		t.Errorf("%d line ends, want 3 (before the note, after it, at the end):\n%q", got, out)
	}
	for _, seg := range strings.Split(out, "\r") {
		line, _, _ := strings.Cut(strings.TrimSuffix(seg, "\x1b[K"), "\x1b[K")
		if n := len([]rune(line)); n > 39 {
			t.Errorf("line of %d runes on a 40-column terminal: %q", n, line)
		}
	}
}
