package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
)

// isCompleteThenExecute asks whether code is complete and then executes
// it, as jupyter console does when Enter is pressed.
func (c *goClient) isCompleteThenExecute(code string) (*Message, []*Message) {
	c.t.Helper()
	id := c.send(c.shell, "is_complete_request", map[string]any{"code": code})
	c.reply(c.shellIn, id, 10*time.Second)
	c.drainIOPub(id)
	return c.execute(code)
}

// progressOutput is what a cell's iopub messages show of its progress: the
// stdout streams' text joined, and the display messages' types.
func progressOutput(msgs []*Message) (stdout string, displays []string) {
	for _, m := range msgs {
		switch m.Header.MsgType {
		case "stream":
			if contentField(m, "name") == "stdout" {
				stdout += contentField(m, "text")
			}
		case "display_data", "update_display_data":
			displays = append(displays, m.Header.MsgType)
		}
	}
	return stdout, displays
}

// TestConsoleProgressIsAStream: a client session that executes the code
// of its last is_complete_request, as jupyter console does on Enter, is a
// console, which ignores update_display_data. Its cells get their progress
// as stdout text rewriting one line (a carriage return before each state
// after the first and after each but the last, blanks over the rest of a
// longer state before, the last state ending the line) and no display; so does its next cell, executed
// without asking (prompt_toolkit's Esc-Enter), where other output ends the
// open line first. A session that never asked, or asked about other code
// (a program checking text), gets the display and its updates, as before.
func TestConsoleProgressIsAStream(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	const cell = "progress fit:_1 fit:_10 fit:_5 fit:_done"

	console := dialClient(t, tk)
	r, msgs := console.isCompleteThenExecute(cell)
	if st := contentField(r, "status"); st != "ok" {
		t.Fatalf("reply status %q", st)
	}
	stdout, displays := progressOutput(msgs)
	if want := "fit: 1\r\rfit: 10\r\rfit: 5 \r\rfit: done\n"; stdout != want || displays != nil {
		t.Errorf("console: stdout %q and displays %v, want %q and none", stdout, displays, want)
	}

	_, msgs = console.execute("progress fit:_1 note fit:_2 fit:_done")
	stdout, displays = progressOutput(msgs)
	if want := "fit: 1\r\nnote\nfit: 2\r\rfit: done\n"; stdout != want || displays != nil {
		t.Errorf("console's next cell: stdout %q and displays %v, want %q and none", stdout, displays, want)
	}

	long := strings.Repeat("x", 100)
	_, msgs = console.execute("progress " + long + " " + long + "_done")
	stdout, _ = progressOutput(msgs)
	if want := strings.Repeat("x", 78) + "…\r\r" + long + " done\n"; stdout != want {
		t.Errorf("console, a long line: stdout %q, want %q (cut to 79 columns but for the last)", stdout, want)
	}

	for name, c := range map[string]struct {
		client *goClient
		ask    string
	}{
		"never asked":         {dialClient(t, tk), ""},
		"asked about another": {dialClient(t, tk), "model m {"},
	} {
		if c.ask != "" {
			id := c.client.send(c.client.shell, "is_complete_request", map[string]any{"code": c.ask})
			c.client.reply(c.client.shellIn, id, 10*time.Second)
		}
		_, msgs := c.client.execute(cell)
		stdout, displays := progressOutput(msgs)
		want := []string{"display_data", "update_display_data", "update_display_data", "update_display_data"}
		if stdout != "" || strings.Join(displays, " ") != strings.Join(want, " ") {
			t.Errorf("%s: stdout %q and displays %v, want none and %v", name, stdout, displays, want)
		}
	}
}

// TestConsoleSessionsBounded: the kernel remembers at most
// maxConsoleSessions client sessions, forgetting the first seen; a session
// is a console once it executes the code it last asked about, and stays
// one when it executes other code.
func TestConsoleSessionsBounded(t *testing.T) {
	var c consoleSessions
	for i := range maxConsoleSessions + 1 {
		s := fmt.Sprint("session-", i)
		c.checkedCompleteness(s, "fit m")
		if c.executes(s, "fit n") {
			t.Fatalf("%s: a console after executing code it did not ask about", s)
		}
		if !c.executes(s, "fit m") || !c.executes(s, "summary m.C") {
			t.Fatalf("%s: not a console after executing the code it asked about", s)
		}
	}
	if c.executes("session-0", "summary m.C") {
		t.Error("the first session is remembered beyond the bound")
	}
	if !c.executes("session-1", "summary m.C") {
		t.Error("the second session is forgotten")
	}
	if len(c.checked) > maxConsoleSessions || len(c.console) > maxConsoleSessions {
		t.Errorf("%d and %d sessions remembered, want at most %d", len(c.checked), len(c.console), maxConsoleSessions)
	}
}

// TestConsoleToldItsCellRunsOn: a console that asks whether some text is
// complete while its own cell runs has left that cell behind (jupyter
// console 6.4 after Ctrl-C, which it does not forward: see
// consoleOutput.leftBehind). The running cell's output then says, once
// however often the console asks, that the cell runs on and which process
// kill -INT stops. Another client's question while it runs, and the
// console's question before its cell runs, leave the cell's output alone;
// so does a notebook's cell (no console), whoever asks.
func TestConsoleToldItsCellRunsOn(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	console, other := dialClient(t, tk), dialClient(t, tk)
	ask := func(c *goClient, code string) {
		t.Helper()
		id := c.send(c.shell, "is_complete_request", map[string]any{"code": code})
		c.reply(c.shellIn, id, 10*time.Second)
	}
	// runSleep executes a cell that runs until interrupted, calls during
	// once it runs, interrupts it and returns its stdout.
	runSleep := func(c *goClient, during func()) string {
		t.Helper()
		id := c.send(c.shell, "execute_request", map[string]any{"code": "sleep", "silent": false})
		var msgs []*Message
		for running := false; !running; {
			select {
			case m := <-c.iopubIn:
				if parentID(m) == id {
					msgs = append(msgs, m)
					running = m.Header.MsgType == "execute_input"
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cell did not start")
			}
		}
		during()
		c.send(c.control, "interrupt_request", map[string]any{})
		c.reply(c.shellIn, id, 10*time.Second)
		stdout, _ := progressOutput(append(msgs, c.collect(id, 10*time.Second)...))
		return stdout
	}

	ask(console, "sleep")
	stdout := runSleep(console, func() {
		ask(other, "summary m.C")
		ask(console, "summary m.C")
		ask(console, "summary m.C")
	})
	if want := runsOnNote(os.Getpid()); stdout != want {
		t.Errorf("the console's cell left behind: stdout %q, want the note once, %q", stdout, want)
	}
	if !strings.Contains(stdout, fmt.Sprintf("kill -INT %d ", os.Getpid())) {
		t.Errorf("the note does not name the kernel's process %d: %q", os.Getpid(), stdout)
	}

	ask(console, "sleep")
	if stdout := runSleep(console, func() { ask(other, "summary m.C") }); stdout != "" {
		t.Errorf("another client asked while the console's cell ran: stdout %q, want none", stdout)
	}

	if stdout := runSleep(other, func() { ask(other, "summary m.C") }); stdout != "" {
		t.Errorf("a notebook's cell, asked about by its client while it ran: stdout %q, want none", stdout)
	}
}

// TestProgressBesideTheDisplay: a client session not known for a console
// (a notebook, or jupyter console --simple-prompt, which the kernel cannot
// tell apart) gets its cell's progress as a display updated in place, as
// before, and each state after the first also as a stdout line rewritten
// in place, under a parent header that is the request's (its session
// included, by which jupyter console routes output) with a msg_id of its
// own, which a notebook's client, routing by msg_id, drops. Other output
// ends the line first. A silent cell, and a console's, get no such text.
func TestProgressBesideTheDisplay(t *testing.T) {
	tk := startKernel(t, "tcp", "key", fakeEngine{}, zmtp.DefaultOptions())
	// run executes code from c and returns its messages and those sent
	// beside them.
	run := func(c *goClient, code string, silent bool) (own, beside []*Message) {
		t.Helper()
		id := c.send(c.shell, "execute_request", map[string]any{"code": code, "silent": silent})
		c.reply(c.shellIn, id, 10*time.Second)
		deadline := time.After(10 * time.Second)
		for {
			select {
			case m := <-c.iopubIn:
				switch parentID(m) {
				case id:
					own = append(own, m)
					if m.Header.MsgType == "status" && contentField(m, "execution_state") == "idle" {
						return own, beside
					}
				case id + sideSuffix:
					var h Header
					json.Unmarshal(m.ParentHeader, &h)
					if h.Session != c.session || h.MsgType != "execute_request" {
						t.Errorf("the text beside is sent under session %q and type %q, want %q and execute_request", h.Session, h.MsgType, c.session)
					}
					beside = append(beside, m)
				}
			case <-deadline:
				t.Fatalf("no idle status for %s", id)
			}
		}
	}

	notebook := dialClient(t, tk)
	own, beside := run(notebook, "progress fit:_1 fit:_10 fit:_5 fit:_done", false)
	stdout, displays := progressOutput(own)
	if want := []string{"display_data", "update_display_data", "update_display_data", "update_display_data"}; stdout != "" || strings.Join(displays, " ") != strings.Join(want, " ") {
		t.Errorf("the cell's own output: stdout %q and displays %v, want none and %v", stdout, displays, want)
	}
	stdout, displays = progressOutput(beside)
	if want := "fit: 10\r\rfit: 5 \r\rfit: done\n"; stdout != want || displays != nil {
		t.Errorf("beside the display: stdout %q and displays %v, want %q and none", stdout, displays, want)
	}

	_, beside = run(notebook, "progress fit:_1 fit:_2 note fit:_3 fit:_done", false)
	if stdout, _ := progressOutput(beside); stdout != "fit: 2\r\n"+"fit: 3\r\rfit: done\n" {
		t.Errorf("other output between states: beside the display %q, want the line ended before it", stdout)
	}

	if _, beside = run(notebook, "progress fit:_1 fit:_10 fit:_done", true); len(beside) != 0 {
		t.Errorf("a silent cell: %d messages beside it", len(beside))
	}

	console := dialClient(t, tk)
	id := console.send(console.shell, "is_complete_request", map[string]any{"code": "progress fit:_1 fit:_10 fit:_done"})
	console.reply(console.shellIn, id, 10*time.Second)
	if _, beside = run(console, "progress fit:_1 fit:_10 fit:_done", false); len(beside) != 0 {
		t.Errorf("a console's cell: %d messages beside it", len(beside))
	}
}
