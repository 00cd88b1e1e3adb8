package inference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/copulang/copulang/hough"
)

// fullSampler is one chain of Hoff's full-correlation model (sampling.md §1):
// latent columns Z updated one column at a time given the others, by Hoff's
// Gibbs block update or by exact HMC (package hough), each followed by the
// sbgcop 1.0 translation move, then the working covariance V drawn from its
// inverse-Wishart conditional, optionally corrected to an LKJ prior on C by
// an independence Metropolis–Hastings step (§5).
type fullSampler struct {
	d    *data
	n, p int

	z     [][]float64 // z[j][i], the latent columns
	v     []float64   // working covariance V (p×p)
	omega []float64   // Ω = V⁻¹
	c     []float64   // C = Δ⁻¹VΔ⁻¹
	logW  float64     // log w(C) of the current C (LKJ only)

	// proposal and workspace
	vNew, omegaNew, cNew []float64
	psi                  []float64
	mu                   []float64
	coef                 []float64   // the p−1 coefficients of a conditional mean …
	cols                 [][]float64 // … and the columns they weight
	perm                 []int
	iw                   *iwWork
	hmc                  []*hough.Sampler // per column; nil means Gibbs
	// gibbsOnly, when set, sends column j to Hoff's Gibbs update even if it
	// has an exact-HMC sampler: an adaptive run (Spec.Adapt) starts with
	// every column there and switches some to HMC (setSchedule).
	gibbsOnly []bool

	df, scale float64 // IW prior (proposal prior for LKJ): V ~ IW(df, scale·I)
	lkj       bool
	eta       float64

	// sigmaScale multiplies the conditional standard deviation given to the
	// column updates. It is 1 except in tests that plant a bug to check that
	// the Geweke test catches it.
	sigmaScale float64
	// shiftBug, in tests only, draws the translation δ with sd σ instead of
	// σ/√n (a variant sampling.md §1.4 reports failing the Geweke test).
	shiftBug bool
	// scaleBug, in tests only, is added to the exponent n−1 of the scaling
	// move's target (+1 leaves out the Haar measure's 1/a).
	scaleBug float64
	// freezeMissing, in tests only, makes the column update (Gibbs or exact
	// HMC) leave the latent values of missing cells where they were; the
	// translation move still shifts them.
	freezeMissing bool

	// stretch holds the per-level sums and draws of the group moves that
	// follow every column update (groupMoves).
	stretch levelStretch
}

// newFullSampler builds one chain's state for a FullCorrelation spec: it
// initialises Z by normal scores of the ranks (sampling.md §1.5; ties broken
// at random, missing cells N(0,1), then each column centred and scaled) and V
// as the sample covariance of Z (or, if that is singular, by one draw of the
// V step).
func newFullSampler(d *data, spec *Spec, rng *rand.Rand) (*fullSampler, error) {
	n, p := d.n, d.p
	s := &fullSampler{
		d: d, n: n, p: p,
		z:          make([][]float64, p),
		v:          make([]float64, p*p),
		omega:      make([]float64, p*p),
		c:          make([]float64, p*p),
		vNew:       make([]float64, p*p),
		omegaNew:   make([]float64, p*p),
		cNew:       make([]float64, p*p),
		psi:        make([]float64, p*p),
		mu:         make([]float64, n),
		coef:       make([]float64, 0, p),
		cols:       make([][]float64, 0, p),
		perm:       make([]int, p),
		iw:         newIWWork(p),
		sigmaScale: 1,
	}
	model, _ := spec.Model.(FullCorrelation)
	switch pr := model.Prior.(type) {
	case nil:
		s.df, s.scale = float64(p+2), float64(p+2)
	case InverseWishart:
		s.df, s.scale = pr.DF, pr.Scale
		if s.df == 0 {
			s.df = float64(p + 2)
		}
		if s.scale == 0 {
			s.scale = float64(p + 2)
		}
	case LKJ:
		s.lkj = true
		s.eta = pr.Eta
		if s.eta == 0 {
			s.eta = 1
		}
		s.df = pr.DF
		if s.df == 0 {
			s.df = float64(p + 2)
		}
		s.scale = s.df
	default:
		return nil, fmt.Errorf("inference: unknown correlation prior %T", model.Prior)
	}
	for j := range s.perm {
		s.perm[j] = j
	}
	if spec.Method == HMC {
		// The columns are updated one after another, so their exact-HMC
		// samplers share one workspace: the chain holds the scratch memory
		// of its largest column, not one per column.
		ws := hough.NewWorkspace()
		s.hmc = make([]*hough.Sampler, p)
		for j := 0; j < p; j++ {
			if spec.ColumnHMC == nil || spec.ColumnHMC[j] {
				s.hmc[j] = hough.NewSampler(d.levels[j], hough.Options{TravelTime: spec.TravelTime, Workspace: ws})
			}
		}
	}
	if spec.Adapt {
		s.gibbsOnly = make([]bool, p)
		for j := range s.gibbsOnly {
			s.gibbsOnly[j] = true
		}
	}
	for j := 0; j < p; j++ {
		s.z[j] = make([]float64, n)
		normalScores(rng, d.levels[j], s.z[j], true)
	}
	// V ← sample covariance of Z (columns are centred and scaled).
	for i := 0; i < p; i++ {
		for k := 0; k <= i; k++ {
			c := dot(s.z[i], s.z[k]) / float64(n)
			s.v[i*p+k], s.v[k*p+i] = c, c
		}
	}
	if !s.setV(s.v) {
		s.fillPsi()
		if _, ok := s.iw.draw(rng, s.df+float64(n), s.psi, s.vNew, s.omegaNew); !ok {
			return nil, fmt.Errorf("inference: initial covariance step failed: Ψ₀ + ZᵀZ is not positive definite")
		}
		if !s.setV(s.vNew) {
			return nil, fmt.Errorf("inference: initial covariance draw is not positive definite")
		}
	}
	return s, nil
}

// setV sets V (copied from v, which may alias s.v), Ω = V⁻¹, C and log w(C);
// it reports false if v is not positive definite.
func (s *fullSampler) setV(v []float64) bool {
	p := s.p
	copy(s.v, v)
	l := s.omegaNew // scratch
	copy(l, s.v)
	if !cholLower(l, p) {
		return false
	}
	logDetV := 0.0
	for j := 0; j < p; j++ {
		logDetV += 2 * math.Log(l[j*p+j])
	}
	invLower(l, p)
	gramLowerT(s.omega, l, p)
	corrFromCov(s.c, s.v, p)
	s.logW = s.lkjLogWeight(s.v, s.omega, -logDetV)
	return true
}

// lkjLogWeight is log w(C) = log π_LKJ(C) − log π_IW(C) up to a constant for
// the C of covariance v with inverse omega and log|Ω| = logDetOmega
// (sampling.md §5):
//
//	log w = (η − 1 + (ν+p+1)/2) log|C| + (ν/2) Σ_j log (C⁻¹)_jj,
//
// with log|C| = −log|Ω| − Σ_j log V_jj and (C⁻¹)_jj = V_jj Ω_jj.
func (s *fullSampler) lkjLogWeight(v, omega []float64, logDetOmega float64) float64 {
	if !s.lkj {
		return 0
	}
	p := s.p
	logDetC := -logDetOmega
	diag := 0.0
	for j := 0; j < p; j++ {
		logDetC -= math.Log(v[j*p+j])
		diag += math.Log(v[j*p+j] * omega[j*p+j])
	}
	nu := s.df
	return (s.eta-1+(nu+float64(p)+1)/2)*logDetC + nu/2*diag
}

// normalScores sets z to the normal scores of the ranks of the observed
// rows (sampling.md §1.5): rows of one level get the consecutive ranks of
// that level in random order (sbgcop 1.0's ties.method = "random"),
// z = Φ⁻¹(rank/(N+1)) with N observed rows, and missing rows get N(0,1)
// draws. If standardise is true the column is then centred and scaled to unit
// standard deviation, which keeps it inside the constraint set.
func normalScores(rng *rand.Rand, lv *hough.Levels, z []float64, standardise bool) {
	nObs := len(lv.Order)
	for l := 0; l < lv.NumLevels(); l++ {
		rows := lv.Rows(l)
		start := int(lv.Start[l])
		// The level's ranks, shuffled among its rows.
		for k, i := range rows {
			z[i] = float64(start + k + 1)
		}
		for k := len(rows) - 1; k > 0; k-- {
			j := rng.IntN(k + 1)
			a, b := rows[k], rows[j]
			z[a], z[b] = z[b], z[a]
		}
		for _, i := range rows {
			u := z[i] / float64(nObs+1)
			z[i] = -math.Sqrt2 * math.Erfcinv(2*u)
		}
	}
	for _, i := range lv.Missing {
		z[i] = rng.NormFloat64()
	}
	if !standardise || len(z) < 2 {
		return
	}
	mean := 0.0
	for _, x := range z {
		mean += x
	}
	mean /= float64(len(z))
	ss := 0.0
	for i, x := range z {
		z[i] = x - mean
		ss += z[i] * z[i]
	}
	sd := math.Sqrt(ss / float64(len(z)-1))
	if sd > 0 {
		for i := range z {
			z[i] /= sd
		}
	}
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s0, s1 := 0.0, 0.0
	i := 0
	for ; i+1 < len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// fillPsi sets Ψ = scale·I + ZᵀZ.
func (s *fullSampler) fillPsi() {
	p := s.p
	gramDot(s.psi, s.z)
	for i := 0; i < p; i++ {
		s.psi[i*p+i] += s.scale
	}
}

// gramDot sets dst (p×p, both triangles) to ZᵀZ for the p columns z, every
// entry equal to dot of its two columns bit for bit (the same two sums, of
// the even and of the odd rows, in the same order). Off the diagonal it
// takes the columns two by two, four dot products per pass over two pairs
// of columns: one load per multiply-add instead of dot's two, which
// matters once Z outgrows the caches (sampling.md §8).
func gramDot(dst []float64, z [][]float64) {
	p := len(z)
	for a := 0; a < p; a += 2 {
		if a+1 == p { // the last column of an odd p
			for b := 0; b <= a; b++ {
				v := dot(z[a], z[b])
				dst[a*p+b], dst[b*p+a] = v, v
			}
			break
		}
		for b := 0; b < a; b += 2 {
			s00, s01, s10, s11 := dot2x2(z[a], z[a+1], z[b], z[b+1])
			dst[a*p+b], dst[b*p+a] = s00, s00
			dst[a*p+b+1], dst[(b+1)*p+a] = s01, s01
			dst[(a+1)*p+b], dst[b*p+a+1] = s10, s10
			dst[(a+1)*p+b+1], dst[(b+1)*p+a+1] = s11, s11
		}
		x0, x1 := z[a], z[a+1]
		d00, d10, d11 := dot(x0, x0), dot(x1, x0), dot(x1, x1)
		dst[a*p+a], dst[(a+1)*p+a+1] = d00, d11
		dst[(a+1)*p+a], dst[a*p+a+1] = d10, d10
	}
}

// dot2x2 returns dot(x0, y0), dot(x0, y1), dot(x1, y0) and dot(x1, y1),
// each summed exactly as dot sums it, in one pass over the four columns.
func dot2x2(x0, x1, y0, y1 []float64) (s00, s01, s10, s11 float64) {
	n := len(x0)
	x1, y0, y1 = x1[:n], y0[:n], y1[:n]
	var e00, e01, e10, e11, o00, o01, o10, o11 float64
	i := 0
	for ; i+1 < n; i += 2 {
		u, v, w0, w1 := x0[i], x1[i], y0[i], y1[i]
		e00 += u * w0
		e01 += u * w1
		e10 += v * w0
		e11 += v * w1
		u, v, w0, w1 = x0[i+1], x1[i+1], y0[i+1], y1[i+1]
		o00 += u * w0
		o01 += u * w1
		o10 += v * w0
		o11 += v * w1
	}
	if i < n {
		u, v, w0, w1 := x0[i], x1[i], y0[i], y1[i]
		e00 += u * w0
		e01 += u * w1
		e10 += v * w0
		e11 += v * w1
	}
	return e00 + o00, e01 + o01, e10 + o10, e11 + o11
}

func (s *fullSampler) iterate(rng *rand.Rand, warmup bool, st *StepStats) error {
	if err := s.sweepZ(rng, warmup, st); err != nil {
		return err
	}
	if err := s.stepV(rng, st); err != nil {
		return err
	}
	st.Iterations++
	return nil
}

// sweepZ updates every latent column once, in a random order, given Ω = V⁻¹
// (sampling.md §1.3–1.4): z_j | rest ~ N(μ_j, σ_j² I) on D_j with
// σ_j² = 1/Ω_jj and μ_ij = −Σ_{k≠j} Ω_jk z_ik / Ω_jj; then the translation
// and scaling moves and the level stretches of groupMoves, which preserve
// D_j and leave the conditional invariant.
func (s *fullSampler) sweepZ(rng *rand.Rand, warmup bool, st *StepStats) error {
	p := s.p
	for k := p - 1; k > 0; k-- {
		j := rng.IntN(k + 1)
		s.perm[k], s.perm[j] = s.perm[j], s.perm[k]
	}
	mu := s.mu
	for _, j := range s.perm {
		ojj := s.omega[j*p+j]
		sigma := 1 / math.Sqrt(ojj)
		s.coef, s.cols = s.coef[:0], s.cols[:0]
		for k := 0; k < p; k++ {
			if k != j {
				s.coef = append(s.coef, -s.omega[j*p+k]/ojj)
				s.cols = append(s.cols, s.z[k])
			}
		}
		linComb(mu, s.coef, s.cols)
		zj := s.z[j]
		lv := s.d.levels[j]
		var frozen []float64
		if s.freezeMissing {
			frozen = keepMissing(lv, zj)
		}
		if s.hmc != nil && s.hmc[j] != nil && (s.gibbsOnly == nil || !s.gibbsOnly[j]) {
			hs, err := s.hmc[j].Transition(rng, zj, mu, sigma*s.sigmaScale)
			st.Bounces += int64(hs.Bounces)
			st.Events += int64(hs.Events)
			st.Rejections += int64(hs.Rejections)
			if err != nil {
				if !warmup || lv.Feasible(zj) {
					return fmt.Errorf("inference: exact HMC on column %s: %w", s.d.name(j), err)
				}
				// sampling.md §2.6 rule 8: during warm-up only, rebuild an
				// infeasible column from normal scores and Gibbs-update it.
				normalScores(rng, lv, zj, true)
				st.Rebuilds++
				gibbsLevels(rng, lv, zj, mu, sigma*s.sigmaScale, nil)
			}
			s.stretch.sumLevels(lv, zj, mu)
		} else {
			gibbsLevels(rng, lv, zj, mu, sigma*s.sigmaScale, &s.stretch)
		}
		restoreMissing(lv, zj, frozen)
		s.groupMoves(rng, lv, zj, mu, sigma)
	}
	return nil
}

// groupMoves applies the group moves that follow every column update
// (sampling.md §1.4): the translation z_j ← z_j − δ, the scaling
// z_j ← a·z_j, a > 0, and the level stretches (levelStretch.draw). All map
// the column's order constraints D_j onto themselves, so each is a
// generalised Gibbs step (Liu and Sabatti 2000) on z_j | rest ~ N(μ, σ²I)
// on D_j: δ is drawn exactly, δ ~ N(mean(z_j − μ), σ²/n); a targets
// p(a) ∝ a^(n−1)·exp(−(A·a² − 2B·a)/2) with A = Σz²/σ², B = Σzμ/σ² (left
// Haar measure da/a on the positive reals times the Jacobian aⁿ), by one
// independence Metropolis–Hastings step from a normal fitted at its mode.
// The scaling is what lets C's strongly correlated entries leave the
// attenuated start in a few hundred iterations instead of thousands (§9.5);
// the stretches move a column's thresholds relative to one another (§9.7).
// The moves work from the per-level sums that the column update recorded
// in s.stretch (the missing rows' are summed here), transformed in closed
// form from move to move, and one pass applies them all.
func (s *fullSampler) groupMoves(rng *rand.Rand, lv *hough.Levels, zj, mu []float64, sigma float64) {
	w := &s.stretch
	n := float64(len(zj))
	sz, szz, szm, sm := w.total.sz, w.total.szz, w.total.szm, w.total.sm
	for _, i := range lv.Missing {
		x, m := zj[i], mu[i]
		sz += x
		szz += x * x
		szm += x * m
		sm += m
	}
	sd := sigma / math.Sqrt(n)
	if s.shiftBug {
		sd = sigma
	}
	delta := (sz-sm)/n + sd*rng.NormFloat64()
	s2 := sigma * sigma
	A := (szz - 2*delta*sz + n*delta*delta) / s2
	B := (szm - delta*sm) / s2
	a := drawScale(rng, A, B, n-1+s.scaleBug)
	if len(w.levels) >= 2 {
		w.draw(rng, sigma, a, delta)
	}
	w.apply(lv, zj, a, delta)
}

// drawScale returns the next value of the scaling a of groupMoves, from
// a = 1, by one independence Metropolis–Hastings step targeting
// p(a) ∝ a^k·exp(−A·a²/2 + B·a) on a > 0, with a normal proposal at p's
// mode a* = (B + √(B² + 4Ak))/(2A) and the sd of its curvature there,
// (k/a*² + A)^(−1/2). The proposal's centre and width scale with the
// column, so in the column's own coordinates it is the same distribution
// from every point of the orbit, which is what makes the step reversible.
// It returns 1 (no move) if A is not positive or the proposal is rejected.
func drawScale(rng *rand.Rand, A, B, k float64) float64 {
	if !(A > 0) || !(k > 0) {
		return 1
	}
	mode := (B + math.Sqrt(B*B+4*A*k)) / (2 * A)
	sd := 1 / math.Sqrt(k/(mode*mode)+A)
	a := mode + sd*rng.NormFloat64()
	if a <= 0 {
		return 1
	}
	logTarget := func(x float64) float64 { return k*math.Log(x) - A*x*x/2 + B*x }
	logProposal := func(x float64) float64 { d := (x - mode) / sd; return -d * d / 2 }
	logRatio := logTarget(a) - logTarget(1) - logProposal(a) + logProposal(1)
	if logRatio >= 0 || math.Log(rng.Float64()) < logRatio {
		return a
	}
	return 1
}

// keepMissing returns a copy of z at lv's missing rows, for the planted
// frozen-cell bugs of the Geweke tests; restoreMissing puts such a copy back
// (a nil copy restores nothing).
func keepMissing(lv *hough.Levels, z []float64) []float64 {
	kept := make([]float64, len(lv.Missing))
	for k, i := range lv.Missing {
		kept[k] = z[i]
	}
	return kept
}

func restoreMissing(lv *hough.Levels, z, kept []float64) {
	for k, v := range kept {
		z[lv.Missing[k]] = v
	}
}

func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// linComb sets dst to Σ_k coef[k]·cols[k], four columns per pass over dst:
// the conditional mean of a column costs p−1 multiply-adds per row, and one
// pass per column would load and store dst p−1 times.
func linComb(dst, coef []float64, cols [][]float64) {
	clear(dst)
	k := 0
	for ; k+4 <= len(cols); k += 4 {
		c0, c1, c2, c3 := coef[k], coef[k+1], coef[k+2], coef[k+3]
		x0, x1, x2, x3 := cols[k][:len(dst)], cols[k+1][:len(dst)], cols[k+2][:len(dst)], cols[k+3][:len(dst)]
		for i := range dst {
			dst[i] += c0*x0[i] + c1*x1[i] + c2*x2[i] + c3*x3[i]
		}
	}
	for ; k < len(cols); k++ {
		axpy(coef[k], cols[k], dst)
	}
}

// stepV draws V' ~ IW(ν + n, scale·I + ZᵀZ) by Bartlett's decomposition. For
// the inverse-Wishart prior V' is the new state; for the LKJ prior it is an
// independence proposal accepted with probability min(1, w(C')/w(C))
// (sampling.md §5).
func (s *fullSampler) stepV(rng *rand.Rand, st *StepStats) error {
	s.fillPsi()
	logDetOmega, ok := s.iw.draw(rng, s.df+float64(s.n), s.psi, s.vNew, s.omegaNew)
	if !ok {
		return fmt.Errorf("inference: covariance step: Ψ₀ + ZᵀZ is not positive definite (non-finite latent values?)")
	}
	if s.lkj {
		st.LKJProposed++
		lw := s.lkjLogWeight(s.vNew, s.omegaNew, logDetOmega)
		if !(math.Log(rng.Float64()) < lw-s.logW) {
			return nil
		}
		st.LKJAccepted++
		s.logW = lw
	}
	s.v, s.vNew = s.vNew, s.v
	s.omega, s.omegaNew = s.omegaNew, s.omega
	corrFromCov(s.c, s.v, s.p)
	return nil
}

func (s *fullSampler) corr(dst []float64) { copy(dst, s.c) }

// r2 is the share of latent column j's variance that the other columns
// explain under the current V: 1 − 1/(V_jj·Ω_jj).
func (s *fullSampler) r2(j int) float64 { return 1 - 1/(s.v[j*s.p+j]*s.omega[j*s.p+j]) }

func (s *fullSampler) loadings(dst []float64) bool { return false }
func (s *fullSampler) latent() [][]float64         { return s.z }
func (s *fullSampler) latentSD(j int) float64      { return math.Sqrt(s.v[j*s.p+j]) }
