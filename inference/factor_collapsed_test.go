package inference

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// collapsedTestState returns a collapsed loadings workspace with S = ZᵀZ of
// random Z (n×p), random loadings and prior precisions.
func collapsedTestState(rng *rand.Rand, n, p, k int) (h *collapsedLoadings, z [][]float64, lam, prec []float64) {
	h = newCollapsedLoadings(p, k)
	z = make([][]float64, p)
	for j := range z {
		z[j] = make([]float64, n)
		for i := range z[j] {
			z[j][i] = 1.5 * rng.NormFloat64()
		}
	}
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			h.gram[a*p+b] = dot(z[a], z[b])
		}
	}
	lam = make([]float64, p*k)
	prec = make([]float64, p*k)
	for i := range lam {
		lam[i] = rng.NormFloat64()
		prec[i] = 0.5 + 3*rng.Float64()
	}
	return h, z, lam, prec
}

// TestCollapsedLogPostMatchesDensity checks logPost against the density it
// stands for, computed directly with gonum: the rows of Z are N(0, ΛΛᵀ + I)
// and λ_jh ~ N(0, 1/P_jh). Differences between two values of Λ must agree
// (logPost leaves out the constants).
func TestCollapsedLogPostMatchesDensity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, p, k = 30, 5, 2
	h, z, lam, prec := collapsedTestState(rng, n, p, k)
	direct := func(lam []float64) float64 {
		l := mat.NewDense(p, k, lam)
		var sigma mat.SymDense
		sigma.SymOuterK(1, l)
		for j := 0; j < p; j++ {
			sigma.SetSym(j, j, sigma.At(j, j)+1)
		}
		var ch mat.Cholesky
		if !ch.Factorize(&sigma) {
			t.Fatal("Σ not positive definite")
		}
		lp := 0.0
		row := mat.NewVecDense(p, nil)
		var x mat.VecDense
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				row.SetVec(j, z[j][i])
			}
			if err := ch.SolveVecTo(&x, row); err != nil {
				t.Fatal(err)
			}
			lp += -0.5*mat.Dot(row, &x) - 0.5*ch.LogDet() - 0.5*float64(p)*math.Log(2*math.Pi)
		}
		for i, v := range lam {
			lp += -0.5*prec[i]*v*v + 0.5*math.Log(prec[i]/(2*math.Pi))
		}
		return lp
	}
	other := make([]float64, len(lam))
	for i := range other {
		other[i] = lam[i] + 0.3*rng.NormFloat64()
	}
	a, ok1 := h.logPost(lam, prec, n/2.0, n, p, k)
	b, ok2 := h.logPost(other, prec, n/2.0, n, p, k)
	if !ok1 || !ok2 {
		t.Fatal("logPost failed")
	}
	got, want := b-a, direct(other)-direct(lam)
	if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("log π(Λ₂) − log π(Λ₁) = %.12g, the direct density gives %.12g", got, want)
	}
}

// TestCollapsedGradient checks logPost's gradient against central
// differences of its value.
func TestCollapsedGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ n, p, k int }{{30, 5, 2}, {200, 8, 3}, {50, 4, 1}} {
		h, _, lam, prec := collapsedTestState(rng, tc.n, tc.p, tc.k)
		half := float64(tc.n) / 2
		if _, ok := h.logPost(lam, prec, half, tc.n, tc.p, tc.k); !ok {
			t.Fatal("logPost failed")
		}
		grad := append([]float64(nil), h.grad...)
		const step = 1e-6
		for i := range lam {
			x := lam[i]
			lam[i] = x + step
			up, _ := h.logPost(lam, prec, half, tc.n, tc.p, tc.k)
			lam[i] = x - step
			down, _ := h.logPost(lam, prec, half, tc.n, tc.p, tc.k)
			lam[i] = x
			fd := (up - down) / (2 * step)
			if math.Abs(fd-grad[i]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("n=%d p=%d k=%d: ∂/∂Λ[%d] = %.9g, central difference %.9g", tc.n, tc.p, tc.k, i, grad[i], fd)
			}
		}
	}
}

// TestGramColumns checks the blocked ZᵀZ against one dot product per pair,
// for even and odd numbers of columns.
func TestGramColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, p := range []int{1, 2, 3, 4, 7, 10} {
		z := make([][]float64, p)
		for j := range z {
			z[j] = make([]float64, 37)
			for i := range z[j] {
				z[j][i] = rng.NormFloat64()
			}
		}
		got := make([]float64, p*p)
		gramColumns(got, z)
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				want := 0.0
				for i := range z[a] {
					want += z[a][i] * z[b][i]
				}
				if math.Abs(got[a*p+b]-want) > 1e-12*(1+math.Abs(want)) {
					t.Errorf("p = %d: (ZᵀZ)[%d,%d] = %v, want %v", p, a, b, got[a*p+b], want)
				}
			}
		}
	}
}
