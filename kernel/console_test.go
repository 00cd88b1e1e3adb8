package kernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/kernel/internal/zmtp"
)

// TestJupyterConsole runs jupyter console --simple-prompt against the
// in-process kernel with piped input.
func TestJupyterConsole(t *testing.T) {
	requirePython(t, "jupyter_console")
	tk := startKernel(t, "tcp", "console-key", fakeEngine{}, zmtp.DefaultOptions())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-m", "jupyter_console", "--existing", tk.connFile, "--simple-prompt")
	cmd.Stdin = strings.NewReader("hello console\nstream héllo\nerror went wrong\nsummary\npage help text\n")
	out, err := cmd.CombinedOutput()
	t.Logf("console output:\n%s", out)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	for _, want := range []string{
		"copulang 0.0.0-test", // the banner from kernel_info
		"Out[1]: hello console",
		"héllo",
		"ValueError: went wrong",
		"Out[4]: summary",
		"paged help text", // the page payload, as a ? is answered
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("console output lacks %q", want)
		}
	}
}
