package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRunIntroScript runs the README's main job in process: it must
// succeed, print the plan and the summary table, and write its figures and
// its draws.
func TestRunIntroScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs notebooks/intro.cop, a whole script with its fit and figures; skipped under -short")
	}
	out := t.TempDir()
	// The script exports next to itself; run a copy so the tree stays clean.
	dir := t.TempDir()
	src, err := os.ReadFile("notebooks/intro.cop")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "intro.cop")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	text := stdout.String()
	for _, want := range []string{"param mean sd q5 q50 q95 ess_bulk ess_tail rhat", "fit m with px (auto)", "wrote "} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("stdout lacks %q:\n%s", want, text)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "intro-*.png"))
	svgs, _ := filepath.Glob(filepath.Join(out, "intro-*.svg"))
	if len(pngs) != 3 || len(svgs) != 3 {
		t.Errorf("figures: %v %v, want 3 PNG and 3 SVG", pngs, svgs)
	}
	if _, err := os.Stat(filepath.Join(dir, "intro-draws.csv")); err != nil {
		t.Errorf("export: %v", err)
	}
}

// TestRunShowsJobProgress checks that `copulang run` shows the progress of
// check and compare as it shows a fit's, on stderr, up to the final state,
// and not among the results on stdout.
func TestRunShowsJobProgress(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "jobs.cop")
	code := `data d = simulate(FactorCopula(p = 4, k = 1), n = 150, levels = 3, seed = 2)
model a { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
model b { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit a with px, iter = 60, warmup = 40, chains = 1
fit b with gibbs, iter = 60, warmup = 40, chains = 1
check a, draws = 20, reps = 19
compare a, b
`
	if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script, "--out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	for _, want := range []string{"check a: 0/", "replicated data sets, done", "compare: refitting a (1 of 2), fold 1 of 1: starting", "compare: done: 2 models refitted 1 time each in "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, &stderr)
		}
	}
	if strings.Contains(stdout.String(), "compare: refitting") || strings.Contains(stdout.String(), "replicated data sets, ") {
		t.Errorf("progress on stdout:\n%s", &stdout)
	}
}

// TestRunReportsErrorsWithPosition checks the CLI's error format:
// file:line:col: message, the source line, a caret, and exit status 1.
func TestRunReportsErrorsWithPosition(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.cop")
	src := "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nmodel m {\n  Y = d\n  Z ~ GausianCopula(C)\n}\nexplain m\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := strings.Split(stderr.String(), "\n")
	if !strings.HasPrefix(lines[0], script+":4:7: ") {
		t.Errorf("first line %q, want %s:4:7: ...", lines[0], script)
	}
	if len(lines) < 3 || lines[1] != "  Z ~ GausianCopula(C)" || lines[2] != "      ^" {
		t.Errorf("no source line and caret:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "did you mean GaussianCopula?") {
		t.Errorf("no hint:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "explain") {
		t.Error("the script went on after the error")
	}
}

// TestRunScriptWithByteOrderMark: a script saved with a UTF-8 byte order
// mark (as Windows editors write one) runs, and its errors count columns
// as the editor shows them, without the mark.
func TestRunScriptWithByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bom.cop")
	if err := os.WriteFile(script, []byte("\ufeffprint 1 + )\r\nprint 2\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	if want := script + ":1:11: unexpected \")\""; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to start with %q", &stderr, want)
	}
	if err := os.WriteFile(script, []byte("\ufeffprint 1\r\nprint 2\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"run", script}, &stdout, &stderr); code != 0 || stdout.String() != "1\n2\n" {
		t.Errorf("exit %d, stdout %q, want 0 and \"1\\n2\\n\"\nstderr:\n%s", code, &stdout, &stderr)
	}
}

// TestRunTypoInLastLineFailsBeforeTheFit is issue 17's case on the command
// line: the last line of a script that loads a CSV and runs a long fit
// misspells a column. The script fails at once with the position, the
// source line, a caret and the hint, before any statement runs.
func TestRunTypoInLastLineFailsBeforeTheFit(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("notebooks/data/gss_hoff2007.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gss.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "long.cop")
	src := "data gss = load(\"gss.csv\")\nmodel m { Y = gss[income, degree, age]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with hmc, iter = 100000000, chains = 2\nexport m to \"draws.csv\"\nsummary m.C[incom, degree]\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	if code := run([]string{"run", script}, &stdout, &stderr); code != exitError {
		t.Fatalf("exit %d, want %d\n%s", code, exitError, &stderr)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("took %v: the fit ran", took)
	}
	want := script + ":5:13: model m has no column incom\nsummary m.C[incom, degree]\n            ^\nhint: did you mean income?\n"
	if got := strings.TrimPrefix(stderr.String(), "CheckError: "); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
	if stdout.Len() > 0 {
		t.Errorf("the script ran before the error:\n%s", &stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "draws.csv")); err == nil {
		t.Error("the export ran")
	}
}

// TestRunOutHoldsFigures: --out DIR takes the figures; the files the
// script names (its export, its fit file) are written where it says,
// relative to its directory, and -h says so. The help used to say that
// DIR took "figures and exported files".
func TestRunOutHoldsFigures(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "s.cop")
	src := `data d = simulate(FactorCopula(p = 3, k = 1), n = 60, levels = 3, seed = 2)
model a { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit a with px, iter = 20, warmup = 10, chains = 1, file = "a.fit"
export a to "draws.csv"
plot trace a.C[1, 2]
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	for _, name := range []string{"a.fit", "draws.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s is not next to the script: %v", name, err)
		}
	}
	if figs, _ := filepath.Glob(filepath.Join(out, "s-*.png")); len(figs) != 1 {
		t.Errorf("figures in --out: %v, want one", figs)
	}
	if figs, _ := filepath.Glob(filepath.Join(dir, "s-*.png")); len(figs) != 0 {
		t.Errorf("figures next to the script with --out: %v", figs)
	}
	stderr.Reset()
	if code := run([]string{"run", "-h"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("run -h: exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"-out DIR", "write the script's figures to DIR", "(export, impute to, fit file =) go where it says, relative to the script's directory"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("run -h lacks %q:\n%s", want, &stderr)
		}
	}
}

// TestRunImputeShowsTheFirstCells: copulang run printed every imputed
// cell, 230 lines here and thousands for a survey, which flooded the
// terminal. It shows the first session.CLIImputeRows, then a row of "…"
// and a line saying how many are left out and the statement that writes
// them all; the caption counts the cells of each column. The table is
// pinned in testdata/impute_cli.golden (go test -run
// TestRunImputeShowsTheFirstCells -update . rewrites it).
func TestRunImputeShowsTheFirstCells(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "imp.cop")
	src := `data d = simulate(FullCopula(p = 3), n = 400, levels = 4, seed = 3, missing = 0.2)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1
impute m
impute m[Y2]
impute m to "cells.csv"
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", script}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	text := stdout.String()
	i := strings.Index(text, "imputed missing cells")
	if i < 0 {
		t.Fatalf("no imputed cells:\n%s", text)
	}
	got := strings.ReplaceAll(text[i:], dir+string(filepath.Separator), "DIR/")
	const golden = "testdata/impute_cli.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("impute's output:\n%s\nwant:\n%s", got, want)
	}
	// The file has every cell: a header and 230 rows.
	cells, err := os.ReadFile(filepath.Join(dir, "cells.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(cells), "\n"); n != 1+230 {
		t.Errorf("cells.csv has %d lines, want 231", n)
	}
}
