package inference

import (
	"context"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
)

// TestMixingModelFitsTheMeasurements compares GibbsTau and HMCTau with the
// long runs they were fitted to (testdata/mixing_measured.csv: the
// integrated autocorrelation time of C's worst entry, draws / min bulk ESS,
// from 2 chains of 1000 + 10,000 Gibbs or 200 + 800 HMC iterations, 4
// chains for the 5-factor and 3-factor rows; see sampling.md §9.5 for how
// they were made): every prediction within the factors stated with the
// models, 4.5 for Gibbs and 4 for exact HMC on columns of 3 or more levels.
func TestMixingModelFitsTheMeasurements(t *testing.T) {
	rows := readTestCSV(t, "testdata/mixing_measured.csv")
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var gibbsLogErr []float64
	seen := map[string]int{}
	for _, r := range rows[1:] {
		num := func(name string) float64 { v, _ := strconv.ParseFloat(r[col[name]], 64); return v }
		levels, r2, tau := int(num("levels")), num("r2"), num("tau_min")
		switch r[col["method"]] {
		case "gibbs":
			pred := GibbsTau(r2, levels == 2)
			if e := math.Abs(math.Log(pred / tau)); e > math.Log(4.5) {
				t.Errorf("%v: GibbsTau %.1f, measured %.1f", r, pred, tau)
			} else {
				gibbsLogErr = append(gibbsLogErr, e)
			}
		case "hmc":
			if levels < 3 {
				continue // binary columns are not given exact HMC
			}
			if pred := HMCTau(r2); math.Abs(math.Log(pred/tau)) > math.Log(4) {
				t.Errorf("%v: HMCTau %.1f, measured %.1f", r, pred, tau)
			}
		default:
			t.Fatalf("method %q", r[col["method"]])
		}
		seen[r[col["method"]]]++
	}
	if seen["gibbs"] < 46 || seen["hmc"] < 12 {
		t.Errorf("measurements %v, want at least 46 Gibbs and 12 HMC runs", seen)
	}
	sort.Float64s(gibbsLogErr)
	t.Logf("GibbsTau: median factor %.2f from the measurement over %d runs", math.Exp(gibbsLogErr[len(gibbsLogErr)/2]), len(gibbsLogErr))
}

// TestMixingModelDirections: Gibbs slows with R² and on binary columns;
// per iteration exact HMC is predicted to mix like Gibbs (within 2× either
// way) on columns of 3 or more levels, so its cost decides against it.
func TestMixingModelDirections(t *testing.T) {
	if !(GibbsTau(0.8, false) > GibbsTau(0.6, false) && GibbsTau(0.6, true) > GibbsTau(0.6, false)) {
		t.Error("GibbsTau does not grow with R² and on binary columns")
	}
	for _, r2 := range []float64{0.2, 0.5, 0.8, 0.9, 0.95} {
		if ratio := HMCTau(r2) / GibbsTau(r2, false); ratio < 0.5 || ratio > 2 {
			t.Errorf("R² %.2f: HMCTau / GibbsTau = %.2f", r2, ratio)
		}
	}
	if GibbsTau(-1, false) < 1 || HMCTau(1.5) > 1e4 || math.IsNaN(GibbsTau(math.NaN(), false)) {
		t.Error("out-of-range R² not clamped")
	}
}

// slowGibbsMixing is the mixing model fitted before the scaling move
// (sampling.md §1.4), when Hoff's Gibbs sampler slowed steeply with R² and
// p: under it adaptSchedule takes exact HMC on strongly correlated columns,
// which TestAdaptiveSchedule needs to reach that outcome.
var slowGibbsMixing = mixingModel{
	gibbs: func(r2 float64, p int, binary bool) float64 {
		r2 = clampR2(r2)
		lt := -0.515 + 2.583*math.Log(1/(1-r2)) + 2.060*math.Log(float64(p)/10)
		if binary {
			lt += 0.757
		}
		return math.Max(1, math.Exp(lt))
	},
	hmc: func(r2 float64) float64 {
		return math.Max(1, math.Exp(0.262+0.879*math.Log(1/(1-clampR2(r2)))))
	},
}

// TestAdaptiveSchedule runs Spec.Adapt on data where the choice is clear
// either way. Under the fitted mixing model, strongly correlated 4-level
// columns with p = 20 keep Gibbs (exact HMC no longer mixes better per
// iteration). Under a model where Gibbs is slow there (slowGibbsMixing)
// they move to exact HMC after the Gibbs warm-up iterations, binary columns
// never do, and of one strongly correlated pair among independent columns
// only the pair does. Weakly correlated columns keep Gibbs (no bounce in
// the whole run); a warm-up too short to adapt in keeps Gibbs without a
// schedule; and an adaptive run is reproducible from its seed.
// TestProgressNamesTheScheduleOnceChosen: an adaptive run's progress
// reports carry no schedule while the first phase runs and its choice once
// made, the final report too, so that a progress line can say what runs.
func TestProgressNamesTheScheduleOnceChosen(t *testing.T) {
	cols, err := Equicorrelated(300, 6, 4, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	const chains, warmup = 2, 40
	var mu sync.Mutex
	var reports []Progress
	res, err := Run(context.Background(), Spec{Columns: cols, Method: HMC, Adapt: true, Warmup: warmup, Iter: 5000, Chains: chains, Seed: 3}, func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Schedule == nil {
		t.Fatal("the run did not adapt: the test does not test")
	}
	first := chains * AdaptAfter(warmup) // iterations of the first phase, over the chains
	after := 0
	for _, p := range reports[:len(reports)-1] {
		if chosen := p.AllDone > first; (p.Schedule != nil) != chosen {
			t.Errorf("a report at %d of %d iterations (the first phase %d) has schedule %v", p.AllDone, p.AllTotal, first, p.Schedule)
		} else if chosen {
			after++
		}
	}
	if final := reports[len(reports)-1]; final.Schedule != res.Schedule {
		t.Errorf("the final report's schedule is %v, the run's %v", final.Schedule, res.Schedule)
	}
	if after == 0 {
		t.Errorf("no report after the choice among %d (in %v): the test does not test", len(reports), res.Elapsed)
	}
}

func TestAdaptiveSchedule(t *testing.T) {
	data := func(n, p, levels int, rho float64, seed uint64) [][]float64 {
		cols, err := Equicorrelated(n, p, levels, rho, seed)
		if err != nil {
			t.Fatal(err)
		}
		return cols
	}
	weak := data(300, 6, 4, 0.2, 1)
	strong := data(200, 20, 4, 0.95, 2)
	strong[0] = data(200, 2, 2, 0.5, 3)[0] // one binary column
	runWith := func(cols [][]float64, warmup int, mm *mixingModel) *Result {
		t.Helper()
		res, err := Run(context.Background(), Spec{Columns: cols, Method: HMC, Adapt: true, Warmup: warmup, Iter: 10, Chains: 2, Seed: 3, mixing: mm}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Invariants(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	run := func(cols [][]float64, warmup int) *Result {
		t.Helper()
		return runWith(cols, warmup, &slowGibbsMixing)
	}
	bounces := func(r *Result) (b int64) {
		for _, st := range r.Stats {
			b += st.Bounces
		}
		return b
	}

	r := run(weak, 40)
	if r.Schedule == nil || r.Schedule.After != 20 || slices.Contains(r.Schedule.HMC, true) || bounces(r) != 0 {
		t.Fatalf("weak correlation: schedule %+v, %d bounces; want Gibbs throughout after 20 iterations", r.Schedule, bounces(r))
	}
	if s := r.Schedule.Speedup(); !(s > 0 && s < adaptMargin) {
		t.Errorf("weak correlation: predicted speed-up %.2f", s)
	}

	r = runWith(strong, 40, nil)
	if sc := r.Schedule; sc == nil || slices.Contains(sc.HMC, true) || bounces(r) != 0 || !(sc.Speedup() > 0 && sc.Speedup() < adaptMargin) {
		t.Fatalf("strong correlation, fitted mixing model: schedule %+v, %d bounces; want Gibbs throughout", sc, bounces(r))
	}

	r = run(strong, 40)
	sc := r.Schedule
	t.Logf("strong correlation: R² %.2f, τ Gibbs %.0f, HMC %.1f, time per iteration ×%.1f, speed-up %.1f",
		slices.Max(sc.R2), sc.GibbsTau, sc.Tau, sc.PerIter.Seconds()/sc.GibbsPerIter.Seconds(), sc.Speedup())
	if sc.HMC[0] || slices.Contains(sc.HMC[1:], false) || bounces(r) == 0 {
		t.Fatalf("strong correlation: HMC %v, %d bounces; want exact HMC on every 4-level column and Gibbs on the binary one", sc.HMC, bounces(r))
	}
	again := run(strong, 40)
	if !slices.EqualFunc(r.C, again.C, func(a, b [][]float64) bool { return slices.EqualFunc(a, b, slices.Equal) }) {
		t.Error("two adaptive runs with the same seed differ")
	}

	// One strongly correlated pair among independent columns: exact HMC
	// on the pair only, the schedule that costs least for the same
	// predicted mixing (adaptSchedule's per-column candidates).
	pair := data(300, 2, 5, 0.98, 4)
	pairCols := append(data(300, 6, 5, 0.05, 5)[:5], pair[0])
	pairCols = append(pairCols, data(300, 6, 5, 0.05, 6)[:5]...)
	pairCols = append(pairCols, pair[1])
	r = run(pairCols, 40)
	sc = r.Schedule
	t.Logf("one strong pair: R² %.2f, τ Gibbs %.0f, best with HMC %.1f, time per iteration ×%.1f, speed-up %.1f",
		sc.R2, sc.GibbsTau, sc.Tau, sc.PerIter.Seconds()/sc.GibbsPerIter.Seconds(), sc.Speedup())
	want := make([]bool, 12)
	want[5], want[11] = true, true
	if !slices.Equal(sc.HMC, want) {
		t.Errorf("one strong pair: HMC %v (R² %.2f), want %v", sc.HMC, sc.R2, want)
	}

	// Beyond the rows the mixing model was fitted to: Gibbs, however strong.
	big := data(MixingMaxRows+1, 4, 5, 0.95, 7)
	if sc := run(big, 40).Schedule; !sc.BeyondRows || slices.Contains(sc.HMC, true) {
		t.Errorf("%d rows: schedule %+v, want Gibbs kept beyond MixingMaxRows", MixingMaxRows+1, sc)
	}

	if r := run(strong, 19); r.Schedule != nil || bounces(r) != 0 {
		t.Errorf("warm-up 19: schedule %+v, %d bounces; want no adaptation", r.Schedule, bounces(r))
	}
	if _, err := Run(context.Background(), Spec{Columns: weak, Method: Gibbs, Adapt: true, Iter: 10}, nil); err == nil {
		t.Error("Adapt with method gibbs was accepted")
	}
}
