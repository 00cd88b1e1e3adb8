package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/copulang/copulang/kernel/internal/zmtp"
	"github.com/copulang/copulang/session"
)

// fakeEngine is a test stand-in for the session. Cells:
//
//	sleep        waits until interrupted, then fails with KeyboardInterrupt
//	wait MS      sleeps MS milliseconds, ignoring the context, echoes "waited"
//	panic        panics
//	error MSG    fails with ValueError MSG
//	slowerror    sleeps 300 ms, then fails with ValueError
//	stream TEXT  writes TEXT to stdout and "warning" to stderr
//	spam N SIZE  writes N stdout lines of SIZE bytes
//	display      displays "first" under id d1, then updates it to "second"
//	progress S…  shows the progress states S… (words; "_" stands for a
//	             blank, "note" writes "note\n" to stdout instead), the last
//	             final, as the session does: to an output that is a
//	             session.ProgressWriter, else as a display updated in place
//	count        the execution count the kernel gave the cell, as "cell N"
//	(empty)      no result
//	anything else: the execute_result is the code as text/plain
type fakeEngine struct{}

// fakeWords are the names the fake engine completes and documents.
func fakeWords() []string {
	return []string{"data", "explain", "fit", "fitted", "model", "simulate", "summary"}
}

func (fakeEngine) ExecuteCell(ctx context.Context, count int, code string, out session.Output) (session.MimeBundle, error) {
	cmd, arg, _ := strings.Cut(code, " ")
	switch cmd {
	case "sleep":
		<-ctx.Done()
		return nil, &session.Error{Name: "KeyboardInterrupt", Value: "interrupted", Traceback: []string{"KeyboardInterrupt: interrupted"}}
	case "wait":
		ms, _ := strconv.Atoi(arg)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return session.MimeBundle{"text/plain": "waited"}, nil
	case "count":
		return session.MimeBundle{"text/plain": fmt.Sprintf("cell %d", count)}, nil
	case "panic":
		panic("boom")
	case "error":
		return nil, &session.Error{Name: "ValueError", Value: arg, Traceback: []string{"ValueError: " + arg, "  at line 1"}}
	case "slowerror":
		time.Sleep(300 * time.Millisecond)
		return nil, &session.Error{Name: "ValueError", Value: "slow", Traceback: []string{"ValueError: slow"}}
	case "stream":
		out.Stream("stdout", arg+"\n")
		out.Stream("stderr", "warning\n")
		return nil, nil
	case "spam":
		var n, size int
		fmt.Sscan(arg, &n, &size)
		line := strings.Repeat("x", max(size-1, 0)) + "\n"
		for i := 0; i < n; i++ {
			out.Stream("stdout", strconv.Itoa(i)+":"+line)
		}
		return nil, nil
	case "page":
		out.(session.Pager).Page(session.MimeBundle{"text/plain": "paged " + arg})
		return nil, nil
	case "display":
		out.Display(session.MimeBundle{"text/plain": "first"}, "d1")
		out.UpdateDisplay(session.MimeBundle{"text/plain": "second"}, "d1")
		return nil, nil
	case "progress":
		states := strings.Fields(arg)
		shown := false
		for i, st := range states {
			if st == "note" {
				out.Stream("stdout", "note\n")
				continue
			}
			text := strings.ReplaceAll(st, "_", " ")
			final := i == len(states)-1
			if pw, ok := out.(session.ProgressWriter); ok {
				pw.FitProgress(session.FitProgress{Text: text, Phase: "running", Final: final})
			} else if !shown {
				out.Display(session.MimeBundle{"text/plain": text}, "p1")
				shown = true
			} else {
				out.UpdateDisplay(session.MimeBundle{"text/plain": text}, "p1")
				// As the session's progress does (jobProgress.send).
				if m, ok := out.(session.ProgressMirror); ok {
					m.MirrorProgress(session.FitProgress{Text: text, Phase: "running", Final: final})
				}
			}
		}
		return nil, nil
	case "":
		return nil, nil
	}
	return session.MimeBundle{"text/plain": code}, nil
}

// wordAt returns the byte range of the identifier ending at (complete) or
// around (inspect) cursor.
func wordAt(code string, cursor int, around bool) (start, end int) {
	isWord := func(r byte) bool { return r < 0x80 && (unicode.IsLetter(rune(r)) || r == '_') }
	start, end = cursor, cursor
	for start > 0 && isWord(code[start-1]) {
		start--
	}
	for around && end < len(code) && isWord(code[end]) {
		end++
	}
	return start, end
}

func (fakeEngine) Complete(code string, cursor int) ([]string, int, int) {
	start, end := wordAt(code, cursor, false)
	var out []string
	for _, w := range fakeWords() {
		if strings.HasPrefix(w, code[start:end]) {
			out = append(out, w)
		}
	}
	return out, start, end
}

func (fakeEngine) Inspect(code string, cursor, detail int) (session.MimeBundle, bool) {
	start, end := wordAt(code, cursor, true)
	w := code[start:end]
	for _, known := range fakeWords() {
		if w == known {
			return session.MimeBundle{"text/plain": fmt.Sprintf("%s: documentation (detail %d)", w, detail)}, true
		}
	}
	return nil, false
}

func (fakeEngine) IsComplete(code string) (string, string) {
	open := strings.Count(code, "{") - strings.Count(code, "}")
	switch {
	case open > 0:
		return "incomplete", "  "
	case open < 0:
		return "invalid", ""
	}
	return "complete", ""
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testKernel is a kernel served in-process.
type testKernel struct {
	k        *kernel
	conn     ConnectionInfo
	connFile string
	logs     *syncBuffer
	done     chan struct{} // closed when run returns
	err      error         // what run returned
	cancel   context.CancelFunc
}

// wait waits up to timeout for the kernel to stop and returns run's error.
func (tk *testKernel) wait(timeout time.Duration) (err error, stopped bool) {
	select {
	case <-tk.done:
		return tk.err, true
	case <-time.After(timeout):
		return nil, false
	}
}

// freePorts returns n TCP ports free on 127.0.0.1 at the time of the call.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var lns []net.Listener
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

// startKernel serves engine on a fresh connection file ("tcp" or "ipc"
// transport, key "" for unsigned messages) and stops it at the end of the
// test.
func startKernel(t testing.TB, transport, key string, engine Engine, opts zmtp.Options) *testKernel {
	t.Helper()
	dir := t.TempDir()
	ci := ConnectionInfo{Transport: transport, SignatureScheme: "hmac-sha256", Key: key, KernelName: "copulang"}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var (
		k   *kernel
		err error
	)
	for attempt := 0; attempt < 3; attempt++ { // a free port may be taken before we bind it
		if transport == "ipc" {
			ci.IP = filepath.Join(dir, "kernel")
			ci.ShellPort, ci.IOPubPort, ci.StdinPort, ci.ControlPort, ci.HBPort = 1, 2, 3, 4, 5
		} else {
			p := freePorts(t, 5)
			ci.IP = "127.0.0.1"
			ci.ShellPort, ci.IOPubPort, ci.StdinPort, ci.ControlPort, ci.HBPort = p[0], p[1], p[2], p[3], p[4]
		}
		if k, err = newKernel(ci, engine, DefaultInfo("0.0.0-test"), log, opts); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(ci, "", "  ")
	connFile := filepath.Join(dir, "kernel.json")
	if err := os.WriteFile(connFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tk := &testKernel{k: k, conn: ci, connFile: connFile, logs: logs, done: make(chan struct{}), cancel: cancel}
	go func() {
		tk.err = k.run(ctx)
		close(tk.done)
	}()
	t.Cleanup(func() {
		cancel()
		if _, ok := tk.wait(10 * time.Second); !ok {
			t.Error("kernel did not stop within 10 s of cancellation")
		}
		if t.Failed() {
			t.Logf("kernel log:\n%s", tail(logs.String(), 60))
		}
	})
	return tk
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

const python = "/usr/bin/python3"

// requirePython skips the test unless python3 can import the modules; with
// CI=true it fails instead. Under -short it skips: these tests take most of
// the package's time.
func requirePython(t testing.TB, modules ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a real Jupyter client under " + python + ": skipped under -short")
	}
	args := []string{"-c", "import " + strings.Join(modules, ", ")}
	if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
		msg := fmt.Sprintf("%s cannot import %s (%v: %s); install them with: apt-get install -y jupyter-client jupyter-console python3-nbclient jupyter-nbconvert python3-ipykernel",
			python, strings.Join(modules, ", "), err, strings.TrimSpace(string(out)))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// Evaluate evaluates user_expressions like cells without side effects:
// "error MSG" fails with ValueError MSG, anything else echoes itself.
func (fakeEngine) Evaluate(ctx context.Context, expr string) (session.MimeBundle, error) {
	if msg, ok := strings.CutPrefix(expr, "error "); ok {
		return nil, &session.Error{Name: "ValueError", Value: msg, Traceback: []string{"ValueError: " + msg}}
	}
	return session.MimeBundle{"text/plain": expr}, nil
}
