package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinComb checks the blocked conditional-mean kernel against one axpy
// per column, for every remainder of the column count modulo 4.
func TestLinComb(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k <= 9; k++ {
		n := 1 + rng.IntN(20)
		coef := make([]float64, k)
		cols := make([][]float64, k)
		want := make([]float64, n)
		for c := range cols {
			coef[c] = rng.NormFloat64()
			cols[c] = make([]float64, n)
			for i := range cols[c] {
				cols[c][i] = rng.NormFloat64()
			}
			axpy(coef[c], cols[c], want)
		}
		got := make([]float64, n)
		for i := range got {
			got[i] = math.NaN() // linComb must overwrite, not add to, dst
		}
		linComb(got, coef, cols)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%d columns, row %d: %v, want %v", k, i, got[i], want[i])
			}
		}
	}
}

// TestGramDotMatchesDot: the blocked ZᵀZ of fillPsi equals the dot product
// of every pair of columns bit for bit, at odd and even n and p (the
// covariance step, and so every draw after it, must not change).
func TestGramDotMatchesDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7, 1000} {
		for _, p := range []int{1, 2, 3, 5, 8} {
			z := make([][]float64, p)
			for j := range z {
				z[j] = make([]float64, n)
				for i := range z[j] {
					z[j][i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
				}
			}
			got := make([]float64, p*p)
			gramDot(got, z)
			for a := range p {
				for b := range p {
					want := dot(z[max(a, b)], z[min(a, b)])
					if g := got[a*p+b]; math.Float64bits(g) != math.Float64bits(want) {
						t.Errorf("n = %d, p = %d: entry (%d, %d) = %v, dot gives %v", n, p, a, b, g, want)
					}
				}
			}
		}
	}
}
