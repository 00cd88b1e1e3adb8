package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKernelConsoleProgress drives the installed kernel with two
// jupyter_client clients (testdata/console_progress_driver.py): one that
// asks whether each cell is complete before executing it, as jupyter
// console does, gets a fit's progress as one stdout line rewritten in
// place, ended by the last state before the report, and no display
// updates, which jupyter console ignores; an interrupt during its fit
// keeps the draws and ends the line. The other, which never asks, as a
// notebook, gets the display and its updates as before.
func TestKernelConsoleProgress(t *testing.T) {
	requirePython(t, "jupyter_client")
	env := installedKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := jupyterClient(ctx, env, python, "testdata/console_progress_driver.py")
	cmd.Dir = t.TempDir()
	cmd.Args[1], _ = filepath.Abs("testdata/console_progress_driver.py")
	out, err := cmd.CombinedOutput()
	t.Logf("driver output:\n%s", out)
	if err != nil || !strings.Contains(string(out), "ALL PASSED") {
		t.Fatalf("driver failed: %v", err)
	}
}
