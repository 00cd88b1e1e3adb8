package notebooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// restartDriver runs a cell in a copulang kernel that jupyter_client's
// KernelManager starts in the current directory, restarts the kernel, runs
// the same cell again, and prints each run's stdout and displayed text after
// a marker line.
const restartDriver = `
import sys
from jupyter_client.manager import KernelManager

cell = sys.argv[1]
km = KernelManager(kernel_name="copulang")
km.start_kernel(cwd=".")
try:
    for run in range(2):
        if run == 1:
            km.restart_kernel(now=True)
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        out = []
        def keep(msg):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream" and content["name"] == "stdout":
                out.append(content["text"])
            elif kind in ("display_data", "execute_result"):
                out.append(content["data"].get("text/plain", "") + "\n")
        reply = kc.execute_interactive(cell, output_hook=keep, timeout=120)
        kc.stop_channels()
        del kc
        print("=== run %d: %s" % (run + 1, reply["content"]["status"]))
        print("".join(out))
finally:
    km.shutdown_kernel(now=True)
`

// TestFitFileAcrossKernelRestart is fit's file setting as a notebook user
// meets it: a cell fits a model with file = and summarises it; after a
// kernel restart (jupyter_client's restart_kernel) the same cell reads the
// fit from its file instead of sampling, and shows the same summary.
func TestFitFileAcrossKernelRestart(t *testing.T) {
	requireNbconvert(t)
	env := kernelEnv(t)
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("data", "gss_hoff2007.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gss.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	const cell = `data gss = load("gss.csv")
model hoff { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit hoff, iter = 400, chains = 2, seed = 3, file = "hoff.fit"
summary hoff.C[income, degree]`
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", restartDriver, cell)
	cmd.Env, cmd.Dir = env, dir
	// A kernel the driver started may outlive it and keep its output open.
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	_, runs, _ := strings.Cut(string(out), "=== run 1: ")
	first, second, ok := strings.Cut(runs, "=== run 2: ")
	if !ok || !strings.HasPrefix(first, "ok") || !strings.HasPrefix(second, "ok") {
		t.Fatalf("driver output:\n%s", out)
	}
	if !strings.Contains(first, "wrote the fit to hoff.fit") || !strings.Contains(second, "; read from hoff.fit") {
		t.Errorf("the first run should write the fit and the second read it:\n%s", out)
	}
	// The summary's table: from its header to the blank line after it.
	table := func(s string) string {
		s = s[strings.Index(s, "param "):]
		if end := strings.Index(s, "\n\n"); end >= 0 {
			s = s[:end]
		}
		return s
	}
	if !strings.Contains(first, "param ") || table(first) != table(second) {
		t.Errorf("the summary after the restart differs:\n%s", out)
	}
}
