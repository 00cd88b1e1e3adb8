package hough

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// phi is the standard normal CDF.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// ksStat returns the Kolmogorov–Smirnov distance between the sample and cdf.
func ksStat(sample []float64, cdf func(float64) float64) float64 {
	xs := append([]float64(nil), sample...)
	sort.Float64s(xs)
	n := float64(len(xs))
	d := 0.0
	for i, x := range xs {
		f := cdf(x)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// lag1 returns the lag-1 autocorrelation of xs.
func lag1(xs []float64) float64 {
	m := mean(xs)
	num, den := 0.0, 0.0
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (x - m) * (xs[i-1] - m)
		}
	}
	return num / den
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// mcse returns the Monte Carlo standard error of the mean of a correlated
// chain by batch means with 50 batches.
func mcse(xs []float64) float64 {
	const nb = 50
	bs := len(xs) / nb
	bm := make([]float64, nb)
	for b := range bm {
		bm[b] = mean(xs[b*bs : (b+1)*bs])
	}
	m := mean(bm)
	v := 0.0
	for _, x := range bm {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(nb-1) / float64(nb))
}

// ksCrit is the α = 0.001 Kolmogorov–Smirnov critical value (sampling.md §6).
func ksCrit(n int) float64 { return 1.949 / math.Sqrt(float64(n)) }

// randomColumn returns a column of n values with L levels (every level
// non-empty when n − missing ≥ L), about a fraction na missing.
func randomColumn(rng *rand.Rand, n, L int, na float64) []float64 {
	y := make([]float64, n)
	for i := range y {
		if rng.Float64() < na {
			y[i] = math.NaN()
			continue
		}
		y[i] = float64(rng.IntN(L))
	}
	// make sure every level appears, using observed rows in turn
	obs := 0
	for i := range y {
		if !math.IsNaN(y[i]) {
			if obs < L {
				y[i] = float64(obs)
			}
			obs++
		}
	}
	rng.Shuffle(n, func(i, j int) { y[i], y[j] = y[j], y[i] })
	return y
}

// feasibleStart returns a point satisfying lv's constraints: sorted normal
// draws assigned to the rows in level order, and normal draws for missing rows.
func feasibleStart(rng *rand.Rand, lv *Levels) []float64 {
	x := make([]float64, lv.N)
	z := make([]float64, len(lv.Order))
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	sort.Float64s(z)
	for p, i := range lv.Order {
		x[i] = z[p]
	}
	for _, i := range lv.Missing {
		x[i] = rng.NormFloat64()
	}
	return x
}

// pairRows returns F, g with one row x_u − x_v ≤ 0 per pair of rows in
// adjacent levels: the explicit Pakman–Paninski form of lv's constraints.
func pairRows(lv *Levels) (*mat.Dense, []float64) {
	m := 0
	for l := 0; l+1 < lv.NumLevels(); l++ {
		m += len(lv.Rows(l)) * len(lv.Rows(l+1))
	}
	F := mat.NewDense(max(m, 1), lv.N, nil)
	r := 0
	for l := 0; l+1 < lv.NumLevels(); l++ {
		for _, u := range lv.Rows(l) {
			for _, v := range lv.Rows(l + 1) {
				F.Set(r, int(u), 1)
				F.Set(r, int(v), -1)
				r++
			}
		}
	}
	if m == 0 {
		return mat.NewDense(1, lv.N, nil), []float64{1} // 0 ≤ 1: no constraint
	}
	return F, make([]float64, m)
}

func mustLevels(t testing.TB, y []float64) *Levels {
	t.Helper()
	lv, err := NewLevels(y)
	if err != nil {
		t.Fatal(err)
	}
	return lv
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// checkFeasible fails t unless x satisfies every constraint of lv exactly.
func checkFeasible(t testing.TB, lv *Levels, x []float64) {
	t.Helper()
	if l, amt := lv.Violation(x); l >= 0 {
		t.Fatalf("output violates levels %d/%d by %g", l+1, l+2, amt)
	}
}
