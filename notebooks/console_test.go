package notebooks

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestConsoleShowsFigureText draws a figure in jupyter console with its
// image viewer turned off, as the README tells a terminal without one to:
// the console prints the figure's one-line text, and nothing of its HTML or
// images.
func TestConsoleShowsFigureText(t *testing.T) {
	requireTool(t, "jupyter console under "+python, installHint, func() error {
		return exec.Command(python, "-c", "import jupyter_console").Run()
	})
	env := kernelEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-m", "jupyter_console", "--kernel", "copulang", "--simple-prompt",
		"--ZMQTerminalInteractiveShell.image_handler=None")
	cmd.Env, cmd.Dir = env, t.TempDir()
	cmd.WaitDelay = 10 * time.Second
	cmd.Stdin = strings.NewReader("data sim = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nplot heatmap sim\nexit\n")
	out, err := cmd.CombinedOutput()
	t.Logf("console output:\n%s", out)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	if want := `Heatmap of "true C of sim": 3×3`; !strings.Contains(string(out), want) {
		t.Errorf("the console does not print the figure's text %q", want)
	}
	for _, leak := range []string{"<img", "data:image", "base64"} {
		if strings.Contains(string(out), leak) {
			t.Errorf("the console prints %q", leak)
		}
	}
}
