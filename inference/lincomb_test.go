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
