package session

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

// repeatedInterrupter calls InterruptFit whenever a fit or an extension is
// sampling, as the CLI does on each Ctrl-C.
type repeatedInterrupter struct {
	recorder
	s *Session
}

func (r *repeatedInterrupter) UpdateDisplay(b MimeBundle, id string) {
	r.recorder.UpdateDisplay(b, id)
	if text, _ := b["text/plain"].(string); strings.Contains(text, ", sampling,") {
		go r.s.InterruptFit()
	}
}

// TestShowInterruptedFitSaysWhatRan: after an interrupted fit or extension,
// show m gave the iterations asked for (a million), not those each chain
// ran and holds.
func TestShowInterruptedFitSaysWhatRan(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 200, levels = 4, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	for _, cell := range []string{
		"fit m with gibbs, iter = 1000000, warmup = 10, chains = 2, seed = 1",
		"extend m, iter = 1000000",
	} {
		out := &repeatedInterrupter{s: s}
		if _, err := s.Execute(context.Background(), cell+"\nshow m", out); err != nil {
			t.Fatalf("%s: %v", cell, err)
		}
		r := s.models["m"].Fit
		if !r.Interrupted {
			t.Fatalf("%s was not interrupted", cell)
		}
		want := fmt.Sprintf("2 chains, 10 warm-up + %d iterations, thin 1", len(r.C[0]))
		if text := out.text(); !strings.Contains(text, want) {
			t.Errorf("after %s, show m lacks %q:\n%s", cell, want, text)
		}
		// The extension's report counts the same iterations.
		if now := fmt.Sprintf("now %d iterations per chain", len(r.C[0])); strings.HasPrefix(cell, "extend") && !strings.Contains(out.text(), now) {
			t.Errorf("the report of %s lacks %q:\n%s", cell, now, out.text())
		}
	}
}

// TestModesNoteOnlyForSettledChains: a 50-iteration fit of the GSS data
// has R-hat far above 1.1, and the warning said its chains may sit in
// different modes, which running longer seldom settles, next to a hint
// that more iterations are the remedy; extending it by 450 brought R-hat
// to 1.01. Chains that short have not mixed on their own: no modes note.
// One chain's R-hat compares its halves, not chains.
func TestModesNoteOnlyForSettledChains(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data gss = load(\"../../notebooks/data/gss_hoff2007.csv\")\n"+
		"model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 1) }")
	out := mustRun(t, s, "fit m, iter = 50, warmup = 20, chains = 2, seed = 1")
	d := fitDiagnostics(s.models["m"].Fit)
	if !(d.c.maxRHat > farApart) {
		t.Fatalf("R-hat %.3f: the short fit no longer shows the defect", d.c.maxRHat)
	}
	if text := out.stderr.String(); strings.Contains(text, "different modes") || !strings.Contains(text, "the chains disagree") {
		t.Errorf("a short fit's warning:\n%s", text)
	}
	out = mustRun(t, s, "fit m, iter = 30, warmup = 0, chains = 1, seed = 1")
	if text := out.stderr.String(); !strings.Contains(text, "R-hat above 1.01: the two halves of the chain disagree") || strings.Contains(text, "the chains disagree") {
		t.Errorf("one chain's warning:\n%s", text)
	}
}

// TestModesNoteForChainsApartThatMixed: two chains of independent draws
// 0.2 apart (sd 0.05) have each mixed on its own, and still disagree: the
// note on modes applies; chains of a slow random walk, as far apart, have
// not mixed, and it does not.
func TestModesNoteForChainsApartThatMixed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	result := func(step float64) *inference.Result {
		res := &inference.Result{P: 2, Names: []string{"a", "b"}, C: make([][][]float64, 2)}
		for c := range res.C {
			v := 0.4 + 0.2*float64(c)
			for range 1000 {
				if step == 0 {
					v = 0.4 + 0.2*float64(c) + 0.05*r.NormFloat64()
				} else {
					v += step * r.NormFloat64()
				}
				res.C[c] = append(res.C[c], []float64{1, v, v, 1})
			}
		}
		return res
	}
	for _, tt := range []struct {
		name  string
		step  float64
		modes bool
	}{{"independent draws", 0, true}, {"random walk", 0.01, false}} {
		_, d, warnings := fitReport("fit m", "m", result(tt.step), nil)
		text := strings.Join(warnings, "\n")
		if !(d.c.maxRHat > farApart) {
			t.Fatalf("%s: R-hat %.3f, want chains far apart", tt.name, d.c.maxRHat)
		}
		if got := strings.Contains(text, "may sit in different modes"); got != tt.modes {
			t.Errorf("%s (each chain's ESS %.0f): modes note %v, want %v:\n%s", tt.name, d.chainESS, got, tt.modes, text)
		}
	}
}

// TestCompareWarnsOfFitsWithoutDiagnostics: compare scored a fit of 2
// iterations (max R-hat NA) without comment, its warning naming only a
// fit whose R-hat could be computed; a fit whose R-hat or ESS cannot be
// computed, or whose ESS is far too low for R-hat to vouch for it, shows
// no convergence either.
func TestCompareWarnsOfFitsWithoutDiagnostics(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fit := func(chains, draws int) *Model {
		res := &inference.Result{P: 2, C: make([][][]float64, chains)}
		for c := range res.C {
			for range draws {
				v := 0.4 + 0.05*r.NormFloat64()
				res.C[c] = append(res.C[c], []float64{1, v, v, 1})
			}
		}
		return &Model{Fit: res}
	}
	// 2 × 60 independent draws: R-hat within 1.01 with this seed, an
	// ESS near 120, below 100 per chain.
	slow := fit(2, 60)
	w := unconvergedWarning([]string{"good", "two", "slow"}, []*Model{fit(2, 1000), fit(3, 2), slow})
	for _, want := range []string{"the fits of two (R-hat or ESS of C not computable", "slow (least ESS of C ", "below 100 per chain"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning lacks %q: %s", want, w)
		}
	}
	if strings.Contains(w, "good") {
		t.Errorf("warning names the converged fit: %s", w)
	}
}

// TestFigureDrawnAgainKeepsTheFirst: plot trace m.C[1, 2], an extension,
// then plot trace m.C[Y1, Y2] (the same entry) wrote the same file twice,
// and the first figure was lost. A repeated name is numbered instead.
func TestFigureDrawnAgainKeepsTheFirst(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1")
	out := &figureFiles{}
	if _, err := s.Execute(context.Background(), "plot trace m.C[1, 2]\nextend m, iter = 20\nplot trace m.C[Y1, Y2]", out); err != nil {
		t.Fatal(err)
	}
	// A later cell of the same session (script) goes on numbering.
	if _, err := s.Execute(context.Background(), "plot trace m.C[1, 2]", out); err != nil {
		t.Fatal(err)
	}
	if want := []string{"trace-m.C-1-2", "trace-m.C-1-2-2", "trace-m.C-1-2-3"}; !slices.Equal(out.names, want) {
		t.Errorf("figure files %q, want %q", out.names, want)
	}
}

// TestShowDataJustLoadedDescribesItOnce: `data gss = load(…)` then
// `show gss` printed the description line twice (notebook 02's first
// cell). Shown in a later cell, or after another statement, it is described.
func TestShowDataJustLoadedDescribesItOnce(t *testing.T) {
	s := newTestSession(t)
	const line = "data d: 100 rows × 3 columns"
	for _, tt := range []struct {
		cell string
		want int
	}{
		{"data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\nshow d", 1},
		{"show d", 1},
		{"data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\nd\nshow d", 2},
	} {
		if got := strings.Count(mustRun(t, s, tt.cell).stdout.String(), line); got != tt.want {
			t.Errorf("%q: the description %d times, want %d", tt.cell, got, tt.want)
		}
	}
}

// TestOneDrawSaysSo: a fit of one draw said "1 chain × 1 iterations", "1
// draws", "sd NaN" and "…not computable: …, none on m.C[Y1, Y2]".
func TestOneDrawSaysSo(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 1, warmup = 0, chains = 1, seed = 1\nshow m\nm\nm.C[1, 2]\nsummary m.C")
	text := out.text() + out.stderr.String()
	for _, want := range []string{"1 chain × 1 iteration (0 warm-up)", "0 warm-up + 1 iteration, thin 1", "1 chain × 1 draw\n", "(posterior mean; sd NA, 90% interval ", ", 1 draw; true value ",
		"posterior of m.C: 1 draw in 1 chain", "ESS not computable on m.C[Y1, Y2] and 2 other entries (too few draws", "runs every chain 1 more iteration from"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{" 1 iterations", "1 draws", "none on", "NaN"} {
		if strings.Contains(text, bad) {
			t.Errorf("output has %q:\n%s", bad, text)
		}
	}
}

// TestWarningNamesRareBinaryColumn: a fit whose worst entries of C are of
// a binary column with few cells in its rarer level (here 2 of 400) says
// so in its warnings, and leaves out the advice for Gibbs's slow mixing on
// strongly correlated binary columns, which is not the cause: on the
// review's survey the warnings named C["income, household", consent],
// hinted at strongly correlated binary columns and 33,000 more iterations,
// and said nothing of consent's 2 answers of no.
func TestWarningNamesRareBinaryColumn(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	var csv strings.Builder
	csv.WriteString("x,y,flag\n")
	for i := range 400 {
		z := r.NormFloat64()
		x := z + 0.5*r.NormFloat64()
		y := min(4, max(0, int(math.Round(z+1.5+0.7*r.NormFloat64()))))
		flag := 0
		if i == 17 || i == 301 {
			flag = 1
		}
		fmt.Fprintf(&csv, "%.4f,%d,%d\n", x, y, flag)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	out := mustRun(t, s, "data d = load(\"d.csv\")\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }\n"+
		"fit m with gibbs, iter = 200, warmup = 100, chains = 2, seed = 1")
	text := out.stderr.String()
	if !strings.Contains(text, "warning: R-hat above 1.01") && !strings.Contains(text, "warning: ESS below 100") {
		t.Fatalf("the fit no longer warns, so the test shows nothing:\n%s", text)
	}
	const clause = ": flag is binary with 2 observed cells in its rarer level, on which its correlations rest"
	if !strings.Contains(text, clause) {
		t.Errorf("the warnings do not say why flag's entries mix slowly:\n%s", text)
	}
	if strings.Contains(text, "mixes slowest where binary columns are strongly correlated") {
		t.Errorf("the warnings give the advice for strongly correlated binary columns:\n%s", text)
	}
	if !strings.Contains(out.stdout.String(), "note: binary column with few observed cells in its rarer level: flag (2 cells)") {
		t.Errorf("no note on flag:\n%s", out.stdout.String())
	}
}
