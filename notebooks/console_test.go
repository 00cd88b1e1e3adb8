package notebooks

import (
	"context"
	"os/exec"
	"regexp"
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

// TestConsolePrintsLongTablesShort: jupyter console prints the first 20
// of a data set's imputed cells (here about 480) and the line saying how
// many are left out and how to write them all, not every cell, which
// flooded the terminal with 632 lines for the GSS.
func TestConsolePrintsLongTablesShort(t *testing.T) {
	requireTool(t, "jupyter console under "+python, installHint, func() error {
		return exec.Command(python, "-c", "import jupyter_console").Run()
	})
	env := kernelEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-m", "jupyter_console", "--kernel", "copulang", "--simple-prompt")
	cmd.Env, cmd.Dir = env, t.TempDir()
	cmd.WaitDelay = 10 * time.Second
	cmd.Stdin = strings.NewReader("data sim = simulate(FullCopula(p = 4), n = 600, levels = 3, seed = 1, missing = 0.2)\n" +
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\n" +
		"impute m\nexit\n")
	out, err := cmd.CombinedOutput()
	t.Logf("console output:\n%s", out)
	if err != nil {
		t.Fatalf("jupyter console: %v", err)
	}
	text := string(out)
	if !regexp.MustCompile(`\(the first 20 of \d+ rows shown, \d+ left out: impute m to "cells.csv" writes every cell\)`).MatchString(text) {
		t.Errorf("the console does not say which imputed cells it shows")
	}
	if n := strings.Count(text, "\n"); n > 60 {
		t.Errorf("the console printed %d lines", n)
	}
}
