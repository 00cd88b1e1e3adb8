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
	a, ok1 := h.logPost(lam, prec, n/2.0, p, k)
	b, ok2 := h.logPost(other, prec, n/2.0, p, k)
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
		if _, ok := h.logPost(lam, prec, half, tc.p, tc.k); !ok {
			t.Fatal("logPost failed")
		}
		grad := append([]float64(nil), h.grad...)
		const step = 1e-6
		for i := range lam {
			x := lam[i]
			lam[i] = x + step
			up, _ := h.logPost(lam, prec, half, tc.p, tc.k)
			lam[i] = x - step
			down, _ := h.logPost(lam, prec, half, tc.p, tc.k)
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

// TestCollapsedLoadingsGeweke tests the collapsed loadings step alone by
// Geweke's successive-conditional simulator: each iteration draws Z | Λ
// from the model (rows N(0, ΛΛᵀ + I), through η) and then makes one
// collapsed step, so Λ's stationary law is its prior N(0, P⁻¹), here with
// mixed prior precisions (0.05 to 400). The first 2,000 iterations adapt
// the leapfrog step and are not recorded; the step must not change after
// them, and the acceptance rate must be one a fit runs at. With n = 2 rows
// the likelihood is weak, so the step's errors show in Λ's law undiluted
// by the exact conditional draws PX makes around it. Correct: |z| < 4 for
// every test function (measured at most 0.72 over 10⁶ iterations,
// acceptance 0.76); the planted bugs must reach |z| ≥ 4: without the
// Metropolis test z = 142, with (n−1)/2 for n/2 in the target z = 109 (200,000
// iterations each), with a whole final momentum kick z = 8.2 (10⁶; 3.3 at
// 200,000). PX's own Geweke test (TestFactorGeweke) misses that last bug.
func TestCollapsedLoadingsGeweke(t *testing.T) {
	if testing.Short() {
		t.Skip("Geweke test: long statistical test, skipped under -short")
	}
	t.Parallel()
	for ci, tc := range []struct {
		name  string
		bug   factorBug
		iters int
	}{
		{"correct", bugNone, 1_000_000},
		{"without the Metropolis test (planted)", bugCollapsedNoTest, 200_000},
		{"(n−1)/2 for n/2 (planted)", bugCollapsedLogdet, 200_000},
		{"a whole final kick (planted)", bugCollapsedFullKick, 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			succ, marg, st, step, adapted := collapsedGeweke(tc.bug, tc.iters, uint64(300+ci))
			zs := gewekeZ(succ, marg)
			worst := 0.0
			for _, z := range zs {
				worst = math.Max(worst, math.Abs(z))
			}
			acc := float64(st.LoadingsAccepted) / float64(st.LoadingsProposed)
			t.Logf("%s: step %.3f, acceptance %.3f, z = %.2f", tc.name, step, acc, zs)
			if step != adapted {
				t.Errorf("the step moved after warm-up: %v, adapted %v", step, adapted)
			}
			if tc.bug == bugNone {
				if worst >= 4 {
					t.Errorf("max |z| = %.2f, want < 4", worst)
				}
				if acc < 0.4 || acc > 0.95 {
					t.Errorf("acceptance %.3f after warm-up, want 0.4 to 0.95 (the adaptation aims at about 0.8)", acc)
				}
			} else if worst < 4 {
				t.Errorf("planted bug not detected: max |z| = %.2f, want >= 4", worst)
			}
		})
	}
}

// collapsedGeweke runs TestCollapsedLoadingsGeweke's simulator (p = 3,
// k = 2, n = 2) and returns the successive and the prior draws of the test
// functions (factorGewekeFuncs and λ₁₁²), the kept iterations' stats, and
// the step size at the end and after warm-up.
func collapsedGeweke(bug factorBug, iters int, seed uint64) (succ, marg [][]float64, st StepStats, step, adapted float64) {
	const n, p, k, adapt = 2, 3, 2, 2000
	precs := []float64{1, 0.05, 400, 3, 1, 20}
	rng := rand.New(rand.NewPCG(seed, 17))
	s := &factorSampler{n: n, p: p, k: k, z: make([][]float64, p), lambda: make([]float64, p*k),
		prec: precs, collapsed: newCollapsedLoadings(p, k), bug: bug}
	for j := range s.z {
		s.z[j] = make([]float64, n)
	}
	for i := range s.lambda {
		s.lambda[i] = rng.NormFloat64() / math.Sqrt(precs[i])
	}
	funcs := func(dst, lam []float64) {
		factorGewekeFuncs(dst, lam, k)
		dst[len(dst)-1] = lam[0] * lam[0]
	}
	nf := len(factorGewekeNames) + 1
	succ, marg = make([][]float64, nf), make([][]float64, nf)
	for f := range succ {
		succ[f], marg[f] = make([]float64, iters), make([]float64, iters)
	}
	g := make([]float64, nf)
	eta := make([]float64, k)
	for it := -adapt; it < iters; it++ {
		for i := 0; i < n; i++ {
			for h := range eta {
				eta[h] = rng.NormFloat64()
			}
			for j := 0; j < p; j++ {
				s.z[j][i] = dotK(s.lambda[j*k:j*k+k], eta) + rng.NormFloat64()
			}
		}
		s.stepCollapsedLoadings(rng, it < 0, &st)
		if it == -1 {
			adapted = s.collapsed.step
		}
		if it < 0 {
			continue
		}
		funcs(g, s.lambda)
		for f := range g {
			succ[f][it] = g[f]
		}
	}
	lam := make([]float64, p*k)
	for it := 0; it < iters; it++ {
		for i := range lam {
			lam[i] = rng.NormFloat64() / math.Sqrt(precs[i])
		}
		funcs(g, lam)
		for f := range g {
			marg[f][it] = g[f]
		}
	}
	return succ, marg, st, s.collapsed.step, adapted
}

// TestCollapsedLoadingsEvery checks how often px makes the collapsed move: every
// iteration below 60 columns, a random one in ⌊(p + 20)/40⌋ from there.
// At p = 100 (one in 3) 3,000 kept iterations must make 1,000 moves give
// or take 4 binomial standard deviations (±103).
func TestCollapsedLoadingsEvery(t *testing.T) {
	for _, tc := range []struct{ p, want int }{{3, 1}, {20, 1}, {59, 1}, {60, 2}, {99, 2}, {100, 3}, {200, 5}} {
		if got := CollapsedLoadingsEvery(tc.p); got != tc.want {
			t.Errorf("CollapsedLoadingsEvery(%d) = %d, want %d", tc.p, got, tc.want)
		}
	}
	for _, tc := range []struct{ p, iters, want int }{{20, 300, 300}, {100, 3000, 1000}} {
		rng := rand.New(rand.NewPCG(9, uint64(tc.p)))
		cols, _ := simulateFactorCopula(rng, 40, tc.p, 2, 3, 0)
		d := factorTestData(t, cols)
		cs, err := newFactorSampler(d, &Spec{Columns: cols, Model: FactorModel{K: 2}, Method: PX}, rng)
		if err != nil {
			t.Fatal(err)
		}
		var st StepStats
		for range tc.iters {
			if err := cs.iterate(rng, false, &st); err != nil {
				t.Fatal(err)
			}
		}
		sd := math.Sqrt(float64(tc.iters) * (float64(tc.want) / float64(tc.iters)) * (1 - float64(tc.want)/float64(tc.iters)))
		if got := st.LoadingsProposed; math.Abs(float64(got)-float64(tc.want)) > 4*sd {
			t.Errorf("p = %d: %d collapsed moves in %d iterations, want %d ± %.0f", tc.p, got, tc.iters, tc.want, 4*sd)
		}
	}
}
