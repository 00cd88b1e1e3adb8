package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMoveFactorsKeepsLikelihood checks the invariants of the factor group
// moves on a PX chain: every λ_jᵀη_i (so the likelihood of Z) is unchanged
// by moveFactors up to rounding, the closed-form S it keeps equals ηᵀη
// recomputed, and the moves do change η and Λ.
func TestMoveFactorsKeepsLikelihood(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 8, K: 3, N: 300, Levels: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, prior := range []LoadingsPrior{NormalLoadings{Var: 1}, GDPLoadings{}} {
		t.Run(fmt.Sprintf("%T", prior), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			spec := &Spec{Columns: sim.Columns, Model: FactorModel{K: 3, Loadings: prior}, Method: PX, Iter: 1}
			cs, err := newFactorSampler(factorTestData(t, sim.Columns), spec, rng)
			if err != nil {
				t.Fatal(err)
			}
			s := cs.(*factorSampler)
			var st StepStats
			n, p, k := s.n, s.p, s.k
			mean := make([]float64, n*p)
			for it := range 20 {
				if err := s.iterate(rng, false, &st); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < n; i++ {
					for j := 0; j < p; j++ {
						mean[i*p+j] = dotK(s.lambda[j*k:j*k+k], s.eta[i*k:i*k+k])
					}
				}
				lambda := append([]float64(nil), s.lambda...)
				eta0 := s.eta[0]
				s.moveFactors(rng)
				if s.eta[0] == eta0 || s.lambda[0] == lambda[0] {
					t.Fatalf("iteration %d: the moves left η or Λ unchanged", it)
				}
				worst := 0.0
				for i := 0; i < n; i++ {
					for j := 0; j < p; j++ {
						m := dotK(s.lambda[j*k:j*k+k], s.eta[i*k:i*k+k])
						worst = math.Max(worst, math.Abs(m-mean[i*p+j])/(1+math.Abs(mean[i*p+j])))
					}
				}
				if worst > 1e-10 {
					t.Fatalf("iteration %d: λ_jᵀη_i moved by up to %.3g (relative)", it, worst)
				}
				for x := 0; x < k; x++ {
					for y := 0; y < k; y++ {
						want := 0.0
						for i := 0; i < n; i++ {
							want += s.eta[i*k+x] * s.eta[i*k+y]
						}
						if got := s.group.s[x*k+y]; math.Abs(got-want) > 1e-9*float64(n) {
							t.Fatalf("iteration %d: S[%d,%d] = %g, ηᵀη has %g", it, x, y, got, want)
						}
					}
				}
			}
		})
	}
}

// gigMoments returns the mean and second moment of w under the target of
// scaleDraw, p(w) ∝ w^(nu−1)·exp(−(s·w + r/w)/2), by quadrature in
// x = log w over the mode ± 30 curvature sds.
func gigMoments(nu, s, r float64) (m1, m2 float64) {
	logf := func(x float64) float64 { return nu*x - (s*math.Exp(x)+r*math.Exp(-x))/2 }
	mode := math.Log((nu + math.Sqrt(nu*nu+s*r)) / s) // root of f'(x) = 0
	sd := 1 / math.Sqrt((s*math.Exp(mode)+r*math.Exp(-mode))/2)
	return simpsonMoments(logf, math.Exp, mode-30*sd, mode+30*sd, logf(mode))
}

// TestScaleDrawTarget checks scaleDraw as a Markov chain along one orbit of
// the factor scale move: the state is w relative to a base point with
// statistics s and r, so the move sees s·w and r/w and multiplies w by what
// it draws. Started at the base point and repeated, it must keep the
// generalised inverse Gaussian p(w) ∝ w^(nu−1)·exp(−(s·w + r/w)/2): the
// chain's mean of w and w² must match quadrature within 4 Monte Carlo
// standard errors (100 batch means of 400,000 steps; a false alarm about
// 6e-5 per comparison). The cases: a small orbit where the normal proposal
// fits poorly (nu = 1.5), a long one (n = 1000, p = 20), and one where the
// loadings' prior term dominates (large r). A planted bug, the move built
// for nu + 1 (the Jacobian of Λ's columns left out, as if p = 2 were 0),
// must fail on the small orbit.
func TestScaleDrawTarget(t *testing.T) {
	cases := []struct {
		nu, s, r, nuMove float64
		wantPass         bool
	}{
		{1.5, 6, 2, 1.5, true},
		{490, 1000, 25, 490, true},
		{3, 2, 40, 3, true},
		{1.5, 6, 2, 2.5, false},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("nu=%g,s=%g,r=%g,move nu=%g", tc.nu, tc.s, tc.r, tc.nuMove), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(40+i), 7))
			m1, m2 := gigMoments(tc.nu, tc.s, tc.r)
			zMean, zSquare := orbitZ(400_000, func(w float64) float64 { return scaleDraw(rng, tc.nuMove, tc.s*w, tc.r/w) }, m1, m2)
			t.Logf("E w: quadrature %.5f, z %.2f; E w²: quadrature %.5f, z %.2f", m1, zMean, m2, zSquare)
			checkOrbitZ(t, zMean, zSquare, tc.wantPass)
		})
	}
}

// TestScaleDrawDegenerate: more columns than rows (nu < 0, a proper
// target still) gives a finite positive draw, and non-finite statistics
// leave the state where it is (w = 1) rather than spreading NaN.
func TestScaleDrawDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		if w := scaleDraw(rng, -3, 2, 5); !(w > 0) || math.IsInf(w, 0) {
			t.Fatalf("nu < 0: w = %v, want finite and > 0", w)
		}
	}
	for _, tc := range [][3]float64{{math.NaN(), 1, 1}, {1, math.NaN(), 1}, {1, 1, math.Inf(1)}} {
		if w := scaleDraw(rng, tc[0], tc[1], tc[2]); w != 1 {
			t.Errorf("scaleDraw(%v) = %v, want 1", tc, w)
		}
	}
}
