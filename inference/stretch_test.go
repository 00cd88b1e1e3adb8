package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/copulang/copulang/hough"
)

// stretchColumn is a small column for the level-stretch tests: 6 observed
// rows in 4 levels of sizes 2, 1, 2, 1 (rows listed by level) and one
// missing row, with conditional means that rise with the level but not
// always row by row.
var stretchColumn = struct {
	y, mu []float64
	sigma float64
}{
	y:     []float64{1, 1, 2, 3, 3, 4, math.NaN()},
	mu:    []float64{-0.7, -1.1, 0.1, 0.7, 0.2, 1.1, 0.3},
	sigma: 0.6,
}

// rowBatches holds, per row of a column, 100 batch means of z and of z².
type rowBatches struct{ m1, m2 [][]float64 }

const rowBatchCount = 100

func newRowBatches(n int) *rowBatches {
	b := &rowBatches{m1: make([][]float64, n), m2: make([][]float64, n)}
	for i := range b.m1 {
		b.m1[i], b.m2[i] = make([]float64, rowBatchCount), make([]float64, rowBatchCount)
	}
	return b
}

// add records draw k of per·rowBatchCount.
func (b *rowBatches) add(k, per int, z []float64) {
	for i, v := range z {
		b.m1[i][k/per] += v / float64(per)
		b.m2[i][k/per] += v * v / float64(per)
	}
}

// worstZ is the largest |z| over rows and both moments of the difference
// between b's and ref's means, with the standard error of each from its
// batch means.
func (b *rowBatches) worstZ(ref *rowBatches) float64 {
	worst := 0.0
	for i := range b.m1 {
		for _, pair := range [][2][]float64{{b.m1[i], ref.m1[i]}, {b.m2[i], ref.m2[i]}} {
			m, se := batchMean(pair[0])
			mr, ser := batchMean(pair[1])
			worst = math.Max(worst, math.Abs(m-mr)/math.Hypot(se, ser))
		}
	}
	return worst
}

// batchMean returns the mean of batch means and its standard error.
func batchMean(b []float64) (mean, se float64) {
	for _, v := range b {
		mean += v / float64(len(b))
	}
	var ss float64
	for _, v := range b {
		ss += (v - mean) * (v - mean)
	}
	nb := float64(len(b))
	return mean, math.Sqrt(ss / (nb - 1) / nb)
}

// TestStretchLevelsTarget checks that the level stretches leave the column
// conditional N(μ, σ²I) on D_j invariant (sampling.md §1.4). A chain that
// alternates Hoff's level update with the stretches (300,000 iterations)
// must match, row by row, the mean and second moment of z under that
// conditional found by rejection sampling (200,000 independent draws that
// satisfy the constraints); both standard errors come from 100 batch means.
// |z| < 4.5 over each case's 14 comparisons has a false-alarm rate under 1e-4. The
// stretches alone are not ergodic (they keep each level's internal shape),
// which is why the chain includes the level update. With limit 1 a column
// of more boundaries than the limit is stretched at one boundary, chosen at
// random, per update (what maxStretches does to continuous columns). A
// planted bug, the stretches built for exponent n_b (the Haar measure's 1/a
// left out), must fail.
func TestStretchLevelsTarget(t *testing.T) {
	col := stretchColumn
	lv, err := hough.NewLevels(col.y)
	if err != nil {
		t.Fatal(err)
	}
	n := len(col.y)
	ref := newRowBatches(n)
	rng := rand.New(rand.NewPCG(3, 1))
	z := make([]float64, n)
	const refDraws = 200_000
	for kept := 0; kept < refDraws; {
		for i := range z {
			z[i] = col.mu[i] + col.sigma*rng.NormFloat64()
		}
		if lv.Feasible(z) {
			ref.add(kept, refDraws/rowBatchCount, z)
			kept++
		}
	}
	for _, tc := range []struct {
		bug      float64
		limit    int
		wantPass bool
	}{{0, 0, true}, {0, 1, true}, {1, 0, false}} {
		t.Run(fmt.Sprintf("bug=%g,limit=%d", tc.bug, tc.limit), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(4, 1))
			const iters = 300_000
			normalScores(rng, lv, z, true)
			w := levelStretch{bug: tc.bug, limit: tc.limit}
			chain := newRowBatches(n)
			for it := 0; it < iters; it++ {
				gibbsLevels(rng, lv, z, col.mu, col.sigma, nil)
				w.stretchLevels(rng, lv, z, col.mu, col.sigma)
				if !lv.Feasible(z) {
					t.Fatalf("iteration %d: the stretches broke the order constraints", it)
				}
				chain.add(it, iters/rowBatchCount, z)
			}
			worst := chain.worstZ(ref)
			t.Logf("max |z| over rows and moments: %.2f", worst)
			if pass := worst < 4.5; pass != tc.wantPass {
				if tc.wantPass {
					t.Errorf("the chain does not keep the column conditional: max |z| = %.2f", worst)
				} else {
					t.Errorf("planted bug not caught: max |z| = %.2f", worst)
				}
			}
		})
	}
}

// TestStretchLevelsKeepsOrder: the stretches keep every level at or above
// the one below when neighbouring levels are a few ulps apart, far from
// zero, with very unequal level sizes: there the composed affine maps of
// stretchLevels round across level boundaries unless each level is clamped
// to the top of the one below.
func TestStretchLevelsKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, levels = 2000, 60
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(min(levels-1, int(math.Floor(math.Pow(rng.Float64(), 3)*levels))))
	}
	lv, err := hough.NewLevels(y)
	if err != nil {
		t.Fatal(err)
	}
	z, mu := make([]float64, n), make([]float64, n)
	for _, base := range []float64{0.5, 1e3, -1e6} {
		// Level l sits at the l-th float above base, and the rows'
		// conditional means spread around base.
		at := make([]float64, levels)
		at[0] = base
		for l := 1; l < levels; l++ {
			at[l] = math.Nextafter(at[l-1], math.Inf(1))
		}
		for i, v := range y {
			z[i] = at[int(v)]
			mu[i] = base + 1e-9*math.Abs(base)*rng.NormFloat64()
		}
		var w levelStretch
		for it := range 200 {
			w.stretchLevels(rng, lv, z, mu, 1e-9*math.Abs(base))
			if l, amount := lv.Violation(z); l >= 0 {
				t.Fatalf("base %g, iteration %d: level %d exceeds the next by %g", base, it, l, amount)
			}
		}
	}
}

// BenchmarkStretchLevels is the cost of the stretches on one column of
// n = 1000 rows with 5 and with 60 levels (the GSS's age), beside the Gibbs
// level update they follow.
func BenchmarkStretchLevels(b *testing.B) {
	for _, levels := range []int{5, 60} {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 1000
		y, mu := make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(levels))
			mu[i] = (y[i] - float64(levels)/2) / float64(levels)
		}
		lv, err := hough.NewLevels(y)
		if err != nil {
			b.Fatal(err)
		}
		z := make([]float64, n)
		normalScores(rng, lv, z, true)
		b.Run(fmt.Sprintf("levels=%d/stretch", levels), func(b *testing.B) {
			var w levelStretch
			for range b.N {
				w.stretchLevels(rng, lv, z, mu, 0.9)
			}
		})
		b.Run(fmt.Sprintf("levels=%d/gibbs", levels), func(b *testing.B) {
			for range b.N {
				gibbsLevels(rng, lv, z, mu, 0.9, nil)
			}
		})
	}
}

// stretchLevels applies the level stretches alone to z, after a column
// update that recorded no sums and with no translation or scaling: the
// moves under test, as px's and interweave's Hoff updates run them
// (factorSampler.hoffColumn, which records the sums as it draws).
func (w *levelStretch) stretchLevels(rng *rand.Rand, lv *hough.Levels, z, mu []float64, sigma float64) {
	if lv.NumLevels() < 2 {
		return
	}
	w.sumLevels(lv, z, mu)
	w.draw(rng, sigma, 1, 0)
	w.apply(lv, z, 1, 0)
}
