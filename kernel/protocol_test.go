package kernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
)

// TestProtocolWithJupyterClient runs the checks of testdata/protocol.py,
// each against a fresh in-process kernel serving the fake engine: abort
// after an error (20 of 20 trials), aborted replies without an
// execution_count, a request's outputs written before its reply (1000 of
// 1000), is_complete, complete and inspect during a running cell, history
// with outputs, and user_expressions.
func TestProtocolWithJupyterClient(t *testing.T) {
	requirePython(t, "jupyter_client", "zmq")
	checks := []string{"abort", "aborted", "order-wire", "concurrent", "history", "expressions"}
	for _, check := range checks {
		t.Run(check, func(t *testing.T) {
			if testing.Short() && (check == "abort" || strings.HasPrefix(check, "order")) {
				t.Skip("hundreds of executes; skipped with -short")
			}
			tk := startKernel(t, "tcp", "protocol-key", fakeEngine{}, zmtp.DefaultOptions())
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, python, "testdata/protocol.py", tk.connFile, check).CombinedOutput()
			t.Logf("protocol.py %s:\n%s", check, out)
			if err != nil || !strings.Contains(string(out), "ALL PASSED") {
				t.Fatalf("protocol.py %s failed: %v", check, err)
			}
		})
	}
}
