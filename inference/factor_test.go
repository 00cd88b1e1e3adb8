package inference

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/copulang/copulang/hough"
)

// factorTestData builds the checked data of columns (NaN = missing).
func factorTestData(t testing.TB, columns [][]float64) *data {
	t.Helper()
	d := &data{n: len(columns[0]), p: len(columns), columns: columns, levels: make([]*hough.Levels, len(columns))}
	for j, col := range columns {
		lv, err := hough.NewLevels(col)
		if err != nil {
			t.Fatal(err)
		}
		d.levels[j] = lv
	}
	return d
}

// ordinalColumn returns n values with level of row i = i mod levels
// (shuffled by rng) and the given rows missing.
func ordinalColumn(rng *rand.Rand, n, levels int, missing ...int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % levels)
	}
	rng.Shuffle(n, func(a, b int) { y[a], y[b] = y[b], y[a] })
	for _, i := range missing {
		y[i] = math.NaN()
	}
	return y
}

// feasibleStart returns a latent column inside lv's constraint set: level ℓ's
// rows spread in [ℓ, ℓ+0.9], missing rows N(0, 1).
func feasibleStart(rng *rand.Rand, lv *hough.Levels) []float64 {
	z := make([]float64, lv.N)
	for l := 0; l < lv.NumLevels(); l++ {
		for _, i := range lv.Rows(l) {
			z[i] = float64(l) - float64(lv.NumLevels())/2 + 0.9*rng.Float64()
		}
	}
	for _, i := range lv.Missing {
		z[i] = rng.NormFloat64()
	}
	return z
}

// TestJointHMCMatchesPP checks the structured joint (λ, z) step against the
// general Pakman–Paninski sampler of package hough with one explicit row per
// pair of rows in adjacent levels and the dense covariance
// Σ = [[P⁻¹, P⁻¹ηᵀ], [ηP⁻¹, I + ηP⁻¹ηᵀ]] (sampling.md §4.4), started from the
// same state with the same whitened velocity. PP's Cholesky whitening of Σ is
// exactly (u, ε) = (P^{1/2}λ, z − ηλ), so the end points must agree to
// rounding.
func TestJointHMCMatchesPP(t *testing.T) {
	cases := []struct {
		name    string
		n, L, k int
		missing []int
		T       float64
		steps   int
	}{
		{"n12 L2 k1", 12, 2, 1, nil, 0, 5},
		{"n12 L3 k2 NA", 12, 3, 2, []int{3, 7}, 0, 5},
		{"n30 L5 k3 NA", 30, 5, 3, []int{0}, 0, 3},
		{"n30 L2 k5", 30, 2, 5, nil, 0, 3},
		{"n40 L4 k2 T1", 40, 4, 2, []int{5, 6}, 1, 3},
		{"n60 L3 k4 T3", 60, 3, 4, nil, 3, 2},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			y := ordinalColumn(rng, tc.n, tc.L, tc.missing...)
			lv, err := hough.NewLevels(y)
			if err != nil {
				t.Fatal(err)
			}
			n, k := tc.n, tc.k
			eta := make([]float64, n*k)
			for i := range eta {
				eta[i] = rng.NormFloat64()
			}
			prec := make([]float64, k)
			lam := make([]float64, k)
			for h := range prec {
				prec[h] = 0.5 + 2*rng.Float64()
				lam[h] = rng.NormFloat64()
			}
			z := feasibleStart(rng, lv)

			// PP reference on x = (λ, z).
			dim := k + n
			var rows [][]float64
			for l := 0; l+1 < lv.NumLevels(); l++ {
				for _, a := range lv.Rows(l) {
					for _, b := range lv.Rows(l + 1) {
						f := make([]float64, dim)
						f[k+int(a)], f[k+int(b)] = 1, -1
						rows = append(rows, f)
					}
				}
			}
			F := mat.NewDense(len(rows), dim, nil)
			for r, f := range rows {
				F.SetRow(r, f)
			}
			cov := mat.NewSymDense(dim, nil)
			for a := 0; a < k; a++ {
				cov.SetSym(a, a, 1/prec[a])
				for i := 0; i < n; i++ {
					cov.SetSym(a, k+i, eta[i*k+a]/prec[a])
				}
			}
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					c := 0.0
					if i == j {
						c = 1
					}
					for h := 0; h < k; h++ {
						c += eta[i*k+h] * eta[j*k+h] / prec[h]
					}
					cov.SetSym(k+i, k+j, c)
				}
			}
			pp, err := hough.NewPPCov(F, make([]float64, len(rows)), make([]float64, dim), cov)
			if err != nil {
				t.Fatal(err)
			}
			x := append(append([]float64(nil), lam...), z...)
			h := newJointHMC(lv, k)
			ud, ed, vel := make([]float64, k), make([]float64, n), make([]float64, dim)
			for s := 0; s < tc.steps; s++ {
				for i := range vel {
					vel[i] = rng.NormFloat64()
				}
				copy(ud, vel[:k])
				copy(ed, vel[k:])
				ps, err := pp.Step(x, vel, tc.T)
				if err != nil {
					t.Fatal(err)
				}
				js, err := h.stepWith(z, lam, eta, prec, tc.T, ud, ed)
				if err != nil {
					t.Fatal(err)
				}
				if ps.Rejections != 0 || js.Rejections != 0 {
					t.Fatalf("step %d: rejections PP %d, joint %d", s, ps.Rejections, js.Rejections)
				}
				if ps.Bounces != js.Bounces {
					t.Errorf("step %d: %d bounces, PP made %d", s, js.Bounces, ps.Bounces)
				}
				worst := 0.0
				for c := 0; c < k; c++ {
					worst = math.Max(worst, math.Abs(lam[c]-x[c]))
				}
				for i := 0; i < n; i++ {
					worst = math.Max(worst, math.Abs(z[i]-x[k+i]))
				}
				if worst > 1e-9 {
					t.Fatalf("step %d: max |Δ| = %g against PP (bounces %d)", s, worst, js.Bounces)
				}
				if !lv.Feasible(z) {
					t.Fatalf("step %d: end point infeasible", s)
				}
				t.Logf("step %d: %d bounces, %d events, max |Δ| = %.1e", s, js.Bounces, js.Events, worst)
				copy(x[:k], lam) // continue both from the same state
				copy(x[k:], z)
			}
		})
	}
}
