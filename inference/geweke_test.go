package inference

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/copulang/copulang/hough"
)

// gewekeSetup is the successive-conditional test of sampling.md §6c (C1):
// p = 3, n = 8, level sizes (3,5), (2,3,3) and (4,3) plus one missing row in
// column 3, prior V ~ IW(5, 5I).
var gewekeSizes = [][]int{{3, 5}, {2, 3, 3}, {4, 3}}

const (
	gewekeN       = 8
	gewekeNu      = 5.0
	gewekeMissRow = 5 // the missing row of column 3
)

// gewekeFuncs are the test functions of V: C12, C12², C13·C23, C23², log V11.
var gewekeNames = []string{"C12", "C12^2", "C13*C23", "C23^2", "log V11"}

func gewekeFuncs(dst, v []float64) {
	const p = 3
	c12 := v[0*p+1] / math.Sqrt(v[0]*v[4])
	c13 := v[0*p+2] / math.Sqrt(v[0]*v[8])
	c23 := v[1*p+2] / math.Sqrt(v[4]*v[8])
	dst[0] = c12
	dst[1] = c12 * c12
	dst[2] = c13 * c23
	dst[3] = c23 * c23
	dst[4] = math.Log(v[0])
}

// gewekeData maps latent columns to ordinal data: per column, the observed
// rows sorted by z get level 1 for the lowest n₁, level 2 for the next n₂,
// and so on, so that {Z : s(Z) = y} is exactly the constraint set D(y).
func gewekeData(z [][]float64, order []int) [][]float64 {
	y := make([][]float64, len(z))
	for j, zj := range z {
		y[j] = make([]float64, len(zj))
		order = order[:0]
		for i := range zj {
			if j == 2 && i == gewekeMissRow {
				y[j][i] = math.NaN()
				continue
			}
			order = append(order, i)
		}
		slices.SortFunc(order, func(a, b int) int {
			if zj[a] < zj[b] {
				return -1
			}
			if zj[a] > zj[b] {
				return 1
			}
			return 0
		})
		k := 0
		for l, size := range gewekeSizes[j] {
			for range size {
				y[j][order[k]] = float64(l + 1)
				k++
			}
		}
	}
	return y
}

// gewekeSuccessive runs the successive-conditional simulator for iters
// iterations and returns the test functions' draws (one slice per function).
// Each iteration draws Z's rows from N(0, V), sets y = s(Z), runs one Z sweep
// given y and V with the sampler under test, then the V step.
func gewekeSuccessive(t *testing.T, method Method, sigmaScale float64, shiftBug bool, iters int, seed uint64) [][]float64 {
	t.Helper()
	const p = 3
	rng := rand.New(rand.NewPCG(seed, 77))
	z := make([][]float64, p)
	for j := range z {
		z[j] = make([]float64, gewekeN)
		for i := range z[j] {
			z[j][i] = rng.NormFloat64()
		}
	}
	order := make([]int, 0, gewekeN)
	y := gewekeData(z, order)
	spec := Spec{Columns: y, Method: method, Iter: 1,
		Model: FullCorrelation{Prior: InverseWishart{DF: gewekeNu, Scale: gewekeNu}}}
	sp, err := checkSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newData(&sp)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newFullSampler(d, &sp, rng)
	if err != nil {
		t.Fatal(err)
	}
	s.sigmaScale = sigmaScale
	s.shiftBug = shiftBug
	out := make([][]float64, len(gewekeNames))
	for k := range out {
		out[k] = make([]float64, iters)
	}
	g := make([]float64, len(gewekeNames))
	l := make([]float64, p*p)
	e := make([]float64, p)
	var st StepStats
	for it := 0; it < iters; it++ {
		// (Z, y) | V from the generative model.
		copy(l, s.v)
		if !cholLower(l, p) {
			t.Fatalf("iteration %d: V not positive definite", it)
		}
		for i := 0; i < gewekeN; i++ {
			for j := range e {
				e[j] = rng.NormFloat64()
			}
			for j := 0; j < p; j++ {
				sum := 0.0
				for k := 0; k <= j; k++ {
					sum += l[j*p+k] * e[k]
				}
				s.z[j][i] = sum
			}
		}
		y := gewekeData(s.z, order)
		for j := 0; j < p; j++ {
			lv, err := hough.NewLevels(y[j])
			if err != nil {
				t.Fatal(err)
			}
			d.levels[j] = lv
			if s.hmc != nil {
				s.hmc[j] = hough.NewSampler(lv, hough.Options{})
			}
		}
		// Z | y, V by the sampler under test, then V | Z.
		if err := s.sweepZ(rng, false, &st); err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		for j := 0; j < p; j++ {
			if !d.levels[j].Feasible(s.z[j]) {
				t.Fatalf("iteration %d: column %d violates its order constraints", it, j+1)
			}
		}
		if err := s.stepV(rng, &st); err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		gewekeFuncs(g, s.v)
		for k := range g {
			out[k][it] = g[k]
		}
	}
	if st.Rejections != 0 {
		t.Errorf("%d exact-HMC trajectories rejected", st.Rejections)
	}
	return out
}

// gewekeMarginal draws iid V ~ IW(5, 5I) directly, as the inverse of
// Ω = Σ_{r=1}^{5} x_r x_rᵀ with x_r ~ N(0, I/5) (independent of the Bartlett
// code under test), and returns the test functions' draws.
func gewekeMarginal(draws int, seed uint64) [][]float64 {
	const p = 3
	rng := rand.New(rand.NewPCG(seed, 78))
	out := make([][]float64, len(gewekeNames))
	for k := range out {
		out[k] = make([]float64, draws)
	}
	omega := make([]float64, p*p)
	v := make([]float64, p*p)
	x := make([]float64, p)
	g := make([]float64, len(gewekeNames))
	for it := 0; it < draws; it++ {
		clear(omega)
		for range int(gewekeNu) {
			for j := range x {
				x[j] = rng.NormFloat64() / math.Sqrt(gewekeNu)
			}
			for a := 0; a < p; a++ {
				for b := 0; b < p; b++ {
					omega[a*p+b] += x[a] * x[b]
				}
			}
		}
		if !cholLower(omega, p) {
			it--
			continue
		}
		invLower(omega, p)
		gramLowerT(v, omega, p)
		gewekeFuncs(g, v)
		for k := range g {
			out[k][it] = g[k]
		}
	}
	return out
}

// gewekeZ returns z = (ḡ₁ − ḡ₂)/sqrt(s₁²/ESS₁ + s₂²/N₂) per test function,
// ESS₁ being the effective sample size of the successive-conditional chain.
func gewekeZ(succ, marg [][]float64) []float64 {
	z := make([]float64, len(succ))
	for k := range succ {
		m1, v1 := meanVar(succ[k])
		m2, v2 := meanVar(marg[k])
		ess := ESS([][]float64{succ[k]})
		z[k] = (m1 - m2) / math.Sqrt(v1/ess+v2/float64(len(marg[k])))
	}
	return z
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}

// TestGeweke is the successive-conditional versus marginal-conditional test
// (Geweke 2004; sampling.md §6c C1) of the Z sweep (with the translation
// move) and the inverse-Wishart step. Under a correct sampler each z is
// approximately N(0, 1); the test requires |z| < 4 for all five functions
// (false-alarm probability about 3e-4 per sampler). The planted-bug cases
// scale the conditional σ given to the column update by 1.2 and must fail
// the same criterion (sampling.md reports z up to 86 at 2×10⁵ iterations),
// as must drawing the translation move's δ with sd σ instead of σ/√n.
func TestGeweke(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		method     Method
		sigmaScale float64
		shiftBug   bool
		iters      int
		wantPass   bool
	}{
		{"gibbs", Gibbs, 1, false, 200_000, true},
		{"hmc", HMC, 1, false, 200_000, true},
		{"gibbs sigma x1.2 bug", Gibbs, 1.2, false, 30_000, false},
		{"hmc sigma x1.2 bug", HMC, 1.2, false, 30_000, false},
		{"gibbs shift sd bug", Gibbs, 1, true, 30_000, false},
	}
	marg := gewekeMarginal(200_000, 11)
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			succ := gewekeSuccessive(t, tc.method, tc.sigmaScale, tc.shiftBug, tc.iters, uint64(100+k))
			z := gewekeZ(succ, marg)
			worst := 0.0
			for _, v := range z {
				worst = math.Max(worst, math.Abs(v))
			}
			t.Logf("%s: z = %.2f (max |z| = %.2f) for %v", tc.name, z, worst, gewekeNames)
			if pass := worst < 4; pass != tc.wantPass {
				if tc.wantPass {
					t.Errorf("Geweke test failed: max |z| = %.2f >= 4", worst)
				} else {
					t.Errorf("planted bug not caught: max |z| = %.2f < 4", worst)
				}
			}
		})
	}
}
