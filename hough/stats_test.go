package hough

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The statistical tests below use fixed PCG seeds and the acceptance rules of
// sampling.md §6: a Kolmogorov–Smirnov distance below the α = 0.001 critical
// value 1.949/√N for N thinned draws, lag-1 autocorrelation of the thinned
// draws ≤ 0.05 (its Monte Carlo sd is about 1/√N ≤ 0.016 here, so a correct
// sampler passes by more than 3 sd), and mean comparisons |Δ| ≤ 4·MCSE, MCSE
// from 50 batch means.

// tnCDF returns the CDF of N(mu, s²) truncated to [lo, hi].
func tnCDF(mu, s, lo, hi float64) func(float64) float64 {
	a, b := phi((lo-mu)/s), phi((hi-mu)/s)
	return func(x float64) float64 {
		switch {
		case x <= lo:
			return 0
		case x >= hi:
			return 1
		}
		return (phi((x-mu)/s) - a) / (b - a)
	}
}

// TestA1PP is A1: the 1-D truncated normal N(0.3, 1.5²) on [−0.5, 2] with
// Pakman–Paninski; 20,000 transitions thinned by 5, D < 0.0308, and the mean
// within 4 MCSE of the exact 0.655475 (MCSE ≈ sd/√N ≈ 0.69/√4000 ≈ 0.011).
func TestA1PP(t *testing.T) {
	F := mat.NewDense(2, 1, []float64{1, -1})
	pp, err := NewPPCov(F, []float64{2, 0.5}, []float64{0.3}, mat.NewSymDense(1, []float64{2.25}))
	if err != nil {
		t.Fatal(err)
	}
	rng := newRNG(11)
	x := []float64{0.3}
	var draws []float64
	for k := 0; k < 20000; k++ {
		st, err := pp.Transition(rng, x, 0)
		if err != nil {
			t.Fatal(err)
		}
		if st.Rejections != 0 {
			t.Fatal("rejection")
		}
		if x[0] < -0.5 || x[0] > 2 {
			t.Fatalf("draw %v outside [−0.5, 2]", x[0])
		}
		if k%5 == 4 {
			draws = append(draws, x[0])
		}
	}
	if d, c := ksStat(draws, tnCDF(0.3, 1.5, -0.5, 2)), ksCrit(len(draws)); d >= c {
		t.Errorf("KS D = %.4f ≥ %.4f", d, c)
	}
	if r := lag1(draws); r > 0.05 {
		t.Errorf("lag-1 autocorrelation %.3f > 0.05", r)
	}
	if m, e := mean(draws), mcse(draws); math.Abs(m-0.655475) > 4*e {
		t.Errorf("mean %.5f, want 0.655475 ± 4·%.5f", m, e)
	}
}

// TestA3 is A3: x₁ ≤ x₂ with μ = (0.5, −0.3), σ = 1, for both searches and
// travel times π/2 and 1. d = x₁ − x₂ ~ TN(0.8, 2; ≤ 0) and s = x₁ + x₂ ~
// N(0.2, 2); 10⁵ transitions thinned by 5 give N = 20,000 and D < 0.0138.
// T = 4 exercises a trajectory run in three segments.
func TestA3(t *testing.T) {
	lv := mustLevels(t, []float64{0, 1})
	mu := []float64{0.5, -0.3}
	dCDF := func(d float64) float64 {
		if d >= 0 {
			return 1
		}
		return phi((d-0.8)/math.Sqrt2) / phi(-0.8/math.Sqrt2)
	}
	sCDF := func(s float64) float64 { return phi((s - 0.2) / math.Sqrt2) }
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"kinetic/T=pi/2", Options{}},
		{"kinetic/T=1", Options{TravelTime: 1}},
		{"envelope/T=1", Options{TravelTime: 1, Search: Envelope}},
		{"kinetic/T=4", Options{TravelTime: 4}}, // three segments
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewSampler(lv, c.opt)
			rng := newRNG(3)
			x := []float64{-1, 1}
			var ds, ss []float64
			for k := 0; k < 100000; k++ {
				st, err := s.Transition(rng, x, mu, 1)
				if err != nil {
					t.Fatal(err)
				}
				if st.Rejections != 0 || x[0] > x[1] {
					t.Fatalf("transition %d: %+v, x = %v", k, st, x)
				}
				if k%5 == 4 {
					ds = append(ds, x[0]-x[1])
					ss = append(ss, x[0]+x[1])
				}
			}
			crit := ksCrit(len(ds))
			if d := ksStat(ds, dCDF); d >= crit {
				t.Errorf("difference: KS D = %.4f ≥ %.4f", d, crit)
			}
			if d := ksStat(ss, sCDF); d >= crit {
				t.Errorf("sum: KS D = %.4f ≥ %.4f", d, crit)
			}
			if r := lag1(ds); r > 0.05 {
				t.Errorf("difference: lag-1 autocorrelation %.3f > 0.05", r)
			}
			// Bounces swap velocities, so the sum is an unconstrained
			// oscillator: an exact AR(1) with lag-1 autocorrelation cos T per
			// transition, cos⁵T after thinning; the MC sd of the estimate is
			// about 1/√N = 0.007.
			T := c.opt.TravelTime
			if T == 0 {
				T = math.Pi / 2
			}
			if r, want := lag1(ss), math.Pow(math.Cos(T), 5); math.Abs(r-want) > 4/math.Sqrt(float64(len(ss))) {
				t.Errorf("sum: lag-1 autocorrelation %.4f, want %.4f ± %.4f", r, want, 4/math.Sqrt(float64(len(ss))))
			}
			if m, e := mean(ds), mcse(ds); math.Abs(m-(-0.882170)) > 4*e {
				t.Errorf("mean difference %.5f, want −0.882170 ± 4·%.5f", m, e)
			}
		})
	}
}

// TestA4PP is A4: the orthant x ≥ 0 under N(0, [[1, .8], [.8, 1]]), given as
// covariance and as precision. Exact E x₁ = 0.903076 and E x₁² = 1.192147;
// 60,000 transitions, |Δ| ≤ 4 MCSE (MCSE ≈ 0.004 for both).
func TestA4PP(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	var precD mat.Dense
	if err := precD.Inverse(cov); err != nil {
		t.Fatal(err)
	}
	prec := mat.NewSymDense(2, []float64{precD.At(0, 0), precD.At(0, 1), precD.At(0, 1), precD.At(1, 1)})
	F := mat.NewDense(2, 2, []float64{-1, 0, 0, -1})
	g := []float64{0, 0}
	mk := map[string]func() (*PP, error){
		"cov":  func() (*PP, error) { return NewPPCov(F, g, []float64{0, 0}, cov) },
		"prec": func() (*PP, error) { return NewPPPrec(F, g, []float64{0, 0}, prec) },
	}
	for name, f := range mk {
		t.Run(name, func(t *testing.T) {
			pp, err := f()
			if err != nil {
				t.Fatal(err)
			}
			rng := newRNG(4)
			x := []float64{1, 1}
			var m1, m2 []float64
			for k := 0; k < 60000; k++ {
				st, err := pp.Transition(rng, x, 0)
				if err != nil {
					t.Fatal(err)
				}
				if st.Rejections != 0 || x[0] < 0 || x[1] < 0 {
					t.Fatalf("transition %d: %+v, x = %v", k, st, x)
				}
				m1 = append(m1, x[0])
				m2 = append(m2, x[0]*x[0])
			}
			if m, e := mean(m1), mcse(m1); math.Abs(m-0.903076) > 4*e {
				t.Errorf("E x₁ = %.5f, want 0.903076 ± 4·%.5f", m, e)
			}
			if m, e := mean(m2), mcse(m2); math.Abs(m-1.192147) > 4*e {
				t.Errorf("E x₁² = %.5f, want 1.192147 ± 4·%.5f", m, e)
			}
		})
	}
}

// binomTail returns P(Bin(n, p) ≥ r).
func binomTail(n, r int, p float64) float64 {
	s := 0.0
	for k := r; k <= n; k++ {
		lc, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(k + 1))
		l2, _ := math.Lgamma(float64(n - k + 1))
		s += math.Exp(lc - l1 - l2 + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	return s
}

// TestB1OrderStatistics is B1 (HMC side): μ = 0, σ = 1, n = 30 observed rows
// in levels of 10/12/8, plus one missing row. A coordinate of level ℓ is a
// uniformly chosen order statistic of 30 iid N(0,1) draws, so
// F(x) = n_ℓ⁻¹ Σ_{r∈ranks(ℓ)} P(Bin(30, Φ(x)) ≥ r); the missing row is N(0,1).
// 50,000 transitions thinned by 10: N = 5,000, D < 0.0276.
func TestB1OrderStatistics(t *testing.T) {
	var y []float64
	sizes := []int{10, 12, 8}
	for l, k := range sizes {
		for i := 0; i < k; i++ {
			y = append(y, float64(l))
		}
	}
	y = append(y, math.NaN())
	rng := newRNG(5)
	rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	lv := mustLevels(t, y)
	n := len(y)
	mu := make([]float64, n)
	s := NewSampler(lv, Options{})
	x := feasibleStart(rng, lv)
	watch := []int{int(lv.Rows(0)[3]), int(lv.Rows(1)[5]), int(lv.Rows(2)[0]), int(lv.Missing[0])}
	draws := make([][]float64, len(watch))
	for k := 0; k < 50000; k++ {
		st, err := s.Transition(rng, x, mu, 1)
		if err != nil {
			t.Fatal(err)
		}
		if st.Rejections != 0 {
			t.Fatal("rejection")
		}
		if k%10 == 9 {
			for w, i := range watch {
				draws[w] = append(draws[w], x[i])
			}
		}
	}
	crit := ksCrit(len(draws[0]))
	first := 1
	for l, k := range sizes {
		lo, hi := first, first+k-1
		first += k
		cdf := func(x float64) float64 {
			p := phi(x)
			f := 0.0
			for r := lo; r <= hi; r++ {
				f += binomTail(30, r, p)
			}
			return f / float64(k)
		}
		if d := ksStat(draws[l], cdf); d >= crit {
			t.Errorf("level %d: KS D = %.4f ≥ %.4f", l+1, d, crit)
		}
		if r := lag1(draws[l]); r > 0.05 {
			t.Errorf("level %d: lag-1 autocorrelation %.3f > 0.05", l+1, r)
		}
	}
	if d := ksStat(draws[3], phi); d >= crit {
		t.Errorf("missing row: KS D = %.4f ≥ %.4f", d, crit)
	}
}

// TestB2Rejection is B2: n = 6 rows in levels 0, 1, 2 (two each),
// μ_i = 0.8(ℓ_i − 1) + 0.5ξ_i, σ = 0.7, compared with rejection sampling
// from N(μ, σ²I). Per-coordinate means and each level's max and min agree
// within 4·sqrt(MCSE₁² + MCSE₂²) (rejection draws are iid, MCSE = sd/√N;
// HMC MCSE by batch means), and the acceptance rate is ≥ 1e−2.
func TestB2Rejection(t *testing.T) {
	y := []float64{1, 0, 2, 1, 0, 2}
	lv := mustLevels(t, y)
	rng := newRNG(6)
	mu := make([]float64, 6)
	for i := range mu {
		mu[i] = 0.8*(y[i]-1) + 0.5*rng.NormFloat64()
	}
	const sigma, N = 0.7, 40000
	stats := func(x []float64) []float64 {
		out := append([]float64(nil), x...)
		for l := 0; l < 3; l++ {
			mx, mn := math.Inf(-1), math.Inf(1)
			for _, i := range lv.Rows(l) {
				mx, mn = math.Max(mx, x[i]), math.Min(mn, x[i])
			}
			out = append(out, mx, mn)
		}
		return out
	}
	hmc := make([][]float64, 12)
	ref := make([][]float64, 12)
	s := NewSampler(lv, Options{})
	x := feasibleStart(rng, lv)
	for k := 0; k < N; k++ {
		if _, err := s.Transition(rng, x, mu, sigma); err != nil {
			t.Fatal(err)
		}
		for j, v := range stats(x) {
			hmc[j] = append(hmc[j], v)
		}
	}
	tries := 0
	z := make([]float64, 6)
	for len(ref[0]) < N {
		tries++
		for i := range z {
			z[i] = mu[i] + sigma*rng.NormFloat64()
		}
		if !lv.Feasible(z) {
			continue
		}
		for j, v := range stats(z) {
			ref[j] = append(ref[j], v)
		}
	}
	if rate := float64(N) / float64(tries); rate < 1e-2 {
		t.Fatalf("acceptance rate %.4f < 0.01", rate)
	}
	for j := range hmc {
		m1, e1 := mean(hmc[j]), mcse(hmc[j])
		m2 := mean(ref[j])
		v := 0.0
		for _, r := range ref[j] {
			v += (r - m2) * (r - m2)
		}
		e2 := math.Sqrt(v / float64(N-1) / float64(N))
		if d, tol := math.Abs(m1-m2), 4*math.Hypot(e1, e2); d > tol {
			t.Errorf("statistic %d: HMC %.5f vs rejection %.5f, |Δ| = %.5f > %.5f", j, m1, m2, d, tol)
		}
	}
}
