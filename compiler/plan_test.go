package compiler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/copulang/copulang/hough"
	"github.com/copulang/copulang/inference"
)

// planFor checks src (which declares model m, and may fit it) and plans m.
func planFor(t *testing.T, src string, env fakeEnv) (*InferencePlan, error) {
	t.Helper()
	prog := mustCheck(t, src, env)
	var decl *DeclareModel
	var fit *Fit
	for _, s := range prog.Stmts {
		switch s := s.(type) {
		case *DeclareModel:
			decl = s
		case *Fit:
			fit = s
		}
	}
	d := env[decl.Data].(*DataInfo)
	return Plan(decl, d, fit)
}

const (
	fullGSS   = "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	factorSim = "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		method    inference.Method
		columnHMC []bool
		steps     int
		note      string // a substring of some note, "" for no notes
		adapt     bool
	}{
		// auto: for a full correlation matrix, Gibbs that may switch the
		// columns of 3 to 10 levels to exact HMC during warm-up (sampling.md
		// §9.2), if the warm-up is long enough; px for a factor model (§9.1).
		{"auto full", fullGSS, inference.HMC, []bool{false, true, true, true, true, true, false}, 2, "", true},
		{"auto full by default", fullGSS + "fit m", inference.HMC, []bool{false, true, true, true, true, true, false}, 2, "", true},
		{"auto full short warm-up", fullGSS + "fit m, warmup = 19", inference.Gibbs, nil, 2, "", false},
		{"auto full no warm-up", fullGSS + "fit m, warmup = 0", inference.Gibbs, nil, 2, "", false},
		{"gibbs full", fullGSS + "fit m with gibbs", inference.Gibbs, nil, 2, "", false},
		{"hmc full", fullGSS + "fit m with hmc(T = 1)", inference.HMC, []bool{true, true, true, true, true, true, true}, 2, "column INC has 26 distinct values", false},
		{"auto coarse only", "model m { Y = gss[DEG, PDEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }", inference.HMC, []bool{true, true}, 2, "", true},
		{"hmc coarse only", "model m { Y = gss[DEG, PDEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\nfit m with hmc", inference.HMC, []bool{true, true}, 2, "", false},
		{"auto fine only", "model m { Y = gss[INC, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }", inference.Gibbs, nil, 2, "", false},
		{"auto factor", factorSim, inference.PX, nil, 5, "", false},
		{"auto factor with T", factorSim + "fit m with auto(T = 2)", inference.PX, nil, 5, "T = 2 is not used: auto runs px on a factor model", false},
		{"auto factor with the default T", factorSim + "fit m with auto(T = pi / 2)", inference.PX, nil, 5, "", false},
		{"interweave factor", factorSim + "fit m with interweave(T = 2)", inference.Interweave, nil, 5, "", false},
		{"hmc factor", factorSim + "fit m with hmc", inference.Interweave, nil, 5, "hmc on a factor model is interweave", false},
		{"px factor", factorSim + "fit m with px", inference.PX, nil, 5, "", false},
		{"gibbs factor", factorSim + "fit m with gibbs", inference.PX, nil, 5, "gibbs on a factor model is its parameter-expanded", false},
		// gss: INC (26 levels) and AGE (71) get PX's column step under interweave.
		{"hmc factor fine columns", "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\nfit m with hmc", inference.Interweave, []bool{false, true, true, true, true, true, false}, 6, "INC, AGE have more than 10 distinct values", false},
		{"interweave factor fine columns", "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\nfit m with interweave", inference.Interweave, []bool{false, true, true, true, true, true, false}, 6, "they get PX's column step instead", false},
		{"interweave factor only fine columns", "model m { Y = gss[INC, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }\nfit m with interweave", inference.PX, nil, 5, "the fit runs px instead of interweave", false},
		{"px gdp", "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2, loadings = GDP) }\nfit m with px", inference.PX, nil, 6, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := planFor(t, tt.src, newFakeEnv())
			if err != nil {
				t.Fatal(err)
			}
			if pl.Method != tt.method {
				t.Errorf("method %v, want %v", pl.Method, tt.method)
			}
			if !reflect.DeepEqual(pl.ColumnHMC, tt.columnHMC) {
				t.Errorf("ColumnHMC %v, want %v", pl.ColumnHMC, tt.columnHMC)
			}
			if pl.Adapt != tt.adapt {
				t.Errorf("Adapt %v, want %v", pl.Adapt, tt.adapt)
			}
			if len(pl.Steps) != tt.steps {
				t.Errorf("%d steps, want %d:\n%s", len(pl.Steps), tt.steps, pl.Explain())
			}
			notes := strings.Join(pl.Notes, "\n")
			if (tt.note == "") != (notes == "") || !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q, want one containing %q", notes, tt.note)
			}
			for _, s := range pl.Steps {
				if s.Name == "" || s.Updates == "" || s.Why == "" || s.Cost == "" {
					t.Errorf("incomplete step %+v", s)
				}
			}
		})
	}
}

// TestPlanIfPoorMixing checks that a Gibbs fit of a full correlation
// matrix with coarse columns, and only it, carries the advice to run longer.
func TestPlanIfPoorMixing(t *testing.T) {
	tests := []struct {
		name, src string
		advise    bool
	}{
		{"auto full", fullGSS, true},
		{"gibbs full", fullGSS + "fit m with gibbs", true},
		{"hmc full", fullGSS + "fit m with hmc", false},
		{"auto fine only", "model m { Y = gss[INC, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }", false},
		{"auto factor", factorSim, false},
		{"gibbs factor", factorSim + "fit m with gibbs", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := planFor(t, tt.src, newFakeEnv())
			if err != nil {
				t.Fatal(err)
			}
			if got := pl.IfPoorMixing != ""; got != tt.advise {
				t.Fatalf("IfPoorMixing = %q, want advice: %v", pl.IfPoorMixing, tt.advise)
			}
			if tt.advise && !strings.Contains(pl.IfPoorMixing, "`extend m`") {
				t.Errorf("IfPoorMixing = %q, want it to name `extend m`", pl.IfPoorMixing)
			}
			if strings.Contains(pl.IfPoorMixing, "binary") {
				t.Errorf("IfPoorMixing speaks of binary columns the data do not have: %q", pl.IfPoorMixing)
			}
		})
	}
	// With a binary column the advice says that binary columns mix slowest.
	env := newFakeEnv()
	env["bin"] = &DataInfo{Name: "bin", N: 300, Columns: []ColumnInfo{{Name: "A", Levels: 2}, {Name: "B", Levels: 5}, {Name: "C", Levels: 3}}}
	pl, err := planFor(t, "model m { Y = bin; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n", env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pl.IfPoorMixing, "binary columns are strongly correlated") || !strings.Contains(pl.IfPoorMixing, "`extend m`") {
		t.Errorf("IfPoorMixing with a binary column = %q", pl.IfPoorMixing)
	}
}

func TestPlanRefuses(t *testing.T) {
	env := newFakeEnv()
	full := &DeclareModel{Name: "m", Data: "gss", Columns: []string{"DEG", "PDEG"}, Model: inference.FullCorrelation{}}
	gss := env["gss"].(*DataInfo)
	tests := []struct {
		name string
		m    *DeclareModel
		f    *Fit
		want string
	}{
		{"px on full", full, &Fit{Method: "px"}, "px samples factor models"},
		{"interweave on full", full, &Fit{Method: "interweave"}, "interweave samples factor models"},
		{"unknown column", &DeclareModel{Name: "m", Columns: []string{"DEG", "XX"}, Model: inference.FullCorrelation{}}, nil, "no column XX"},
		{"one column", &DeclareModel{Name: "m", Columns: []string{"DEG"}, Model: inference.FullCorrelation{}}, nil, "at least 2 columns"},
		{"k too large", &DeclareModel{Name: "m", Columns: []string{"DEG", "PDEG"}, Model: inference.FactorModel{K: 2}}, nil, "k = 2 factors"},
		{"no model", nil, nil, "needs a model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Plan(tt.m, gss, tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestExplainGolden pins the text of explain for the main plans.
func TestExplainGolden(t *testing.T) {
	var b strings.Builder
	for _, src := range []string{
		fullGSS,
		fullGSS + "fit m with gibbs, iter = 200, chains = 2",
		fullGSS + "fit m with hmc(T = 100), iter = 200",
		factorSim + "fit m with px, seed = 3",
		factorSim,
		factorSim + "fit m with interweave, iter = 200",
	} {
		pl, err := planFor(t, src, newFakeEnv())
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(">>> " + strings.ReplaceAll(strings.TrimSpace(src), "\n", "; ") + "\n")
		pl.Cores = 2 // the estimate's cores, as on the project's machine
		b.WriteString(pl.Explain())
		b.WriteString("\n")
	}
	got := b.String()
	path := "testdata/explain.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("explain output differs from %s (go test -update to accept):\n%s", path, got)
	}
}

// TestPlanHMCFallsBackPastTheBounceCap: with hmc asked for, a column whose
// expected bounces per trajectory, n_obs·(L−1)·T/(2π), pass 80% of the
// sampler's cap of 1000·n + 1000 gets Hoff's Gibbs update, with a note; the
// other columns keep exact HMC. Without the fallback such a fit fails once a
// trajectory hits the cap (at about n = 4,000 to 5,600 for a continuous
// column at T = π/2, depending on the correlations).
func TestPlanHMCFallsBackPastTheBounceCap(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		fine    ColumnInfo
		travel  float64
		wantHMC bool // exact HMC kept on the fine column
	}{
		{"continuous, n = 2000", 2000, ColumnInfo{Levels: 2000}, DefaultTravelTime, true},         // B̂ = 1.0e6, cap 2.0e6
		{"continuous, n = 3200", 3200, ColumnInfo{Levels: 3200}, DefaultTravelTime, true},         // B̂ = 2.56e6 < 0.8 × 3.2e6
		{"continuous, n = 3300", 3300, ColumnInfo{Levels: 3300}, DefaultTravelTime, false},        // B̂ = 2.72e6 > 0.8 × 3.3e6
		{"continuous, n = 10000", 10000, ColumnInfo{Levels: 10000}, DefaultTravelTime, false},     // B̂ = 2.5e7
		{"missing cells", 4000, ColumnInfo{Levels: 3000, Missing: 1000}, DefaultTravelTime, true}, // B̂ = 2.25e6 < 0.8 × 4.0e6
		{"100 levels, n = 100000", 100000, ColumnInfo{Levels: 100}, DefaultTravelTime, true},      // B̂ = 2.5e6 ≪ 1e8
		{"long travel time", 2000, ColumnInfo{Levels: 2000}, 10, false},                           // B̂ = 6.4e6
		{"short travel time", 5000, ColumnInfo{Levels: 5000}, 0.5, true},                          // B̂ = 2.0e6
		{"many levels, long travel time", 2000, ColumnInfo{Levels: 1000}, 12, false},              // B̂ = 3.8e6
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fine.Name = "X"
			d := &DataInfo{Name: "big", N: tt.n, Columns: []ColumnInfo{tt.fine, {Name: "A", Levels: 5}, {Name: "B", Levels: 3}}}
			m := &DeclareModel{Name: "m", Data: "big", Model: inference.FullCorrelation{}}
			pl, err := Plan(m, d, &Fit{Model: "m", Method: "hmc", TravelTime: tt.travel, Iter: 100, Warmup: 100, Chains: 1, Thin: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := []bool{tt.wantHMC, true, true}; pl.Method != inference.HMC || !reflect.DeepEqual(pl.ColumnHMC, want) {
				t.Fatalf("method %v, ColumnHMC %v; want hmc, %v", pl.Method, pl.ColumnHMC, want)
			}
			explain := pl.Explain()
			noted := strings.Contains(explain, "note: column X") && strings.Contains(explain, "so X gets Hoff's Gibbs update instead")
			if noted == tt.wantHMC {
				t.Errorf("fallback note present = %v, want %v:\n%s", noted, !tt.wantHMC, explain)
			}
			if !tt.wantHMC && !strings.Contains(explain, "updates: z of X\n   why:     you asked for hmc, but") {
				t.Errorf("the Gibbs step does not say why X is there:\n%s", explain)
			}
		})
	}
	// End to end at a size a test can afford: with T = 100 a continuous
	// column of 100 rows expects 158,000 bounces per trajectory against a
	// cap of 101,000. The planned fit runs; exact HMC on every column fails.
	t.Run("fit", func(t *testing.T) {
		const n = 100
		rng := rand.New(rand.NewPCG(5, 6))
		cols := make([][]float64, 3)
		for j := range cols {
			cols[j] = make([]float64, n)
			for i := range cols[j] {
				cols[j][i] = rng.NormFloat64()
				if j > 0 {
					cols[j][i] = math.Round(cols[j][i] * float64(j))
				}
			}
		}
		d := &DataInfo{Name: "small", N: n}
		for j, name := range []string{"X", "A", "B"} {
			levels := len(slices.Compact(slices.Sorted(slices.Values(cols[j]))))
			d.Columns = append(d.Columns, ColumnInfo{Name: name, Levels: levels})
		}
		pl, err := Plan(&DeclareModel{Name: "m", Data: "small", Model: inference.FullCorrelation{}}, d, &Fit{Model: "m", Method: "hmc", TravelTime: 100})
		if err != nil {
			t.Fatal(err)
		}
		if want := []bool{false, true, true}; !reflect.DeepEqual(pl.ColumnHMC, want) {
			t.Fatalf("ColumnHMC %v, want %v", pl.ColumnHMC, want)
		}
		spec := inference.Spec{Columns: cols, Model: inference.FullCorrelation{}, Method: pl.Method, ColumnHMC: pl.ColumnHMC,
			Iter: 5, Warmup: 5, Seed: 1, TravelTime: 100}
		if _, err := inference.Run(context.Background(), spec, nil); err != nil {
			t.Errorf("planned fit (ColumnHMC %v): %v", pl.ColumnHMC, err)
		}
		spec.ColumnHMC = nil
		if _, err := inference.Run(context.Background(), spec, nil); err == nil || !strings.Contains(err.Error(), "cap of 101000 bounces") {
			t.Errorf("exact HMC on every column: error %v, want the bounce cap", err)
		}
	})
	// When every column falls back, the plan is plain Gibbs.
	d := &DataInfo{Name: "big", N: 8000, Columns: []ColumnInfo{{Name: "X", Levels: 8000}, {Name: "Y", Levels: 7999}}}
	pl, err := Plan(&DeclareModel{Name: "m", Data: "big", Model: inference.FullCorrelation{}}, d, &Fit{Model: "m", Method: "hmc", TravelTime: DefaultTravelTime})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Method != inference.Gibbs || pl.ColumnHMC != nil || len(pl.Notes) != 2 {
		t.Errorf("method %v, ColumnHMC %v, %d notes; want gibbs, nil and 2 notes:\n%s", pl.Method, pl.ColumnHMC, len(pl.Notes), pl.Explain())
	}
}

// TestBounceCapMatchesHough pins hmcBounceCap to the cap that package hough
// enforces by default, read from the error of trajectories long enough to
// hit it (travel time 2000 on a total order gives n(n−1)/2·2000/π bounces,
// 28,600 for n = 10 and 496,000 for n = 40).
func TestBounceCapMatchesHough(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, 40} {
		y := make([]float64, n)
		x := make([]float64, n)
		for i := range y {
			y[i] = float64(i)
			x[i] = float64(i) / float64(n)
		}
		lv, err := hough.NewLevels(y)
		if err != nil {
			t.Fatal(err)
		}
		_, err = hough.NewSampler(lv, hough.Options{TravelTime: 2000}).Transition(rng, x, make([]float64, n), 1)
		want := fmt.Sprintf("cap of %.0f bounces", hmcBounceCap(n))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("n = %d: error %v, want one with %q", n, err, want)
		}
	}
}

// TestExpectedBouncesMatchesHough checks expectedBounces where it is exact:
// a total order of n = 100 rows with μ = 0, started from stationarity (the
// sorted values of n standard normal draws), so E[B] = n(n−1)/2·T/π. The
// mean over 300 trajectories is compared within 5 standard errors, the
// standard error being the sample sd over √ESS of the chain of counts
// (about 0.5% of the mean here; the test also requires 5 standard errors to
// be under 10% of the mean, so that it would fail for a formula 10% off).
func TestExpectedBouncesMatchesHough(t *testing.T) {
	const n, trajectories = 100, 300
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, n)
	x := make([]float64, n)
	for i := range y {
		y[i] = float64(i)
		x[i] = rng.NormFloat64()
	}
	slices.Sort(x)
	lv, err := hough.NewLevels(y)
	if err != nil {
		t.Fatal(err)
	}
	mu := make([]float64, n)
	for _, travel := range []float64{DefaultTravelTime, 2.5} {
		s := hough.NewSampler(lv, hough.Options{TravelTime: travel})
		counts := make([]float64, trajectories)
		for k := range counts {
			st, err := s.Transition(rng, x, mu, 1)
			if err != nil {
				t.Fatal(err)
			}
			counts[k] = float64(st.Bounces)
		}
		mean, sd := 0.0, 0.0
		for _, c := range counts {
			mean += c / trajectories
		}
		for _, c := range counts {
			sd += (c - mean) * (c - mean) / (trajectories - 1)
		}
		se := math.Sqrt(sd) / math.Sqrt(inference.ESS([][]float64{counts}))
		want := expectedBounces(n, n, travel)
		t.Logf("T = %.4g: %.0f bounces per trajectory (se %.0f), expected %.0f", travel, mean, se, want)
		if math.Abs(mean-want) > 5*se || 5*se > 0.1*want {
			t.Errorf("T = %.4g: mean bounces %.0f ± %.0f, want %.0f", travel, mean, se, want)
		}
	}
}

// TestPlanAutoBeyondMixingRows: with more rows than auto's mixing model was
// fitted to, auto keeps Gibbs for a full correlation matrix and says why;
// at the limit it still adapts.
func TestPlanAutoBeyondMixingRows(t *testing.T) {
	for _, n := range []int{inference.MixingMaxRows, inference.MixingMaxRows + 1} {
		d := &DataInfo{Name: "d", N: n}
		for _, name := range []string{"a", "b", "c"} {
			d.Columns = append(d.Columns, ColumnInfo{Name: name, Levels: 5})
		}
		m := &DeclareModel{Name: "m", Data: "d", Columns: []string{"a", "b", "c"}, Model: inference.FullCorrelation{}}
		pl, err := Plan(m, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		beyond := n > inference.MixingMaxRows
		if pl.Adapt == beyond || (pl.Method == inference.Gibbs) != beyond {
			t.Errorf("n = %d: method %v, adapt %v; want adaptation only up to %d rows", n, pl.Method, pl.Adapt, inference.MixingMaxRows)
		}
		if got := strings.Contains(pl.Steps[0].Why, "beyond the 3000"); got != beyond {
			t.Errorf("n = %d: why %q", n, pl.Steps[0].Why)
		}
	}
}

// TestPlanWithESSTarget checks that a fit with an ESS target says in its
// plan that it runs on after iter, how far at most, and that its time
// estimate covers only the first instalment.
func TestPlanWithESSTarget(t *testing.T) {
	pl, err := planFor(t, fullGSS+"fit m, iter = 500, chains = 2, ess = 1000", newFakeEnv())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 chains × (250 warm-up + 500 kept) iterations, then more until the least ESS of C is 1000 and R-hat ≤ 1.01 (at most 10000 kept); ",
		" for the first 750 per chain on ",
		"then until every entry of C has bulk and tail ESS ≥ 1000 and R-hat ≤ 1.01 (at most 20 × iter = 10000 kept)",
	} {
		if !strings.Contains(pl.Explain(), want) {
			t.Errorf("explain lacks %q:\n%s", want, pl.Explain())
		}
	}
}

// TestKeptDrawsNote: a fit whose kept draws pass 1 GiB is told so, with a
// thin that keeps them under it (checked by planning again with that thin);
// warm-up draws count for simulated data, loadings for factor models.
func TestKeptDrawsNote(t *testing.T) {
	cases := []struct {
		name          string
		f             Fit
		p, k          int
		warmup, noted bool
		want          string
	}{
		{"GSS default", Fit{Iter: 1000, Warmup: 500, Chains: 4, Thin: 1}, 7, 0, false, false, ""},
		{"p = 50, 10⁴ draws", Fit{Iter: 10000, Warmup: 5000, Chains: 4, Thin: 1}, 50, 0, false, false, ""},
		{"p = 60, 10⁵ draws", Fit{Iter: 100000, Warmup: 50000, Chains: 4, Thin: 1}, 60, 0, false, true, "4 × 100000 draws of C in memory: about 10.7 GB; thin = 11"},
		{"simulated, warm-up kept", Fit{Iter: 100000, Warmup: 50000, Chains: 4, Thin: 1}, 60, 0, true, true, "4 × (100000 + 50000 warm-up) draws of C"},
		{"factor model, thinned", Fit{Iter: 100000, Warmup: 50000, Chains: 4, Thin: 2}, 60, 5, false, true, "4 × 50000 draws of C and Λ"},
		{"ess", Fit{Iter: 100000, Warmup: 50000, Chains: 4, Thin: 1, ESS: 400}, 60, 0, false, true, "up to 20 times as many"},
		{"thin unset (not a checked fit)", Fit{Iter: 100000, Chains: 4}, 60, 0, false, false, ""},
		{"one draw a chain too many", Fit{Iter: 10, Warmup: 5, Chains: 4, Thin: 1}, 6000, 0, false, true, "fewer chains or columns keep less"},
	}
	for _, c := range cases {
		note := keptDrawsNote(&c.f, c.p, c.k, c.warmup)
		if (note != "") != c.noted || !strings.Contains(note, c.want) {
			t.Errorf("%s: note %q, want one containing %q (noted %v)", c.name, note, c.want, c.noted)
			continue
		}
		if note == "" {
			continue
		}
		if !strings.Contains(note, "thin = ") {
			continue
		}
		var thin int
		if _, err := fmt.Sscanf(note[strings.LastIndex(note, "thin = "):], "thin = %d", &thin); err != nil {
			t.Fatalf("%s: %q names no thin: %v", c.name, note, err)
		}
		f := c.f
		f.Thin = thin
		if thin > f.Iter {
			t.Errorf("%s: suggested thin = %d exceeds iter = %d", c.name, thin, f.Iter)
		}
		if again := keptDrawsNote(&f, c.p, c.k, c.warmup); again != "" {
			t.Errorf("%s: with the suggested thin = %d still %q", c.name, thin, again)
		}
	}
}

// TestPlanMemoryNotes: the plan says when the kept draws or the chains'
// latent values will take a lot of memory, and says nothing on an
// ordinary fit.
func TestPlanMemoryNotes(t *testing.T) {
	env := newFakeEnv()
	big := *env["sim"].(*DataInfo)
	big.Name, big.N = "big", 1_000_000
	env["big"] = &big
	for _, tc := range []struct{ src, want string }{
		{fullGSS + "fit m with gibbs, iter = 1000", ""},
		{fullGSS + "fit m with gibbs, iter = 10000000", "draws of C in memory: about 14.6 GB; thin = 15"},
		{"model m { Y = big; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\nfit m, chains = 64, iter = 100", "its 64 chains hold about 5.7 GB of latent values"},
	} {
		pl, err := planFor(t, tc.src, env)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(pl.Notes, "\n")
		if (tc.want == "") != (notes == "") || !strings.Contains(notes, tc.want) {
			t.Errorf("%q: notes %q, want one containing %q", tc.src, notes, tc.want)
		}
	}
}

// TestCollapsedCost: explain says when px's collapsed loadings step is made
// only in some iterations (from 60 columns on).
func TestCollapsedCost(t *testing.T) {
	for _, tc := range []struct {
		p    int
		want string
	}{{20, "5 to 20 steps per iteration"}, {59, "5 to 20 steps per iteration"}, {100, "with 100 columns made in a random one of every 3 iterations"}} {
		if got := collapsedCost(tc.p); !strings.Contains(got, tc.want) {
			t.Errorf("collapsedCost(%d) = %q, want it to say %q", tc.p, got, tc.want)
		}
	}
}

// TestPlanConstantColumnNote: a column of one observed value carries no
// order information, and every plan says so, whatever the model. Only the
// full model's plan did: a factor model fitted to a constant column (the
// loader warns, and the model is accepted) ran with no note while the
// column's correlations, held by the prior alone, gave the fit's worst
// R-hat (found reviewing a factor-model analysis with a constant column).
func TestPlanConstantColumnNote(t *testing.T) {
	env := newFakeEnv()
	env["flat"] = &DataInfo{Name: "flat", N: 60, Columns: []ColumnInfo{
		{Name: "a", Levels: 4}, {Name: "b", Levels: 3}, {Name: "c", Levels: 1}, {Name: "d", Levels: 5}}}
	const note = "c has at most one distinct value: no order information"
	for _, tc := range []struct{ name, src, want string }{
		{"full gibbs", "model m { Y = flat; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }\nfit m with gibbs", note},
		{"full auto", "model m { Y = flat; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ }", note},
		{"factor auto", "model m { Y = flat; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }", note},
		{"factor interweave", "model m { Y = flat; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\nfit m with interweave", note},
		{"factor gdp px", "model m { Y = flat; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1, loadings = GDP) }\nfit m with px", note},
		{"factor no constant column", "model m { Y = flat[a, b, d]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := planFor(t, tc.src, env)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(pl.Notes, "\n")
			if got := strings.Count(notes, "at most one distinct value"); tc.want != "" && (got != 1 || !strings.Contains(notes, tc.want)) || tc.want == "" && got != 0 {
				t.Errorf("notes %q, want the note %q once", notes, tc.want)
			}
		})
	}
}

// TestPlanRareBinaryNote: a binary column with at most 10 observed cells
// in its rarer level gets a note in every plan, naming it and its count; a
// binary column of 11, and a many-level column whose rarest level is
// small, do not. On a survey whose consent question 2 of 800 answered no,
// consent's entries of C gave the fit's worst R-hat (1.41) and ESS (4)
// with no note, and the warnings pointed at strongly correlated binary
// columns and 33,000 more iterations.
func TestPlanRareBinaryNote(t *testing.T) {
	env := newFakeEnv()
	env["s"] = &DataInfo{Name: "s", N: 800, Columns: []ColumnInfo{
		{Name: "smoker", Levels: 2, Rarer: 250}, {Name: "q1", Levels: 5}, {Name: "consent", Levels: 2, Rarer: 2},
		{Name: "my flag", Levels: 2, Rarer: 10}, {Name: "tick", Levels: 2, Rarer: 11}, {Name: "visits", Levels: 14}}}
	for _, tc := range []struct{ name, src, want string }{
		{"one column, full", "model m { Y = s[smoker, q1, consent, tick]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }",
			"binary column with few observed cells in its rarer level: consent (2 cells); its correlations rest on those cells alone, so their posterior stays wide, close to the prior, and mixes slowly: the fit's R-hat and ESS may warn on them first (summary m.C[consent] shows them); leave it out of Y if it is not needed"},
		{"two columns, factor", "model f { Y = s; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }",
			`binary columns with few observed cells in their rarer level: consent (2 cells), "my flag" (10 cells); their correlations`},
		{"none", "model m { Y = s[smoker, q1, tick, visits]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := planFor(t, tc.src, env)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(pl.Notes, "\n")
			if got := strings.Count(notes, "rarer level"); tc.want != "" && (got != 1 || !strings.Contains(notes, tc.want)) || tc.want == "" && got != 0 {
				t.Errorf("notes %q, want the note %q once", notes, tc.want)
			}
		})
	}
}

// TestPlanFactorsPastLedermannBound: a factor model with more factors than
// the Ledermann bound, the largest k with (p − k)² ≥ p + k, has more free
// loadings (p·k − k(k − 1)/2) than C has correlations (p(p − 1)/2), so
// many loadings, and communalities, give the same C. The plan said
// nothing: k = 7 on 8 columns of two-factor data fitted C well, while its
// communalities (which rotation does not change) had R-hat 1.28 and the
// fit's warning blamed the rotation of the loadings (found reviewing a
// factor-model analysis that chose k too large).
func TestPlanFactorsPastLedermannBound(t *testing.T) {
	env := newFakeEnv() // sim has 6 columns: the bound is k = 3 ((6 − 3)² = 9 ≥ 9)
	for _, tc := range []struct {
		k    int
		want string
	}{
		{1, ""},
		{3, ""},
		{4, "k = 4 factors on 6 columns is past the Ledermann bound k ≤ 3"},
		{5, "k = 5 factors on 6 columns is past the Ledermann bound k ≤ 3"},
	} {
		src := fmt.Sprintf("model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = %d) }", tc.k)
		pl, err := planFor(t, src, env)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(pl.Notes, "\n")
		if (tc.want == "") != (notes == "") || !strings.Contains(notes, tc.want) {
			t.Errorf("k = %d: notes %q, want one containing %q", tc.k, notes, tc.want)
		}
	}
	// Two columns: one factor is already past the bound, which is 0.
	pl, err := planFor(t, "model m { Y = sim[Y1, Y2]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }", env)
	if err != nil {
		t.Fatal(err)
	}
	if notes, want := strings.Join(pl.Notes, "\n"), "k = 1 factor on 2 columns is past the Ledermann bound k ≤ 0"; !strings.Contains(notes, want) || !strings.Contains(notes, "(no k does on 2 columns)") {
		t.Errorf("2 columns: notes %q, want one containing %q and (no k does on 2 columns)", notes, want)
	}
	// The bound itself, against its definition.
	for p := 2; p <= 60; p++ {
		want := 0
		for k := 1; k < p; k++ {
			if (p-k)*(p-k) >= p+k {
				want = k
			}
		}
		if got := ledermannBound(p); got != want {
			t.Errorf("ledermannBound(%d) = %d, want %d", p, got, want)
		}
	}
}
