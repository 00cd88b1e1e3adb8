package notebooks

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestConsoleShowsFigureText draws a figure in jupyter console with its
// image viewer turned off, as the README tells a terminal without one to:
// the console prints the figure's one-line text, and nothing of its HTML or
// images.
func TestConsoleShowsFigureText(t *testing.T) {
	cmd := consoleCommand(t, 2*time.Minute, "-m", "jupyter_console", "--kernel", "copulang", "--simple-prompt",
		"--ZMQTerminalInteractiveShell.image_handler=None")
	cmd.Stdin = strings.NewReader("data sim = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nplot heatmap sim\nexit\n")
	out, err := cmd.CombinedOutput()
	t.Logf("console output:\n%s", out)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	if want := `Heatmap of "true C of sim": 3×3`; !strings.Contains(string(out), want) {
		t.Errorf("the console does not print the figure's text %q", want)
	}
	for _, leak := range []string{"<img", "data:image", "base64"} {
		if strings.Contains(string(out), leak) {
			t.Errorf("the console prints %q", leak)
		}
	}
}

// TestConsolePrintsLongTablesShort: jupyter console prints the first 20
// of a data set's imputed cells (here about 480) and the line saying how
// many are left out and how to write them all, not every cell, which
// flooded the terminal with 632 lines for the GSS.
func TestConsolePrintsLongTablesShort(t *testing.T) {
	cmd := consoleCommand(t, 2*time.Minute, "-m", "jupyter_console", "--kernel", "copulang", "--simple-prompt")
	cmd.Stdin = strings.NewReader("data sim = simulate(FullCopula(p = 4), n = 600, levels = 3, seed = 1, missing = 0.2)\n" +
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\n" +
		"impute m\nexit\n")
	out, err := cmd.CombinedOutput()
	t.Logf("console output:\n%s", out)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	text := string(out)
	if !regexp.MustCompile(`\(the first 20 of \d+ rows shown, \d+ left out: impute m to "cells.csv" writes every cell\)`).MatchString(text) {
		t.Errorf("the console does not say which imputed cells it shows")
	}
	if n := strings.Count(text, "\n"); n > 60 {
		t.Errorf("the console printed %d lines", n)
	}
}

// TestConsoleShowsFitProgress runs jupyter console in its default
// (prompt_toolkit) mode under a pseudo-terminal of 80 columns
// (testdata/pty_console.py), as a statistician at a terminal does: a fit
// long enough for several states of its progress shows them on one line,
// each rewriting the last (a carriage return, no line end) within 79
// columns, the last state ending the line, and then the fit's report and
// the summary's table. It showed the first state ("starting") and nothing
// more until the report, since the console ignores display updates.
func TestConsoleShowsFitProgress(t *testing.T) {
	script, _ := filepath.Abs("testdata/pty_console.py")
	cmd := consoleCommand(t, 2*time.Minute, script,
		"data sim = simulate(FullCopula(p = 6), n = 1000, levels = 4, seed = 2)",
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }",
		"fit m with gibbs, iter = 2500, warmup = 500, chains = 2, seed = 1",
		"summary m.C")
	out, err := cmd.Output()
	text := string(out)
	t.Logf("terminal output:\n%q", text)
	if err != nil {
		t.Fatalf("pty_console.py: %v", err)
	}
	const first, last = "fit m with gibbs: starting, 2 chains × 3000 iterations", "fit m with gibbs: 6000/6000 iterations (100%), done, "
	from, to := strings.Index(text, first), strings.Index(text, last)
	if from < 0 || to < from {
		t.Fatalf("the terminal shows no first state %q followed by the last %q", first, last)
	}
	line := text[from:to]
	if strings.Contains(line, "\n") {
		t.Errorf("the progress takes more than one line: %q", line)
	}
	states := strings.Split(line, "\r")
	counts := map[string]bool{}
	for _, m := range regexp.MustCompile(`fit m with gibbs: (\d+)/6000 iterations`).FindAllStringSubmatch(line, -1) {
		counts[m[1]] = true
	}
	if len(counts) < 2 {
		t.Errorf("%d states with iterations done before the last (%d states in all), want more than one: %q", len(counts), len(states), line)
	}
	for _, s := range states {
		if n := utf8.RuneCountInString(s); n > 79 {
			t.Errorf("a state of %d columns on an 80-column terminal: %q", n, s)
		}
	}
	end, _, _ := strings.Cut(text[to:], "\n")
	if !regexp.MustCompile(`^fit m with gibbs: 6000/6000 iterations \(100%\), done, [0-9.]+m?s elapsed *\r\r?$`).MatchString(end) {
		t.Errorf("the last state does not end the line: %q", end)
	}
	report := strings.Index(text, "fit m with gibbs: 2 chains × 3000 iterations (500 warm-up) in ")
	table := strings.Index(text, "C[Y5,Y6]")
	if report < to || table < report {
		t.Errorf("the report (at %d) and the summary's table (at %d) do not follow the progress (at %d)", report, table, to)
	}
	if strings.Contains(text, "no live progress") {
		t.Error("the console is told that it shows no live progress")
	}
}

// TestConsoleSaysWhenCtrlCLeavesAFitRunning presses Ctrl-C in jupyter
// console's default mode during a long fit (testdata/pty_console_ctrl_c.py).
// Debian's console 6.4.4 sends the kernel nothing then: prompt_toolkit has
// put Python's SIGINT handler back over the console's, which would have
// interrupted the kernel, so the console prints "KeyboardInterrupt escaped
// interact()" and its next prompt while the fit runs on, with ipykernel too
// (jupyter/jupyter_console#296). A cell typed there waited for the fit with
// no word why; the kernel now sees the console ask about that cell while
// its fit runs and says that the fit runs on and which process kill -INT
// stops, and the script does so: the fit stops with its draws kept. A
// console that forwards Ctrl-C (as jupyter/jupyter_console#295 would make
// it) never shows that prompt during the fit: the script then waits in vain
// for the note, and this test must learn the fixed console's way. The
// note also tells of the console's warning of an is_complete_request that
// follows (kernel/console.go, runsOnNote), which the test pins.
func TestConsoleSaysWhenCtrlCLeavesAFitRunning(t *testing.T) {
	text := runCtrlCConsole(t)
	escaped := strings.Index(text, "KeyboardInterrupt escaped interact()")
	if escaped < 0 {
		t.Fatal("the console did not say that Ctrl-C escaped its loop: has it learned to interrupt the kernel?")
	}
	note := regexp.MustCompile(`\(The cell above still runs in the kernel and the next waits for it: Ctrl-C in\r?\n` +
		`jupyter console 6\.4 to 6\.6 does not reach the kernel \(jupyter_console#296; it\r?\n` +
		`does with --simple-prompt\)\. kill -INT \d+ stops the cell as an interrupt\r?\n` +
		`does: a fit keeps its draws; a cell sent meanwhile is then not run\. Having\r?\n` +
		`stopped waiting for this cell, the console then reads one reply late and warns\r?\n` +
		`at its next Enter that the kernel did not respond properly to an\r?\n` +
		`is_complete_request; nothing is lost\.\)`)
	at := note.FindAllStringIndex(text, -1)
	if len(at) != 1 || at[0][0] < escaped {
		t.Fatalf("the note shows %d times, want once after the console's KeyboardInterrupt (at %d): %v", len(at), escaped, at)
	}
	report := regexp.MustCompile(`KeyboardInterrupt: interrupted fit m: \d+ post-warm-up draws kept over 1 chain`).FindStringIndex(text)
	if report == nil || report[0] < at[0][1] {
		t.Errorf("no report of the fit interrupted, with its draws kept, after the note (at %d): %v", at[0][1], report)
	}
	// The progress states sent while the console showed its prompt are
	// printed at the Enter that accepts the next cell, before
	// prompt_toolkit draws that prompt again, from where it takes the
	// cursor to be: it drew it after the state's text, as "fit m with
	// gibbs: 6029/1000100 iterations (1%), sampling, 251msIn [4]: summary
	// m.C". A state leaves the cursor at its line's start now.
	if !regexp.MustCompile(`fit m with gibbs: \d+/\d+ iterations`).MatchString(text[escaped:at[0][0]]) {
		t.Fatal("no progress state printed between Ctrl-C and the note: the script typed the next cell too soon to see where the prompt goes")
	}
	prompt := regexp.MustCompile(`In \[\d+\]: `)
	rows := terminalRows(text)
	for _, row := range rows {
		if at := prompt.FindStringIndex(row); at != nil && at[0] > 0 {
			t.Errorf("a prompt drawn after other text on its row: %q", row)
		}
	}
	if !slices.ContainsFunc(rows, func(row string) bool { return strings.HasPrefix(row, "In [4]: summary m.C") }) {
		t.Errorf("no row of the terminal starts with the next cell's prompt: %q", rows)
	}
	// The warning the note tells of, at the Enter of exit: the summary's
	// run_cell took the fit's error reply for its own, and exit's
	// is_complete_request got the summary's "aborted" reply (runsOnNote
	// says why no reply of the kernel avoids it). A console that matches
	// its replies would not warn: the note must then say less.
	warning := regexp.MustCompile(`UserWarning: The kernel did not respond properly to an is_complete_request: \{[^\n]*'msg_type': 'execute_reply'[^\n]*'content': \{'status': 'aborted'\}`)
	if n := len(warning.FindAllStringIndex(text, -1)); n != 1 || strings.Count(text, "UserWarning: The kernel did not respond properly") != 1 {
		t.Errorf("the console warned %d times of the aborted reply (%d warnings in all), want once", n, strings.Count(text, "UserWarning: The kernel did not respond properly"))
	}
}

// TestSimplePromptConsoleShowsFitProgress runs a fit in jupyter console
// --simple-prompt, which the kernel cannot tell from a notebook and which
// ignores a display's updates: it showed the progress display's first
// state, saying that no live progress shows there, until the report. The
// kernel sends the states after the first beside the display, under a
// parent header that only a console's routing by session takes (see
// kernel/mirror.go): the first state stays on its line, then the later
// states rewrite one line, the last ending it, and the report follows.
func TestSimplePromptConsoleShowsFitProgress(t *testing.T) {
	cmd := consoleCommand(t, 2*time.Minute, "-m", "jupyter_console", "--kernel", "copulang", "--simple-prompt")
	cmd.Stdin = strings.NewReader("data sim = simulate(FullCopula(p = 6), n = 1000, levels = 4, seed = 2)\n" +
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 2500, warmup = 500, chains = 2, seed = 1\nexit\n")
	out, err := cmd.Output()
	text := string(out)
	t.Logf("console output:\n%q", text)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	const first = "fit m with gibbs: starting, 2 chains × 3000 iterations\n"
	from := strings.Index(text, first)
	to := strings.Index(text, "fit m with gibbs: 6000/6000 iterations (100%), done, ")
	if from < 0 || to < from {
		t.Fatalf("the console shows no first state %q on its line followed by the last", first)
	}
	line := text[from+len(first) : to]
	if strings.Contains(line, "\n") {
		t.Errorf("the states after the first take more than one line: %q", line)
	}
	counts := map[string]bool{}
	for _, m := range regexp.MustCompile(`fit m with gibbs: (\d+)/6000 iterations`).FindAllStringSubmatch(line, -1) {
		counts[m[1]] = true
	}
	if len(counts) < 2 {
		t.Errorf("%d states with iterations done before the last, want more than one: %q", len(counts), line)
	}
	end, _, _ := strings.Cut(text[to:], "\n")
	if !regexp.MustCompile(`^fit m with gibbs: 6000/6000 iterations \(100%\), done, [0-9.]+m?s elapsed *$`).MatchString(end) {
		t.Errorf("the last state does not end the line: %q", end)
	}
	if report := strings.Index(text, "fit m with gibbs: 2 chains × 3000 iterations (500 warm-up) in "); report < to {
		t.Errorf("the report (at %d) does not follow the progress (at %d)", report, to)
	}
	if strings.Contains(text, "no live progress") {
		t.Error("the console is told that it shows no live progress")
	}
}

// TestSimplePromptConsoleForwardsCtrlC: jupyter console --simple-prompt
// keeps its own SIGINT handler, which interrupts the kernel, so there
// Ctrl-C during a fit stops it with its draws kept, and the next cell runs
// on them, as the README says (testdata/pty_console_ctrl_c.py
// --simple-prompt). The kernel's note on a cell left running never shows.
func TestSimplePromptConsoleForwardsCtrlC(t *testing.T) {
	text := runCtrlCConsole(t, "--simple-prompt")
	report := regexp.MustCompile(`KeyboardInterrupt: interrupted fit m: \d+ post-warm-up draws kept over 1 chain`).FindStringIndex(text)
	if report == nil {
		t.Fatal("no report of the fit interrupted with its draws kept")
	}
	if table := strings.Index(text, "C[Y2,Y3]"); table < report[1] {
		t.Errorf("the next cell's table (at %d) does not follow the report (at %d)", table, report[1])
	}
	for _, s := range []string{"KeyboardInterrupt escaped interact()", "still runs in the kernel"} {
		if strings.Contains(text, s) {
			t.Errorf("the terminal shows %q", s)
		}
	}
}

// consoleCommand returns the command python args, run in a directory of
// its own with the kernel installed (kernelEnv) and killed after timeout,
// for a test that drives jupyter console: the test is skipped, with how to
// install it, where jupyter console is absent (a failure when CI=true).
func consoleCommand(t *testing.T, timeout time.Duration, args ...string) *exec.Cmd {
	t.Helper()
	requireTool(t, "jupyter console under "+python, installHint, func() error {
		return exec.Command(python, "-c", "import jupyter_console, pty").Run()
	})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Env, cmd.Dir = kernelEnv(t), t.TempDir()
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// longFitCells are the cells of the Ctrl-C tests: a fit of minutes, which
// the script stops within seconds, and a summary of its draws.
var longFitCells = []string{
	"data sim = simulate(FullCopula(p = 3), n = 200, levels = 3, seed = 1)",
	"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }",
	"fit m with gibbs, iter = 1000000, warmup = 100, chains = 1, seed = 1",
	"summary m.C",
}

// terminalRows returns the rows that out, written to a terminal of 80
// columns from its top left corner, leaves there, scrolled off or not,
// without trailing blanks: it follows the carriage returns, line feeds and
// backspaces, and prompt_toolkit's cursor moves (CSI A, B, C, D) and erases
// (CSI J, K); other escape sequences change nothing on the screen (colours,
// modes, cursor position requests). Lines do not wrap: prompt_toolkit turns
// wrapping off while it draws (CSI ?7l), and the kernel's progress states
// are shorter than a line.
func terminalRows(out string) []string {
	rows := [][]rune{nil}
	r, c := 0, 0
	csi := regexp.MustCompile(`^\x1b\[([0-?]*)[ -/]*([@-~])`)
	other := regexp.MustCompile(`^\x1b([()][0-9A-B]|[=>]|.)`)
	for i := 0; i < len(out); {
		if m := csi.FindStringSubmatch(out[i:]); m != nil {
			n := 1
			if v, err := strconv.Atoi(m[1]); err == nil {
				n = v
			}
			switch m[2] {
			case "A":
				r = max(0, r-n)
			case "B":
				r += n
			case "C":
				c = min(79, c+n)
			case "D":
				c = max(0, c-n)
			case "J", "K":
				for len(rows) <= r {
					rows = append(rows, nil)
				}
				if len(rows[r]) > c {
					rows[r] = rows[r][:c]
				}
				if m[2] == "J" {
					rows = rows[:r+1]
				}
			}
			i += len(m[0])
			continue
		}
		if m := other.FindString(out[i:]); m != "" {
			i += len(m)
			continue
		}
		ch, size := utf8.DecodeRuneInString(out[i:])
		i += size
		switch {
		case ch == '\r':
			c = 0
		case ch == '\n':
			r++
			for len(rows) <= r {
				rows = append(rows, nil)
			}
		case ch == '\b':
			c = max(0, c-1)
		case ch >= ' ':
			for len(rows) <= r {
				rows = append(rows, nil)
			}
			for len(rows[r]) <= c {
				rows[r] = append(rows[r], ' ')
			}
			rows[r][c] = ch
			c++
		}
	}
	text := make([]string, len(rows))
	for i, row := range rows {
		text[i] = strings.TrimRight(string(row), " ")
	}
	return text
}

// TestTerminalRows pins terminalRows on what prompt_toolkit and the
// kernel write.
func TestTerminalRows(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"abc\r\nde", []string{"abc", "de"}},
		{"fit: 1\rfit: 10\rfit: 5 \rfit: done\r\n", []string{"fit: done", ""}},
		{"In [4]: \r\r\n\r\r\n\x1b[2A\x1b[8Chi\x1b[0;38;5;28mx\x1b[?7l", []string{"In [4]: hix", "", ""}},
		{"In [4]: summary m.C\rfit m: 1/9 iterations, sampling\x1b[19D\x1b[JIn [4]: summary m.C\r\r\n", []string{"fit m: 1/9 iIn [4]: summary m.C", ""}},
		{"abcdef\x1b[3D\x1b[K\x08X\x1b[1Cy", []string{"abX y"}},
	} {
		if got := terminalRows(tc.out); !slices.Equal(got, tc.want) {
			t.Errorf("terminalRows(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// runCtrlCConsole runs testdata/pty_console_ctrl_c.py with the console's
// flags and longFitCells, and returns what the terminal showed (logged).
func runCtrlCConsole(t *testing.T, flags ...string) string {
	t.Helper()
	script, _ := filepath.Abs("testdata/pty_console_ctrl_c.py")
	args := append(append([]string{script}, flags...), longFitCells...)
	cmd := consoleCommand(t, 4*time.Minute, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	text := string(out)
	t.Logf("terminal output:\n%q", text)
	if err != nil {
		t.Fatalf("pty_console_ctrl_c.py %s: %v: %s", strings.Join(flags, " "), err, stderr.String())
	}
	return text
}
