package session

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/inference"
)

// TestFitPrintsPlanNotes: fit prints the plan's notes before it samples, so
// that a substitution shows where the fit is run and not only in explain —
// here hmc handing fine columns to Gibbs because a trajectory of T = 100
// would pass the exact-HMC sampler's bounce cap.
func TestFitPrintsPlanNotes(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 100, seed = 1)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	out := mustRun(t, s, "fit m with hmc(T = 100), iter = 5, warmup = 5, chains = 1, seed = 1")
	text := out.stdout.String()
	if !strings.Contains(text, "note: column Y1 has") || !strings.Contains(text, "so Y1 gets Hoff's Gibbs update instead") {
		t.Errorf("fit printed %q, want the plan's note on Y1", text)
	}
	if i, j := strings.Index(text, "note: "), strings.Index(text, "fit m with gibbs"); i < 0 || j < i {
		t.Errorf("fit printed %q, want the notes before the fit report", text)
	}
}

// TestFactorFitWithContinuousColumn is issue 14's acceptance case: a factor
// model with a continuous column at n = 10,000 fits, under auto (px) and
// under interweave. The joint exact-HMC step would bounce about
// 0.4·n² = 4·10⁷ times per trajectory on that column, past its cap of
// 1000·n + 1000; the interweave plan gives the column PX's column step, says
// so, and the binary columns keep the joint step.
func TestFactorFitWithContinuousColumn(t *testing.T) {
	if testing.Short() {
		t.Skip("fits n = 10,000 rows; skipped with -short")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("x,a,b\n")
	for range 10000 {
		f := rng.NormFloat64()
		x := 0.8*f + 0.6*rng.NormFloat64()
		a := 0.7*f + 0.7*rng.NormFloat64()
		c := 0.6*f + 0.8*rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,%d,%d\n", x, btoi(a > 0), btoi(c > 0.3))
	}
	if err := os.WriteFile(filepath.Join(dir, "mixed.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("mixed.csv")`+"\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	if text := mustRun(t, s, "fit m, iter = 3, warmup = 2, chains = 1, seed = 1").stdout.String(); !strings.Contains(text, "fit m with px (auto): 1 chain") {
		t.Errorf("fit m printed %q, want px (auto)", text)
	}
	text := mustRun(t, s, "fit m with interweave, iter = 3, warmup = 2, chains = 1, seed = 1").stdout.String()
	if !strings.Contains(text, "note: x has more than 10 distinct values") || !strings.Contains(text, "it gets PX's column step instead") {
		t.Errorf("fit printed %q, want the plan's note on x", text)
	}
	if !strings.Contains(text, "fit m with interweave: 1 chain") {
		t.Errorf("fit printed %q, want interweave for the binary columns", text)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLongFitSaysHowLong: a fit expected to take more than a minute prints
// its estimate ("will run: ..., about N min on C cores") before sampling, and
// a short one does not. The long fit is interrupted as soon as it starts.
func TestLongFitSaysHowLong(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	mustRun(t, s, "data d = simulate(FullCopula(p = 20), n = 1000, levels = 5, seed = 1)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	if text := mustRun(t, s, "fit m, iter = 5, warmup = 5, chains = 1").stdout.String(); strings.Contains(text, "will run:") {
		t.Errorf("a short fit printed its estimate:\n%s", text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &recorder{onStream: func(text string) {
		if strings.HasPrefix(text, "will run:") {
			cancel()
		}
	}}
	s.Execute(ctx, "fit m with hmc, iter = 100000, warmup = 1000, chains = 2", out)
	cancel()
	text := out.stdout.String()
	if !strings.Contains(text, "will run: hmc, 2 chains × (1000 warm-up + 100000 kept) iterations; about ") || !strings.Contains(text, " (a rough estimate)") {
		t.Errorf("a long fit printed:\n%s\nwant its estimate first", text)
	}
}

// TestAutoScheduleReport: a fit under auto of a full correlation matrix says
// after its report what the adaptive run chose and why (sampling.md §9.2):
// Gibbs throughout, on weakly correlated columns and on 20 strongly
// correlated 4-level ones too, written into
// the fit's first line; the poor diagnostics of the short run come with the
// hint to run longer. (The report of a run that took exact HMC is
// TestScheduleReportCloseCall's.)
func TestAutoScheduleReport(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	write := func(name string, p int, rho float64) {
		var b strings.Builder
		for j := range p {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "y%d", j+1)
		}
		b.WriteString("\n")
		for range 200 {
			f := rng.NormFloat64()
			for j := range p {
				if j > 0 {
					b.WriteString(",")
				}
				z := math.Sqrt(rho)*f + math.Sqrt(1-rho)*rng.NormFloat64()
				fmt.Fprintf(&b, "%d", 1+btoi(z > -0.7)+btoi(z > 0)+btoi(z > 0.7))
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("weak.csv", 4, 0.2)
	write("strong.csv", 20, 0.95)
	s := New(Options{Dir: dir})
	mustRun(t, s, `data weak = load("weak.csv")`+"\n"+`data strong = load("strong.csv")`+
		"\nmodel w { Y = weak; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }"+
		"\nmodel s { Y = strong; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }")
	text := mustRun(t, s, "fit w, iter = 10, warmup = 40, chains = 2, seed = 1").stdout.String()
	if !strings.Contains(text, "fit w with gibbs (auto)") || !strings.Contains(text, "auto kept Hoff's Gibbs update for every column after 20 warm-up iterations") {
		t.Errorf("weak correlation: fit printed %q", text)
	}
	out := mustRun(t, s, "fit s, iter = 10, warmup = 40, chains = 2, seed = 1")
	text = out.stdout.String()
	// Since the scaling move the mixing model predicts exact HMC no better
	// per iteration (sampling.md §9.5), however strong the correlation.
	if !strings.Contains(text, "fit s with gibbs (auto)") || !strings.Contains(text, "auto kept Hoff's Gibbs update for every column after 20 warm-up iterations") {
		t.Errorf("strong correlation: fit printed %q", text)
	}
	if !strings.Contains(out.stderr.String(), "hint: on columns of 3 to 10 levels Hoff's Gibbs sampler") {
		t.Errorf("a Gibbs run whose diagnostics warn gives no hint: %q", out.stderr.String())
	}
}

// TestScheduleReportCloseCall: the report of an adaptive choice says when the
// predicted speed-up, either way, is within the mixing model's scatter, and
// names the two fits to compare; a clear choice says nothing more.
func TestScheduleReportCloseCall(t *testing.T) {
	names := []string{"a", "b", "c"}
	sched := func(gibbsTau, tau float64, hmc ...bool) *inference.Schedule {
		return &inference.Schedule{After: 50, R2: []float64{0.8, 0.7, 0.1}, HMC: hmc,
			GibbsTau: gibbsTau, Tau: tau, GibbsPerIter: time.Millisecond, PerIter: 10 * time.Millisecond}
	}
	tests := []struct {
		name  string
		sc    *inference.Schedule
		close bool
	}{
		{"hmc predicted 1.5x", sched(150, 10, true, true, false), true},
		{"hmc predicted 20x", sched(2000, 10, true, true, false), false},
		{"gibbs kept, predicted 0.6x", sched(60, 10, false, false, false), true},
		{"gibbs kept, predicted 0.4x", sched(40, 10, false, false, false), false},
		{"gibbs kept, predicted 0.05x", sched(5, 10, false, false, false), false},
	}
	for _, tc := range tests {
		text := scheduleReport(tc.sc, names, "m")
		got := strings.Contains(text, "This is a close call")
		if got != tc.close {
			t.Errorf("%s (speed-up %.2f): close call %v, want %v:\n%s", tc.name, tc.sc.Speedup(), got, tc.close, text)
		}
		if got && !strings.Contains(text, "`fit m with gibbs` and `fit m with hmc`") {
			t.Errorf("%s: the close call names no fits to compare:\n%s", tc.name, text)
		}
		want := "auto kept Hoff's Gibbs update for every column after 50 warm-up iterations"
		if tc.sc.HMC[0] {
			want = "auto switched a, b to exact HMC after 50 warm-up iterations"
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s: report does not say %q:\n%s", tc.name, want, text)
		}
	}
}

// TestFitSaysItsDataWereBoundAgain: a model keeps the data it was declared
// on, so a notebook that loads its edited CSV again and reruns the fit's
// cell, not the model's, fits the data as they were — and, with a fit
// file, reads the fit of those. The fit must say so, with what to do, and
// what differs: a load cell run again with a column dropped or a cell
// edited gives data of as many rows from the same file, which the note
// described word for word as the data the model keeps ("(60 rows, from
// d.csv), not the data d names now (60 rows, from d.csv)"). A load cell run
// again on an unchanged file, with a missing-value code that marks the same
// cells, or with a change in a column the model does not use, needs no
// note. explain m says the same before the fit (it said nothing).
func TestFitSaysItsDataWereBoundAgain(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("a,b,unused\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%3, (i/2)%4, i%5)
	}
	original := b.String()
	withNA := strings.Replace(original, "\n1,0,1\n", "\nNA,0,1\n", 1)
	const fit = `fit m, iter = 10, warmup = 10, chains = 1, seed = 1, file = "m.fit"`
	const load = `data d = load("d.csv")`
	const note = "note: m fits d as it was when m was declared (60 rows, from d.csv), not the data d names now"
	for _, tc := range []struct {
		name, before, after, load string
		// noted is the note's description of the data d names now, ""
		// for no note.
		noted string
	}{
		{"unchanged", original, original, load, ""},
		{"a column the model does not use", original, strings.Replace(original, "\n0,0,0\n", "\n0,0,4\n", 1), load, ""},
		{"a column the model does not use dropped", original, original, `data d = load("d.csv", drop = [unused])`, ""},
		{"a missing cell coded -99", withNA, strings.Replace(withNA, "NA", "-99", 1), `data d = load("d.csv", na = ["-99"])`, ""},
		{"one cell of the model's", original, strings.Replace(original, "\n0,0,0\n", "\n2,0,0\n", 1), load, "(60 rows, from d.csv; 1 cell of a differs)"},
		{"a missing cell coded -99 not marked", withNA, strings.Replace(withNA, "NA", "-99", 1), load, "(60 rows, from d.csv; 1 cell of a differs)"},
		{"cells of both columns", original, strings.Replace(strings.Replace(original, "\n0,0,0\n", "\n2,1,0\n", 1), "\n1,0,1\n", "\n0,0,1\n", 1), load, "(60 rows, from d.csv; 2 cells of a and 1 cell of b differ)"},
		{"a column of the model's dropped", original, original, `data d = load("d.csv", drop = [b])`, "(60 rows, from d.csv; no column b)"},
		{"fewer rows", original, original[:strings.LastIndex(original[:len(original)-1], "\n")+1], load, "(59 rows, from d.csv)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.before)
			s := New(Options{Dir: dir})
			mustRun(t, s, load+"\nmodel m { Y = d[a, b]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
			mustRun(t, s, fit)
			write(tc.after)
			mustRun(t, s, tc.load)
			// explain m, before the fit, says it too (it said nothing).
			for _, statement := range []string{"explain m", fit} {
				text := mustRun(t, s, statement).stdout.String()
				if got := strings.Contains(text, note); got != (tc.noted != "") {
					t.Errorf("%s noted %v, want %v:\n%s", statement, got, tc.noted != "", text)
				}
				if tc.noted != "" && !strings.Contains(text, note+" "+tc.noted+": declare m again to fit those\n") {
					t.Errorf("%s: the note does not say %q and what to do:\n%s", statement, tc.noted, text)
				}
			}
		})
	}
}
