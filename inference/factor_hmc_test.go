package inference

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/copulang/copulang/hough"
)

// TestJointHMCMatchesScan checks the working-set search of jointHMC against
// the full scan it replaced (scanJointHMC, factor_hmc_scan_test.go): from the
// same state with the same whitened velocity, both must make the same number
// of bounces and end within 1e-9 of each other. Each case first runs a few
// trajectories of the reference so that the state is typical of the
// posterior rather than of the start, and then continues both from the
// reference's end point.
func TestJointHMCMatchesScan(t *testing.T) {
	cases := []struct {
		name    string
		n, L, k int
		miss    float64
		T       float64
		steps   int
	}{
		{"n200 L5 k3", 200, 5, 3, 0, 0, 8},
		{"n1000 L5 k5", 1000, 5, 5, 0, 0, 4},
		{"n500 L2 k2 NA", 500, 2, 2, 0.2, 0, 6},
		{"n120 distinct k1", 120, 120, 1, 0, 0, 3},
		{"n400 L20 k4 NA", 400, 20, 4, 0.05, 0, 3},
		{"n300 L3 k2 T3", 300, 3, 2, 0, 3, 4},
		{"n150 L4 k5 T0.3", 150, 4, 5, 0.1, 0.3, 8},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 41))
			n, k := tc.n, tc.k
			y := make([]float64, n)
			for i := range y {
				y[i] = float64(i % tc.L)
				if rng.Float64() < tc.miss {
					y[i] = math.NaN()
				}
			}
			rng.Shuffle(n, func(a, b int) { y[a], y[b] = y[b], y[a] })
			lv, err := hough.NewLevels(y)
			if err != nil {
				t.Fatal(err)
			}
			eta, prec, lam, z := jointInputs(rng, lv, k)
			ref := newScanJointHMC(lv, k)
			for range 3 {
				if _, err := ref.step(rng, z, lam, eta, prec, tc.T); err != nil {
					t.Fatal(err)
				}
			}
			h := newJointHMC(lv, k)
			z2, lam2 := make([]float64, n), make([]float64, k)
			ud, ed := make([]float64, k), make([]float64, n)
			for s := 0; s < tc.steps; s++ {
				for c := range ud {
					ud[c] = rng.NormFloat64()
				}
				for i := range ed {
					ed[i] = rng.NormFloat64()
				}
				copy(z2, z)
				copy(lam2, lam)
				rs, err := ref.stepWith(z, lam, eta, prec, tc.T, ud, ed)
				if err != nil {
					t.Fatal(err)
				}
				js, err := h.stepWith(z2, lam2, eta, prec, tc.T, ud, ed)
				if err != nil {
					t.Fatal(err)
				}
				checkJointStep(t, s, "the full scan", lv, js, rs, lam2, z2, lam, z)
			}
		})
	}
}
