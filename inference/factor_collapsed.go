package inference

import (
	"math"
	"math/rand/v2"
)

// collapsedLoadings is the workspace and adapted step size of the collapsed
// loadings step of PX and Interweave (sampling.md §4.6): a Hamiltonian Monte
// Carlo move of Λ given Z with the factors η integrated out, after which the
// draw of η given Λ and Z completes a partially collapsed Gibbs update of
// (Λ, η).
//
// Given Z the rows z_i are independent N(0, Σ) with Σ = ΛΛᵀ + I, so with
// S = ZᵀZ, B = (I_k + ΛᵀΛ)⁻¹ and M = ΛᵀSΛ,
//
//	log π(Λ | Z) = −(n/2)·log|I_k + ΛᵀΛ| + ½·tr(BM) − ½·Σ_jh P_jh λ_jh² + const,
//
// since |Σ| = |I_k + ΛᵀΛ| and Σ⁻¹ = I − ΛBΛᵀ (Woodbury), and its gradient is
//
//	−nΛB + SΛB − ΛBMB − P∘Λ.
//
// Everything after S costs O(p²k + pk² + k³) per evaluation; forming S is
// O(np²), most of the step's time at the sizes of the suite.
//
// The mass of λ_jh is n + P_jh, about its precision given η; the leapfrog
// step is ε·U(0.8, 1.2) with 5 to 20 steps drawn uniformly, ε adapted during
// warm-up only (×1.02 after an acceptance probability above 0.8, ×0.97
// otherwise) and fixed afterwards, so that the kept draws come from one
// π-invariant kernel. A Metropolis test on the energy error makes the move
// exact for any ε.
type collapsedLoadings struct {
	step float64 // leapfrog step size ε
	// every is the mean number of iterations per move: forming S costs
	// O(np²) against the rest of a px iteration's np truncated-normal draws
	// and O(npk) products, about 0.0036·p of that rest (measured at n = 1000,
	// p = 20 to 200), so from p = 60 on px makes the move
	// in a random one of every ⌊(p + 20)/40⌋ iterations, which keeps
	// it near 15% of the iteration or less (CollapsedLoadingsEvery).
	// Interweave makes it every iteration (1).
	every int

	gram              []float64 // S = ZᵀZ, p×p
	lam, mom, grad    []float64 // proposal Λ, its momentum and gradient, p×k
	mass              []float64 // n + P, p×k
	sl, lb, slb       []float64 // SΛ, ΛB, SΛB, p×k
	chol, inv, m, bmb []float64 // I + ΛᵀΛ and its Cholesky factor, B, M, BMB; k×k
	tmp               []float64 // k×k
}

// collapsedFirstStep is the leapfrog step size a chain starts from;
// maxLoadingsStep bounds it, in adaptation and in a restored state. In
// units where the mass is about the precision, a leapfrog step above 2 is
// unstable in the stiffest directions: warm-up settled between 0.78 and
// 2.02 on every fit measured (sampling.md §4.6). maxCollapsedMass caps a
// loading's mass.
const (
	collapsedFirstStep = 0.3
	maxLoadingsStep    = 100
	maxCollapsedMass   = 1e300
)

// CollapsedLoadingsEvery is the mean number of px iterations per collapsed
// loadings move for p columns (sampling.md §4.6): 1 below 60 columns, then
// ⌊(p + 20)/40⌋.
func CollapsedLoadingsEvery(p int) int { return max(1, (p+20)/40) }

func newCollapsedLoadings(p, k int) *collapsedLoadings {
	pk, kk := p*k, k*k
	return &collapsedLoadings{
		step:  collapsedFirstStep,
		every: CollapsedLoadingsEvery(p),
		gram:  make([]float64, p*p),
		lam:   make([]float64, pk), mom: make([]float64, pk), grad: make([]float64, pk),
		mass: make([]float64, pk),
		sl:   make([]float64, pk), lb: make([]float64, pk), slb: make([]float64, pk),
		chol: make([]float64, kk), inv: make([]float64, kk), m: make([]float64, kk), bmb: make([]float64, kk),
		tmp: make([]float64, kk),
	}
}

// maybeCollapsedLoadings makes the collapsed move with probability 1/every
// (always, drawing nothing, when every is 1). Choosing at random rather
// than every so many iterations keeps a chain's kernel the same at every
// iteration, with no count to carry across an extension.
func (s *factorSampler) maybeCollapsedLoadings(rng *rand.Rand, warmup bool, st *StepStats) {
	if e := s.collapsed.every; e > 1 && rng.IntN(e) != 0 {
		return
	}
	s.stepCollapsedLoadings(rng, warmup, st)
}

// stepCollapsedLoadings makes one HMC move of Λ targeting π(Λ | Z, P) and
// counts it in st. Λ is unchanged if the move is rejected.
func (s *factorSampler) stepCollapsedLoadings(rng *rand.Rand, warmup bool, st *StepStats) {
	h := s.collapsed
	n, p, k := s.n, s.p, s.k
	gramColumns(h.gram, s.z)
	nf := float64(n)
	for i, pr := range s.prec {
		// Capped so that r² cannot overflow (the GDP prior's precision of
		// a loading at 0 is clamped to MaxFloat64; any positive mass fixed
		// during the move keeps it exact).
		h.mass[i] = nf + math.Min(pr, maxCollapsedMass)
	}
	// The coefficient of log|I + ΛᵀΛ|, n/2 (a planted bug makes it (n−1)/2).
	half := 0.5 * float64(n)
	if s.bug == bugCollapsedLogdet {
		half -= 0.5
	}
	lp0, ok := h.logPost(s.lambda, s.prec, half, p, k)
	if !ok {
		return // Λ is finite, so I + ΛᵀΛ is positive definite unless rounding fails
	}
	copy(h.lam, s.lambda)
	kin0 := 0.0
	for i, m := range h.mass {
		r := math.Sqrt(m) * rng.NormFloat64()
		h.mom[i] = r
		kin0 += r * r / m
	}
	eps := h.step * (0.8 + 0.4*rng.Float64())
	steps := 5 + rng.IntN(16)
	// Leapfrog: half a kick, then drifts and kicks, ending with half a kick.
	axpy(eps/2, h.grad, h.mom)
	lp := lp0
	for l := 0; l < steps && ok; l++ {
		for i, r := range h.mom {
			h.lam[i] += eps * r / h.mass[i]
		}
		lp, ok = h.logPost(h.lam, s.prec, half, p, k)
		if ok {
			c := eps
			if l == steps-1 && s.bug != bugCollapsedFullKick {
				c = eps / 2
			}
			axpy(c, h.grad, h.mom)
		}
	}
	acc := 0.0
	if ok {
		kin := 0.0
		for i, r := range h.mom {
			kin += r * r / h.mass[i]
		}
		if d := lp - lp0 - (kin-kin0)/2; d >= 0 {
			acc = 1
		} else if !math.IsNaN(d) {
			acc = math.Exp(d)
		}
	}
	accepted := rng.Float64() < acc || s.bug == bugCollapsedNoTest && ok
	if accepted {
		copy(s.lambda, h.lam)
	}
	if warmup {
		if acc > 0.8 {
			h.step = math.Min(h.step*1.02, maxLoadingsStep)
		} else {
			h.step *= 0.97
		}
		return
	}
	// The report's acceptance rate is that of the kept iterations, at the
	// adapted step.
	st.LoadingsProposed++
	if accepted {
		st.LoadingsAccepted++
	}
}

// logPost returns log π(Λ | Z, P) up to a constant and sets h.grad to its
// gradient; half is the coefficient of log|I + ΛᵀΛ|, n/2. It reports false
// if I + ΛᵀΛ is not numerically positive definite or the value is not
// finite. h.gram must hold S = ZᵀZ.
func (h *collapsedLoadings) logPost(lam, prec []float64, half float64, p, k int) (float64, bool) {
	c := h.chol
	identityPlusGram(c, lam, p, k)
	if !cholLower(c, k) {
		return 0, false
	}
	logdet := 0.0
	for x := 0; x < k; x++ {
		logdet += 2 * math.Log(c[x*k+x])
	}
	copy(h.tmp, c)
	invLower(h.tmp, k)
	gramLowerT(h.inv, h.tmp, k) // B = L⁻ᵀL⁻¹
	// SΛ, then M = ΛᵀSΛ.
	for a := 0; a < p; a++ {
		dst := h.sl[a*k : a*k+k]
		clear(dst)
		srow := h.gram[a*p : a*p+p]
		for b, sab := range srow {
			row := lam[b*k : b*k+k]
			for x := range dst {
				dst[x] += sab * row[x]
			}
		}
	}
	clear(h.m)
	for j := 0; j < p; j++ {
		row, sl := lam[j*k:j*k+k], h.sl[j*k:j*k+k]
		for x, rx := range row {
			mx := h.m[x*k : x*k+k]
			for y, v := range sl {
				mx[y] += rx * v
			}
		}
	}
	trBM, pen := 0.0, 0.0
	for i, b := range h.inv {
		trBM += b * h.m[i]
	}
	for i, l := range lam {
		pen += prec[i] * l * l
	}
	lp := -half*logdet + 0.5*trBM - 0.5*pen
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		return 0, false
	}
	// BMB = B·(M·B), then the gradient −nΛB + SΛB − Λ(BMB) − P∘Λ.
	mulK(h.tmp, h.m, h.inv, k)
	mulK(h.bmb, h.inv, h.tmp, k)
	for j := 0; j < p; j++ {
		row := lam[j*k : j*k+k]
		lb, slb := h.lb[j*k:j*k+k], h.slb[j*k:j*k+k]
		mulRowK(lb, row, h.inv, k)
		mulRowK(slb, h.sl[j*k:j*k+k], h.inv, k)
		g := h.grad[j*k : j*k+k]
		mulRowK(g, row, h.bmb, k)
		pr := prec[j*k : j*k+k]
		for x := range g {
			g[x] = -2*half*lb[x] + slb[x] - g[x] - pr[x]*row[x]
		}
	}
	return lp, true
}

// mulK sets dst = a·b for k×k row-major matrices (dst distinct from both).
func mulK(dst, a, b []float64, k int) {
	for x := 0; x < k; x++ {
		mulRowK(dst[x*k:x*k+k], a[x*k:x*k+k], b, k)
	}
}

// mulRowK sets dst = rowᵀ·b for a row of k and b k×k row-major.
func mulRowK(dst, row, b []float64, k int) {
	clear(dst)
	for y, ry := range row {
		by := b[y*k : y*k+k]
		for x := range dst {
			dst[x] += ry * by[x]
		}
	}
}

// gramColumns sets dst (p×p, both triangles) to ZᵀZ for the p columns z.
// It takes the columns two by two, four dot products per pass over two
// pairs of columns: one load per multiply-add instead of two.
func gramColumns(dst []float64, z [][]float64) {
	p := len(z)
	a := 0
	for ; a+1 < p; a += 2 {
		x0, x1 := z[a], z[a+1]
		for b := 0; b < a; b += 2 {
			y0, y1 := z[b][:len(x0)], z[b+1][:len(x0)]
			x1 := x1[:len(x0)]
			var s00, s01, s10, s11 float64
			for i, u := range x0 {
				v, w0, w1 := x1[i], y0[i], y1[i]
				s00 += u * w0
				s01 += u * w1
				s10 += v * w0
				s11 += v * w1
			}
			dst[a*p+b], dst[b*p+a] = s00, s00
			dst[a*p+b+1], dst[(b+1)*p+a] = s01, s01
			dst[(a+1)*p+b], dst[b*p+a+1] = s10, s10
			dst[(a+1)*p+b+1], dst[(b+1)*p+a+1] = s11, s11
		}
		d00, d01, d11 := dot(x0, x0), dot(x0, x1), dot(x1, x1)
		dst[a*p+a], dst[(a+1)*p+a+1] = d00, d11
		dst[a*p+a+1], dst[(a+1)*p+a] = d01, d01
	}
	if a < p { // the last column of an odd p
		for b := 0; b <= a; b++ {
			v := dot(z[a], z[b])
			dst[a*p+b], dst[b*p+a] = v, v
		}
	}
}
