package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/copulang/copulang/hough"
)

// factorSampler is one chain of the copula factor model of Murray et al.
// (2013), sampling.md §4:
//
//	z_i = Λη_i + ε_i,  η_i ~ N(0, I_k),  ε_i ~ N(0, I),  Z ∈ D(Y),
//
// with loadings rows λ_j ~ N(0, P_j⁻¹): P_j = I/Var under NormalLoadings, and
// under GDPLoadings(α, β) the hierarchy of bfa 0.4 per loading,
// λ_jh ~ N(0, ψ_jh), ψ_jh ~ Exp(rate ζ_jh²/2), ζ_jh ~ Ga(α, rate β), so
// P_j = diag(1/ψ_j·). The copula correlation is
// C = D^{-1/2}(ΛΛᵀ + I)D^{-1/2} with D = diag(1 + ‖λ_j‖²).
//
// Two samplers are offered:
//   - PX (§4.3): bfa's order — GDP hyperparameters; per column the
//     Liu–Sabatti scale move r_j ~ Ga(n/2, Q_j/2) with z_j ← √r_j·z_j and
//     λ_j ~ N(√r_j·m_j, V_j) (λ_j integrated out of the scale move); the
//     factors η; Hoff's block update of every column with μ_ij = λ_jᵀη_i, σ = 1.
//     The per-column steps draw from per-column streams like Interweave's but
//     run in turn on the chain's goroutine: at about 40 µs per column step,
//     handing them to goroutines cost 50% more CPU time for 15% less wall
//     time (n = 1000, p = 20), a bad trade when chains already fill the cores.
//     Between the column steps and η comes the collapsed loadings step
//     (stepCollapsedLoadings, §4.6): HMC on Λ given Z with η integrated
//     out. After η come the factor group moves (moveFactors, §4.5), which
//     rebalance the scale and shear of η against Λ.
//   - Interweave (§4.4): per column, the joint exact HMC step of (λ_j, z_j)
//     given η (jointHMC) followed by Hoff's block update of z_j; columns run
//     in parallel goroutines, column j drawing from its own PCG stream seeded
//     from the chain's stream in column order, so results do not depend on
//     GOMAXPROCS; then the collapsed loadings step as in PX and η, the
//     factor group moves, then the GDP hyperparameters. Spec.ColumnHMC may
//     send some columns to PX's column steps instead (the scale move and
//     λ_j's conjugate draw, then Hoff's update of z_j): the joint step costs
//     about n·(L−1) bounces per trajectory, so a column with many levels
//     (0.4n² bounces when all values are distinct) is better left to Gibbs.
//
// Λ is stored on the unit-noise scale of the model; loadings reports the
// identified correlation-scale loadings D^{-1/2}Λ, for which
// C = Λ̃Λ̃ᵀ + diag(1 − ‖λ̃_j‖²).
type factorSampler struct {
	d       *data
	n, p, k int
	method  Method
	travel  float64 // exact-HMC travel time
	// gibbsColumns is set when Interweave sends some columns to PX's column
	// steps instead of the joint HMC step (Spec.ColumnHMC).
	gibbsColumns bool
	// groupMoves is false when the factor group moves are left out
	// (Spec.PaperSamplers, or bfa's defect, which reproduces bfa 0.4).
	groupMoves bool
	// collapsed is the collapsed loadings step of PX and Interweave, nil
	// where it is left out (where groupMoves is false).
	collapsed *collapsedLoadings

	z      [][]float64 // latent columns, z[j][i]
	lambda []float64   // Λ, p×k row-major, unit-noise scale
	eta    []float64   // η, n×k row-major

	gdp         bool
	alpha, beta float64
	prec        []float64 // p×k prior precisions: P_j = diag(prec[j*k : j*k+k])
	zeta        []float64 // p×k GDP rates ζ (GDP only)

	// workspace
	ete   []float64 // ηᵀη, k×k
	a     []float64 // k×k
	w     []float64 // ZΛ, n×k
	cols  []factorColumn
	group factorGroup

	// parallel column work
	next    atomic.Int32
	wg      sync.WaitGroup
	colWork func(j int, sc *columnScratch) // the column step runColumns runs: one of the three below
	// The column steps and the worker, bound once at construction so that
	// neither selecting them nor go worker() allocates.
	pxLoadingsWork, pxHoffWork, interweaveWork func(j int, sc *columnScratch)
	worker                                     func(w int)
	// scratch[w] is the memory of worker w's column steps (worker 0 is the
	// calling goroutine).
	scratch []columnScratch

	bug factorBug
}

// factorColumn is the per-column state of the parallel column steps.
type factorColumn struct {
	pcg *rand.PCG
	rng *rand.Rand
	hmc *jointHMC // Interweave only
	a   []float64 // k×k
	b   []float64 // k
	m   []float64 // k
	st  StepStats
	err error
}

// factorBug plants a known error in the sampler so that tests can check that
// the Geweke test catches it. The zero value is the correct sampler.
type factorBug int

const (
	bugNone factorBug = iota
	// bugSigma multiplies σ = 1 in Hoff's column update by 1.2.
	bugSigma
	// bugNoRescale draws r_j and λ_j ~ N(√r_j·m_j, V_j) but leaves z_j
	// unscaled, as bfa 0.4 does; Spec.BFADefect plants it outside tests.
	bugNoRescale
	// bugReflect uses ‖f‖² = ‖G_a − G_b‖² + 1 in the joint HMC reflection.
	bugReflect
	// bugFrozenMissing makes the latent-column updates (Hoff's, and
	// Interweave's joint HMC step) leave the latent values of missing cells
	// where they were; PX's scale move still rescales them.
	bugFrozenMissing
	// bugLoadingsNoise multiplies the noise of λ_j's draw in PX's column step
	// by 1.2.
	bugLoadingsNoise
	// bugFactorScaleJacobian leaves out the Jacobian a^(−p) of Λ's columns in
	// the factor scale move (moveFactors).
	bugFactorScaleJacobian
	// bugFactorShearSD multiplies the standard deviation of the factor shear
	// moves by 1.5 (moveFactors).
	bugFactorShearSD
	// bugFactorShearPrior makes the factor shear moves take every prior
	// precision as 1, ignoring the GDP prior's (moveFactors).
	bugFactorShearPrior
	// bugCollapsedLogdet gives log|I + ΛᵀΛ| the coefficient (n−1)/2 instead
	// of n/2 in the collapsed loadings step's target (stepCollapsedLoadings).
	bugCollapsedLogdet
	// bugCollapsedNoTest accepts every collapsed loadings proposal, leaving
	// out the Metropolis test on the leapfrog's energy error.
	bugCollapsedNoTest
	// bugCollapsedFullKick ends the collapsed step's leapfrog with a whole
	// momentum kick instead of a half one, which is not reversible.
	bugCollapsedFullKick
	// bugStretchHaar builds the level stretches after Hoff's column update
	// for exponent n_b, leaving out the Haar measure's 1/a (levelStretch.draw).
	bugStretchHaar
)

// plant sets the planted bug of a test.
func (s *factorSampler) plant(bug factorBug) {
	s.bug = bug
	for _, c := range s.cols {
		if c.hmc == nil {
			continue
		}
		c.hmc.normExtra = 2
		if bug == bugReflect {
			c.hmc.normExtra = 1
		}
	}
}

// newFactorSampler builds one chain's state for a FactorModel spec (Method PX
// or Interweave). The latent columns start at the normal scores of their
// ranks with ties broken at random, as the full model's (normalScores;
// missing rows draw N(0, 1)), so that no column starts constant; Λ starts at the principal-factor solution of the scores'
// correlation matrix, moved to the unit-noise scale, each z_j is scaled to
// the implied standard deviation √(1+‖λ_j‖²), and η and the GDP
// hyperparameters are drawn from their conditionals.
func newFactorSampler(d *data, spec *Spec, rng *rand.Rand) (chainSampler, error) {
	fm, ok := spec.Model.(FactorModel)
	if !ok {
		return nil, fmt.Errorf("inference: newFactorSampler: model is %T, not FactorModel", spec.Model)
	}
	n, p, k := d.n, d.p, fm.K
	if k < 1 || k >= p {
		return nil, fmt.Errorf("inference: factor model with k = %d factors, want 1 <= k < p = %d", k, p)
	}
	if spec.Method != PX && spec.Method != Interweave {
		return nil, fmt.Errorf("inference: method %v is not a factor-model sampler; use px or interweave", spec.Method)
	}
	if spec.ColumnHMC != nil && (spec.Method != Interweave || len(spec.ColumnHMC) != p) {
		return nil, fmt.Errorf("inference: ColumnHMC has %d entries for %d columns with method %v; it needs one per column and interweave", len(spec.ColumnHMC), p, spec.Method)
	}
	s := &factorSampler{
		d: d, n: n, p: p, k: k,
		method: spec.Method,
		travel: spec.TravelTime,
		z:      make([][]float64, p),
		lambda: make([]float64, p*k),
		eta:    make([]float64, n*k),
		prec:   make([]float64, p*k),
		ete:    make([]float64, k*k),
		a:      make([]float64, k*k),
		w:      make([]float64, n*k),
		group:  newFactorGroup(k),
	}
	s.groupMoves = !spec.PaperSamplers && !spec.BFADefect
	if s.groupMoves {
		s.collapsed = newCollapsedLoadings(p, k)
		if s.method == Interweave {
			// Its joint steps cost tens of px iterations, beside which
			// ZᵀZ is small at any p: the move runs every iteration.
			s.collapsed.every = 1
		}
	}
	if s.travel == 0 {
		s.travel = math.Pi / 2
	}
	switch pr := fm.Loadings.(type) {
	case nil:
		factorFill(s.prec, 1)
	case NormalLoadings:
		v := pr.Var
		if v == 0 {
			v = 1
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("inference: normal loadings variance = %v, want finite and > 0", pr.Var)
		}
		factorFill(s.prec, 1/v)
	case GDPLoadings:
		s.gdp = true
		s.alpha, s.beta = pr.Alpha, pr.Beta
		if s.alpha == 0 {
			s.alpha = 3
		}
		if s.beta == 0 {
			s.beta = 1
		}
		if !(s.alpha > 0) || !(s.beta > 0) || math.IsInf(s.alpha, 0) || math.IsInf(s.beta, 0) {
			return nil, fmt.Errorf("inference: GDP loadings prior (alpha = %v, beta = %v), want both finite and > 0", pr.Alpha, pr.Beta)
		}
		s.zeta = make([]float64, p*k)
	default:
		return nil, fmt.Errorf("inference: unknown loadings prior %T", fm.Loadings)
	}
	for j := 0; j < p; j++ {
		s.z[j] = make([]float64, n)
		normalScores(rng, d.levels[j], s.z[j], false)
	}
	s.cols = make([]factorColumn, p)
	s.growScratch(min(runtime.GOMAXPROCS(0), p))
	for j := range s.cols {
		c := &s.cols[j]
		c.pcg = rand.NewPCG(0, 0)
		c.rng = rand.New(c.pcg)
		c.a, c.b, c.m = make([]float64, k*k), make([]float64, k), make([]float64, k)
		if s.method == Interweave && (spec.ColumnHMC == nil || spec.ColumnHMC[j]) {
			c.hmc = newJointHMC(d.levels[j], k, s.scratch[0].joint)
		} else if s.method == Interweave {
			s.gibbsColumns = true
		}
	}
	if spec.BFADefect {
		if s.method != PX {
			return nil, fmt.Errorf("inference: BFADefect needs method px, not %v", s.method)
		}
		s.bug = bugNoRescale
	}
	if spec.factorBug != bugNone {
		s.plant(spec.factorBug)
	}
	s.pxLoadingsWork = s.pxLoadingsColumn
	s.pxHoffWork = s.pxHoffColumn
	s.interweaveWork = s.interweaveColumn
	s.worker = s.columnWorker
	s.initLoadings()
	if s.gdp {
		s.stepGDP(rng)
	}
	if err := s.stepEta(rng); err != nil {
		return nil, err
	}
	return s, nil
}

func factorFill(x []float64, v float64) {
	for i := range x {
		x[i] = v
	}
}

// initLoadings sets Λ from the principal-factor solution of the correlation
// matrix R of the current latent columns: with R's leading eigenpairs
// (e_h, u_h) and σ̄² the mean of the other eigenvalues, the correlation-scale
// loadings are λ̃_jh = u_jh·√max(e_h − σ̄², 0.01), shrunk so that
// ‖λ̃_j‖² ≤ 0.9, then λ_j = λ̃_j/√(1 − ‖λ̃_j‖²) on the unit-noise scale. Each
// z_j is rescaled to standard deviation √(1+‖λ_j‖²), which keeps it in D_j.
func (s *factorSampler) initLoadings() {
	n, p, k := s.n, s.p, s.k
	sd := make([]float64, p)
	mean := make([]float64, p)
	for j, zj := range s.z {
		m := 0.0
		for _, v := range zj {
			m += v
		}
		m /= float64(n)
		ss := 0.0
		for _, v := range zj {
			ss += (v - m) * (v - m)
		}
		mean[j], sd[j] = m, math.Sqrt(ss/float64(n))
		if !(sd[j] > 0) {
			sd[j] = 1
		}
	}
	r := mat.NewSymDense(p, nil)
	for a := 0; a < p; a++ {
		for b := 0; b <= a; b++ {
			c := 1.0
			if a != b {
				c = 0
				for i := 0; i < n; i++ {
					c += (s.z[a][i] - mean[a]) * (s.z[b][i] - mean[b])
				}
				c /= float64(n) * sd[a] * sd[b]
			}
			r.SetSym(a, b, c)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(r, true) {
		factorFill(s.lambda, 0)
	} else {
		vals := eig.Values(nil) // ascending
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		rest := 0.0
		for h := 0; h < p-k; h++ {
			rest += vals[h]
		}
		rest /= float64(p - k)
		for h := 0; h < k; h++ {
			col := p - 1 - h
			sc := math.Sqrt(math.Max(vals[col]-rest, 0.01))
			for j := 0; j < p; j++ {
				s.lambda[j*k+h] = vecs.At(j, col) * sc
			}
		}
	}
	for j := 0; j < p; j++ {
		row := s.lambda[j*k : j*k+k]
		q := dotK(row, row)
		if q > 0.9 {
			f := math.Sqrt(0.9 / q)
			for h := range row {
				row[h] *= f
			}
			q = 0.9
		}
		f := 1 / math.Sqrt(1-q)
		for h := range row {
			row[h] *= f
		}
		scale := math.Sqrt(1+dotK(row, row)) / sd[j]
		for i := range s.z[j] {
			s.z[j][i] *= scale
		}
	}
}

func dotK(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// iterate performs one iteration of the chosen sampler.
func (s *factorSampler) iterate(rng *rand.Rand, warmup bool, st *StepStats) error {
	var err error
	if s.method == Interweave {
		err = s.iterateInterweave(rng, warmup, st)
	} else {
		err = s.iteratePX(rng, warmup, st)
	}
	if err != nil {
		return err
	}
	st.Iterations++
	return nil
}

// iteratePX is one PX Gibbs iteration in bfa's order (sampling.md §4.3):
// pxLoadings, then the collapsed loadings step of §4.6 (unless it is left
// out), η, the factor group moves of §4.5 (unless groupMoves is off), then
// Hoff's update of every column.
func (s *factorSampler) iteratePX(rng *rand.Rand, warmup bool, st *StepStats) error {
	if err := s.pxLoadings(rng); err != nil {
		return err
	}
	if s.collapsed != nil {
		s.maybeCollapsedLoadings(rng, warmup, st)
	}
	if err := s.stepEta(rng); err != nil {
		return err
	}
	if s.groupMoves {
		s.moveFactors(rng)
	}
	s.colWork = s.pxHoffWork
	s.runColumns(false)
	return nil
}

// pxLoadings is the first part of a PX iteration: the GDP hyperparameters,
// then every column's scale move and draw of λ_j given η. The column steps
// given η are conditionally independent across columns; column j draws from
// its own stream seeded from rng in column order.
func (s *factorSampler) pxLoadings(rng *rand.Rand) error {
	if s.gdp {
		s.stepGDP(rng)
	}
	s.gramEta()
	s.seedColumns(rng)
	s.colWork = s.pxLoadingsWork
	s.runColumns(false)
	return s.columnError()
}

// seedColumns seeds every column's stream from rng, in column order, and
// clears the columns' stats and errors.
func (s *factorSampler) seedColumns(rng *rand.Rand) {
	for j := range s.cols {
		c := &s.cols[j]
		c.pcg.Seed(rng.Uint64(), rng.Uint64())
		c.st = StepStats{}
		c.err = nil
	}
}

// columnError returns the error of the first column that failed, if any.
func (s *factorSampler) columnError() error {
	for j := range s.cols {
		if err := s.cols[j].err; err != nil {
			return err
		}
	}
	return nil
}

func (s *factorSampler) pxLoadingsColumn(j int, _ *columnScratch) {
	c := &s.cols[j]
	c.err = s.stepLoadingsPX(c.rng, j, c)
}

func (s *factorSampler) pxHoffColumn(j int, sc *columnScratch) {
	c := &s.cols[j]
	frozen := s.frozenMissing(j)
	s.hoffColumn(c.rng, j, sc)
	restoreMissing(s.d.levels[j], s.z[j], frozen)
}

// frozenMissing returns a copy of column j's missing cells if
// bugFrozenMissing is planted, else nil (see restoreMissing).
func (s *factorSampler) frozenMissing(j int) []float64 {
	if s.bug != bugFrozenMissing {
		return nil
	}
	return keepMissing(s.d.levels[j], s.z[j])
}

// gramEta sets ete = ηᵀη, from the group moves' S if that is current.
func (s *factorSampler) gramEta() {
	if s.group.fresh {
		copy(s.ete, s.group.s)
		return
	}
	gramRows(s.ete, s.eta, s.n, s.k)
}

// gramRows sets dst (k×k) to xᵀx for x with n rows of k, row-major.
func gramRows(dst, x []float64, n, k int) {
	clear(dst)
	for i := 0; i < n; i++ {
		e := x[i*k : i*k+k]
		for a, ea := range e {
			row := dst[a*k : a*k+a+1]
			for b := range row {
				row[b] += ea * e[b]
			}
		}
	}
	for a := 0; a < k; a++ {
		for b := 0; b < a; b++ {
			dst[b*k+a] = dst[a*k+b]
		}
	}
}

// stepLoadingsPX is the parameter-expanded update of column j given η:
// with V_j = (ηᵀη + P_j)⁻¹, m_j = V_jηᵀz_j and Q_j = z_jᵀz_j − m_jᵀV_j⁻¹m_j
// (the quadratic form of z_j under its λ-marginal N(0, I + ηP_j⁻¹ηᵀ)), the
// scale move z_j ← g·z_j with g² = r ~ Ga(n/2, rate Q_j/2) leaves that
// marginal restricted to D_j invariant (Liu–Sabatti, Haar measure dg/g,
// Jacobian gⁿ), and λ_j is then drawn from its conditional N(g·m_j, V_j) as
// m_j + L⁻ᵀξ with V_j⁻¹ = LLᵀ.
func (s *factorSampler) stepLoadingsPX(rng *rand.Rand, j int, c *factorColumn) error {
	n, k := s.n, s.k
	zj := s.z[j]
	b := c.b
	clear(b)
	zz := 0.0
	for i, zi := range zj {
		zz += zi * zi
		e := s.eta[i*k : i*k+k]
		for h, eh := range e {
			b[h] += eh * zi
		}
	}
	a := c.a
	copy(a, s.ete)
	pj := s.prec[j*k : j*k+k]
	for h := 0; h < k; h++ {
		a[h*k+h] += pj[h]
	}
	if !cholLower(a, k) {
		return fmt.Errorf("inference: loadings step for column %s: ηᵀη + P is not positive definite", s.d.name(j))
	}
	m := c.m
	copy(m, b)
	solveLowerK(a, m, k)
	solveUpperK(a, m, k)
	q := zz - dotK(m, b)
	if !(q > 0) {
		return fmt.Errorf("inference: loadings step for column %s: quadratic form %g is not positive", s.d.name(j), q)
	}
	g := math.Sqrt(gammaDraw(rng, 0.5*float64(n)) / (0.5 * q))
	if s.bug != bugNoRescale {
		for i := range zj {
			zj[i] *= g
		}
	}
	row := s.lambda[j*k : j*k+k]
	noise := 1.0
	if s.bug == bugLoadingsNoise {
		noise = 1.2
	}
	for h := range row {
		row[h] = noise * rng.NormFloat64()
	}
	solveUpperK(a, row, k)
	for h := range row {
		row[h] += g * m[h]
	}
	return nil
}

// identityPlusGram sets dst (k×k) to the lower triangle of I + ΛᵀΛ, its
// upper triangle to 0, for Λ with p rows of k, row-major: what cholLower
// factorises.
func identityPlusGram(dst, lambda []float64, p, k int) {
	clear(dst)
	for j := 0; j < p; j++ {
		row := lambda[j*k : j*k+k]
		for x, rx := range row {
			for y := 0; y <= x; y++ {
				dst[x*k+y] += rx * row[y]
			}
		}
	}
	for h := 0; h < k; h++ {
		dst[h*k+h]++
	}
}

// stepEta draws every η_i ~ N(BΛᵀz_i, B) with B = (I + ΛᵀΛ)⁻¹, as
// L⁻ᵀ(L⁻¹Λᵀz_i + ξ) with B⁻¹ = LLᵀ.
func (s *factorSampler) stepEta(rng *rand.Rand) error {
	n, p, k := s.n, s.p, s.k
	s.group.fresh = false
	a := s.a
	identityPlusGram(a, s.lambda, p, k)
	if !cholLower(a, k) {
		return fmt.Errorf("inference: factor step: I + ΛᵀΛ is not positive definite (non-finite loadings?)")
	}
	w := s.w
	clear(w)
	for j := 0; j < p; j++ {
		row := s.lambda[j*k : j*k+k]
		for i, zi := range s.z[j] {
			wi := w[i*k : i*k+k]
			for h, l := range row {
				wi[h] += l * zi
			}
		}
	}
	for i := 0; i < n; i++ {
		wi := w[i*k : i*k+k]
		solveLowerK(a, wi, k)
		for h := range wi {
			wi[h] += rng.NormFloat64()
		}
		solveUpperK(a, wi, k)
		copy(s.eta[i*k:i*k+k], wi)
	}
	return nil
}

// hoffColumn is Hoff's block update of column j given η and λ_j:
// z_ij ~ N(λ_jᵀη_i, 1) restricted to the column's levels (gibbsLevels),
// followed by the level stretches of sampling.md §1.4 on the same
// conditional (unless the group moves are left out, as in the paper's
// samplers).
func (s *factorSampler) hoffColumn(rng *rand.Rand, j int, sc *columnScratch) {
	k := s.k
	mu := sc.mu
	row := s.lambda[j*k : j*k+k]
	for i := range mu {
		mu[i] = dotK(row, s.eta[i*k:i*k+k])
	}
	sigma := 1.0
	if s.bug == bugSigma {
		sigma = 1.2
	}
	lv := s.d.levels[j]
	if !s.groupMoves || lv.NumLevels() < 2 {
		gibbsLevels(rng, lv, s.z[j], mu, sigma, nil)
		return
	}
	w := &sc.stretch
	w.bug = 0
	if s.bug == bugStretchHaar {
		w.bug = 1
	}
	gibbsLevels(rng, lv, s.z[j], mu, sigma, w)
	w.draw(rng, sigma, 1, 0)
	w.apply(lv, s.z[j], 1, 0)
}

// stepGDP updates the GDP hyperparameters of every loading given λ:
// ζ ~ Ga(α+1, rate β+|λ|) (ψ integrated out), then
// 1/ψ ~ InvGauss(mean ζ/|λ|, shape ζ²).
func (s *factorSampler) stepGDP(rng *rand.Rand) {
	for i, l := range s.lambda {
		al := math.Abs(l)
		z := gammaDraw(rng, s.alpha+1) / (s.beta + al)
		s.zeta[i] = z
		s.prec[i] = invGaussian(rng, math.Min(z/al, 1e150), z*z)
	}
}

// iterateInterweave is one interweaved iteration (sampling.md §4.4): per
// column, in parallel, the joint (λ_j, z_j) exact HMC step given η, or for a
// column that Spec.ColumnHMC leaves out PX's scale move and draw of λ_j
// given z_j and η, and then Hoff's update of z_j; then the collapsed
// loadings step of §4.6 and η (unless the step is left out: η alone); then
// the factor group moves of §4.5 (unless groupMoves is off); then the GDP
// hyperparameters. Both column moves leave π(λ_j, z_j | η, y) invariant.
func (s *factorSampler) iterateInterweave(rng *rand.Rand, warmup bool, st *StepStats) error {
	if s.gibbsColumns {
		s.gramEta()
	}
	s.seedColumns(rng)
	s.colWork = s.interweaveWork
	s.runColumns(true)
	for j := range s.cols {
		c := &s.cols[j]
		st.Add(c.st)
		if c.err == nil {
			continue
		}
		if c.hmc == nil {
			return c.err // stepLoadingsPX says which step failed
		}
		return fmt.Errorf("inference: joint HMC on column %s: %w", s.d.name(j), c.err)
	}
	if s.collapsed != nil {
		s.maybeCollapsedLoadings(rng, warmup, st)
	}
	if err := s.stepEta(rng); err != nil {
		return err
	}
	if s.groupMoves {
		s.moveFactors(rng)
	}
	if s.gdp {
		s.stepGDP(rng)
	}
	return nil
}

// interweaveColumn runs column j's joint HMC step, or its PX column step if
// it has no joint step, and then its Hoff update.
func (s *factorSampler) interweaveColumn(j int, sc *columnScratch) {
	c := &s.cols[j]
	k := s.k
	frozen := s.frozenMissing(j)
	defer restoreMissing(s.d.levels[j], s.z[j], frozen)
	if c.hmc == nil {
		if c.err = s.stepLoadingsPX(c.rng, j, c); c.err == nil {
			s.hoffColumn(c.rng, j, sc)
		}
		return
	}
	c.hmc.use(sc.joint)
	hs, err := c.hmc.step(c.rng, s.z[j], s.lambda[j*k:j*k+k], s.eta, s.prec[j*k:j*k+k], s.travel)
	c.st.Bounces += int64(hs.Bounces)
	c.st.Events += int64(hs.Events)
	c.st.Rejections += int64(hs.Rejections)
	if err != nil {
		c.err = err
		return
	}
	s.hoffColumn(c.rng, j, sc)
}

// runColumns calls colWork for every column: if parallel, on
// min(GOMAXPROCS, p) goroutines that claim columns in turn, else in column
// order on the calling goroutine. The result is the same either way.
func (s *factorSampler) runColumns(parallel bool) {
	s.next.Store(0)
	workers := 1
	if parallel {
		workers = min(runtime.GOMAXPROCS(0), s.p)
	}
	s.growScratch(workers)
	s.wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go s.worker(w)
	}
	s.columnLoop(0)
	s.wg.Wait()
}

func (s *factorSampler) columnWorker(w int) {
	defer s.wg.Done()
	s.columnLoop(w)
}

// columnLoop runs columns in turn as worker w, in its scratch memory.
func (s *factorSampler) columnLoop(w int) {
	sc := &s.scratch[w]
	for {
		j := int(s.next.Add(1)) - 1
		if j >= s.p {
			return
		}
		s.colWork(j, sc)
	}
}

// columnScratch is the memory a column step uses only while it runs, one
// per worker (factorSampler.scratch): the conditional means of Hoff's
// update and, with the joint step, its scratch.
type columnScratch struct {
	mu      []float64 // n
	joint   *jointScratch
	stretch levelStretch
}

// growScratch makes sure that there is scratch memory for the given number
// of workers.
func (s *factorSampler) growScratch(workers int) {
	for len(s.scratch) < workers {
		sc := columnScratch{mu: make([]float64, s.n)}
		if s.method == Interweave {
			sc.joint = newJointScratch(s.n, s.k)
		}
		s.scratch = append(s.scratch, sc)
	}
}

// corr writes C = D^{-1/2}(ΛΛᵀ + I)D^{-1/2}: exactly symmetric with a unit
// diagonal.
func (s *factorSampler) corr(dst []float64) {
	p, k := s.p, s.k
	for a := 0; a < p; a++ {
		ra := s.lambda[a*k : a*k+k]
		dst[a*p+a] = 1
		for b := 0; b < a; b++ {
			rb := s.lambda[b*k : b*k+k]
			c := dotK(ra, rb) / math.Sqrt((1+dotK(ra, ra))*(1+dotK(rb, rb)))
			dst[a*p+b], dst[b*p+a] = c, c
		}
	}
}

// loadings writes the correlation-scale loadings D^{-1/2}Λ (p×k, row-major):
// row j is λ_j/√(1+‖λ_j‖²), so C = Λ̃Λ̃ᵀ + diag(1 − ‖λ̃_j‖²). Like Λ itself
// they are identified only up to an orthogonal rotation of the factors.
func (s *factorSampler) loadings(dst []float64) bool {
	k := s.k
	for j := 0; j < s.p; j++ {
		row := s.lambda[j*k : j*k+k]
		f := 1 / math.Sqrt(1+dotK(row, row))
		for h, l := range row {
			dst[j*k+h] = l * f
		}
	}
	return true
}

func (s *factorSampler) latent() [][]float64 { return s.z }

// latentSD is the marginal standard deviation √(1+‖λ_j‖²) of z_ij.
func (s *factorSampler) latentSD(j int) float64 {
	row := s.lambda[j*s.k : j*s.k+s.k]
	return math.Sqrt(1 + dotK(row, row))
}

// solveLowerK overwrites x with L⁻¹x, L the lower triangle of l (k×k).
func solveLowerK(l, x []float64, k int) {
	for i := 0; i < k; i++ {
		v := x[i]
		for c := 0; c < i; c++ {
			v -= l[i*k+c] * x[c]
		}
		x[i] = v / l[i*k+i]
	}
}

// solveUpperK overwrites x with L⁻ᵀx, L the lower triangle of l (k×k).
func solveUpperK(l, x []float64, k int) {
	for i := k - 1; i >= 0; i-- {
		v := x[i]
		for c := i + 1; c < k; c++ {
			v -= l[c*k+i] * x[c]
		}
		x[i] = v / l[i*k+i]
	}
}

// invGaussian draws from the inverse Gaussian distribution with the given
// mean and shape by Michael, Schucany and Haas (1976), with the smaller root
// written as mean/(1 + a + √(a(a+2))), a = mean·ν²/(2·shape), which does not
// cancel for large means.
func invGaussian(rng *rand.Rand, mean, shape float64) float64 {
	nu := rng.NormFloat64()
	a := mean * nu * nu / (2 * shape)
	x := mean / (1 + a + math.Sqrt(a)*math.Sqrt(a+2))
	if rng.Float64()*(mean+x) <= mean {
		return x
	}
	// mean²/x, kept finite when a GDP loading is numerically zero.
	return math.Min(mean/x*mean, math.MaxFloat64)
}

// setLevels replaces column j's constraint structure by lv (same number of
// rows); the Geweke tests use it to condition on freshly simulated data.
func (s *factorSampler) setLevels(j int, lv *hough.Levels) {
	s.d.levels[j] = lv
	if h := s.cols[j].hmc; h != nil {
		h.setLevels(lv)
	}
}
