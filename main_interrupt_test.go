package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildCopulang builds the command into a temporary directory.
func buildCopulang(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "copulang")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// scriptRun is a `copulang run` of a script in its own directory, whose
// stderr lines are handed to a watcher as they come.
type scriptRun struct {
	dir    string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	stderr []string
}

func startScript(t *testing.T, bin, script string, watch func(line string, cmd *exec.Cmd)) *scriptRun {
	t.Helper()
	r := &scriptRun{dir: t.TempDir()}
	path := filepath.Join(r.dir, "analysis.cop")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	r.cmd = exec.CommandContext(ctx, bin, "run", path)
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			r.mu.Lock()
			r.stderr = append(r.stderr, sc.Text())
			r.mu.Unlock()
			watch(sc.Text(), r.cmd)
		}
	}()
	return r
}

// wait waits for the run and returns its exit status.
func (r *scriptRun) wait(t *testing.T) int {
	t.Helper()
	err := r.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("copulang run: %v", err)
	return -1
}

func (r *scriptRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.stderr, "\n")
}

// interruptOnce sends SIGINT the first time a line holds want.
func interruptOnce(t *testing.T, want string) func(string, *exec.Cmd) {
	var once sync.Once
	return func(line string, cmd *exec.Cmd) {
		if strings.Contains(line, want) {
			once.Do(func() {
				if err := syscall.Kill(cmd.Process.Pid, syscall.SIGINT); err != nil {
					t.Errorf("kill: %v", err)
				}
			})
		}
	}
}

const ctrlCScript = `data d = simulate(FullCopula(p = 4), n = 300, levels = 4, seed = 1)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 100000000, warmup = 20, chains = 2, seed = 1
summary m.C
export m to "draws.csv"
plot trace m.C[1, 2]
`

// TestRunCtrlC runs scripts on the real binary and sends them SIGINT.
func TestRunCtrlC(t *testing.T) {
	bin := buildCopulang(t)
	t.Run("the first keeps the work", func(t *testing.T) { ctrlCKeepsTheWork(t, bin) })
	t.Run("the second stops", func(t *testing.T) { secondCtrlCStops(t, bin) })
}

// ctrlCKeepsTheWork sends SIGINT while the script's (endless) fit samples:
// the fit stops with its draws, the summary, export and plot after it run
// on them, and the exit status is 130 (issue 17: the work was lost and the
// script exited 1).
func ctrlCKeepsTheWork(t *testing.T, bin string) {
	r := startScript(t, bin, ctrlCScript, interruptOnce(t, ", sampling,"))
	code := r.wait(t)
	stdout, stderr := r.stdout.String(), r.stderrText()
	if code != exitInterrupted {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, stdout, stderr)
	}
	for _, want := range []string{"interrupted fit m: ", "post-warm-up draws kept over 2 chains", "interrupted\n",
		"param mean sd q5 q50 q95 ess_bulk ess_tail rhat mcse_mean mcse_sd", "wrote ", "draws.columns.csv", "analysis-trace-m.C-1-2.png"} {
		if !strings.Contains(strings.Join(strings.Fields(stdout), " ")+"\n", strings.Join(strings.Fields(want), " ")) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "copulang: interrupt: stopping the fit; its draws are kept and the script goes on") {
		t.Errorf("stderr does not say what the interrupt did:\n%s", stderr)
	}
	for _, f := range []string{"draws.csv", "draws.columns.csv"} {
		if _, err := os.Stat(filepath.Join(r.dir, f)); err != nil {
			t.Errorf("export: %v", err)
		}
	}
}

// secondCtrlCStops: a second SIGINT stops the script: here the first stops
// the first fit (whose summary runs), the second arrives during the second
// fit, and nothing after it runs.
func secondCtrlCStops(t *testing.T, bin string) {
	script := ctrlCScript + "fit m with gibbs, iter = 100000000, warmup = 20, chains = 2, seed = 2\nsummary m.C[1, 3]\n"
	// 0: wait for the first fit to sample; 1: for the second fit to start;
	// 2: for it to sample; 3: done.
	step := 0
	var mu sync.Mutex
	r := startScript(t, bin, script, func(line string, cmd *exec.Cmd) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case step == 1 && strings.Contains(line, ": starting, "):
			step++
		case (step == 0 || step == 2) && strings.Contains(line, ", sampling,"):
			step++
			if err := syscall.Kill(cmd.Process.Pid, syscall.SIGINT); err != nil {
				t.Errorf("kill: %v", err)
			}
		}
	})
	code := r.wait(t)
	stdout, stderr := r.stdout.String(), r.stderrText()
	if code != exitInterrupted {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, stdout, stderr)
	}
	if strings.Count(stdout, "param ") != 1 || !strings.Contains(stdout, "wrote ") {
		t.Errorf("want the statements after the first fit and none after the second:\n%s", stdout)
	}
	if !strings.Contains(stderr, "KeyboardInterrupt: interrupted fit m") || !strings.Contains(stderr, "stopping the script") {
		t.Errorf("stderr:\n%s", stderr)
	}
}
