package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// python is Debian's interpreter, which has the Jupyter client packages.
const python = "/usr/bin/python3"

const jupyterHint = "apt-get install -y jupyter-client jupyter-console python3-nbclient jupyter-nbconvert python3-ipykernel"

// requirePython skips the test unless python can import the modules; with
// CI=true a missing client is a failure.
func requirePython(t *testing.T, modules ...string) {
	t.Helper()
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
	cmd := exec.CommandContext(ctx, python, "testdata/session_driver.py")
	cmd.Env = env
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
	cmd := exec.CommandContext(ctx, python, "-m", "jupyter_console", "--simple-prompt", "--kernel", "copulang")
	cmd.Env = env
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		"data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 1)",
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }",
		"fit m with gibbs, iter = 200, warmup = 50, chains = 1, seed = 1",
		"summary m.C",
		"model q { Y = sim; Z ~ GausianCopula(C); Y ordinal Z }",
		"exit",
	}, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("jupyter console: %v\n%s", err, text)
	}
	for _, want := range []string{"data sim: 100 rows", "fit m with gibbs", "ess_bulk", "C.1.2", "did you mean GaussianCopula?"} {
		if !strings.Contains(text, want) {
			t.Errorf("console output lacks %q:\n%s", want, text)
		}
	}
}
