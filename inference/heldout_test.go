package inference

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHoldOut(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 4, N: 400, Levels: 4, Seed: 2, Missing: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	cols := sim.Columns
	cols[3] = make([]float64, 400) // all distinct: never held out
	for i := range cols[3] {
		cols[3][i] = float64(i)
	}
	cols[2][7] = 99 // a value seen once: never held out
	observed := 0
	for _, col := range cols[:3] {
		for _, v := range col {
			if !math.IsNaN(v) {
				observed++
			}
		}
	}
	check := func(name string, cells []HeldOutCell) {
		t.Helper()
		for _, c := range cells {
			if c.Col == 3 || c.Col == 2 && c.Row == 7 {
				t.Errorf("%s: cell %+v is the only one of its value", name, c)
			}
			if cols[c.Col][c.Row] != c.Value {
				t.Errorf("%s: cell %+v has value %v in the data", name, c, cols[c.Col][c.Row])
			}
		}
		// Every value of every column stays observed after masking.
		masked := MaskCells(cols, cells)
		for j := range cols {
			for _, v := range cols[j] {
				if !math.IsNaN(v) && !slices.Contains(masked[j], v) {
					t.Errorf("%s: value %v of column %d is no longer observed", name, v, j)
				}
			}
		}
	}
	one, err := HoldOut(cols, 1, 0.1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(0.1 * float64(observed-1))); len(one) != 1 || len(one[0]) != want {
		t.Fatalf("one fold of %d cells, want %d", len(one[0]), want)
	}
	check("one fold", one[0])
	again, _ := HoldOut(cols, 1, 0.1, 5)
	if !slices.Equal(one[0], again[0]) {
		t.Error("HoldOut is not deterministic")
	}
	small, _ := HoldOut(cols, 1, 0.01, 5)
	if len(small[0]) != 100 {
		t.Errorf("1%% held out %d cells, want the minimum of 100", len(small[0]))
	}
	five, err := HoldOut(cols, 5, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Cell]bool{}
	total := 0
	for f, cells := range five {
		check("fold", cells)
		total += len(cells)
		if len(cells) < (observed-1)/5-5 || len(cells) > (observed-1)/5+5 {
			t.Errorf("fold %d has %d cells of %d", f, len(cells), observed-1)
		}
		for _, c := range cells {
			if seen[Cell{c.Row, c.Col}] {
				t.Errorf("cell %+v in two folds", c)
			}
			seen[Cell{c.Row, c.Col}] = true
		}
	}
	if total != observed-1 {
		t.Errorf("the folds hold %d cells, want every eligible one: %d", total, observed-1)
	}
	for _, bad := range []struct {
		folds    int
		fraction float64
	}{{0, 0.1}, {1, 0}, {1, 0.6}} {
		if _, err := HoldOut(cols, bad.folds, bad.fraction, 1); err == nil {
			t.Errorf("HoldOut(folds %d, fraction %v) succeeded", bad.folds, bad.fraction)
		}
	}
}

// TestHeldOutProbabilitiesSumToOne puts a sampler in a state and checks
// that the scorer's probabilities of every value of a cell sum to 1, and
// that the probability of each value is the share of normal draws from the
// cell's conditional that Impute's mapping sends to that value.
func TestHeldOutProbabilitiesSumToOne(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 3, N: 60, Levels: 4, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	const row, col = 5, 1
	cols := MaskCells(sim.Columns, []HeldOutCell{{Row: row, Col: col}})
	for _, model := range []Model{FullCorrelation{}, FactorModel{K: 1}} {
		rng := rand.New(rand.NewPCG(1, 2))
		cs, d := warmSampler(t, Spec{Columns: cols, Model: model, Method: map[bool]Method{true: Gibbs, false: PX}[model == FullCorrelation{}], Iter: 1}, rng, 5)
		lv := d.levels[col]
		var cells []HeldOutCell
		for _, v := range lv.Values {
			cells = append(cells, HeldOutCell{Row: row, Col: col, Value: v})
		}
		sc := newHeldOutScorer(d.levels, cells)
		probs := make([]float64, len(cells))
		if !sc.add(probs, cs) {
			t.Fatal("scorer failed")
		}
		sum := 0.0
		for _, p := range probs {
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%T: probabilities %v sum to %v", model, probs, sum)
		}
		// Monte Carlo: z from the conditional, mapped as Impute maps it.
		// 200,000 draws: standard error ≤ 0.0012 per value; tolerance 0.005.
		c := make([]float64, 9)
		cs.corr(c)
		z := cs.latent()
		sd := cs.(latentScaler)
		omega := make([]float64, 9)
		invertSPD(omega, c, 3)
		mu := 0.0
		for k := 0; k < 3; k++ {
			if k != col {
				mu -= omega[col*3+k] * z[k][row] / sd.latentSD(k)
			}
		}
		mu /= omega[col*3+col]
		sigma := 1 / math.Sqrt(omega[col*3+col])
		counts := make([]float64, len(cells))
		const draws = 200000
		for range draws {
			u := stdNormalCDF(mu + sigma*rng.NormFloat64())
			counts[slices.Index(lv.Values, levelAtProb(lv, u))] += 1.0 / draws
		}
		for l := range probs {
			if math.Abs(counts[l]-probs[l]) > 0.005 {
				t.Errorf("%T: value %v: probability %.4f, Monte Carlo %.4f", model, lv.Values[l], probs[l], counts[l])
			}
		}
	}
}

// TestHeldOutAgreesWithImpute holds out cells and checks, for each, that
// the Rao-Blackwellised probability of its value (HeldOutProb) agrees with
// the share of kept draws whose imputed value (Impute's draws of the same
// missing cell) equals it: both estimate the same posterior predictive
// probability. The tolerance is 4 Monte Carlo standard errors of the
// share, sd/√ESS with ESS from the chains of the indicator.
func TestHeldOutAgreesWithImpute(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 4, K: 1, N: 200, Levels: 3, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	folds, err := HoldOut(sim.Columns, 1, 0.05, 3)
	if err != nil {
		t.Fatal(err)
	}
	cells := folds[0][:12]
	for _, method := range []Method{Gibbs, PX} {
		sp := Spec{Columns: MaskCells(sim.Columns, cells), HeldOut: cells, Model: FullCorrelation{}, Method: method,
			Iter: 500, Warmup: 200, Chains: 2, Seed: 4}
		if method == PX {
			sp.Model = FactorModel{K: 1}
		}
		res, err := Run(context.Background(), sp, nil)
		if err != nil {
			t.Fatal(err)
		}
		for m, c := range cells {
			k := slices.Index(res.Missing, Cell{Row: c.Row, Col: c.Col})
			if k < 0 {
				t.Fatalf("held-out cell %+v is not among the missing cells", c)
			}
			ind := make([][]float64, len(res.C))
			for ch, draws := range imputedValues(res) {
				for _, vals := range draws {
					ind[ch] = append(ind[ch], map[bool]float64{true: 1, false: 0}[vals[k] == c.Value])
				}
			}
			s := Summarize(ind)
			mcse := s.SD / math.Sqrt(math.Max(s.ESSBulk, 1))
			if math.IsNaN(mcse) {
				mcse = 0
			}
			if diff := math.Abs(s.Mean - res.HeldOutProb[m]); diff > 4*mcse+1e-3 {
				t.Errorf("%v cell %+v: HeldOutProb %.4f, imputed share %.4f (MCSE %.4f)", method, c, res.HeldOutProb[m], s.Mean, mcse)
			}
		}
	}
}

func TestHeldOutSpecErrors(t *testing.T) {
	sim, _ := Simulate(SimSpec{P: 3, N: 20, Levels: 3, Seed: 1})
	base := Spec{Columns: sim.Columns, Method: Gibbs, Iter: 5}
	masked := MaskCells(sim.Columns, []HeldOutCell{{Row: 0, Col: 0}})
	for name, cells := range map[string][]HeldOutCell{
		"not missing":   {{Row: 1, Col: 0, Value: sim.Columns[0][1]}},
		"outside":       {{Row: 0, Col: 5, Value: 1}},
		"unknown value": {{Row: 0, Col: 0, Value: 7}},
		"twice":         {{Row: 0, Col: 0, Value: 1}, {Row: 0, Col: 0, Value: 1}},
	} {
		sp := base
		sp.Columns, sp.HeldOut = masked, cells
		if _, err := Run(context.Background(), sp, nil); err == nil {
			t.Errorf("%s: Run succeeded", name)
		}
	}
	if _, err := CrossValidate(context.Background(), Spec{HeldOut: []HeldOutCell{{}}}, nil, nil); err == nil {
		t.Error("CrossValidate with HeldOut set succeeded")
	}
}

func TestCompareScores(t *testing.T) {
	a := []float64{-1, -1.2, -0.8, -1.1}
	b := []float64{-1.5, -1.1, -1.0, -1.3}
	sums, best, err := CompareScores([][]float64{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if best != 1 {
		t.Fatalf("best = %d, want 1", best)
	}
	if math.Abs(sums[1].ELPD+4.1) > 1e-12 || sums[1].Diff != 0 || sums[1].SEDiff != 0 {
		t.Errorf("best summary %+v", sums[1])
	}
	// d = b − a = (−0.5, 0.1, −0.2, −0.2): sum −0.8, mean −0.2, var 0.06, se sqrt(4·0.06).
	if math.Abs(sums[0].Diff+0.8) > 1e-12 || math.Abs(sums[0].SEDiff-math.Sqrt(0.24)) > 1e-12 {
		t.Errorf("diff %v ± %v, want −0.8 ± %v", sums[0].Diff, sums[0].SEDiff, math.Sqrt(0.24))
	}
	// a has mean −1.025 and squared deviations summing to 0.0875.
	if _, se := sumAndSE(a); math.Abs(se-math.Sqrt(4*0.0875/3)) > 1e-12 {
		t.Errorf("se(a) = %v", se)
	}
	if _, _, err := CompareScores([][]float64{a, b[:3]}); err == nil {
		t.Error("scores of different lengths compared")
	}
}

// TestCompareChoosesTrueFactors simulates data from a two-factor copula
// (p = 8, n = 300, 5 levels) with ten seeds, holds out 10% of the cells,
// and compares factor models with k = 1, 2, 3 and the full-correlation
// model by their held-out log scores. What compare can promise here: the
// model with too few factors is found out, and the true one is never
// clearly beaten. So k = 1 must be worse than k = 2 by more than 2
// standard errors of the difference in at least 6 of the 10 seeds, and
// k = 2 must be within 2 standard errors of the best model in every seed.
// Measured (2026-11-29): k = 1 clearly worse in 8 of 10, k = 2 at most
// 0.7 standard errors below the best. Which of k = 2, k = 3 and the full
// model scores best is not asserted: they nest k = 2, cost little at
// n = 300, and held-out cells cannot tell them apart (compare's verdict
// says so). k = 2 was best in 8 of 10 seeds before the factor group moves
// (sampling.md §4.5), in 6 after them (the mean held-out difference
// k = 3 − k = 2 went from −0.66 to −0.13, differences of about 1 standard
// error per seed), and is in 8 again with the samplers of 2026-11-29 (the
// full model best in the other two, by 0.9 and 1.1, under one standard
// error; k = 3 − k = 2 −0.41 on average): which of these nested models
// wins moves with the sampler's Monte Carlo error, as it may when they are
// within a standard error of each other (sampling.md §10.4).
func TestCompareChoosesTrueFactors(t *testing.T) {
	if testing.Short() {
		t.Skip("refits 40 models: skipped under -short")
	}
	names := []string{"k = 1", "k = 2", "k = 3", "full"}
	wins, clear := 0, 0
	for seed := uint64(1); seed <= 10; seed++ {
		sim, err := Simulate(SimSpec{P: 8, K: 2, N: 300, Levels: 5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		folds, err := HoldOut(sim.Columns, 1, 0.1, seed)
		if err != nil {
			t.Fatal(err)
		}
		var specs []Spec
		for _, k := range []int{1, 2, 3, 0} {
			sp := Spec{Columns: sim.Columns, Model: FactorModel{K: k}, Method: PX, Iter: 500, Warmup: 300, Chains: 2, Seed: seed}
			if k == 0 {
				sp.Model, sp.Method = FullCorrelation{}, Gibbs
			}
			specs = append(specs, sp)
		}
		sums, best := compareSpecs(t, specs, folds)
		if best == 1 {
			wins++
		}
		if sums[0].Diff-sums[1].Diff < -2*math.Max(sums[0].SEDiff, sums[1].SEDiff) {
			clear++
		}
		if sums[1].Diff < -2*sums[1].SEDiff {
			t.Errorf("seed %d: the true k = 2 is %.1f (standard error %.1f) below the best model, %s", seed, -sums[1].Diff, sums[1].SEDiff, names[best])
		}
		t.Logf("seed %2d: best %s; differences to the best: k=1 %.1f (%.1f), k=2 %.1f (%.1f), k=3 %.1f (%.1f), full %.1f (%.1f)",
			seed, names[best], sums[0].Diff, sums[0].SEDiff, sums[1].Diff, sums[1].SEDiff, sums[2].Diff, sums[2].SEDiff, sums[3].Diff, sums[3].SEDiff)
	}
	t.Logf("k = 2 best in %d of 10 seeds; k = 1 clearly worse in %d of 10", wins, clear)
	if clear < 6 {
		t.Errorf("k = 1 was clearly worse than the true k = 2 in %d of 10 seeds, want at least 6", clear)
	}
}

// heldOutState returns a chain sampler of the full model or of a factor
// model after a few warm-up iterations on simulated data with the cells
// of one of two folds held out, and those cells.
func heldOutState(tb testing.TB, p, n int, model Model) (chainSampler, *data, []HeldOutCell) {
	tb.Helper()
	sim, err := Simulate(SimSpec{P: p, K: 2, N: n, Levels: 4, Seed: 5})
	if err != nil {
		tb.Fatal(err)
	}
	folds, err := HoldOut(sim.Columns, 2, 0, 6)
	if err != nil {
		tb.Fatal(err)
	}
	method := Gibbs
	if _, ok := model.(FactorModel); ok {
		method = PX
	}
	cs, d := warmSampler(tb, Spec{Columns: MaskCells(sim.Columns, folds[0]), HeldOut: folds[0], Model: model, Method: method, Iter: 1},
		rand.New(rand.NewPCG(3, 4)), 3)
	return cs, d, folds[0]
}

// warmSampler returns a chain sampler of spec and its data after iters
// warm-up iterations drawn from rng.
func warmSampler(tb testing.TB, spec Spec, rng *rand.Rand, iters int) (chainSampler, *data) {
	tb.Helper()
	sp, d := mustData(tb, spec)
	cs, err := newChainSampler(d, &sp, rng)
	if err != nil {
		tb.Fatal(err)
	}
	for range iters {
		if err := cs.iterate(rng, true, &StepStats{}); err != nil {
			tb.Fatal(err)
		}
	}
	return cs, d
}

// TestHeldOutScorerMatchesDirect checks the scorer, which visits the cells
// row by row with each column's regression coefficients formed once per
// draw, against the conditional of each cell computed on its own from
// Ω = C⁻¹, for every cell of a fold (about half of each row's cells, in
// column order, so not the order the scorer visits them) of the full and
// the factor model.
func TestHeldOutScorerMatchesDirect(t *testing.T) {
	for _, model := range []Model{FullCorrelation{}, FactorModel{K: 2}} {
		const p = 6
		cs, d, cells := heldOutState(t, p, 300, model)
		sc := newHeldOutScorer(d.levels, cells)
		got := make([]float64, len(cells))
		if !sc.add(got, cs) {
			t.Fatal("scorer failed")
		}
		c, omega := make([]float64, p*p), make([]float64, p*p)
		cs.corr(c)
		invertSPD(omega, c, p)
		z, sd := cs.latent(), cs.(latentScaler)
		for m, cell := range cells {
			i, j := cell.Row, cell.Col
			mu := 0.0
			for k := range p {
				if k != j {
					mu -= omega[j*p+k] * z[k][i] / sd.latentSD(k)
				}
			}
			mu /= omega[j*p+j]
			sigma := 1 / math.Sqrt(omega[j*p+j])
			want := normalMass((sc.lo[m]-mu)/sigma, (sc.hi[m]-mu)/sigma)
			if math.Abs(got[m]-want) > 1e-12 {
				t.Fatalf("%T: cell %d (%+v): probability %v, direct %v", model, m, cell, got[m], want)
			}
		}
	}
}

// BenchmarkHeldOutScore scores one fold of two-fold cross-validation (about
// 400,000 cells, so about half of each row) at one draw of a full model on
// 20,000 × 40 data: compare's refits do this at every kept draw.
func BenchmarkHeldOutScore(b *testing.B) {
	cs, d, cells := heldOutState(b, 40, 20000, FullCorrelation{})
	sc := newHeldOutScorer(d.levels, cells)
	dst := make([]float64, len(cells))
	b.ResetTimer()
	for range b.N {
		if !sc.add(dst, cs) {
			b.Fatal("scorer failed")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(cells)), "ns/cell")
}

// TestCompareStandardErrorWhenModelsAreEqual checks that the standard
// error of a difference of held-out scores covers it when the two models
// are equally good, so that compare's "clearly worse (by more than 2
// standard errors)" is rare for them: the same one-factor model fitted
// with two seeds (the difference is Monte Carlo error alone, and the
// cells of one refit share its draws of C), and a two-factor model
// against the one-factor model of one-factor data (the second factor is
// absent from the truth). Ten data sets each (p = 6, n = 150, 4 levels,
// 10% held out, 4 chains of 40 + 80 iterations); a calibrated standard
// error leaves a difference beyond 2 of them with probability about 0.05,
// so 3 or more of 10 has probability 0.012. Measured: 1 and 0 of 10. At
// compare's defaults (4 chains × 1,000 iterations, p = 8, n = 300,
// sampling.md §10.4) the same-model pairs went beyond 2 standard errors
// in 4 of 49 data sets and the nested pairs in 0 of 40.
func TestCompareStandardErrorWhenModelsAreEqual(t *testing.T) {
	const sets = 10
	for _, tc := range []struct {
		name string
		a, b func(seed uint64) Spec
	}{
		{"same model, two seeds",
			func(seed uint64) Spec { return Spec{Model: FactorModel{K: 1}, Method: PX, Seed: seed} },
			func(seed uint64) Spec { return Spec{Model: FactorModel{K: 1}, Method: PX, Seed: seed + 1000} }},
		{"k = 2 against k = 1 on one-factor data",
			func(seed uint64) Spec { return Spec{Model: FactorModel{K: 1}, Method: PX, Seed: seed} },
			func(seed uint64) Spec { return Spec{Model: FactorModel{K: 2}, Method: PX, Seed: seed} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			beyond := 0
			for set := uint64(1); set <= sets; set++ {
				sim, err := Simulate(SimSpec{P: 6, K: 1, N: 150, Levels: 4, Seed: 40 + set})
				if err != nil {
					t.Fatal(err)
				}
				folds, err := HoldOut(sim.Columns, 1, 0.1, set)
				if err != nil {
					t.Fatal(err)
				}
				var specs []Spec
				for _, spec := range []func(uint64) Spec{tc.a, tc.b} {
					sp := spec(set)
					sp.Columns, sp.Iter, sp.Warmup, sp.Chains = sim.Columns, 80, 40, 4
					specs = append(specs, sp)
				}
				sums, best := compareSpecs(t, specs, folds)
				other := sums[1-best]
				if -other.Diff > 2*other.SEDiff {
					beyond++
				}
				t.Logf("data set %d: the second model's difference %.2f ± %.2f", set, sums[1].Diff-sums[0].Diff, other.SEDiff)
			}
			if beyond >= 3 {
				t.Errorf("equally good models differed by more than 2 standard errors in %d of %d data sets", beyond, sets)
			}
		})
	}
}

// compareSpecs cross-validates each of specs on folds and compares their
// scores, as compare does.
func compareSpecs(t *testing.T, specs []Spec, folds [][]HeldOutCell) ([]ScoreSummary, int) {
	t.Helper()
	var scores [][]float64
	for _, sp := range specs {
		cv, err := CrossValidate(context.Background(), sp, folds, nil)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, cv.LogProb)
	}
	sums, best, err := CompareScores(scores)
	if err != nil {
		t.Fatal(err)
	}
	return sums, best
}

// TestHeldOutChainTotalsArithmetic: u_c = Σ_m p̂_cm/p̂_m from a chain's
// running sums, and ELPDMCVar's var_c(u_c)/C summed over folds, on numbers
// worked by hand.
func TestHeldOutChainTotalsArithmetic(t *testing.T) {
	// Two chains of 4 iterations, two cells: p̂_c = (0.5, 0.2) and (0.3, 0.4),
	// p̂ = (0.4, 0.3); u = 0.5/0.4 + 0.2/0.3 and 0.3/0.4 + 0.4/0.3.
	r := &Result{
		HeldOut:     []HeldOutCell{{}, {}},
		HeldOutProb: []float64{0.4, 0.3},
		heldSum:     [][]float64{{2, 0.8}, {1.2, 1.6}},
		zcount:      []int{4, 4},
	}
	got := r.HeldOutChainTotals()
	want := []float64{0.5/0.4 + 0.2/0.3, 0.3/0.4 + 0.4/0.3}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-12 {
			t.Errorf("u_%d = %v, want %v", c, got[c], want[c])
		}
	}
	// var of (1, 3) is 2, over 2 chains 1; of (2, 2, 5) is 3, over 3 chains 1.
	if v := ELPDMCVar([][]float64{{1, 3}, {2, 2, 5}}); math.Abs(v-2) > 1e-12 {
		t.Errorf("ELPDMCVar = %v, want 2", v)
	}
	for _, totals := range [][][]float64{nil, {{1}}, {{1, 2}, {3}}, {{1, math.NaN()}}} {
		if v := ELPDMCVar(totals); !math.IsNaN(v) {
			t.Errorf("ELPDMCVar(%v) = %v, want NaN", totals, v)
		}
	}
	if (&Result{}).HeldOutChainTotals() != nil {
		t.Error("a run holding no cells out has chain totals")
	}
}

// TestELPDMCVarMatchesSpreadOverSeeds: the Monte Carlo variance of a
// model's held-out elpd that ELPDMCVar estimates from each refit's chains
// agrees with the variance of the elpd over refits of other seeds on the
// same data and cells (the review's check, sampling.md §10.4). Full model,
// Gibbs, p = 6, n = 150, 4 chains × (20 + 40) iterations, short so that the
// Monte Carlo error is large beside anything else, 40 seeds. Monte Carlo
// error of the ratio of the two: the variance over 40 seeds has relative
// sd √(2/39) = 0.23, the mean of 40 estimates of 3 degrees of freedom
// each √(2/120) = 0.13, so log(ratio) has sd about 0.26; the test allows
// 3 of them, |log ratio| < 0.8. An estimator without the division by the
// chains (ratio 4) or divided by them twice (1/4) fails it.
func TestELPDMCVarMatchesSpreadOverSeeds(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 6, N: 150, Levels: 4, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	folds, err := HoldOut(sim.Columns, 1, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 40
	var elpds, estimates []float64
	for seed := uint64(1); seed <= seeds; seed++ {
		sp := Spec{Model: FullCorrelation{}, Method: Gibbs, Seed: seed, Columns: sim.Columns, Iter: 40, Warmup: 20, Chains: 4}
		cv, err := CrossValidate(context.Background(), sp, folds, nil)
		if err != nil {
			t.Fatal(err)
		}
		elpd := 0.0
		for _, lp := range cv.LogProb {
			elpd += lp
		}
		elpds = append(elpds, elpd)
		estimates = append(estimates, ELPDMCVar(cv.ChainTotals))
	}
	mean := 0.0
	for _, e := range elpds {
		mean += e / seeds
	}
	spread, estimated := 0.0, 0.0
	for k, e := range elpds {
		spread += (e - mean) * (e - mean) / (seeds - 1)
		estimated += estimates[k] / seeds
	}
	ratio := estimated / spread
	t.Logf("variance of elpd over %d seeds %.4f, mean of the chains' estimates %.4f, ratio %.2f", seeds, spread, estimated, ratio)
	if math.Abs(math.Log(ratio)) > 0.8 {
		t.Errorf("the chains' estimate of the Monte Carlo variance of elpd, %.4f, against its variance over seeds, %.4f: ratio %.2f", estimated, spread, ratio)
	}
}
