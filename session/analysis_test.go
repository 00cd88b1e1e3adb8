package session

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// TestSummaryAndExportNameColumns: summary m.C[INC, DEG] showed C.1.2 and
// the export had no mapping from indices to names (issue 17). Summaries
// now name the columns, and the export keeps the CmdStan names with a
// sidecar that maps each to its label and column names.
func TestSummaryAndExportNameColumns(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/gss.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gss.csv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data gss = load("gss.csv")
model m { Y = gss[INC, DEG, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 40, warmup = 20, chains = 2`)
	out := mustRun(t, s, "summary m.C[INC, DEG]")
	plain, _ := out.displays[0]["text/plain"].(string)
	html, _ := out.displays[0]["text/html"].(string)
	if !strings.Contains(plain, "\nC[INC,DEG] ") || !strings.Contains(html, "posterior of m.C[INC,DEG]") {
		t.Errorf("summary does not name the columns:\n%s\n%s", plain, html)
	}
	out = mustRun(t, s, `export m to "draws.csv"`)
	if !strings.Contains(out.stdout.String(), "draws.columns.csv") {
		t.Errorf("export printed %q, want the sidecar's path", out.stdout.String())
	}
	draws := readCSV(t, filepath.Join(dir, "draws.csv"))
	cols := readCSV(t, filepath.Join(dir, "draws.columns.csv"))
	if got := strings.Join(draws[0], ","); got != "chain,draw,C.1.2,C.1.3,C.2.3" {
		t.Errorf("draws header %s", got)
	}
	want := [][]string{{"param", "label", "row", "column"}, {"C.1.2", "C[INC,DEG]", "INC", "DEG"},
		{"C.1.3", "C[INC,AGE]", "INC", "AGE"}, {"C.2.3", "C[DEG,AGE]", "DEG", "AGE"}}
	if len(cols) != len(want) {
		t.Fatalf("sidecar %v, want %v", cols, want)
	}
	for i := range want {
		if strings.Join(cols[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("sidecar row %d = %v, want %v", i, cols[i], want[i])
		}
		if i > 0 && cols[i][0] != draws[0][i+1] {
			t.Errorf("sidecar row %d names %s, the draws' column %d is %s", i, cols[i][0], i+2, draws[0][i+1])
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSummaryIntervalAndMCSE: summary m.C, prob = 0.8 shows the 10% and 90%
// quantiles of the draws, and every summary shows the Monte Carlo standard
// errors of the mean and sd, as inference (posterior 1.4.0) computes them.
func TestSummaryIntervalAndMCSE(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 200, levels = 4, seed = 2)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\nfit m with gibbs, iter = 200, warmup = 50, chains = 2, seed = 5")
	out := mustRun(t, s, "summary m.C[Y1, Y3], prob = 0.8")
	lines := captionedLines(t, out.displays[0])
	if got := strings.Join(strings.Fields(lines[0]), " "); got != "param mean sd q10 q50 q90 ess_bulk ess_tail rhat mcse_mean mcse_sd" {
		t.Fatalf("header %q", got)
	}
	row := strings.Fields(lines[1])
	draws := s.models["m"].Fit.Draws(0, 2)
	sum := inference.Summarize(draws)
	want := []string{"C[Y1,Y3]", tableNum("%.3f", sum.Mean), tableNum("%.3f", sum.SD),
		tableNum("%.3f", inference.Quantile(draws, 0.1)), tableNum("%.3f", sum.Q50), tableNum("%.3f", inference.Quantile(draws, 0.9)),
		tableNum("%.0f", sum.ESSBulk), tableNum("%.0f", sum.ESSTail), tableNum("%.3f", sum.RHat),
		tableNum("%.4f", sum.MCSEMean), tableNum("%.4f", sum.MCSESD)}
	if strings.Join(row, " ") != strings.Join(want, " ") {
		t.Errorf("row %v, want %v", row, want)
	}
	if !(sum.MCSEMean > 0 && sum.MCSESD > 0) {
		t.Errorf("MCSE %v %v, want positive", sum.MCSEMean, sum.MCSESD)
	}
}

// TestFitSaysWhatRan: gibbs on a factor model runs px and hmc runs
// interweave; the live progress and the report say so, not only explain.
func TestFitSaysWhatRan(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 4, k = 1), n = 100, levels = 3, seed = 1)\nmodel f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	for _, c := range []struct{ method, ran string }{
		{"gibbs", "px (asked: gibbs)"},
		{"hmc", "interweave (asked: hmc)"},
		{"auto", "px (auto)"},
		{"px", "px"},
	} {
		out := mustRun(t, s, "fit f with "+c.method+", iter = 10, warmup = 5, chains = 1")
		first, _ := out.displays[0]["text/plain"].(string)
		if !strings.HasPrefix(first, "fit f with "+c.ran+": ") {
			t.Errorf("fit with %s: progress starts %q, want fit f with %s", c.method, first, c.ran)
		}
		if !strings.Contains(out.stdout.String(), "\nfit f with "+c.ran+": 1 chain") && !strings.HasPrefix(out.stdout.String(), "fit f with "+c.ran+": 1 chain") {
			t.Errorf("fit with %s reported %q, want fit f with %s", c.method, out.stdout.String(), c.ran)
		}
	}
}

// TestLoadingsAligned: the loadings of a factor model are identified only up
// to sign and rotation, so two chains may sit in mirror images of one
// posterior (two short px chains on other seeds of this simulation do:
// loadings R-hat 1.94 as sampled, 1.10 aligned). Here chain 2 of a fit
// whose chains agree (R-hat 1.04) is mirrored (Λ → −Λ, which leaves C as it
// is): unaligned, its loadings disagree with chain 1's (R-hat above 1.5);
// as the session records the fit (aligned), they agree again, the fit
// report counts the loadings in its diagnostics, and the summary says how
// the loadings were aligned.
func TestLoadingsAligned(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 5, k = 1), n = 500, levels = 5, seed = 2)\nmodel f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	m := s.models["f"]
	res, err := inference.Run(context.Background(), inference.Spec{Columns: m.columns(), Names: m.Names(), Model: m.Decl.Model,
		Method: inference.PX, Iter: 300, Warmup: 100, Chains: 2, Seed: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Lambda[1] {
		for j := range l {
			l[j] = -l[j]
		}
	}
	rhat := func(r *inference.Result) float64 {
		worst := 0.0
		for e := range r.P * r.K {
			draws := make([][]float64, len(r.Lambda))
			for c, chain := range r.Lambda {
				for _, l := range chain {
					draws[c] = append(draws[c], l[e])
				}
			}
			worst = math.Max(worst, inference.RHat(draws))
		}
		return worst
	}
	if r := rhat(res); r < 1.5 {
		t.Fatalf("mirrored chains give loadings R-hat %.3f: the test does not mirror them", r)
	}
	fit := &compiler.Fit{Model: "f", Method: "px", Iter: 300, Warmup: 100, Chains: 2, Thin: 1, Seed: 7}
	s.setFit(m, fit, nil, res)
	if r := rhat(m.Fit); r > 1.1 {
		t.Errorf("aligned loadings R-hat %.3f, want below 1.1", r)
	}
	report, d, _ := fitReport(fitHeadline(fit, m.Fit, "")("px"), "fm", m.Fit, nil)
	if !strings.Contains(report, "over 10 correlations and 5 loadings (aligned)") {
		t.Errorf("report %q does not count the loadings", report)
	}
	// The report keeps each column's posterior mean communality, which a
	// warning on that column's loadings explains near 1.
	comm, err := m.Fit.Communality()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.communality) != len(comm) || d.column == nil {
		t.Fatalf("report's communalities %v, want %d columns with names", d.communality, len(comm))
	}
	for j, draws := range comm {
		if want := inference.Summarize(draws).Mean; math.Abs(d.communality[j]-want) > 1e-12 {
			t.Errorf("column %d: communality %v, want %v", j+1, d.communality[j], want)
		}
		if got := d.column(j); got != m.Fit.Names[j] {
			t.Errorf("column %d named %q, want %q", j+1, got, m.Fit.Names[j])
		}
	}
	out := mustRun(t, s, "summary f.Lambda")
	if html, _ := out.displays[0]["text/html"].(string); !strings.Contains(html, "identified only up to rotation and sign") {
		t.Errorf("summary of Lambda does not say how loadings are aligned: %s", html)
	}
}

// interruptingRecorder calls InterruptFit once the fit is sampling, as the
// CLI does on the first Ctrl-C.
type interruptingRecorder struct {
	recorder
	s    *Session
	once sync.Once
}

func (r *interruptingRecorder) UpdateDisplay(b MimeBundle, id string) {
	r.recorder.UpdateDisplay(b, id)
	if text, _ := b["text/plain"].(string); strings.Contains(text, ", sampling,") {
		r.once.Do(func() { go r.s.InterruptFit() })
	}
}

// TestInterruptFitGoesOn: InterruptFit stops only the running fit; its
// draws are kept and the rest of the cell runs on them.
func TestInterruptFitGoesOn(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	out := &interruptingRecorder{s: s}
	if s.InterruptFit() {
		t.Error("InterruptFit with no fit running reported one")
	}
	_, err := s.Execute(context.Background(), "data d = simulate(FullCopula(p = 4), n = 300, levels = 4, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 1000000, warmup = 10, chains = 2, seed = 1\nsummary m.C[Y1, Y2]\nexport m to \"d.csv\"", out)
	if err != nil {
		t.Fatalf("cell failed after InterruptFit: %v", err)
	}
	text := out.text()
	for _, want := range []string{"interrupted fit m: ", "post-warm-up draws kept over 2 chains", "iterations (10 warm-up), interrupted", "C[Y1,Y2]", "wrote "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "d.csv")); err != nil {
		t.Errorf("export after the interrupted fit: %v", err)
	}
	// compare refits a model with its fit's settings: after an interrupt,
	// for as long as the chains ran, not the million iterations asked.
	m := s.models["m"]
	if ran := len(m.Fit.C[0]); m.FitStmt.Iter != ran {
		t.Errorf("the interrupted fit's settings say iter = %d; its chains ran %d after warm-up", m.FitStmt.Iter, ran)
	}
}

// TestExplainFit: explain m printed the default settings while the script's
// next line asked for others; explain fit m with ... plans that fit, and
// the first lines say what will run and roughly for how long.
func TestExplainFit(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 5, k = 1), n = 200, levels = 3, seed = 1)\nmodel f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	out := mustRun(t, s, "explain fit f with gibbs, iter = 1500, chains = 2")
	text := out.stdout.String()
	for _, want := range []string{"\nwill run: px (asked: gibbs), 2 chains × (750 warm-up + 1500 kept) iterations; ", " on ", "fit: 2 chains × (750 warm-up + 1500 kept) iterations"} {
		if !strings.Contains(text, want) {
			t.Errorf("explain fit lacks %q:\n%s", want, text)
		}
	}
	if s.models["f"].Fit != nil {
		t.Error("explain fit ran the fit")
	}
	if text := mustRun(t, s, "explain f").stdout.String(); !strings.Contains(text, "will run: px (auto), 4 chains × (500 warm-up + 1000 kept) iterations; ") {
		t.Errorf("explain f:\n%s", text)
	}
}

// TestDiagnosticsReportSaysWhatWarns checks the fit report's attribution: a
// factor fit whose only poor diagnostics are the aligned loadings' says so,
// and gives C's entries on their own; one whose C warns does not claim the
// loadings alone; a full-correlation fit has no loadings to mention.
func TestDiagnosticsReportSaysWhatWarns(t *testing.T) {
	good := diagStats{maxRHat: 1.004, minBulk: 900, minTail: 800}
	bad := diagStats{maxRHat: 1.08, minBulk: 40, minTail: 30}
	farBad, at11 := bad, bad
	farBad.maxRHat, at11.maxRHat = 1.22, 1.1
	tests := []struct {
		name     string
		d        diagnostics
		want     []string
		dontWant []string
	}{
		{"loadings only", diagnostics{all: bad, c: good, lambda: bad, correlations: 10, loadings: 5},
			[]string{"C alone: max R-hat 1.004, min bulk ESS 900", "R-hat above 1.01 on the aligned loadings only", "ESS below 100 per chain on the aligned loadings only"}, nil},
		{"C too", diagnostics{all: bad, c: bad, lambda: bad, correlations: 10, loadings: 5},
			[]string{"C alone: max R-hat 1.080", "R-hat above 1.01: the chains disagree", "ESS below 100 per chain: quantiles"}, []string{"only"}},
		{"full model", diagnostics{all: bad, c: bad, correlations: 10},
			[]string{"over 10 correlations\n", "R-hat above 1.01: the chains disagree"}, []string{"C alone", "loadings", "different modes"}},
		// C's R-hat above 1.1 although every chain alone mixed: the chains
		// may sit in different modes; fewer factors only where there are.
		{"far apart, factor model", diagnostics{all: farBad, c: farBad, lambda: farBad, correlations: 10, loadings: 10, factors: 2, chainESS: 140.7},
			[]string{"`plot trace` (C's R-hat of 1.22 is far above 1 although every chain alone has a bulk ESS of 140 or more on it: chains this far apart after a warm-up may sit in different modes, which running them longer seldom settles; with a factor model, that is often a sign of more factors than the data support: `compare` scores fewer)"}, nil},
		{"far apart, one factor", diagnostics{all: farBad, c: farBad, lambda: farBad, correlations: 10, loadings: 5, factors: 1, chainESS: 140},
			[]string{"may sit in different modes, which running them longer seldom settles)"}, []string{"fewer"}},
		{"far apart, full model", diagnostics{all: farBad, c: farBad, correlations: 10, chainESS: 100},
			[]string{"may sit in different modes, which running them longer seldom settles)"}, []string{"factors"}},
		// Chains too short to have mixed on their own: running them longer
		// is the remedy, and the note would contradict the hint.
		{"far apart, short chains", diagnostics{all: farBad, c: farBad, correlations: 10, chainESS: 99}, nil, []string{"different modes"}},
		{"at 1.1", diagnostics{all: at11, c: at11, correlations: 10, chainESS: 500}, nil, []string{"different modes"}},
		{"far apart on the loadings only", diagnostics{all: farBad, c: good, lambda: farBad, correlations: 10, loadings: 5, chainESS: 500}, nil, []string{"different modes"}},
	}
	// With names: C's worst entry when C warns, the worst loading when
	// only the loadings do; the entry's own R-hat, not the overall one.
	named := func(d diagnostics) diagnostics {
		d.entry = func(i int) string { return fmt.Sprintf("m.X[%d]", i) }
		return d
	}
	worstC, worstAll := bad, bad
	worstC.maxRHat, worstC.worst, worstC.least, worstC.leastESS = 1.03, 4, 5, 60
	worstAll.worst, worstAll.least, worstAll.leastESS = 12, 13, 30
	goodLoad := good
	goodLoad.worst, goodLoad.least, goodLoad.leastESS = 3, 2, 800
	tests = append(tests, []struct {
		name     string
		d        diagnostics
		want     []string
		dontWant []string
	}{
		{"names C's worst", named(diagnostics{all: worstAll, c: worstC, lambda: worstAll, correlations: 10, loadings: 5}),
			[]string{"the chains disagree, most on m.X[4] (1.030); run longer, or compare the chains with `plot rank m.X[4]` or `plot trace m.X[4]`",
				"quantiles and R-hat are unreliable, least on m.X[5] (30 per chain); run more iterations"},
			[]string{"m.X[12]", "m.X[13]"}},
		{"names the worst loading", named(diagnostics{all: worstAll, c: goodLoad, lambda: worstAll, correlations: 10, loadings: 5}),
			[]string{"on the aligned loadings only (C's entries are within the limits): the chains disagree, most on m.X[12] (1.080)",
				"ESS below 100 per chain on the aligned loadings only (C's entries are within the limits): quantiles and R-hat are unreliable, least on m.X[13] (15 per chain)"},
			[]string{"m.X[3]", "m.X[2]"}},
		{"unnamed", diagnostics{all: bad, c: bad, correlations: 10},
			[]string{"the chains disagree; run longer, or compare the chains with `plot rank` or `plot trace`",
				"quantiles and R-hat are unreliable; run more iterations"}, []string{"most on", "least on"}},
		// ESS per second: C's least bulk ESS over the fit's wall time, not
		// the loadings'.
		{"per second, full model", diagnostics{all: good, c: good, correlations: 10, seconds: 20},
			[]string{"over 10 correlations; C's min bulk ESS per second of the fit 45.0\n"}, nil},
		{"per second, factor model", diagnostics{all: bad, c: good, lambda: bad, correlations: 10, loadings: 5, seconds: 7},
			[]string{"C alone: max R-hat 1.004, min bulk ESS 900, min tail ESS 800; C's min bulk ESS per second of the fit 129\n"}, []string{"5.71"}},
	}...)
	// A warning that names a loading of a column whose communality is near 1
	// says why it mixes slowly; entries 10..14 are the loadings of columns
	// Y1..Y5 (k = 1), 10..19 with k = 2.
	heywood := func(d diagnostics, comm ...float64) diagnostics {
		d = named(d)
		d.communality = comm
		d.column = func(j int) string { return fmt.Sprintf("Y%d", j+1) }
		return d
	}
	leastY4 := worstAll // worst 12 (Y3), least 13 (Y4)
	worstY4 := worstAll
	worstY4.worst = 13
	twoFactors := worstAll // least 17: loading 7, column Y4 with k = 2
	twoFactors.worst, twoFactors.least = 14, 17
	slowC := worstAll // least loading 13 (Y4), but no slower than C's least
	slowC.leastESS = 60
	noESS, someESS := newDiagStats(), newDiagStats()
	for i := range 10 {
		noESS.add(i, inference.Diagnostics{RHat: math.NaN(), ESSBulk: math.NaN(), ESSTail: math.NaN()})
		if i == 7 {
			someESS.add(i, inference.Diagnostics{RHat: 1.001, ESSBulk: 950, ESSTail: math.NaN()})
		} else {
			someESS.add(i, inference.Diagnostics{RHat: 1.004, ESSBulk: 900, ESSTail: 800})
		}
	}
	note := "Y4's communality is 0.95, and near 1, where the factors leave a column little unique variance, the scale of its loadings mixes slowly (sampling.md §9.6)"
	tests = append(tests, []struct {
		name     string
		d        diagnostics
		want     []string
		dontWant []string
	}{
		{"near-Heywood column's loading, ESS", heywood(diagnostics{all: leastY4, c: goodLoad, lambda: leastY4, correlations: 10, loadings: 5}, 0.2, 0.3, 0.5, 0.95, 0.4),
			[]string{"least on m.X[13] (15 per chain): " + note + "; run more iterations", "most on m.X[12] (1.080); run longer"},
			[]string{"Y3's communality"}},
		{"near-Heywood column's loading, R-hat", heywood(diagnostics{all: worstY4, c: goodLoad, lambda: worstY4, correlations: 10, loadings: 5}, 0.2, 0.3, 0.5, 0.95, 0.4),
			[]string{"most on m.X[13] (1.080): " + note + "; run longer, or compare the chains with `plot rank m.X[13]`"}, nil},
		{"two factors", heywood(diagnostics{all: twoFactors, c: goodLoad, lambda: twoFactors, correlations: 10, loadings: 10}, 0.2, 0.3, 0.5, 0.95, 0.4),
			[]string{"least on m.X[17] (15 per chain): " + note}, []string{"most on m.X[14] (1.080):"}},
		{"communality below 0.9", heywood(diagnostics{all: leastY4, c: goodLoad, lambda: leastY4, correlations: 10, loadings: 5}, 0.2, 0.3, 0.5, 0.8999, 0.4),
			[]string{"least on m.X[13] (15 per chain); run more iterations"}, []string{"communality"}},
		{"communality 0.9", heywood(diagnostics{all: leastY4, c: goodLoad, lambda: leastY4, correlations: 10, loadings: 5}, 0.2, 0.3, 0.5, 0.9, 0.4),
			[]string{"least on m.X[13] (15 per chain): Y4's communality is 0.90, and near 1"}, nil},
		{"communality that rounds to 1", heywood(diagnostics{all: leastY4, c: goodLoad, lambda: leastY4, correlations: 10, loadings: 5}, 0.2, 0.3, 0.5, 0.996, 0.4),
			[]string{"Y4's communality is above 0.99, and near 1"}, []string{"communality is 1.00"}},
		// C's entries 4 and 5 are C[Y2, Y3] and C[Y2, Y4]: a note on C's
		// entry only when one of its columns holds the least-ESS loading.
		{"C's entry of the column with the slowest loadings", heywood(diagnostics{all: worstAll, c: worstC, lambda: worstAll, correlations: 10, loadings: 5}, 0.99, 0.99, 0.99, 0.99, 0.99),
			[]string{"most on m.X[4] (1.030); run longer", "least on m.X[5] (30 per chain): Y4's communality is 0.99"}, []string{"Y2's", "Y3's"}},
		{"C's entry when the loadings are not slower than C", heywood(diagnostics{all: worstAll, c: worstC, lambda: slowC, correlations: 10, loadings: 5}, 0.99, 0.99, 0.99, 0.99, 0.99),
			[]string{"least on m.X[5] (30 per chain); run more iterations"}, []string{"communality"}},
		{"C's entry of another column", heywood(diagnostics{all: worstAll, c: worstC, lambda: worstAll, correlations: 10, loadings: 5}, 0.99, 0.99, 0.99, 0.5, 0.99),
			[]string{"most on m.X[4] (1.030); run longer", "least on m.X[5] (30 per chain); run more iterations"}, []string{"communality"}},
		// An ESS that could not be computed (a fit of a few draws, or of
		// draws that do not vary) is no better than a low one: the report
		// says NA, not +Inf, and warns.
		{"no ESS at all", named(diagnostics{all: noESS, c: noESS, correlations: 10}),
			[]string{"max R-hat NA, min bulk ESS NA, min tail ESS NA over 10 correlations",
				"ESS below 100 per chain or not computable: quantiles and R-hat are unreliable, ESS not computable on m.X[0] and 9 other entries (too few draws, or draws that do not vary)"},
			[]string{"Inf"}},
		{"one ESS not computable", named(diagnostics{all: someESS, c: someESS, correlations: 10}),
			[]string{"max R-hat 1.004, min bulk ESS 900, min tail ESS 800 over 10 correlations",
				"ESS not computable on m.X[7] (too few draws"}, []string{"other entr"}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkReport(t, tt.d, tt.want, tt.dontWant) })
	}
}

// checkReport checks that the report of d for 2 chains, with its warnings,
// has every text of want and none of dontWant.
func checkReport(t *testing.T, d diagnostics, want, dontWant []string) {
	t.Helper()
	var b strings.Builder
	warnings := d.report(&b, 2)
	text := b.String() + "\n" + strings.Join(warnings, "\n")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("report lacks %q:\n%s", w, text)
		}
	}
	for _, w := range dontWant {
		if strings.Contains(text, w) {
			t.Errorf("report has %q:\n%s", w, text)
		}
	}
}

func TestFmtRate(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{{0, "0"}, {0.012345, "0.0123"}, {4.5612, "4.56"}, {45, "45.0"}, {78.94, "78.9"}, {99.96, "100"}, {0.099996, "0.100"}, {128.6, "129"}, {1234.4, "1234"}} {
		if got := fmtRate(tt.x); got != tt.want {
			t.Errorf("fmtRate(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}

// TestEntryNamer: the report's names of entries follow
// Result.EntrySummaries' order (C's entries i < j row by row, then the
// loadings row by row), by column name, quoted where the lexer does not
// read it as an identifier (ASCII): by position, a warning about
// m.C[degree, 4] made the reader count columns.
func TestEntryNamer(t *testing.T) {
	r := &inference.Result{P: 4, K: 2, Names: []string{"income", "x y", "model", "é,2"}}
	name := entryNamer("m", r)
	want := []string{
		`m.C[income, "x y"]`, "m.C[income, model]", `m.C[income, "é,2"]`, `m.C["x y", model]`, `m.C["x y", "é,2"]`, `m.C[model, "é,2"]`,
		"m.Lambda[income, 1]", "m.Lambda[income, 2]", `m.Lambda["x y", 1]`, `m.Lambda["x y", 2]`,
		"m.Lambda[model, 1]", "m.Lambda[model, 2]", `m.Lambda["é,2", 1]`, `m.Lambda["é,2", 2]`,
	}
	for i, w := range want {
		if got := name(i); got != w {
			t.Errorf("entry %d: %q, want %q", i, got, w)
		}
	}
	if got := entryNamer("m", &inference.Result{P: 3, Names: []string{"a", "b", "c"}})(3); got != "" {
		t.Errorf("past the last entry of a full model: %q, want none", got)
	}
	if got := name(len(want)); got != "" {
		t.Errorf("past the last loading: %q, want none", got)
	}
	for name, want := range map[string]string{"income": "income", "_x": "_x", "a1": "a1", "B_2": "B_2", "1a": `"1a"`, "x y": `"x y"`, "a-b": `"a-b"`, "é2": `"é2"`, `k "n"`: `"k \"n\""`} {
		if got := columnText(name); got != want {
			t.Errorf("columnText(%q) = %s, want %s", name, got, want)
		}
	}
}

// cancellingRecorder cancels the cell's context once its fit is sampling.
type cancellingRecorder struct {
	recorder
	cancel context.CancelFunc
}

func (r *cancellingRecorder) UpdateDisplay(b MimeBundle, id string) {
	r.recorder.UpdateDisplay(b, id)
	if text, _ := b["text/plain"].(string); strings.Contains(text, ", sampling,") {
		r.cancel()
	}
}

// TestFewEntriesWithoutReport: a fit interrupted in its cell has had no
// report, so its EntrySummaries are not computed; a value or summary of a
// few entries, or of a derived quantity, is then summarised from its own
// draws (not from every entry's, seconds at p = 100), the same numbers as
// once they are computed.
func TestFewEntriesWithoutReport(t *testing.T) {
	s := New(Options{})
	mustRun(t, s, "data d = simulate(FactorCopula(p = 5, k = 2), n = 200, levels = 4, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancellingRecorder{cancel: cancel}
	if _, err := s.Execute(ctx, "fit m, iter = 100000000, warmup = 10, chains = 2", out); err == nil {
		t.Fatal("the fit was not interrupted")
	}
	r := s.models["m"].Fit
	if r == nil || r.KeptDraws() == 0 || r.EntrySummariesDone() {
		t.Fatalf("want an interrupted fit with draws and no summaries yet: %v", r)
	}
	var before []string
	for _, stmt := range []string{"print m.C[Y1, Y2]", "summary m.C[Y3]", "summary m.Lambda[Y2]", "summary m.partial[Y1, Y2]"} {
		before = append(before, mustRun(t, s, stmt).text())
	}
	if r.EntrySummariesDone() {
		t.Error("a few entries computed every entry's summary")
	}
	r.EntrySummaries()
	for k, stmt := range []string{"print m.C[Y1, Y2]", "summary m.C[Y3]", "summary m.Lambda[Y2]", "summary m.partial[Y1, Y2]"} {
		if after := mustRun(t, s, stmt).text(); after != before[k] {
			t.Errorf("%s from its own draws:\n%s\nfrom the fit's summaries:\n%s", stmt, before[k], after)
		}
	}
}

// TestSortSummaries: sort = COLUMN puts the worst rows first (largest R-hat
// or MCSE, least ESS), keeps ties in their order and puts NaN last; and a
// summary statement sorted so shows its rows in that order.
func TestSortSummaries(t *testing.T) {
	nan := math.NaN()
	names := []string{"a", "b", "c", "d", "e"}
	sums := []inference.Summary{
		{RHat: 1.01, ESSBulk: 300, ESSTail: 50, MCSEMean: 0.01},
		{RHat: nan, ESSBulk: nan, ESSTail: nan, MCSEMean: nan},
		{RHat: 1.20, ESSBulk: 40, ESSTail: 400, MCSEMean: 0.03},
		{RHat: 1.01, ESSBulk: 300, ESSTail: 60, MCSEMean: 0.02},
		{RHat: 1.05, ESSBulk: 100, ESSTail: 70, MCSEMean: 0.005},
	}
	for column, want := range map[string]string{
		"rhat":      "c e a d b", // a and d tie: their order kept
		"ess_bulk":  "c e a d b",
		"ess_tail":  "a d e c b",
		"mcse_mean": "c d a e b",
	} {
		got, gotSums := sortSummaries(names, sums, column)
		if strings.Join(got, " ") != want {
			t.Errorf("sort = %s: %v, want %s", column, got, want)
		}
		for k, n := range got {
			if i := slices.Index(names, n); fmt.Sprint(gotSums[k]) != fmt.Sprint(sums[i]) { // Sprint: NaN fields compare equal
				t.Errorf("sort = %s: row %s carries another row's summary", column, n)
			}
		}
	}

	s := New(Options{})
	fit := mustRun(t, s, `data d = simulate(FullCopula(p = 5), n = 300, levels = 4, seed = 11)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m, iter = 40, warmup = 0, seed = 3`)
	// The report's warnings name the entry the sorted summaries put first:
	// the largest R-hat, and the least of bulk and tail ESS, per chain.
	rows := func(sort string) [][]string {
		plain, _ := mustRun(t, s, "summary m.C, sort = "+sort).displays[0]["text/plain"].(string)
		var out [][]string
		for _, line := range strings.Split(plain, "\n") {
			if f := strings.Fields(line); len(f) == 11 && strings.HasPrefix(f[0], "C[") {
				out = append(out, f)
			}
		}
		return out
	}
	expr := func(row []string) string { return "m." + strings.ReplaceAll(row[0], ",", ", ") }
	byRHat := rows("rhat")
	if want := fmt.Sprintf("most on %s (%s)", expr(byRHat[0]), byRHat[0][8]); !strings.Contains(fit.stderr.String(), want) {
		t.Errorf("the R-hat warning does not say %q:\n%s", want, fit.stderr.String())
	}
	bulk, tail := rows("ess_bulk")[0], rows("ess_tail")[0]
	b, _ := strconv.ParseFloat(bulk[6], 64)
	tl, _ := strconv.ParseFloat(tail[7], 64)
	least := bulk
	if tl < b {
		least = tail
	}
	if want := "least on " + expr(least) + " ("; !strings.Contains(fit.stderr.String(), want) {
		t.Errorf("the ESS warning does not say %q:\n%s", want, fit.stderr.String())
	}
	for _, tc := range []struct {
		column string
		index  int // of the column in the table
		worse  func(a, b float64) bool
	}{
		{"rhat", 8, func(a, b float64) bool { return a > b }},
		{"ess_bulk", 6, func(a, b float64) bool { return a < b }},
	} {
		out := mustRun(t, s, "summary m.C, sort = "+tc.column)
		plain, _ := out.displays[0]["text/plain"].(string)
		var values []float64
		for _, line := range strings.Split(plain, "\n") {
			if f := strings.Fields(line); len(f) == 11 && strings.HasPrefix(f[0], "C[") {
				v, err := strconv.ParseFloat(f[tc.index], 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				values = append(values, v)
			}
		}
		if len(values) != 10 {
			t.Fatalf("sort = %s: %d rows in\n%s", tc.column, len(values), plain)
		}
		for k := 1; k < len(values); k++ {
			if tc.worse(values[k], values[k-1]) {
				t.Errorf("sort = %s: row %d (%v) is worse than row %d (%v)", tc.column, k+1, values[k], k, values[k-1])
			}
		}
		if html, _ := out.displays[0]["text/html"].(string); !strings.Contains(html, "rows ordered by "+tc.column+", worst first") {
			t.Errorf("sort = %s: the caption does not say so", tc.column)
		}
	}
}

// TestDiagStatsAdd: add keeps the entry with the largest R-hat and the one
// with the least ESS, bulk or tail, leaving NaN out.
func TestDiagStatsAdd(t *testing.T) {
	nan := math.NaN()
	d := newDiagStats()
	for i, s := range []inference.Diagnostics{
		{RHat: 1.02, ESSBulk: 300, ESSTail: 50},
		{RHat: nan, ESSBulk: nan, ESSTail: nan},
		{RHat: 1.08, ESSBulk: 40, ESSTail: 400},
		{RHat: 1.05, ESSBulk: 100, ESSTail: 70},
	} {
		d.add(i, s)
	}
	if d.worst != 2 || d.maxRHat != 1.08 || d.least != 2 || d.leastESS != 40 || d.minBulk != 40 || d.minTail != 50 || d.nans != 3 {
		t.Errorf("diagStats %+v: want the worst R-hat and the least ESS at entry 2", d)
	}
}

// TestLambdaSummaryIsCorrelationScale: m.Lambda shows the loadings on the
// correlation scale, λ_j/√(1 + ‖λ_j‖²), not the model's Λ of C =
// D^(−1/2)(ΛΛᵀ + I)D^(−1/2): the sum of the squares of a row is the
// column's communality (read with language.md's ‖λ_j‖²/(1 + ‖λ_j‖²) it gave
// 0.34 for the GSS's income, whose communality is 0.52). The summary says
// so, and every draw bears it out (exact identities, to rounding).
func TestLambdaSummaryIsCorrelationScale(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 5, k = 2), n = 150, levels = 4, seed = 3)\n"+
		"model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"+
		"fit f with px, iter = 40, warmup = 20, chains = 2, seed = 1")
	out := mustRun(t, s, "summary f.Lambda")
	html, _ := out.displays[0]["text/html"].(string)
	if !strings.Contains(html, "correlation scale") {
		t.Errorf("summary of Lambda does not say the loadings are on the correlation scale: %s", html)
	}
	r := s.models["f"].Fit
	comm, err := r.Communality()
	if err != nil {
		t.Fatal(err)
	}
	p, k := r.P, r.K
	for c := range r.Lambda {
		for d, l := range r.Lambda[c] {
			for i := range p {
				ss := 0.0
				for h := range k {
					ss += l[i*k+h] * l[i*k+h]
				}
				if math.Abs(ss-comm[i][c][d]) > 1e-12 {
					t.Fatalf("chain %d draw %d column %d: Σ Lambda² = %v, communality %v", c+1, d+1, i+1, ss, comm[i][c][d])
				}
				for j := range i {
					dot := 0.0
					for h := range k {
						dot += l[i*k+h] * l[j*k+h]
					}
					if cij := r.C[c][d][i*p+j]; math.Abs(dot-cij) > 1e-12 {
						t.Fatalf("chain %d draw %d: Σ_h Lambda[%d,h]·Lambda[%d,h] = %v, C = %v", c+1, d+1, i+1, j+1, dot, cij)
					}
				}
			}
		}
	}
}

// TestShowRMSEIsTheMeanOverDraws: `show [a, b]` puts fits of simulated data
// side by side with their RMSE of C to the truth. It showed the RMSE of one
// draw, the last of chain 1 ("final rmse"), whose noise from draw to draw
// (sd 0.013 on a 6-column fit of 400 rows, about the gap it showed between
// two samplers, 0.078 against 0.063) hides any difference between fits.
// It now shows the mean over every kept draw of every chain.
func TestShowRMSEIsTheMeanOverDraws(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 4, k = 1), n = 150, levels = 3, seed = 2)\n"+
		"model a { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model b { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 1) }\n"+
		"fit a with gibbs, iter = 60, warmup = 20, chains = 2, seed = 1\n"+
		"fit b with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1")
	out := mustRun(t, s, "show [a, b]")
	// One field per column, so that the text splits on blanks as summary's does.
	header := []string{"model", "method", "chains", "iterations", "seconds", "ms/iter", "min_ess_bulk", "min_ess/s", "mean_rmse"}
	var rows [][]string
	for _, d := range out.displays {
		lines := captionedLines(t, d)
		if slices.Equal(strings.Fields(lines[0]), header) {
			for _, l := range lines[1:] {
				rows = append(rows, strings.Fields(l))
			}
		}
	}
	if len(rows) != 2 || len(rows[0]) != len(header) {
		t.Fatalf("no table with header %v and rows of as many fields in:\n%s", header, out.text())
	}
	m := s.models["a"]
	truth := truthFor(m)
	sum, n := 0.0, 0
	for _, chain := range m.Fit.C {
		for _, v := range inference.RMSETrace(chain, truth) {
			sum += v
			n++
		}
	}
	want := sum / float64(n)
	if got, err := strconv.ParseFloat(rows[0][8], 64); err != nil || math.Abs(got-want) > 5e-5 {
		t.Errorf("mean rmse %s, want %.4f (the mean over %d kept draws)", rows[0][8], want, n)
	}
}

// figureFiles records the names figures are written under, as the CLI
// writes them to files.
type figureFiles struct {
	recorder
	names, titles []string
}

func (f *figureFiles) WriteFigure(name string, fig *figure.Figure) error {
	f.names = append(f.names, name)
	f.titles = append(f.titles, fig.Text)
	return nil
}

// TestPlotTitlesNameTheModel: plot trace m1.C[1, 2] and plot trace
// m2.C[1, 2] were both titled "C[Y1, Y2]", so that the figures of two fits
// in one notebook could not be told apart. Every plot of a fit's parameters
// names the model in its title and its text.
func TestPlotTitlesNameTheModel(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\n"+
		"model m1 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n"+
		"fit m1 with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1\n"+
		"fit m2 with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1")
	out := &figureFiles{}
	stmts := []string{"plot trace m1.C[1, 2]", "plot trace m2.C[1, 2]", "plot hist m2.partial[Y1, Y3]", "plot acf m1.C[Y2, Y3]", "plot rank m2.C[1, 3]", "plot latent m2.Z[Y1]"}
	if _, err := s.Execute(context.Background(), strings.Join(stmts, "\n"), out); err != nil {
		t.Fatal(err)
	}
	want := []string{`Trace plot of "m1.C[Y1, Y2]": 2 chains × 40 draws`, `Trace plot of "m2.C[Y1, Y2]": 1 chain × 40 draws`,
		`Histogram of "m2.partial[Y1, Y3]"`, `Autocorrelation of "m1.C[Y2, Y3]"`, `Rank plot of "m2.C[Y1, Y3]"`, `"posterior mean of m2.Z[Y1] against its observed levels"`}
	if len(out.titles) != len(want) {
		t.Fatalf("%d figures, want %d", len(out.titles), len(want))
	}
	for k, w := range want {
		if !strings.HasPrefix(out.titles[k], w) && !strings.Contains(out.titles[k], w) {
			t.Errorf("%s: %q, want %q", stmts[k], out.titles[k], w)
		}
	}
}

// TestRegressPlotsAreNamedByTheirFormula: two regressions' R² were both
// written to hist-m.regress-3.png, the second over the first, and both were
// titled "R2". Their files and titles now name the regression.
func TestRegressPlotsAreNamedByTheirFormula(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 100, levels = 3, seed = 2)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1")
	out := &figureFiles{}
	if _, err := s.Execute(context.Background(), "plot hist m.regress(Y1 ~ Y2 + Y3)[R2]\nplot hist m.regress(Y4 ~ Y2 + Y3)[R2]\nplot trace m.regress(Y4 ~ Y2 + Y3)[Y2]", out); err != nil {
		t.Fatal(err)
	}
	want := []string{"hist-m.regress-Y1-Y2-Y3-R2", "hist-m.regress-Y4-Y2-Y3-R2", "trace-m.regress-Y4-Y2-Y3-beta-Y2"}
	if !slices.Equal(out.names, want) {
		t.Errorf("figure files %q, want %q", out.names, want)
	}
	for k, title := range []string{`"R2 of m.regress(Y1 ~ Y2 + Y3)"`, `"R2 of m.regress(Y4 ~ Y2 + Y3)"`, `"beta[Y2] of m.regress(Y4 ~ Y2 + Y3)"`} {
		if k < len(out.titles) && !strings.Contains(out.titles[k], title) {
			t.Errorf("figure %d: %q, want the title %s", k+1, out.titles[k], title)
		}
	}
	// Printed, the rows are named as the summary names them: the formula
	// is said once, not on every row.
	printed := mustRun(t, s, "print m.regress(Y4 ~ Y2 + Y3)").text()
	if strings.Count(printed, "Y4 ~ Y2 + Y3") > 1 || !strings.Contains(printed, "beta[Y2] ") || !strings.Contains(printed, "R2 ") {
		t.Errorf("print of the regression:\n%s", printed)
	}
}

// TestRMSEPlotOfSeveralFitsHasItsOwnFile: `plot rmse [a, b] vs sim` was
// written to rmse-a, the file of `plot rmse a vs sim`, replacing one
// figure by another of different fits.
func TestRMSEPlotOfSeveralFitsHasItsOwnFile(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)\n"+
		"model a { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model b { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n"+
		"fit a with gibbs, iter = 20, warmup = 10, chains = 1\nfit b with gibbs, iter = 20, warmup = 10, chains = 1")
	out := &figureFiles{}
	if _, err := s.Execute(context.Background(), "plot rmse a vs d\nplot rmse [a, b] vs d", out); err != nil {
		t.Fatal(err)
	}
	if want := []string{"rmse-a", "rmse-a-b"}; !slices.Equal(out.names, want) {
		t.Errorf("figure files %q, want %q", out.names, want)
	}
}

// TestColumnNamesWithSpacesAndCommas: a CSV header may name columns
// "Income level" or "a,b". Tables named their entries C[Income level,a,b]
// (which columns?), a fit's warnings gave m.C[degree, 4] (by position), and
// a formula refused the quoted names an index takes. Every name a table,
// warning, title or caption gives is one the language reads back, and the
// fit file round trip keeps the names.
func TestColumnNamesWithSpacesAndCommas(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("Income level,\"a,b\",degree,\"kids \"\"n\"\"\"\n")
	for i := range 120 {
		ab := strconv.Itoa((i / 2) % 5)
		if i%29 == 3 {
			ab = "NA"
		}
		fmt.Fprintf(&csv, "%d,%s,%d,%d\n", i%7, ab, (i*3)%4, (i+i/7)%3)
	}
	if err := os.WriteFile(filepath.Join(dir, "sp.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `data d = load("sp.csv")
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m, iter = 30, warmup = 10, chains = 2, file = "sp.fit"`
	s := New(Options{Dir: dir})
	fit := mustRun(t, s, script)
	if want := `data d: 120 rows × 4 columns ("Income level", "a,b", degree, "kids \"n\""), 5 missing cells`; !strings.Contains(fit.stdout.String(), want) {
		t.Errorf("the data's description lacks %q:\n%s", want, fit.stdout.String())
	}
	// The warnings' expressions (this short fit warns) run as they are.
	exprs := regexp.MustCompile("`plot rank ([^`]*)`").FindStringSubmatch(fit.stderr.String())
	if exprs == nil {
		t.Fatalf("no plot rank in the warnings:\n%s", fit.stderr.String())
	}
	mustRun(t, s, "summary "+exprs[1])
	lines := captionedLines(t, mustRun(t, s, "summary m.C").displays[0])
	var keys []string
	for _, l := range lines[1:] {
		keys = append(keys, l[:strings.Index(l, "]")+1])
	}
	want := []string{`C["Income level","a,b"]`, `C["Income level",degree]`, `C["Income level","kids \"n\""]`,
		`C["a,b",degree]`, `C["a,b","kids \"n\""]`, `C[degree,"kids \"n\""]`}
	if !slices.Equal(keys, want) {
		t.Errorf("summary rows %q, want %q", keys, want)
	}
	out := mustRun(t, s, `summary m.regress("Income level" ~ degree + "a,b")`)
	if got := captionedLines(t, out.displays[0]); len(got) != 4 || !strings.HasPrefix(got[2], `beta["a,b"]`) {
		t.Errorf("regression summary:\n%s", strings.Join(got, "\n"))
	}
	if text, _ := out.displays[0]["text/plain"].(string); !strings.HasPrefix(text, `posterior of m.regress("Income level" ~ degree + "a,b")`) {
		t.Errorf("regression caption: %.80q", text)
	}
	if got := mustRun(t, s, `print m.C["a,b"]`).text(); !strings.HasPrefix(got, `posterior means of m.C["a,b"] `) {
		t.Errorf("print m.C[\"a,b\"]: %.80q", got)
	}
	mustRun(t, s, `export m to "draws.csv"`)
	if cols := readCSV(t, filepath.Join(dir, "draws.columns.csv")); cols[1][1] != `C["Income level","a,b"]` || cols[1][2] != "Income level" || cols[1][3] != "a,b" {
		t.Errorf("draws.columns.csv row %q", cols[1])
	}
	// check's pairs and two-way table, impute's cells: quoted names in
	// what is shown, the header's own in the file of imputed cells.
	checked := mustRun(t, s, `check m["Income level", "a,b"], draws = 20, reps = 40, seed = 1`).text()
	for _, want := range []string{`"Income level"–"a,b" `, `two-way table of "Income level" and "a,b" in m`, "\n\"Income level\"  \"a,b\"  observed"} {
		if !strings.Contains(checked, want) {
			t.Errorf("check's output lacks %q:\n%s", want, checked)
		}
	}
	imputed := mustRun(t, s, "impute m").text()
	mustRun(t, s, `impute m to "cells.csv"`)
	if !strings.Contains(imputed, `(5 in all; "a,b": 5)`) || !regexp.MustCompile(`\n4 +"a,b" `).MatchString(imputed) {
		t.Errorf("impute's output does not quote a,b:\n%s", imputed)
	}
	if rows := readCSV(t, filepath.Join(dir, "cells.csv")); len(rows) != 6 || rows[1][1] != "a,b" {
		t.Errorf("cells.csv: %q, want 5 cells of column a,b", rows)
	}
	// Read back from its file, the fit has the same names.
	again := New(Options{Dir: dir})
	if out := mustRun(t, again, script); !strings.Contains(out.stdout.String(), "read from sp.fit") {
		t.Fatalf("the fit was not read back:\n%s", out.stdout.String())
	}
	if !slices.Equal(again.models["m"].Fit.Names, []string{"Income level", "a,b", "degree", `kids "n"`}) {
		t.Errorf("names read back: %q", again.models["m"].Fit.Names)
	}
}

// TestLambdaSummarySaysWhichColumnsDefineTheFactors: the caption of
// summary m.Lambda said the mean loadings are "positive lower triangular in
// the first k columns, which define the factors", with k unsubstituted and
// "columns" read most naturally as Λ's columns (the factors), all k of
// them. It names the columns of the data whose loadings fix the rotation,
// and why the first of them loads on the first factor alone (its mean
// loadings on the others are 0 by construction, which the table shows as
// 0.000 with a nonzero sd); GDP loadings keep their own caption (found
// reviewing a factor-model analysis of the GSS). With 3 factors the
// others are "factors 2 and 3", where it said "factors 2 to 3".
func TestLambdaSummarySaysWhichColumnsDefineTheFactors(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FactorCopula(p = 5, k = 2), n = 150, levels = 4, seed = 3)")
	for _, tc := range []struct{ prior, want string }{
		{"FactorModel(k = 1)", "with the sign that makes the posterior mean loading of Y1, the first column, positive"},
		{"FactorModel(k = 2)", "then turned so that the posterior mean loadings of the first k = 2 columns, Y1, Y2, are lower triangular with a positive diagonal: Y1 loads on factor 1 alone (its mean loading on factor 2 is 0 by construction), and factor 2 is what Y2 adds"},
		{"FactorModel(k = 3)", "the first k = 3 columns, Y1, Y2, Y3, are lower triangular with a positive diagonal: Y1 loads on factor 1 alone (its mean loadings on factors 2 and 3 are 0 by construction), and factor h is what the h-th of them adds"},
		{"FactorModel(k = 4)", "Y1 loads on factor 1 alone (its mean loadings on factors 2 to 4 are 0 by construction)"},
		{"FactorModel(k = 2, loadings = GDP)", "every draw's factors are matched to a common reference, ordered by decreasing sum of squares, largest loading positive"},
	} {
		mustRun(t, s, "model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ "+tc.prior+" }\n"+
			"fit f with px, iter = 20, warmup = 10, chains = 1, seed = 1")
		out := mustRun(t, s, "summary f.Lambda")
		if text, _ := out.displays[0]["text/plain"].(string); !strings.Contains(text, tc.want) {
			t.Errorf("%s: caption lacks %q:\n%s", tc.prior, tc.want, strings.SplitN(text, "\n", 2)[0])
		}
	}
}

// TestLoadingsWarningSaysWhenTheCommunalityIsSlow: a warning on the aligned
// loadings only said "C's entries are within the limits" and nothing more,
// which reads as an artefact of the alignment. But a column's communality,
// which no rotation changes, can mix as slowly as its loadings (a 20 × 5
// fit of 1,000 rows: Lambda[Y9, 5] with a bulk ESS of 44 per chain, and
// communality[Y9], at 0.86 below the near-Heywood note's 0.9, with 20 and
// R-hat 1.077). The warning now says so when the named loading's column's
// communality warns too (found reviewing a factor-model analysis).
func TestLoadingsWarningSaysWhenTheCommunalityIsSlow(t *testing.T) {
	good := diagStats{maxRHat: 1.004, minBulk: 900, minTail: 800, worst: 3, least: 2, leastESS: 800}
	loads := diagStats{maxRHat: 1.08, minBulk: 40, minTail: 30, worst: 13, least: 13, leastESS: 30} // Y4's loading, k = 1
	with := func(d diagnostics, comm []float64, diag ...inference.Diagnostics) diagnostics {
		d.entry = func(i int) string { return fmt.Sprintf("m.X[%d]", i) }
		d.communality = comm
		d.communalityDiag = diag
		d.column = func(j int) string { return fmt.Sprintf("Y%d", j+1) }
		return d
	}
	fine := inference.Diagnostics{RHat: 1.002, ESSBulk: 900, ESSTail: 800}
	slow := inference.Diagnostics{RHat: 1.077, ESSBulk: 41, ESSTail: 87}
	slowESS := inference.Diagnostics{RHat: 1.004, ESSBulk: 150, ESSTail: 120}
	comm := []float64{0.2, 0.3, 0.5, 0.86, 0.4}
	onlyLoadings := diagnostics{all: loads, c: good, lambda: loads, correlations: 10, loadings: 5}
	note := "Y4's communality, which the alignment does not change, mixes slowly too (R-hat 1.077, ESS 20 per chain): the scale of its loadings mixes slowly, not only their rotation"
	tests := []struct {
		name     string
		d        diagnostics
		want     []string
		dontWant []string
	}{
		{"slow communality", with(onlyLoadings, comm, fine, fine, fine, slow, fine),
			[]string{"most on m.X[13] (1.080): " + note + "; run longer", "least on m.X[13] (15 per chain): " + note + "; run more iterations"}, nil},
		{"slow communality ESS only", with(onlyLoadings, comm, fine, fine, fine, slowESS, fine),
			[]string{"least on m.X[13] (15 per chain): Y4's communality, which the alignment does not change, mixes slowly too (R-hat 1.004, ESS 60 per chain)"}, nil},
		{"communality mixes", with(onlyLoadings, comm, fine, fine, fine, fine, slow),
			[]string{"most on m.X[13] (1.080); run longer", "least on m.X[13] (15 per chain); run more iterations"}, []string{"communality"}},
		{"near-Heywood note instead", with(onlyLoadings, []float64{0.2, 0.3, 0.5, 0.95, 0.4}, fine, fine, fine, slow, fine),
			[]string{"least on m.X[13] (15 per chain): Y4's communality is 0.95, and near 1"}, []string{"alignment does not change"}},
		{"C warns too", with(diagnostics{all: loads, c: loads, lambda: loads, correlations: 10, loadings: 5}, comm, fine, fine, fine, slow, fine),
			nil, []string{"alignment does not change"}},
		{"no communality diagnostics", with(onlyLoadings, comm),
			[]string{"least on m.X[13] (15 per chain); run more iterations"}, []string{"alignment does not change"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkReport(t, tt.d, tt.want, tt.dontWant) })
	}
}

// TestNoOrderColumnsLeftOutOfDiagnostics: the entries of C of a column with
// one distinct value follow the prior, which the sampler explores slowly
// (its latent values are drawn given C, and C given them), so their R-hat
// and ESS are poor by nature. The fit's report, its warnings, its extend
// hint and an ESS target leave them out and say so. Before, a fit of 60
// rows with a constant column warned on f.C[b, const] (R-hat 1.205, ESS 4
// per chain) and asked for 30,000 more iterations, which cannot help, and
// `fit f, ess = 400` ran to its limit (found reviewing a factor-model
// analysis of a file with a constant column).
func TestNoOrderColumnsLeftOutOfDiagnostics(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("a,b,const\n")
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 60; i++ {
		x := rng.NormFloat64()
		y := 0.6*x + 0.8*rng.NormFloat64()
		fmt.Fprintf(&csv, "%d,%d,3\n", min(max(int(math.Round(x+2)), 0), 4), min(max(int(math.Round(y+2)), 0), 4))
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("d.csv")`)
	for _, prior := range []string{"InverseWishart(df = p + 2)", "FactorModel(k = 1)"} {
		t.Run(prior, func(t *testing.T) {
			mustRun(t, s, "model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ "+prior+" }")
			out := mustRun(t, s, "fit m, iter = 400, warmup = 100, chains = 2, seed = 1, ess = 300")
			report, warnings := out.stdout.String(), out.stderr.String()
			left := "left out: the 2 correlations of const, which has at most one distinct value"
			if strings.HasPrefix(prior, "Factor") {
				left = "left out: the 2 correlations and 1 loadings of const, which has at most one distinct value"
			}
			if !strings.Contains(report, left) {
				t.Errorf("report lacks %q:\n%s", left, report)
			}
			if !strings.Contains(report, "over 1 correlation") {
				t.Errorf("report does not count C's entries:\n%s", report)
			}
			if !strings.Contains(report, "the least ESS of C reached 300") && !strings.Contains(report, "met the least ESS of C asked, 300") {
				t.Errorf("the ESS target was not met on C[a, b]:\n%s", report)
			}
			if strings.Contains(warnings, "const") {
				t.Errorf("a warning names const's entries:\n%s", warnings)
			}
		})
	}
}

// TestImputeLeavesOutTheModeOfContinuousColumns: the most probable value
// of a missing cell in a continuous column is often the column's largest
// or smallest, which stand for unbounded intervals of the latent scale (a
// cell whose mode was −7.375 had q5 −7.357): impute shows NA for the mode
// of a column most of whose values occur once and says why, and keeps it
// for the others (found by the factor-model review).
func TestImputeLeavesOutTheModeOfContinuousColumns(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("ord,cont\n")
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 80; i++ {
		x := rng.NormFloat64()
		y := 0.7*x + 0.7*rng.NormFloat64()
		o, c := strconv.Itoa(min(max(int(math.Round(x+2)), 0), 4)), strconv.FormatFloat(y, 'f', 4, 64)
		switch i % 10 {
		case 3:
			o = "NA"
		case 6:
			c = "NA"
		}
		fmt.Fprintf(&csv, "%s,%s\n", o, c)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("d.csv")`)
	mustRun(t, s, "model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	mustRun(t, s, "fit m, iter = 200, chains = 2, seed = 1")
	out := mustRun(t, s, "impute m")
	if len(out.displays) != 1 {
		t.Fatalf("impute showed %d displays", len(out.displays))
	}
	plain, _ := out.displays[0]["text/plain"].(string)
	if note := "mode and p_mode are NA for cont, most of whose values occur once"; !strings.Contains(plain, note) {
		t.Errorf("caption lacks %q:\n%s", note, plain)
	}
	lines := captionedLines(t, out.displays[0])
	rows := 0
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 8 {
			continue
		}
		rows++
		switch naMode := f[2] == "NA" && f[3] == "NA"; f[1] {
		case "cont":
			if !naMode {
				t.Errorf("cont's mode is shown: %s", line)
			}
			if f[5] == "NA" || f[7] == "NA" {
				t.Errorf("cont's median or mean is missing: %s", line)
			}
		case "ord":
			if naMode {
				t.Errorf("ord's mode is left out: %s", line)
			}
		}
	}
	if rows != 16 {
		t.Errorf("%d rows of imputed cells, want 16:\n%s", rows, strings.Join(lines, "\n"))
	}

	// impute m[COL]: one column's cells, and the draws of those cells
	// are the columns of the whole draws file that they head.
	out = mustRun(t, s, "impute m[cont]")
	plain, _ = out.displays[0]["text/plain"].(string)
	if !strings.Contains(plain, "(8 in all; cont: 8)") || strings.Contains(plain, " ord ") || !strings.Contains(plain, `impute m[cont] to "cells.csv"`) {
		t.Errorf("impute m[cont]:\n%s", plain)
	}
	mustRun(t, s, `impute m to "all.csv", draws = "all_draws.csv"`)
	mustRun(t, s, `impute m[2] to "cont.csv", draws = "cont_draws.csv"`)
	all, cont := readCSV(t, filepath.Join(dir, "all_draws.csv")), readCSV(t, filepath.Join(dir, "cont_draws.csv"))
	if len(cont[0]) != 2+8 || len(cont) != len(all) {
		t.Fatalf("cont_draws.csv: %d columns, %d rows; all_draws.csv %d rows", len(cont[0]), len(cont), len(all))
	}
	for k, head := range cont[0] {
		j := slices.Index(all[0], head)
		if j < 0 {
			t.Fatalf("column %s of cont_draws.csv is not in all_draws.csv", head)
		}
		for r := range cont {
			if cont[r][k] != all[r][j] {
				t.Fatalf("%s, row %d: %s in cont_draws.csv, %s in all_draws.csv", head, r, cont[r][k], all[r][j])
			}
		}
	}
	out = mustRun(t, s, "impute m[ord]")
	if len(out.displays) != 1 {
		t.Errorf("impute m[ord] showed %d displays", len(out.displays))
	}
}

// TestGDPLoadingsSayHowFarTheyTurn: a GDP prior fixes the factors' rotation
// only in principle. On the GSS with k = 2, Lambda[degree, 1] had sd 0.19
// and its pairs plot showed arcs, while the caption said the loadings were
// identified up to order and signs. The caption now gives how far the
// matched draws still turn (inference.ResidualTurns) and, past looseTurn,
// what to read instead; normal loadings, aligned by rotation, say nothing
// of the kind (found by the factor-model review).
func TestGDPLoadingsSayHowFarTheyTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("fits factor models of the GSS twice; skipped under -short")
	}
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`)
	caption := func(prior string) string {
		mustRun(t, s, "model g { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ "+prior+" }\nfit g, iter = 1000, seed = 1")
		out := mustRun(t, s, "summary g.Lambda")
		text, _ := out.displays[0]["text/plain"].(string)
		return strings.SplitN(text, "\n", 2)[0]
	}
	gdp := caption("FactorModel(k = 2, loadings = GDP(alpha = 3, beta = 1))")
	turn := regexp.MustCompile(`the matched draws still turn about their mean by (\d+)° \(median; 90% within (\d+)°`).FindStringSubmatch(gdp)
	if turn == nil {
		t.Fatalf("GDP caption does not say how far the draws turn:\n%s", gdp)
	}
	// 4 chains × 1000 draws of the GSS (2,000-iteration fits gave a
	// median of 9° and a 90% quantile of 32°).
	if median, _ := strconv.Atoi(turn[1]); median < 3 || median > 20 {
		t.Errorf("median turn %d°, expected about 9°", median)
	}
	if q90, _ := strconv.Atoi(turn[2]); q90 <= looseTurn {
		t.Errorf("90%% of the turns within %d°, expected about 32°", q90)
	}
	if want := "read C and the communalities, which no rotation changes, and `plot pairs g.Lambda` shows the turns as arcs"; !strings.Contains(gdp, want) {
		t.Errorf("GDP caption lacks %q:\n%s", want, gdp)
	}
	if normal := caption("FactorModel(k = 2)"); strings.Contains(normal, "turn about their mean") {
		t.Errorf("normal loadings' caption speaks of turns:\n%s", normal)
	}
}
