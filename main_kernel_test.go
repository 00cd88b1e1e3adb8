package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/session"
)

// python is Debian's interpreter, which has the Jupyter client packages.
const python = "/usr/bin/python3"

const jupyterHint = "apt-get install -y jupyter-client jupyter-console python3-nbclient jupyter-nbconvert python3-ipykernel"

// requirePython skips the test unless python can import the modules; with
// CI=true a missing client is a failure. Under -short it skips.
func requirePython(t *testing.T, modules ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a real Jupyter client under " + python + ": skipped under -short")
	}
	out, err := exec.Command(python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("%s cannot import %s (%v: %s); install them with: %s",
		python, strings.Join(modules, ", "), err, strings.TrimSpace(string(out)), jupyterHint)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// installedKernel builds copulang, installs its kernelspec under a
// temporary prefix, and returns the environment in which Jupyter finds that
// kernelspec and nothing from the user's own Jupyter directories.
func installedKernel(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "copulang")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	if out, err := exec.Command(bin, "install", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("copulang install --prefix: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "JUPYTER_") || strings.HasPrefix(kv, "HOME=")
	})
	return append(env,
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(home, ".jupyter"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, ".local", "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"),
		"HOME="+home,
	)
}

// jupyterClient returns the command that runs a Jupyter client with the
// installed kernel's environment env (installedKernel). When ctx ends
// first, every process started with a connection file in env's runtime
// directory — the kernels the client launched — gets SIGQUIT before the
// client is killed: a Go kernel then prints every goroutine's stack to the
// stderr it shares with the client, so the output of a hung session shows
// what the kernel was doing. Wait stops waiting for the output 10 s after
// the client ends, even if a process it started still holds it.
func jupyterClient(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Cancel = func() error {
		for _, kv := range env {
			if dir, ok := strings.CutPrefix(kv, "JUPYTER_RUNTIME_DIR="); ok {
				signalStartedFrom(dir, syscall.SIGQUIT)
			}
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// signalStartedFrom sends sig to every process whose command line names
// something in dir (on systems with /proc; elsewhere to none).
func signalStartedFrom(dir string, sig syscall.Signal) {
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(dir+string(filepath.Separator))) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, sig)
		}
	}
}

// TestKernelRunsSession drives the installed kernel, running the real
// session, with jupyter_client: declarations, completion of members and
// columns, inspection, is_complete, a fit with live progress, summary and
// plot bundles, an error traceback, and the interrupt of a long fit, which
// must be answered within 1 s and keep the draws.
func TestKernelRunsSession(t *testing.T) {
	requirePython(t, "jupyter_client")
	env := installedKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := jupyterClient(ctx, env, python, "testdata/session_driver.py")
	cmd.Dir = t.TempDir()
	cmd.Args[1], _ = filepath.Abs("testdata/session_driver.py")
	out, err := cmd.CombinedOutput()
	t.Logf("driver output:\n%s", out)
	if err != nil || !strings.Contains(string(out), "ALL PASSED") {
		t.Fatalf("driver failed: %v", err)
	}
}

// TestConsoleRunsSession pipes a short session into `jupyter console
// --simple-prompt` and checks that results and a positioned error reach
// the terminal.
func TestConsoleRunsSession(t *testing.T) {
	requirePython(t, "jupyter_console")
	env := installedKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := jupyterClient(ctx, env, python, "-m", "jupyter_console", "--simple-prompt", "--kernel", "copulang")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		"data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 1)",
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }",
		"fit m with gibbs, iter = 200, warmup = 50, chains = 1, seed = 1",
		"summary m.C",
		"model q { Y = sim; Z ~ GausianCopula(C); Y ordinal Z }",
		"exit",
		"summary after_exit", // never runs: exit ends the console
	}, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if ctx.Err() != nil {
		t.Fatalf("jupyter console did not finish in 2 minutes (the kernel's goroutines, if it was still running, are at the end):\n%s", text)
	}
	if err != nil {
		t.Fatalf("jupyter console: %v\n%s", err, text)
	}
	for _, want := range []string{"data sim: 100 rows", "fit m with gibbs", "ess_bulk", "C[Y1,Y2]", "did you mean GaussianCopula?"} {
		if !strings.Contains(text, want) {
			t.Errorf("console output lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"unknown name exit", "after_exit"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("console output has %q: exit did not end the console:\n%s", unwanted, text)
		}
	}
}

// TestKernelLogLevel starts `copulang kernel` and stops it with SIGTERM: by
// default it writes nothing to stderr (a jupyter console user's terminal);
// --log-level info shows its lifecycle, and --log-file sends the log to a
// file instead.
func TestKernelLogLevel(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "copulang")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	conn := filepath.Join(dir, "kernel.json")
	ci := fmt.Sprintf(`{"transport": "ipc", "ip": %q, "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
		"control_port": 4, "hb_port": 5, "signature_scheme": "hmac-sha256", "key": "k"}`, filepath.Join(dir, "k"))
	if err := os.WriteFile(conn, []byte(ci), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "kernel.log")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"kernel", "-f", conn}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for { // listening once the heartbeat socket exists
			if _, err := os.Stat(filepath.Join(dir, "k-5")); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("kernel %v: %v\n%s", args, err, stderr.String())
		}
		return stderr.String()
	}
	if got := run(); got != "" {
		t.Errorf("default level wrote to stderr:\n%s", got)
	}
	if got := run("--log-level", "info"); !strings.Contains(got, `msg="kernel started"`) {
		t.Errorf("--log-level info: stderr lacks the start record:\n%s", got)
	}
	if got := run("--log-level", "debug", "--log-file", logFile); got != "" {
		t.Errorf("--log-file: stderr not empty:\n%s", got)
	}
	if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "kernel stopped") {
		t.Errorf("log file lacks the stop record:\n%s", b)
	}
}

// TestUntilOrphaned checks the client watch with a stand-in test: the
// context ends, with errOrphaned as its cause, once the client is gone, and
// not before.
func TestUntilOrphaned(t *testing.T) {
	var gone atomic.Bool
	ctx, stop := untilOrphaned(context.Background(), gone.Load, time.Millisecond)
	defer stop()
	select {
	case <-ctx.Done():
		t.Fatal("stopped while the parent stayed")
	case <-time.After(50 * time.Millisecond):
	}
	gone.Store(true)
	select {
	case <-ctx.Done():
		if !errors.Is(context.Cause(ctx), errOrphaned) {
			t.Errorf("cause %v, want errOrphaned", context.Cause(ctx))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5 s after the parent changed")
	}
}

// TestKernelExitsWithItsClient starts the kernel as a Jupyter client does
// (JPY_PARENT_PID set) from a shell that exits at once: the kernel, handed
// to another parent, stops by itself within a few seconds, and says why in
// its log. A kernel started without JPY_PARENT_PID is left running.
func TestKernelExitsWithItsClient(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "copulang")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	start := func(name string, jupyter bool) (pid int, logFile string) {
		t.Helper()
		conn := filepath.Join(dir, name+".json")
		ci := fmt.Sprintf(`{"transport": "ipc", "ip": %q, "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
		"control_port": 4, "hb_port": 5, "signature_scheme": "hmac-sha256", "key": "k"}`, filepath.Join(dir, name))
		if err := os.WriteFile(conn, []byte(ci), 0o600); err != nil {
			t.Fatal(err)
		}
		logFile = filepath.Join(dir, name+".log")
		// The shell starts the kernel in the background, as the client
		// whose pid JPY_PARENT_PID holds when jupyter is set, prints its
		// pid and exits, orphaning it.
		script := `"$0" kernel -f "$1" --log-level info --log-file "$2" </dev/null >/dev/null 2>&1 & echo $!`
		if jupyter {
			script = "JPY_PARENT_PID=$$ " + script
		}
		sh := exec.Command("/bin/sh", "-c", script, bin, conn, logFile)
		sh.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "JPY_PARENT_PID=") })
		out, err := sh.Output()
		if err != nil {
			t.Fatal(err)
		}
		if pid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			t.Fatal(err)
		}
		return pid, logFile
	}
	// running reports whether pid is a live process (not gone, not a zombie
	// waiting to be reaped).
	running := func(pid int) bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return syscall.Kill(pid, 0) == nil
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		return len(f) > 0 && f[0] != "Z"
	}
	orphan, logFile := start("orphan", true)
	kept, _ := start("kept", false)
	defer syscall.Kill(kept, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for running(orphan) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if running(orphan) {
		syscall.Kill(orphan, syscall.SIGKILL)
		t.Fatal("the kernel kept running 10 s after the client that started it exited")
	}
	if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "has exited") || !strings.Contains(string(b), "kernel stopped") {
		t.Errorf("the kernel's log does not say why it stopped:\n%s", b)
	}
	if !running(kept) {
		t.Error("a kernel started without JPY_PARENT_PID stopped when its parent exited")
	}
}

// TestHighlightingWords checks that Notebook's highlighting comes from the
// language's lists: every statement keyword and the grammar's connectives
// are keywords, and with and iter are not Python's to colour.
func TestHighlightingWords(t *testing.T) {
	h := highlighting()
	for _, w := range append(dsl.StatementKeywords(), "with", "to", "vs") {
		if !slices.Contains(h.Keywords, w) {
			t.Errorf("keyword %s missing from %v", w, h.Keywords)
		}
	}
	for _, w := range []string{"hmc", "LKJ", "trace"} {
		if !slices.Contains(h.Builtins, w) {
			t.Errorf("builtin %s missing from %v", w, h.Builtins)
		}
	}
	if slices.Contains(h.Keywords, "iter") {
		t.Error("iter (a fit setting) highlighted as a keyword")
	}
	if h.Mode != "copulang" {
		t.Errorf("mode %q", h.Mode)
	}
}

// TestKernelConformance runs jupyter_kernel_test's KernelTests
// (testdata/conformance.py) against the installed copulang kernel and,
// for comparison, against ipykernel: copulang must pass every test, skip
// none, and so pass every test that ipykernel passes.
func TestKernelConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two kernels and runs two dozen protocol tests; skipped with -short")
	}
	requirePython(t, "jupyter_client", "ipykernel")
	if out, err := exec.Command(python, "-c", "import jupyter_kernel_test").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("%s cannot import jupyter_kernel_test (%v: %s); install it with: apt-get install -y python3-jupyter-kernel-test",
			python, err, strings.TrimSpace(string(out)))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	env := installedKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script, _ := filepath.Abs("testdata/conformance.py")
	cmd := jupyterClient(ctx, env, python, script, t.TempDir())
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("conformance.py: %v\n%s\n%s", err, out, stderr.String())
	}
	var res map[string]map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("conformance.py output %q: %v\n%s", out, err, stderr.String())
	}
	cop, ipy := res["copulang"], res["ipykernel"]
	if len(cop) < 12 {
		t.Errorf("only %d tests ran against copulang", len(cop))
	}
	for _, name := range slices.Sorted(maps.Keys(cop)) {
		t.Logf("%-22s copulang: %-8s ipykernel: %s", name, cop[name], ipy[name])
		if cop[name] != "ok" {
			t.Errorf("%s: %s (ipykernel: %s)", name, cop[name], ipy[name])
		}
	}
	for name, outcome := range ipy {
		if outcome == "ok" && cop[name] != "ok" {
			t.Errorf("ipykernel passes %s, copulang: %q", name, cop[name])
		}
	}
}

// tableOutput keeps the text and HTML of what a cell displays.
type tableOutput struct{ texts, htmls []string }

func (o *tableOutput) Stream(name, text string) {}
func (o *tableOutput) Display(b session.MimeBundle, id string) {
	t, _ := b["text/plain"].(string)
	h, _ := b["text/html"].(string)
	o.texts, o.htmls = append(o.texts, t), append(o.htmls, h)
}
func (o *tableOutput) UpdateDisplay(b session.MimeBundle, id string) {}

// TestKernelEngineElidesTables: the kernel's session shows at most
// session.KernelTableRows rows of a table's HTML (here of 2,000 imputed
// cells), so that a notebook is not sent megabytes of table, and of its
// text, which jupyter console prints, the first 20 when it has more than
// session.KernelTextRows (it printed every cell, 632 of the GSS's).
func TestKernelEngineElidesTables(t *testing.T) {
	e, err := newEngine()
	if err != nil {
		t.Fatal(err)
	}
	var out tableOutput
	_, err = e.ExecuteCell(context.Background(), 1, "data d = simulate(FullCopula(p = 2), n = 10000, levels = 3, seed = 1, missing = 0.1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }\n"+
		"fit m with gibbs, iter = 10, warmup = 2, chains = 1\n"+
		"impute m", &out)
	if err != nil {
		t.Fatal(err)
	}
	html := out.htmls[len(out.htmls)-1]
	// the header, the rows and a row of "…"
	if rows := strings.Count(html, "<tr>"); rows != 1+session.KernelTableRows+1 || !strings.Contains(html, fmt.Sprintf("%d of ", session.KernelTableRows)) {
		t.Errorf("impute of about 2,000 cells in the kernel shows %d rows of HTML", rows)
	}
	last := out.texts[len(out.texts)-1]
	lines := strings.Split(strings.TrimSpace(last), "\n")
	// the caption, the header, the rows, a row of "…" and what was left out
	if len(lines) != 2+20+2 || !strings.HasPrefix(lines[len(lines)-1], "(the first 20 of ") {
		t.Errorf("impute of about 2,000 cells in the kernel shows %d lines of text, ending %q", len(lines), lines[len(lines)-1])
	}
}
