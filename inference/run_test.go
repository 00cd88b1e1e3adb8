package inference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// ordinalData draws n rows z_i ~ N(0, c) and cuts column j at the thresholds
// Φ⁻¹(k/levels[j]), k = 1..levels[j]−1, giving values 1..levels[j]; each cell
// is then missing with probability missing. It also returns the complete data.
func ordinalData(rng *rand.Rand, c []float64, levels []int, n int, missing float64) (cols, complete [][]float64) {
	p := len(levels)
	l := slices.Clone(c)
	if !cholLower(l, p) {
		panic("ordinalData: C not positive definite")
	}
	cols = make([][]float64, p)
	complete = make([][]float64, p)
	for j := range cols {
		cols[j] = make([]float64, n)
		complete[j] = make([]float64, n)
	}
	e := make([]float64, p)
	for i := 0; i < n; i++ {
		for j := range e {
			e[j] = rng.NormFloat64()
		}
		for j := 0; j < p; j++ {
			z := 0.0
			for k := 0; k <= j; k++ {
				z += l[j*p+k] * e[k]
			}
			u := stdNormalCDF(z)
			v := math.Min(float64(levels[j]), 1+math.Floor(u*float64(levels[j])))
			complete[j][i] = v
			cols[j][i] = v
			if rng.Float64() < missing {
				cols[j][i] = math.NaN()
			}
		}
	}
	return cols, complete
}

var d1Truth = []float64{
	1, .5, -.3, .2,
	.5, 1, .6, 0,
	-.3, .6, 1, -.4,
	.2, 0, -.4, 1,
}

// posteriorMeanSD returns the posterior mean and sd of every entry of C over
// all chains.
func posteriorMeanSD(r *Result) (mean, sd []float64) {
	p := r.P
	mean = make([]float64, p*p)
	sd = make([]float64, p*p)
	cnt := 0
	for _, ch := range r.C {
		for _, m := range ch {
			axpy(1, m, mean)
			cnt++
		}
	}
	for k := range mean {
		mean[k] /= float64(cnt)
	}
	for _, ch := range r.C {
		for _, m := range ch {
			for k, v := range m {
				sd[k] += (v - mean[k]) * (v - mean[k])
			}
		}
	}
	for k := range sd {
		sd[k] = math.Sqrt(sd[k] / float64(cnt-1))
	}
	return mean, sd
}

func rmseUpper(a, b []float64, p int) float64 {
	return RMSETrace([][]float64{a}, b)[0]
}

// TestRecoverD1 is sampling.md §6d D1: Gibbs recovers a known correlation
// matrix from n = 2000 rows of 5/5/2/3-level data with 10% missing cells.
func TestRecoverD1(t *testing.T) {
	if testing.Short() {
		t.Skip("recovery of a known C: long statistical test, skipped under -short")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(2024, 1))
	cols, _ := ordinalData(rng, d1Truth, []int{5, 5, 2, 3}, 2000, 0.1)
	res, err := Run(context.Background(), Spec{Columns: cols, Method: Gibbs, Warmup: 500, Iter: 1500, Seed: 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Invariants(); err != nil {
		t.Fatal(err)
	}
	mean, sd := posteriorMeanSD(res)
	rmse := rmseUpper(mean, d1Truth, 4)
	t.Logf("D1 Gibbs: RMSE of posterior mean %.4f (pass < 0.06), elapsed %v", rmse, res.Elapsed)
	if rmse >= 0.06 {
		t.Errorf("RMSE %.4f >= 0.06", rmse)
	}
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			k := i*4 + j
			if math.Abs(mean[k]-d1Truth[k]) > 4*sd[k] {
				t.Errorf("C[%d,%d]: posterior mean %.3f (sd %.3f), truth %.3f: more than 4 sd away", i+1, j+1, mean[k], sd[k], d1Truth[k])
			}
		}
	}
}

// TestRecoverD2 is sampling.md §6d D2: column HMC on n = 500 rows recovers
// the truth (RMSE < 0.12) and agrees with a long Gibbs run on the same data
// within 4 combined Monte Carlo standard errors.
func TestRecoverD2(t *testing.T) {
	if testing.Short() {
		t.Skip("recovery of a known C: long statistical test, skipped under -short")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(2025, 1))
	cols, _ := ordinalData(rng, d1Truth, []int{5, 5, 2, 3}, 500, 0.1)
	hmc, err := Run(context.Background(), Spec{Columns: cols, Method: HMC, Warmup: 100, Iter: 500, Chains: 2, Seed: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := hmc.Invariants(); err != nil {
		t.Fatal(err)
	}
	gibbs, err := Run(context.Background(), Spec{Columns: cols, Method: Gibbs, Warmup: 500, Iter: 3000, Chains: 2, Seed: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, _ := posteriorMeanSD(hmc)
	rmse := rmseUpper(mean, d1Truth, 4)
	t.Logf("D2 HMC: RMSE of posterior mean %.4f (pass < 0.12), elapsed %v, %.0f bounces per column trajectory",
		rmse, hmc.Elapsed, float64(hmc.Stats[0].Bounces)/float64(hmc.Stats[0].Iterations*4))
	if rmse >= 0.12 {
		t.Errorf("RMSE %.4f >= 0.12", rmse)
	}
	hs, gs := hmc.Summary(), gibbs.Summary()
	for k := range hs {
		se := math.Hypot(hs[k].MCSEMean, gs[k].MCSEMean)
		if d := hs[k].Mean - gs[k].Mean; math.Abs(d) > 4*se {
			t.Errorf("%s: HMC mean %.4f, Gibbs mean %.4f, differ by %.4f > 4 × MCSE %.4f", hs[k].Name, hs[k].Mean, gs[k].Mean, d, se)
		}
	}
}

// TestRecoverD3 is sampling.md §6d D3: the factor model (PX) recovers a
// p = 10, k = 3 truth from n = 1000 rows of 5-level data (RMSE < 0.06;
// measured 0.023 with this seed).
func TestRecoverD3(t *testing.T) {
	if testing.Short() {
		t.Skip("recovery of a known C: long statistical test, skipped under -short")
	}
	t.Parallel()
	sim, err := Simulate(SimSpec{P: 10, K: 3, N: 1000, Levels: 5, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 3}, Method: PX, Warmup: 500, Iter: 1000, Seed: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Invariants(); err != nil {
		t.Fatal(err)
	}
	mean, _ := posteriorMeanSD(res)
	rmse := rmseUpper(mean, sim.C, 10)
	t.Logf("D3 PX: RMSE of posterior mean %.4f (pass < 0.06), elapsed %v", rmse, res.Elapsed)
	if rmse >= 0.06 {
		t.Errorf("RMSE %.4f >= 0.06", rmse)
	}
}

// TestLatentsFeasible asserts, after every iteration, that every latent
// column satisfies its order constraints exactly and that C is valid, for
// both column updates and both priors, on data with ties, a continuous
// column, a binary column and missing cells.
func TestLatentsFeasible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	cols, _ := ordinalData(rng, d1Truth, []int{5, 2, 3, 4}, 150, 0.1)
	for i := range cols[3] {
		if !math.IsNaN(cols[3][i]) {
			cols[3][i] += rng.Float64() // all distinct
		}
	}
	cases := []struct {
		name   string
		method Method
		prior  CorrelationPrior
		colHMC []bool
	}{
		{"gibbs IW", Gibbs, nil, nil},
		{"hmc IW", HMC, nil, nil},
		{"hmc mixed LKJ", HMC, LKJ{Eta: 2}, []bool{true, true, true, false}},
		{"gibbs LKJ", Gibbs, LKJ{Eta: 0.5}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			s, d := mustFullSampler(t, Spec{Columns: cols, Method: tc.method, ColumnHMC: tc.colHMC, Iter: 1, Model: FullCorrelation{Prior: tc.prior}}, r)
			c := make([]float64, 16)
			var st StepStats
			for it := 0; it < 100; it++ {
				if err := s.iterate(r, false, &st); err != nil {
					t.Fatal(err)
				}
				for j, lv := range d.levels {
					if l, amt := lv.Violation(s.z[j]); l >= 0 {
						t.Fatalf("iteration %d column %d: level %d exceeds level %d by %g", it, j+1, l+1, l+2, amt)
					}
				}
				s.corr(c)
				res := &Result{P: 4, C: [][][]float64{{c}}}
				if err := res.Invariants(); err != nil {
					t.Fatalf("iteration %d: %v", it, err)
				}
			}
			if st.Rejections != 0 || st.Rebuilds != 0 {
				t.Errorf("rejections %d, rebuilds %d, want 0", st.Rejections, st.Rebuilds)
			}
		})
	}
}

// TestDeterministicAcrossGOMAXPROCS runs the same spec with GOMAXPROCS 1 and
// 2 and requires bitwise-identical results.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 120, 0.1)
	spec := Spec{Columns: cols, Method: HMC, ColumnHMC: []bool{true, false, true, true}, Warmup: 20, Iter: 40, Thin: 2, Chains: 3, Seed: 42, KeepWarmup: true}
	var results []*Result
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		res, err := Run(context.Background(), spec, nil)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	a, b := results[0], results[1]
	if !equalDraws(a.C, b.C) || !equalDraws(a.WarmupC, b.WarmupC) || !equalDraws(imputedValues(a), imputedValues(b)) {
		t.Error("draws differ between GOMAXPROCS 1 and 2")
	}
	for j := range a.ZMean {
		if !slices.Equal(a.ZMean[j], b.ZMean[j]) {
			t.Errorf("ZMean of column %d differs", j+1)
		}
	}
	if !slices.Equal(a.Stats, b.Stats) {
		t.Errorf("stats differ: %+v vs %+v", a.Stats, b.Stats)
	}
	if equalDraws(a.C[:1], a.C[1:2]) {
		t.Error("chains 1 and 2 are identical: streams not distinct")
	}
	if got := len(a.C[0]); got != 20 {
		t.Errorf("kept %d draws, want Iter/Thin = 20", got)
	}
	if got := len(a.WarmupC[0]); got != 10 {
		t.Errorf("kept %d warm-up draws, want Warmup/Thin = 10", got)
	}
}

func equalDraws(a, b [][][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for c := range a {
		if len(a[c]) != len(b[c]) {
			return false
		}
		for t := range a[c] {
			if !slices.Equal(a[c][t], b[c][t]) {
				return false
			}
		}
	}
	return true
}

// TestCancelKeepsDraws cancels a long run and checks that the draws so far
// come back, valid and usable.
func TestCancelKeepsDraws(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 200, 0.05)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var mu sync.Mutex
	calls, inCall := 0, false
	var last Progress
	progress := func(p Progress) {
		mu.Lock()
		if inCall {
			t.Error("progress called concurrently")
		}
		inCall = true
		calls++
		last = p
		mu.Unlock()
		mu.Lock()
		inCall = false
		mu.Unlock()
	}
	res, err := Run(ctx, Spec{Columns: cols, Warmup: 5, Iter: 100_000_000, Chains: 2, Seed: 1}, progress)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if res == nil || !res.Interrupted {
		t.Fatal("want a non-nil interrupted result")
	}
	shortest := min(res.Iterations[0], res.Iterations[1]) - 5
	// The run was asked for 10⁸ draws a chain, so it keeps the imputations
	// of one kept draw in ImputeThin (Spec.MaxImputed).
	imputed := (shortest + res.ImputeThin - 1) / res.ImputeThin
	for c := range res.C {
		if len(res.C[c]) == 0 || len(res.C[c]) != shortest || res.ImputedDraws(c) != imputed {
			t.Errorf("chain %d: %d draws (%d imputations) after %d iterations; want every chain cut to the shortest, %d (%d imputations)",
				c+1, len(res.C[c]), res.ImputedDraws(c), res.Iterations[c], shortest, imputed)
		}
	}
	if err := res.Invariants(); err != nil {
		t.Error(err)
	}
	if s := res.Summary(); len(s) != 6 || s[0].Name != "C.1.2" || math.IsNaN(s[0].Mean) {
		t.Errorf("summary after interrupt: %+v", s)
	}
	if len(res.Impute()) == 0 {
		t.Error("no imputations after interrupt")
	}
	if calls < 2 || last.AllDone != res.Iterations[0]+res.Iterations[1] {
		t.Errorf("progress: %d calls, last %+v, iterations %v", calls, last, res.Iterations)
	}
	// At most one report per 50 ms, plus the final one.
	if max := int(res.Elapsed/progressInterval) + 2; calls > max {
		t.Errorf("%d progress calls in %v, want at most %d", calls, res.Elapsed, max)
	}
}

// TestProgressFinal checks the final progress report of a complete run.
func TestProgressFinal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 10))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 50, 0)
	var last Progress
	calls := 0
	res, err := Run(context.Background(), Spec{Columns: cols, Warmup: 10, Iter: 30, Chains: 2}, func(p Progress) { last = p; calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last.AllDone != 80 || last.AllTotal != 80 || last.Done != 40 || last.Total != 40 || last.Warmup {
		t.Errorf("final progress %+v after %d calls", last, calls)
	}
	if res.Interrupted || res.Iterations[0] != 40 || res.Stats[1].Iterations != 40 {
		t.Errorf("result: interrupted %v, iterations %v, stats %+v", res.Interrupted, res.Iterations, res.Stats)
	}
}

// TestImpute checks the posterior predictive imputation on two columns with
// correlation 0.9: imputed values are observed values of their column, and
// their posterior means are much closer to the held-out truth than the
// column median is.
func TestImpute(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 11))
	truth := []float64{1, .9, .9, 1}
	cols, complete := ordinalData(rng, truth, []int{5, 7}, 400, 0)
	for i := 0; i < 400; i += 5 { // 20% of column 2 missing
		cols[1][i] = math.NaN()
	}
	res, err := Run(context.Background(), Spec{Columns: cols, Warmup: 200, Iter: 400, Seed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Invariants(); err != nil {
		t.Fatal(err)
	}
	imp := res.Impute()
	if len(imp) != 80 {
		t.Fatalf("%d imputed cells, want 80", len(imp))
	}
	obs := []float64{}
	for _, v := range cols[1] {
		if !math.IsNaN(v) {
			obs = append(obs, v)
		}
	}
	median := Quantile([][]float64{obs}, 0.5)
	var errModel, errMedian float64
	for _, im := range imp {
		if im.Col != 1 || im.Row%5 != 0 || len(im.Draws) != 400 {
			t.Fatalf("imputed cell %+v", im)
		}
		y := complete[1][im.Row]
		errModel += math.Abs(im.Mean - y)
		errMedian += math.Abs(median - y)
	}
	errModel /= 80
	errMedian /= 80
	t.Logf("mean absolute error: imputation %.3f, column median %.3f", errModel, errMedian)
	// With ρ = 0.9 the conditional sd of the latent is sqrt(1−ρ²) = 0.44 of
	// the marginal one, so for continuous data the ratio of the two errors
	// would be about 0.44; rounding to 7 levels adds error to both. An
	// imputation that ignored column 1 would give a ratio near 1.
	if errModel > 0.7*errMedian {
		t.Errorf("imputation MAE %.3f not below 0.7 × median MAE %.3f", errModel, errMedian)
	}
}

// TestCheckSpec pins the validation errors.
func TestCheckSpec(t *testing.T) {
	good := [][]float64{{1, 2, 3}, {3, 2, 1}}
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"one column", Spec{Columns: good[:1], Iter: 1}, "at least 2 columns"},
		{"ragged", Spec{Columns: [][]float64{{1, 2}, {1, 2, 3}}, Iter: 1}, "column 2 has 3 rows"},
		{"names", Spec{Columns: good, Names: []string{"a"}, Iter: 1}, "1 names for 2 columns"},
		{"iter", Spec{Columns: good}, "iter = 0"},
		{"warmup", Spec{Columns: good, Iter: 1, Warmup: -1}, "warmup = -1"},
		{"thin", Spec{Columns: good, Iter: 1, Thin: -2}, "thin = -2"},
		{"chains", Spec{Columns: good, Iter: 1, Chains: -1}, "chains = -1"},
		{"method", Spec{Columns: good, Iter: 1, Method: PX}, "factor model"},
		{"factor method", Spec{Columns: good, Iter: 1, Model: FactorModel{K: 1}, Method: Gibbs}, "full-correlation model"},
		{"factor k", Spec{Columns: good, Iter: 1, Model: FactorModel{K: 2}, Method: PX}, "k = 2"},
		{"df", Spec{Columns: good, Iter: 1, Model: FullCorrelation{Prior: InverseWishart{DF: 0.5}}}, "df = 0.5"},
		{"eta", Spec{Columns: good, Iter: 1, Model: FullCorrelation{Prior: LKJ{Eta: -1}}}, "eta = -1"},
		{"column hmc", Spec{Columns: good, Iter: 1, ColumnHMC: []bool{true, false}}, "not hmc"},
		{"column hmc px", Spec{Columns: good, Iter: 1, Model: FactorModel{K: 1}, Method: PX, ColumnHMC: []bool{true, false}}, "method is px, not hmc or interweave"},
		{"column hmc factor len", Spec{Columns: good, Iter: 1, Model: FactorModel{K: 1}, Method: Interweave, ColumnHMC: []bool{true, false, true}}, "3 entries for 2 columns"},
		{"column hmc len", Spec{Columns: good, Iter: 1, Method: HMC, ColumnHMC: []bool{true}}, "1 entries for 2 columns"},
		{"bfa defect full", Spec{Columns: good, Iter: 1, BFADefect: true}, "needs method px on a factor model"},
		{"bfa defect interweave", Spec{Columns: good, Iter: 1, Model: FactorModel{K: 1}, Method: Interweave, BFADefect: true}, "not interweave on inference.FactorModel"},
		{"paper samplers full", Spec{Columns: good, Iter: 1, PaperSamplers: true}, "PaperSamplers leaves out the factor group moves; it needs a factor model"},
		{"travel", Spec{Columns: good, Iter: 1, TravelTime: math.NaN()}, "travel time"},
		{"inf", Spec{Columns: [][]float64{{1, math.Inf(1)}, {1, 2}}, Iter: 1}, "column Y1"},
		{"all missing", Spec{Columns: [][]float64{{math.NaN(), math.NaN()}, {1, 2}}, Names: []string{"a", "b"}, Iter: 1}, "column a has no observed values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), tc.spec, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if res != nil {
				t.Error("invalid spec returned a result")
			}
		})
	}
}

// TestIterateDoesNotAllocate pins that one iteration of the full-correlation
// sampler allocates nothing, for every column update and prior.
func TestIterateDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	cols, _ := ordinalData(rng, d1Truth, []int{5, 2, 3, 4}, 200, 0.1)
	for _, tc := range []struct {
		method Method
		prior  CorrelationPrior
	}{{Gibbs, nil}, {HMC, nil}, {Gibbs, LKJ{Eta: 2}}} {
		s, _ := mustFullSampler(t, Spec{Columns: cols, Method: tc.method, Iter: 1, Model: FullCorrelation{Prior: tc.prior}}, rng)
		var st StepStats
		allocs := testing.AllocsPerRun(20, func() {
			if err := s.iterate(rng, false, &st); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v %T: %v allocations per iteration", tc.method, tc.prior, allocs)
		}
	}
}

// mustData checks and defaults spec as Run does and builds its data,
// failing tb on any error.
func mustData(tb testing.TB, spec Spec) (Spec, *data) {
	tb.Helper()
	sp, err := checkSpec(spec)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := newData(&sp)
	if err != nil {
		tb.Fatal(err)
	}
	return sp, d
}

// mustFullSampler builds one full-correlation chain for spec (checked and
// defaulted as Run does) with the given stream, failing tb on any error.
func mustFullSampler(tb testing.TB, spec Spec, rng *rand.Rand) (*fullSampler, *data) {
	tb.Helper()
	sp, d := mustData(tb, spec)
	s, err := newFullSampler(d, &sp, rng)
	if err != nil {
		tb.Fatal(err)
	}
	return s, d
}

// panicky is a chain sampler with a bug: it panics at its third iteration.
type panicky struct {
	*fullSampler
	calls int
}

func (p *panicky) iterate(rng *rand.Rand, warmup bool, st *StepStats) error {
	if p.calls++; p.calls == 3 {
		panic("planted bug")
	}
	return p.fullSampler.iterate(rng, warmup, st)
}

// TestChainPanicBecomesError: a panic in a chain's sampler (a bug) ends the
// chain with an error that names it, keeping the draws made before it,
// instead of ending the process; so does a panic in a replica's job.
func TestChainPanicBecomesError(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 40))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 50, 0)
	spec := Spec{Columns: cols, Warmup: 1, Iter: 10, Chains: 1, Seed: 1}
	fs, d := mustFullSampler(t, spec, chainRNG(1, 0))
	sp, _ := checkSpec(spec)
	r := newResult(d, &sp)
	gate := &progressGate{total: 11, allTotal: 11}
	err := r.runChain(context.Background(), 0, &panicky{fullSampler: fs}, chainRNG(1, 0), &sp, gate, 0, 11)
	if err == nil || !strings.Contains(err.Error(), "chain 1: internal error in the sampler: planted bug") {
		t.Errorf("runChain after a panic: %v", err)
	}
	if len(r.C[0]) != 1 || r.Iterations[0] != 2 {
		t.Errorf("%d draws after %d iterations; want the one post-warm-up draw made before the panic", len(r.C[0]), r.Iterations[0])
	}
	err = forEachReplica(context.Background(), 4, func() int { return 0 }, func(_ int, s int) error {
		if s == 2 {
			panic("planted bug")
		}
		return nil
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "internal error in replica 3: planted bug") {
		t.Errorf("forEachReplica after a panic: %v", err)
	}
}

// TestProgressIsOfWarmupWhileAnyChainWarmsUp: with chains at different
// stages, a report is of warm-up until the last chain leaves it, whichever
// chain's iteration it follows; it took that chain's phase, and a fit's
// line flipped from "sampling" back to "warm-up" and again. Two chains of
// 3 warm-up and 2 sampling iterations: chain 0 runs ahead.
func TestProgressIsOfWarmupWhileAnyChainWarmsUp(t *testing.T) {
	var got []bool
	gate := &progressGate{fn: func(p Progress) { got = append(got, p.Warmup) }, start: time.Now(), total: 5, allTotal: 10}
	gate.warmupLeft.Store(2 * 3)
	steps := []struct {
		chain, done int
		want        bool
	}{
		{0, 1, true}, {0, 2, true}, {0, 3, true}, {0, 4, true}, // chain 0 samples, chain 1 has not started
		{1, 1, true}, {1, 2, true}, {0, 5, true}, // chain 1 still warms up
		{1, 3, false}, {1, 4, false}, {1, 5, false}, // every chain samples
	}
	for i, s := range steps {
		gate.lastNanos.Store(math.MinInt64 / 2) // each tick reports
		gate.tick(s.chain, s.done, s.done <= 3)
		if len(got) != i+1 {
			t.Fatalf("tick %d sent %d reports in all, want %d", i+1, len(got), i+1)
		}
		if got[i] != s.want {
			t.Errorf("chain %d at iteration %d: a report of warm-up %v, want %v", s.chain+1, s.done, got[i], s.want)
		}
	}
}
