package inference

import (
	"math"
	"testing"
)

// bvnByIntegral is P(X ≤ h, Y ≤ k) as the integral over x ≤ h of
// φ(x) Φ((k − rx)/√(1 − r²)), by the composite Simpson rule on 20,000
// intervals from −12 (the mass below is under 10⁻³²).
func bvnByIntegral(h, k, r float64) float64 {
	lo := -12.0
	hi := min(h, 12)
	if hi <= lo {
		return 0
	}
	s := math.Sqrt(1 - r*r)
	f := func(x float64) float64 {
		return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) * stdNormalCDF((k-r*x)/s)
	}
	const n = 20000
	step := (hi - lo) / n
	sum := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(lo+float64(i)*step)
	}
	return sum * step / 3
}

func TestBivariateNormalCDFKnownValues(t *testing.T) {
	for _, r := range []float64{-0.999999, -0.99, -0.95, -0.925, -0.9, -0.5, -0.2, 0, 0.1, 0.3, 0.6, 0.8, 0.93, 0.999, 0.999999} {
		// At the origin Sheppard's formula: 1/4 + asin(r)/(2π).
		want := 0.25 + math.Asin(r)/(2*math.Pi)
		if got := BivariateNormalCDF(0, 0, r); math.Abs(got-want) > 1e-14 {
			t.Errorf("Φ2(0, 0; %v) = %.16g, want %.16g", r, got, want)
		}
	}
	// Infinite bounds and the limits r = ±1.
	cases := []struct{ h, k, r, want float64 }{
		{math.Inf(1), 0.7, 0.4, stdNormalCDF(0.7)},
		{-0.3, math.Inf(1), -0.4, stdNormalCDF(-0.3)},
		{math.Inf(-1), 0.7, 0.4, 0},
		{1.2, 0.5, 1, stdNormalCDF(0.5)},
		{1.2, 0.5, -1, stdNormalCDF(1.2) + stdNormalCDF(0.5) - 1},
		{-1.2, 0.5, -1, 0},
		{0.3, -0.4, 0, stdNormalCDF(0.3) * stdNormalCDF(-0.4)},
	}
	for _, c := range cases {
		if got := BivariateNormalCDF(c.h, c.k, c.r); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("Φ2(%v, %v; %v) = %.16g, want %.16g", c.h, c.k, c.r, got, c.want)
		}
	}
}

// The distribution function against the integral over x of φ(x) times the
// conditional Φ, in every branch of Genz's algorithm (|r| < 0.3, < 0.75,
// < 0.925 and above, both signs) and near r = ±1. Simpson's rule on 20,000
// intervals is exact to about 1e-13 here, so the tolerance 1e-10 is
// rounding, not approximation.
func TestBivariateNormalCDFAgainstIntegral(t *testing.T) {
	hs := []float64{-3.5, -1.7, -0.4, 0, 0.25, 1.1, 2.9}
	rs := []float64{-0.9999, -0.995, -0.97, -0.93, -0.8, -0.5, -0.1, 0.2, 0.45, 0.7, 0.9, 0.94, 0.98, 0.999, 0.9999}
	for _, h := range hs {
		for _, k := range hs {
			for _, r := range rs {
				got, want := BivariateNormalCDF(h, k, r), bvnByIntegral(h, k, r)
				if math.Abs(got-want) > 1e-10 {
					t.Errorf("Φ2(%v, %v; %v) = %.14g, integral %.14g", h, k, r, got, want)
				}
			}
		}
	}
}

func TestBVNRectangleSumsToOne(t *testing.T) {
	cuts := []float64{math.Inf(-1), -1.3, -0.2, 0.4, 1.9, math.Inf(1)}
	for _, r := range []float64{-0.97, -0.4, 0, 0.6, 0.99} {
		sum := 0.0
		for i := 1; i < len(cuts); i++ {
			for j := 1; j < len(cuts); j++ {
				sum += bvnRectangle(cuts[i-1], cuts[i], cuts[j-1], cuts[j], r)
			}
		}
		if math.Abs(sum-1) > 1e-13 {
			t.Errorf("r = %v: the rectangles of a grid sum to %.16g", r, sum)
		}
	}
}
