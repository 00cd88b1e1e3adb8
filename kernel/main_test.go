package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveEnv, when set, makes the test binary a kernel serving fakeEngine on
// the connection file given as its first argument: kernelspecs in the tests
// below start it that way, so Jupyter's own kernel manager launches,
// interrupts and shuts it down.
const serveEnv = "COPULANG_KERNEL_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		os.Exit(serveFake(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func serveFake(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: kernel.test CONNECTION_FILE")
		return 2
	}
	ci, err := ReadConnectionFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := Serve(ctx, ci, fakeEngine{}, DefaultInfo("0.0.0-test"), log); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// installFakeSpec installs a kernelspec that runs this test binary as a
// kernel and returns the JUPYTER_PATH to find it.
func installFakeSpec(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "share", "jupyter")
	dir, err := Install(data, exe, testHighlighting)
	if err != nil {
		t.Fatal(err)
	}
	spec := NewKernelspec(exe)
	spec.Argv = []string{exe, "{connection_file}"}
	spec.Env = map[string]string{serveEnv: "1"}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNBConvert executes a notebook with nbconvert through Jupyter's kernel
// manager: it starts the kernel from the kernelspec, runs cells, interrupts
// one that times out (interrupt_mode "message") and shuts the kernel down.
func TestNBConvert(t *testing.T) {
	requirePython(t, "nbconvert", "nbclient")
	jupyterPath := installFakeSpec(t)
	dir := t.TempDir()
	cells := []string{"hello", "stream from a cell", "display", "error expected", "sleep", "after the interrupt"}
	var nbCells []map[string]any
	for i, c := range cells {
		nbCells = append(nbCells, map[string]any{"id": fmt.Sprint("cell-", i), "cell_type": "code", "metadata": map[string]any{},
			"source": c, "outputs": []any{}, "execution_count": nil})
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": SpecName, "display_name": "Copulang", "language": "copulang"}},
		"cells":    nbCells,
	}
	b, _ := json.Marshal(nb)
	in := filepath.Join(dir, "in.ipynb")
	os.WriteFile(in, b, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-m", "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.timeout=2", "--ExecutePreprocessor.interrupt_on_timeout=True",
		"--output", filepath.Join(dir, "out.ipynb"), in)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nbconvert: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "shutdown requested") {
		t.Errorf("the kernel was not stopped by a shutdown_request")
	}
	t.Logf("nbconvert ran %d cells in %v; its output:\n%s", len(cells), time.Since(start).Round(time.Millisecond), out)
	b, err = os.ReadFile(filepath.Join(dir, "out.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Metadata struct {
			LanguageInfo map[string]any `json:"language_info"`
		} `json:"metadata"`
		Cells []struct {
			ExecutionCount *int             `json:"execution_count"`
			Outputs        []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Metadata.LanguageInfo["name"] != "copulang" || res.Metadata.LanguageInfo["file_extension"] != ".cop" {
		t.Errorf("language_info %v", res.Metadata.LanguageInfo)
	}
	outs := make([]string, len(res.Cells))
	for i, c := range res.Cells {
		ob, _ := json.Marshal(c.Outputs)
		outs[i] = string(ob)
	}
	checks := []struct {
		cell int
		want string
	}{
		{0, `"output_type":"execute_result"`},
		{0, `"text/plain":["hello"]`}, // nbformat stores text as a list of lines
		{1, `"text":["from a cell\n"]`},
		{2, `"text/plain":["second"]`}, // the display updated in place
		{3, `"ename":"ValueError"`},
		{4, `"ename":"KeyboardInterrupt"`},
		{5, `"text/plain":["after the interrupt"]`},
	}
	for _, c := range checks {
		if !strings.Contains(outs[c.cell], c.want) {
			t.Errorf("cell %d (%q) outputs lack %s: %s", c.cell, cells[c.cell], c.want, outs[c.cell])
		}
	}
	if n := res.Cells[5].ExecutionCount; n == nil || *n != 6 {
		t.Errorf("last cell's execution_count %v, want 6", n)
	}
}
