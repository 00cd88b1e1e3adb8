package inference

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"gonum.org/v1/gonum/floats"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/copulang/copulang/hough"
)

// TestReplicatorKeepsMarginals checks that a replicated data set has the
// observed level counts of every column and the observed missing cells,
// and that the replicated levels follow the replicated latent order.
func TestReplicatorKeepsMarginals(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 4, N: 300, Levels: 4, Seed: 3, Missing: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	sim.Columns[2] = slices.Clone(sim.Columns[2])
	for i := range sim.Columns[2] { // an unbalanced column with a rare top level
		if v := sim.Columns[2][i]; v == 4 && i%5 != 0 {
			sim.Columns[2][i] = 3
		}
	}
	levels := make([]*hough.Levels, len(sim.Columns))
	for j, col := range sim.Columns {
		if levels[j], err = hough.NewLevels(col); err != nil {
			t.Fatal(err)
		}
	}
	rep := newReplicator(levels)
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 5; trial++ {
		if !rep.draw(rng, sim.C) {
			t.Fatal("draw failed")
		}
		for j, lv := range levels {
			counts := make([]int32, lv.NumLevels())
			for i, code := range rep.codes[j] {
				if (code < 0) != (lv.Level[i] < 0) {
					t.Fatalf("column %d row %d: replicated code %d, observed level %d: missing cells differ", j, i, code, lv.Level[i])
				}
				if code >= 0 {
					counts[code]++
				}
			}
			for l := range counts {
				if want := lv.Start[l+1] - lv.Start[l]; counts[l] != want {
					t.Fatalf("column %d level %d: %d replicated rows, %d observed", j, l, counts[l], want)
				}
			}
			// Levels are monotone in the replicated latent values.
			for _, a := range lv.Order {
				for _, b := range lv.Order[:20] {
					if rep.z[j][a] < rep.z[j][b] && rep.codes[j][a] > rep.codes[j][b] {
						t.Fatalf("column %d: row %d has the smaller z but the higher level", j, a)
					}
				}
			}
		}
	}
}

// TestReplicatedRankCorrelation checks the replication against theory:
// for continuous columns (all values distinct) the replicated Spearman ρ
// has mean (6/π) arcsin(C_jk/2) up to O(1/n); 400 replications at n = 400
// give a standard error of the mean of about 0.04/√400 = 0.002, and the
// test allows 0.01 (4 standard errors plus the O(1/n) bias).
func TestReplicatedRankCorrelation(t *testing.T) {
	const n, reps = 400, 400
	c := []float64{1, 0.7, -0.3, 0.7, 1, 0.1, -0.3, 0.1, 1}
	cols := make([][]float64, 3)
	for j := range cols {
		cols[j] = make([]float64, n)
		for i := range cols[j] {
			cols[j][i] = float64((i*(7+2*j) + j) % n) // distinct values
		}
	}
	levels := make([]*hough.Levels, 3)
	for j := range cols {
		levels[j], _ = hough.NewLevels(cols[j])
	}
	w := newCheckWorker(levels, Spearman, allPairs(3), nil)
	sums := make([]float64, 3)
	for s := 0; s < reps; s++ {
		if !w.rep.draw(replicaRNG(9, s), c) {
			t.Fatal("draw failed")
		}
		st, _, _ := w.statistics(context.Background(), w.rep.codes)
		for k, v := range st {
			sums[k] += v / reps
		}
	}
	for k, pr := range allPairs(3) {
		want := 6 / math.Pi * math.Asin(c[pr[0]*3+pr[1]]/2)
		if math.Abs(sums[k]-want) > 0.01 {
			t.Errorf("pair %v: mean replicated ρ_S %.4f, want %.4f", pr, sums[k], want)
		}
	}
}

// checkFixture fits a small factor model to simulated data.
func checkFixture(t *testing.T) *Result {
	t.Helper()
	sim, err := Simulate(SimSpec{P: 5, K: 1, N: 150, Levels: 3, Seed: 4, Missing: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 1}, Method: PX,
		Iter: 100, Warmup: 100, Chains: 2, Seed: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCheckDeterministic checks that a check depends on its seed only, not
// on the number of goroutines, and that its p-values are coherent.
func TestCheckDeterministic(t *testing.T) {
	res := checkFixture(t)
	opt := CheckOptions{Draws: 50, Reps: 40, Seed: 7, Stat: Kendall, Tables: [][2]int{{0, 2}}}
	prev := runtime.GOMAXPROCS(1)
	one, err := res.Check(context.Background(), opt)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	two, err := withoutKeptChecks(res).Check(context.Background(), opt) // from scratch, not from one's
	if err != nil {
		t.Fatal(err)
	}
	if one.Discrepancy != two.Discrepancy || one.P != two.P || one.Pairs[3] != two.Pairs[3] || one.Tables[0].X2 != two.Tables[0].X2 {
		t.Fatalf("check differs with GOMAXPROCS: %+v vs %+v", one.Pairs[3], two.Pairs[3])
	}
	if len(one.Pairs) != 10 || one.Draws != 50 || one.Reps != 40 {
		t.Fatalf("%d pairs, %d draws, %d reps", len(one.Pairs), one.Draws, one.Reps)
	}
	for _, pc := range one.Pairs {
		if !(pc.P > 0 && pc.P <= 1 && pc.PAdjusted >= pc.P && pc.PAdjusted <= 1 && pc.Q5 <= pc.Mean && pc.Mean <= pc.Q95) {
			t.Errorf("incoherent pair %+v", pc)
		}
		// P is a rank among Reps+1 data sets.
		if k := pc.P * 41; math.Abs(k-math.Round(k)) > 1e-9 {
			t.Errorf("P = %v is not a multiple of 1/41", pc.P)
		}
	}
	tab := one.Tables[0]
	if len(tab.RowGroups) != 3 || len(tab.ColGroups) != 3 {
		t.Fatalf("table groups %v × %v, want 3 × 3", tab.RowGroups, tab.ColGroups)
	}
	var obs, mean float64
	for c := range tab.Observed {
		obs += tab.Observed[c]
		mean += tab.Mean[c]
	}
	if math.Abs(obs-mean) > 1e-9 {
		t.Errorf("observed table total %v, replicated mean total %v: the same rows are complete in both", obs, mean)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := withoutKeptChecks(res).Check(ctx, opt); err != context.Canceled {
		t.Errorf("cancelled check returned %v", err)
	}
}

func TestLevelGroups(t *testing.T) {
	y := make([]float64, 100)
	for i := range y {
		y[i] = float64(i % 20) // 20 levels of 5 rows each
	}
	lv, _ := hough.NewLevels(y)
	groups, of := levelGroups(lv)
	if len(groups) != tableGroups {
		t.Fatalf("%d groups, want %d: %v", len(groups), tableGroups, groups)
	}
	for g, gr := range groups {
		if gr.Last-gr.First+1 != 4 {
			t.Errorf("group %d = %v, want 4 levels", g, gr)
		}
		for l := gr.First; l <= gr.Last; l++ {
			if of[l] != g {
				t.Errorf("level %d in group %d, want %d", l, of[l], g)
			}
		}
	}
}

// TestCheckFlagsMisspecifiedModel fits a one-factor and a three-factor
// model to data simulated from three factors (p = 10, n = 500, 5 levels)
// with ten seeds, and flags a model when the calibrated omnibus p-value is
// below 0.05. The one-factor model must be flagged for every seed; the
// three-factor model, which is right, is flagged with probability 0.05 per
// seed if the p-value is calibrated, so at most 2 of 10 flags are allowed
// (probability 0.012 under calibration). Measured: one factor flagged
// 10/10 (P = 1/201, the smallest possible, every time); three factors
// flagged 0/10.
func TestCheckFlagsMisspecifiedModel(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 20 factor models: skipped under -short")
	}
	flagged := map[int]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		sim, err := Simulate(SimSpec{P: 10, K: 3, N: 500, Levels: 5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 3} {
			res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: k}, Method: PX,
				Iter: 300, Warmup: 300, Chains: 2, Seed: seed}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ck, err := res.Check(context.Background(), CheckOptions{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if ck.P < 0.05 {
				flagged[k]++
			}
			t.Logf("seed %2d, k = %d: D = %6.1f, P = %.3f, PMax = %.3f, classical PPP = %.3f, reproduced %.3f",
				seed, k, ck.Discrepancy, ck.P, ck.PMax, ck.PPP, ck.Reproduced)
		}
	}
	t.Logf("flagged: one factor %d/10, three factors %d/10", flagged[1], flagged[3])
	if flagged[1] != 10 {
		t.Errorf("the one-factor model was flagged for %d of 10 seeds, want 10", flagged[1])
	}
	if flagged[3] > 2 {
		t.Errorf("the right three-factor model was flagged for %d of 10 seeds, want at most 2", flagged[3])
	}
}

// TestCheckCalibration checks that the calibrated p-values are uniform when
// the data come from the model: for each of 200 data sets, C is drawn from
// the prior, the data from C (n = 100, p = 4, levels 2 to 5, 5% missing
// completely at random, level counts fixed so that the extended rank
// likelihood is the exact likelihood, sampling.md §6c), the model is
// fitted, and the check is run with 99 replications at θ̃. The omnibus P,
// PMax and one pair's P are then uniform on k/100; adding −U/100 (U uniform)
// makes them continuous uniform, and the Kolmogorov–Smirnov statistic over
// the 200 data sets must stay below 1.949/√200 = 0.138 (α = 0.001; under
// uniformity its typical value is about 0.87/√200 = 0.06).
//
// The classical posterior predictive p-values of the same data sets must be
// conservative: their share below 0.1 (0.1 for a calibrated p-value, with
// standard error 0.021 over 200 data sets) must be below 0.1 − 3·0.021 =
// 0.037, and their mean above 0.5. They are also the planted bug that shows
// the KS test has power: taken for calibrated p-values they must fail it.
//
// Both the full model (inverse-Wishart prior, Gibbs) and the one-factor
// model (normal loadings, PX) are checked.
func TestCheckCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 400 models: skipped under -short")
	}
	const sets, n, p, reps = 200, 100, 4, 99
	sizes := []int{2, 3, 4, 5}
	for _, tc := range []struct {
		name   string
		model  Model
		method Method
	}{
		{"full", FullCorrelation{}, Gibbs},
		{"factor", FactorModel{K: 1}, PX},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(31, uint64(len(tc.name))))
			var omnibus, maxZ, pair, classical, classicalPair []float64
			for set := 0; set < sets; set++ {
				c := priorC(t, rng, tc.model, p)
				cols := dataFromC(rng, c, n, sizes, 0.05)
				res, err := Run(context.Background(), Spec{Columns: cols, Model: tc.model, Method: tc.method,
					Iter: 100, Warmup: 200, Chains: 1, Seed: uint64(set + 1)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ck, err := res.Check(context.Background(), CheckOptions{Draws: 100, Reps: reps, Seed: uint64(set + 1)})
				if err != nil {
					t.Fatal(err)
				}
				jitter := func(p float64) float64 { return p - rng.Float64()/(reps+1) }
				omnibus = append(omnibus, jitter(ck.P))
				maxZ = append(maxZ, jitter(ck.PMax))
				pair = append(pair, jitter(ck.Pairs[1].P))
				classical = append(classical, ck.PPP)
				classicalPair = append(classicalPair, ck.Pairs[1].PPP)
			}
			const crit = 1.949 / 14.142135623730951 // 1.949/√200
			for _, c := range []struct {
				name string
				ps   []float64
			}{{"omnibus P", omnibus}, {"PMax", maxZ}, {"pair (1,3) P", pair}} {
				name, ps := c.name, c.ps
				d := ksUniform(ps)
				t.Logf("%s: KS D = %.4f (critical %.3f)", name, d, crit)
				if d > crit {
					t.Errorf("%s is not uniform: KS D = %.4f > %.3f", name, d, crit)
				}
			}
			for _, c := range []struct {
				name string
				ps   []float64
			}{{"classical omnibus PPP", classical}, {"classical pair PPP", classicalPair}} {
				name, ps := c.name, c.ps
				below, m := 0.0, 0.0
				for _, v := range ps {
					if v < 0.1 {
						below++
					}
					m += v
				}
				below /= sets
				m /= sets
				d := ksUniform(ps)
				t.Logf("%s: share below 0.1 = %.3f, mean %.3f, KS D = %.3f", name, below, m, d)
				if below > 0.037 || m < 0.5 {
					t.Errorf("%s is not conservative: share below 0.1 = %.3f, mean %.3f", name, below, m)
				}
				if d <= crit {
					t.Errorf("the KS test does not tell %s from a calibrated p-value: D = %.3f", name, d)
				}
			}
		})
	}
}

// TestCheckCalibrationManyPairs checks the calibration where a review
// doubted it: many pairs (p = 20, 190 pairs, whose z² the omnibus D sums)
// and a factor model of three factors. Simulate draws the loadings from
// the normal prior a FactorModel has and cuts the columns by rank, so each
// data set is a draw of the prior predictive under the extended rank
// likelihood and the calibrated p-values are exactly uniform on k/100 for
// an exact sampler. 100 data sets (n = 200, 4 levels), fitted with PX
// (150 warm-up and 150 kept iterations, one chain) and checked with 99
// replications at θ̃: the jittered omnibus P and PMax must pass a KS test
// at α = 0.001 (D < 1.949/√100 = 0.195; typical 0.087), and the share of
// all 19,000 pair p-values at most 0.05, 0.05 under calibration, must lie
// within 4 standard errors of it, the standard error taken from the spread
// of the 100 data sets' shares (pairs of one data set are dependent).
// The classical omnibus ppp of the same fits, taken for a calibrated
// p-value, must fail the KS test: it shows the test has power here.
// Measured: KS D = 0.076 (P), 0.110 (PMax); pair share 0.0498, se 0.0031;
// classical omnibus ppp: KS D = 1.000 (at or near 1 for every data set).
func TestCheckCalibrationManyPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 100 factor models of 20 columns: skipped under -short")
	}
	const sets, reps = 100, 99
	rng := rand.New(rand.NewPCG(77, 3))
	var omnibus, maxZ, classical, shares []float64
	for set := range sets {
		sim, err := Simulate(SimSpec{P: 20, K: 3, N: 200, Levels: 4, Seed: uint64(1000 + set)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 3}, Method: PX,
			Iter: 150, Warmup: 150, Chains: 1, Seed: uint64(set + 1)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := res.Check(context.Background(), CheckOptions{Draws: 50, Reps: reps, Seed: uint64(set + 1)})
		if err != nil {
			t.Fatal(err)
		}
		omnibus = append(omnibus, ck.P-rng.Float64()/(reps+1))
		maxZ = append(maxZ, ck.PMax-rng.Float64()/(reps+1))
		classical = append(classical, ck.PPP)
		below := 0
		for _, pc := range ck.Pairs {
			if pc.P <= 0.05+1e-12 {
				below++
			}
		}
		shares = append(shares, float64(below)/float64(len(ck.Pairs)))
	}
	const crit = 1.949 / 10 // 1.949/√100
	for _, c := range []struct {
		name string
		ps   []float64
	}{{"omnibus P", omnibus}, {"PMax", maxZ}} {
		d := ksUniform(c.ps)
		t.Logf("%s: KS D = %.4f (critical %.3f)", c.name, d, crit)
		if d > crit {
			t.Errorf("%s is not uniform at 190 pairs: KS D = %.4f > %.3f", c.name, d, crit)
		}
	}
	if d := ksUniform(classical); d <= crit {
		t.Errorf("the KS test does not tell the classical omnibus ppp from a calibrated p-value: D = %.3f", d)
	} else {
		t.Logf("classical omnibus ppp: KS D = %.3f", d)
	}
	m := floats.Sum(shares) / sets
	sd := 0.0
	for _, v := range shares {
		sd += (v - m) * (v - m)
	}
	se := math.Sqrt(sd/(sets-1)) / math.Sqrt(sets)
	t.Logf("share of pair p-values <= 0.05: %.4f (se %.4f)", m, se)
	if math.Abs(m-0.05) > 4*se {
		t.Errorf("share of pair p-values <= 0.05 is %.4f, want 0.05 within 4 se (%.4f)", m, 4*se)
	}
}

// priorC draws a copula correlation from the model's prior: the
// correlation of V ~ IW(p+2, (p+2)I) for the full model, of ΛΛᵀ + I with
// Λ_jh ~ N(0, 1) for the factor model.
func priorC(t *testing.T, rng *rand.Rand, model Model, p int) []float64 {
	t.Helper()
	c := make([]float64, p*p)
	switch m := model.(type) {
	case FullCorrelation:
		psi := make([]float64, p*p)
		for j := 0; j < p; j++ {
			psi[j*p+j] = float64(p + 2)
		}
		v, omega := make([]float64, p*p), make([]float64, p*p)
		if _, ok := newIWWork(p).draw(rng, float64(p+2), psi, v, omega); !ok {
			t.Fatal("prior draw failed")
		}
		corrFromCov(c, v, p)
	case FactorModel:
		lambda := make([]float64, p*m.K)
		for i := range lambda {
			lambda[i] = rng.NormFloat64()
		}
		cov := make([]float64, p*p)
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				cov[a*p+b] = dotK(lambda[a*m.K:(a+1)*m.K], lambda[b*m.K:(b+1)*m.K])
			}
			cov[a*p+a]++
		}
		corrFromCov(c, cov, p)
	}
	return c
}

// dataFromC draws n rows z_i ~ N(0, C) and cuts column j into levels[j]
// levels of equal counts by rank, then makes cells missing with the given
// probability.
func dataFromC(rng *rand.Rand, c []float64, n int, levels []int, missing float64) [][]float64 {
	p := len(levels)
	l := slices.Clone(c)
	cholLower(l, p)
	cols := make([][]float64, p)
	z := make([][]float64, p)
	for j := range z {
		z[j] = make([]float64, n)
	}
	e := make([]float64, p)
	for i := 0; i < n; i++ {
		for k := range e {
			e[k] = rng.NormFloat64()
		}
		for j := 0; j < p; j++ {
			z[j][i] = dotK(l[j*p:j*p+j+1], e[:j+1])
		}
	}
	for j := range cols {
		cols[j] = make([]float64, n)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return z[j][order[a]] < z[j][order[b]] })
		for r, i := range order {
			cols[j][i] = float64(1 + r*levels[j]/n)
		}
		for i := range cols[j] {
			if rng.Float64() < missing {
				cols[j][i] = math.NaN()
			}
		}
	}
	return cols
}

// ksUniform is the Kolmogorov–Smirnov distance of the sample to U(0, 1).
func ksUniform(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	d := 0.0
	n := float64(len(s))
	for i, v := range s {
		d = math.Max(d, math.Max(float64(i+1)/n-v, v-float64(i)/n))
	}
	return d
}

func BenchmarkCheck(b *testing.B) {
	sim, err := Simulate(SimSpec{P: 10, K: 2, N: 1000, Levels: 5, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 2}, Method: PX, Iter: 200, Warmup: 50, Chains: 1, Seed: 1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, stat := range RankStats() {
		b.Run(stat.String(), func(b *testing.B) {
			for range b.N {
				if _, err := withoutKeptChecks(res).Check(context.Background(), CheckOptions{Draws: 50, Reps: 50, Stat: stat}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// check m[A, B] after check m: the table's two columns replicated
	// again, the pairs' statistics kept.
	b.Run("table-after-check", func(b *testing.B) {
		if _, err := res.Check(context.Background(), CheckOptions{Draws: 50, Reps: 50}); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			if _, err := res.Check(context.Background(), CheckOptions{Draws: 50, Reps: 50, Tables: [][2]int{{2, 7}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPartitionAt checks the multi-way selection against sorting: after
// partitionAt, the rows before each cut are the cut's smallest, for random
// values with ties, any number of cuts, and sizes around the insertion-sort
// threshold.
func TestPartitionAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(300)
		keys := make([]rankedRow, n)
		for i := range keys {
			keys[i] = rankedRow{z: float64(rng.IntN(n/2 + 1)), row: int32(i)}
		}
		var cuts []int32
		for c := 1; c < n; c++ {
			if rng.IntN(n/4+1) == 0 {
				cuts = append(cuts, int32(c))
			}
		}
		sorted := slices.Clone(keys)
		slices.SortFunc(sorted, func(a, b rankedRow) int { return cmp.Compare(a.z, b.z) })
		partitionAt(keys, cuts, 0)
		seen := make([]bool, n)
		for _, k := range keys {
			seen[k.row] = true
		}
		if slices.Contains(seen, false) {
			t.Fatalf("trial %d: rows lost", trial)
		}
		for _, c := range cuts {
			maxLeft, minRight := math.Inf(-1), math.Inf(1)
			for _, k := range keys[:c] {
				maxLeft = math.Max(maxLeft, k.z)
			}
			for _, k := range keys[c:] {
				minRight = math.Min(minRight, k.z)
			}
			if maxLeft > minRight || maxLeft != sorted[c-1].z {
				t.Fatalf("trial %d (n = %d): cut %d: max left %v, min right %v, sorted %v", trial, n, c, maxLeft, minRight, sorted[c-1].z)
			}
		}
	}
}

func BenchmarkReplicate(b *testing.B) {
	for _, set := range []struct{ n, p, levels int }{{1000, 10, 5}, {1000, 10, 1000}, {20000, 40, 5}} {
		sim, err := Simulate(SimSpec{P: set.p, K: 2, N: set.n, Levels: set.levels, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		lvs := make([]*hough.Levels, len(sim.Columns))
		for j, col := range sim.Columns {
			lvs[j], _ = hough.NewLevels(col)
		}
		b.Run(fmt.Sprintf("n=%d,p=%d,L=%d", set.n, set.p, set.levels), func(b *testing.B) {
			rep := newReplicator(lvs)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for range b.N {
				rep.draw(rng, sim.C)
			}
		})
	}
}

// partitionCodes is the level of every observed row of lv given latent
// values z by partitioning all of them (partitionAt), −1 where missing.
func partitionCodes(lv *hough.Levels, z []float64) []int32 {
	codes := make([]int32, lv.N)
	for _, i := range lv.Missing {
		codes[i] = -1
	}
	keys := make([]rankedRow, len(lv.Order))
	for t, i := range lv.Order {
		keys[t] = rankedRow{z[i], i}
	}
	partitionAt(keys, lv.Start[1:lv.NumLevels()], 0)
	for l := range lv.NumLevels() {
		for _, k := range keys[lv.Start[l]:lv.Start[l+1]] {
			codes[k.row] = int32(l)
		}
	}
	return codes
}

// TestAssignLevelsMatchesPartition checks the windowed level assignment of
// replicated columns against partitioning every row: columns of 1,000 to
// 6,000 rows, 2 to 16 levels of random sizes (some of a few rows), 5%
// missing. With z ~ N(0, 1), as a correlation matrix gives, every cut
// falls in its window and the codes must be partitionAt's exactly; with
// z ~ N(0, 1.3²) cuts fall outside and assignLevels must say so (and the
// replicator partitions in full).
func TestAssignLevelsMatchesPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	windowed, outside := 0, 0
	for trial := range 120 {
		n, L := 1000+rng.IntN(5000), 2+rng.IntN(8)
		if trial%4 == 0 {
			L = 10 + rng.IntN(7)
		}
		w := make([]float64, L) // level weights: some levels rare
		for l := range w {
			w[l] = rng.ExpFloat64()
			if rng.IntN(12) == 0 {
				w[l] = 0.002
			}
		}
		y := make([]float64, n)
		for i := range y {
			if rng.Float64() < 0.05 {
				y[i] = math.NaN()
				continue
			}
			u, l := rng.Float64()*floats.Sum(w), 0
			for ; l < L-1 && u > w[l]; l++ {
				u -= w[l]
			}
			y[i] = float64(l)
		}
		lv, err := hough.NewLevels(y)
		if err != nil {
			t.Fatal(err)
		}
		rep := newReplicator([]*hough.Levels{lv})
		if rep.windows[0] == nil {
			continue // fewer than windowMinRows observed rows: partitioned in full
		}
		for _, scale := range []float64{1, 1.3} {
			z := make([]float64, n)
			for i := range z {
				z[i] = scale * rng.NormFloat64()
			}
			if !rep.assignLevels(0, z) {
				if scale == 1 {
					t.Errorf("trial %d (n = %d, %d levels): a cut of N(0, 1) draws fell outside its window", trial, n, lv.NumLevels())
				}
				outside++
				continue
			}
			windowed++
			if want := partitionCodes(lv, z); !slices.Equal(rep.codes[0], want) {
				t.Fatalf("trial %d (n = %d, %d levels, scale %v): windowed levels differ from partitioning", trial, n, lv.NumLevels(), scale)
			}
		}
	}
	t.Logf("%d columns assigned by windows, %d fell back", windowed, outside)
	if windowed < 100 || outside < 20 {
		t.Errorf("%d columns assigned by windows, %d fell back: the test did not exercise both", windowed, outside)
	}
}

// TestCheckRejectsTooManyReps: replications whose statistics would pass
// MaxCheckValues are refused before anything is allocated for them (10⁹
// replications of 10 pairs would take 80 GB); CheckFits holds at the bound
// exactly and fails one past it, and does not overflow.
func TestCheckRejectsTooManyReps(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 5, N: 100, Levels: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FullCorrelation{}, Method: Gibbs, Iter: 20, Warmup: 10, Chains: 1, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Check(context.Background(), CheckOptions{Reps: 1_000_000_000}); err == nil || !strings.Contains(err.Error(), "reps = 1000000000") {
		t.Errorf("reps = 10⁹: error %v, want one naming reps", err)
	}
	for _, tc := range []struct {
		reps, pairs int
		fits        bool
	}{
		{MaxCheckValues - 1, 1, true}, // (reps + 1)·pairs = 2²⁶
		{MaxCheckValues, 1, false},
		{1<<16 - 1, 1 << 10, true}, // 2¹⁶ · 2¹⁰ = 2²⁶
		{1 << 16, 1 << 10, false},
		{1<<16 - 1, 1<<10 + 1, false},
		{200, 780, true},
		{math.MaxInt, 10, false},
		{math.MaxInt - 1, 1, false},
	} {
		if got := CheckFits(tc.reps, tc.pairs); got != tc.fits {
			t.Errorf("CheckFits(%d, %d) = %v, want %v", tc.reps, tc.pairs, got, tc.fits)
		}
	}
}

// TestCheckRefusesTooFewDraws: with one posterior draw replicated, every
// pair's 90% interval was a point, its classical ppp 0 and the classical
// omnibus ppp 1 (no pair had a spread to standardise by), while the verdict
// beside them read as if they meant something. A check asked for fewer than
// MinCheckDraws draws, or of a fit that has fewer, is refused; at
// MinCheckDraws the intervals have a width and ppp is not 0 everywhere.
func TestCheckRefusesTooFewDraws(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 4, N: 100, Levels: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	fit := func(iter int) *Result {
		res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FullCorrelation{}, Method: Gibbs, Iter: iter, Warmup: 20, Chains: 2, Seed: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	long, short := fit(40), fit(MinCheckDraws/2-1) // 80 and 18 kept draws
	for _, tc := range []struct {
		name  string
		res   *Result
		draws int
		want  string
	}{
		{"draws = 1", long, 1, "draws = 1, want at least 20"},
		{"draws = 19", long, MinCheckDraws - 1, "draws = 19, want at least 20"},
		{"a fit of 18 draws", short, 0, "the fit has 18 kept draws, want at least 20"},
	} {
		if _, err := tc.res.Check(context.Background(), CheckOptions{Draws: tc.draws, Reps: 19, Seed: 1}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	ck, err := long.Check(context.Background(), CheckOptions{Draws: MinCheckDraws, Reps: 19, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for _, pc := range ck.Pairs {
		if !(pc.Q95 > pc.Q5) {
			t.Errorf("pair %d–%d: 90%% interval [%v, %v] from %d draws has no width", pc.I+1, pc.J+1, pc.Q5, pc.Q95, ck.Draws)
		}
		if pc.PPP == 0 {
			zeros++
		}
	}
	if zeros == len(ck.Pairs) || ck.PPP == 1 && ck.ClassicalDiscrepancy == 0 {
		t.Errorf("from %d draws: ppp 0 for all %d pairs, classical omnibus D = %v, ppp %v", ck.Draws, zeros, ck.ClassicalDiscrepancy, ck.PPP)
	}
}

// countdownCtx is a context that reports itself cancelled from the left-th
// call of its Err on: a cancellation at a point of the work fixed by the
// number of times the work has polled it, not by a clock.
type countdownCtx struct {
	context.Context
	mu   sync.Mutex
	left int
}

func (c *countdownCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left--; c.left <= 0 {
		return context.Canceled
	}
	return nil
}

// TestCheckStopsWithinADataSet: a check polls its context between the pairs
// of a data set, not only between data sets, so an interrupt during the
// statistics of one data set (seconds at 50,000 rows with continuous
// columns: 3.3 s after a Ctrl-C for Kendall's τ_b, found by the big-data
// review) stops it there. Here the context is cancelled at the third pair of
// the observed data, so no replication may be done.
func TestCheckStopsWithinADataSet(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 8, K: 2, N: 300, Levels: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 2}, Method: PX, Iter: 40, Warmup: 20, Chains: 1, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var replicated atomic.Int64
	ctx := &countdownCtx{Context: context.Background(), left: 3}
	_, err = res.Check(ctx, CheckOptions{Draws: 20, Reps: 20, Progress: func(int, int) { replicated.Add(1) }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("check cancelled during the observed data's statistics: error %v, want context.Canceled", err)
	}
	if n := replicated.Load(); n != 0 {
		t.Errorf("%d data sets replicated after the check was cancelled during the observed data's statistics, want 0", n)
	}
}
