package kernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
)

// TestJupyterClient drives the in-process kernel with jupyter_client's
// BlockingKernelClient (testdata/driver.py), over tcp with a signing key and
// over ipc without one.
func TestJupyterClient(t *testing.T) {
	requirePython(t, "jupyter_client", "zmq")
	for _, tc := range []struct{ transport, key string }{
		{"tcp", "a0436f6c-1916-498b-8eb9-e81ab9368e84"},
		{"ipc", ""},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			tk := startKernel(t, tc.transport, tc.key, fakeEngine{}, zmtp.DefaultOptions())
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, python, "testdata/driver.py", tk.connFile).CombinedOutput()
			t.Logf("driver output:\n%s", out)
			if err != nil {
				t.Fatalf("driver failed: %v", err)
			}
			if !strings.Contains(string(out), "ALL PASSED") {
				t.Fatal("driver did not finish")
			}
			err, stopped := tk.wait(5 * time.Second)
			if !stopped {
				t.Fatal("kernel still running 5 s after shutdown_request")
			}
			if err != nil {
				t.Fatalf("Serve after shutdown_request = %v, want nil", err)
			}
		})
	}
}
