package inference

import (
	"fmt"
	"math"
	"slices"
)

// chainState is what a chain's next iterations depend on besides its
// random stream: the Markov state of its sampler and the few adapted
// quantities that steer its numerics. Result.MarshalBinary stores it so that
// a Result read back can be extended exactly as the original would have
// been.
type chainState struct {
	Z [][]float64 // latent columns, Z[j][i]

	// Full-correlation model: the working covariance V and Ω = V⁻¹ as the
	// covariance step drew them (C follows from V), the LKJ weight of C,
	// the column order the sweep shuffles in place, and the adaptive
	// schedule's Gibbs-only columns (nil without one).
	V, Omega  []float64
	LogW      float64
	Perm      []int
	GibbsOnly []bool

	// Factor model: Λ, η, the prior precisions (and GDP rates), the group
	// moves' ηᵀη when current, and per column of the joint exact-HMC step
	// its adapted trial K and window bounds and its slot order (the zero
	// value for PX's columns).
	Lambda, Eta, Prec, Zeta []float64
	GroupS                  []float64
	GroupFresh              bool
	Joint                   []jointState
	// LoadingsStep is the collapsed loadings step's adapted leapfrog step
	// (0 without that step, and in states saved before it existed).
	LoadingsStep float64
}

// jointState is the state a jointHMC carries from one trajectory to the
// next; a column without the joint step has the zero value.
type jointState struct {
	KGuess float64
	Beta   []float64 // the windows' adapted bounds
	Row    []int32
}

func (s *fullSampler) state() chainState {
	return chainState{Z: s.z, V: s.v, Omega: s.omega, LogW: s.logW, Perm: s.perm, GibbsOnly: s.gibbsOnly}
}

func (s *fullSampler) restore(st chainState) error {
	p := s.p
	if err := restoreLatent(s.z, st.Z, s.d); err != nil {
		return err
	}
	if len(st.V) != p*p || !allFinite(st.V) || !s.setV(st.V) {
		return fmt.Errorf("its covariance is not a positive definite %d×%d matrix", p, p)
	}
	// Ω and the weight as drawn, not as setV recomputes them (the last
	// bits differ), once they are seen to be V's.
	if len(st.Omega) != p*p || !allFinite(st.Omega) || math.IsNaN(st.LogW) || math.IsInf(st.LogW, 0) {
		return fmt.Errorf("its precision matrix is not %d×%d numbers", p, p)
	}
	for k, w := range st.Omega {
		if math.Abs(w-s.omega[k]) > 1e-6*(1+math.Abs(s.omega[k])) {
			return fmt.Errorf("its precision matrix is not the inverse of its covariance")
		}
	}
	if math.Abs(st.LogW-s.logW) > 1e-6*(1+math.Abs(s.logW)) {
		return fmt.Errorf("its LKJ weight is not its covariance's")
	}
	copy(s.omega, st.Omega)
	s.logW = st.LogW
	if j, i := s.farLatent(); j >= 0 {
		return fmt.Errorf("latent value %d of column %d lies over %d standard deviations from its conditional mean", i+1, j+1, maxLatentSD)
	}
	if !isPermutation(st.Perm, p) {
		return fmt.Errorf("its column order %v is not a permutation of %d columns", st.Perm, p)
	}
	copy(s.perm, st.Perm)
	if (s.gibbsOnly == nil) != (st.GibbsOnly == nil) || st.GibbsOnly != nil && len(st.GibbsOnly) != p {
		return fmt.Errorf("its schedule covers %d columns, this run's %d", len(st.GibbsOnly), len(s.gibbsOnly))
	}
	copy(s.gibbsOnly, st.GibbsOnly)
	return nil
}

// checkSchedule checks that the Gibbs-only columns of a restored adaptive
// chain are those its schedule chose (every column before the choice).
func (s *fullSampler) checkSchedule(sc *Schedule) error {
	for j, g := range s.gibbsOnly {
		if sc == nil && !g || sc != nil && g == sc.HMC[j] {
			return fmt.Errorf("column %d's update is not the one its schedule chose", j+1)
		}
	}
	return nil
}

func (s *factorSampler) state() chainState {
	st := chainState{Z: s.z, Lambda: s.lambda, Eta: s.eta, Prec: s.prec, Zeta: s.zeta, GroupFresh: s.group.fresh}
	if s.collapsed != nil {
		st.LoadingsStep = s.collapsed.step
	}
	if s.group.fresh {
		st.GroupS = s.group.s
	}
	for _, c := range s.cols {
		if c.hmc == nil {
			st.Joint = append(st.Joint, jointState{})
			continue
		}
		st.Joint = append(st.Joint, jointState{KGuess: c.hmc.kGuess, Beta: c.hmc.beta[:c.hmc.tiers], Row: c.hmc.row})
	}
	return st
}

func (s *factorSampler) restore(st chainState) error {
	n, p, k := s.n, s.p, s.k
	if err := restoreLatent(s.z, st.Z, s.d); err != nil {
		return err
	}
	positive := func(v []float64) bool {
		return allFinite(v) && !slices.ContainsFunc(v, func(x float64) bool { return !(x > 0) })
	}
	switch {
	case len(st.Lambda) != p*k || !allFinite(st.Lambda):
		return fmt.Errorf("its loadings are not %d×%d numbers", p, k)
	case len(st.Eta) != n*k || !allFinite(st.Eta):
		return fmt.Errorf("its factors are not %d×%d numbers", n, k)
	case len(st.Prec) != p*k || !positive(st.Prec):
		return fmt.Errorf("its prior precisions are not %d×%d positive numbers", p, k)
	case s.gdp && (len(st.Zeta) != p*k || !positive(st.Zeta)) || !s.gdp && st.Zeta != nil:
		return fmt.Errorf("its GDP rates do not fit its prior")
	case st.GroupFresh && (len(st.GroupS) != k*k || !allFinite(st.GroupS)):
		return fmt.Errorf("its factors' Gram matrix is not %d×%d numbers", k, k)
	case st.GroupFresh && !gramOf(st.GroupS, st.Eta, n, k):
		return fmt.Errorf("its factors' Gram matrix is not theirs")
	case len(st.Joint) != p:
		return fmt.Errorf("it has the joint step's state of %d columns, want %d", len(st.Joint), p)
	case st.LoadingsStep != 0 && (s.collapsed == nil || !(st.LoadingsStep > 0 && st.LoadingsStep <= maxLoadingsStep)):
		return fmt.Errorf("its collapsed loadings step %v does not fit this run", st.LoadingsStep)
	case slices.ContainsFunc(st.Eta, func(e float64) bool { return math.Abs(e) > maxLatentSD }):
		return fmt.Errorf("its factors lie over %d standard deviations from their prior mean", maxLatentSD)
	}
	if j, i := farResidual(st.Z, st.Lambda, st.Eta, k); j >= 0 {
		return fmt.Errorf("latent value %d of column %d lies over %d standard deviations from its mean given the factors", i+1, j+1, maxLatentSD)
	}
	for j, js := range st.Joint {
		h := s.cols[j].hmc
		if (h == nil) != (js.Row == nil) {
			return fmt.Errorf("column %d's joint step does not match this run's", j+1)
		}
		if h == nil {
			continue
		}
		// A trial K far below the first guess would make the event search
		// crawl.
		if !(js.KGuess == 0 || js.KGuess >= 1e-3*h.firstGuess() && js.KGuess <= 1e6) || len(js.Beta) == 0 || len(js.Beta) > maxWindowTiers || !allFinite(js.Beta) || slices.ContainsFunc(js.Beta, func(b float64) bool { return !(b > 0) }) || !sameSlots(h, js.Row) {
			return fmt.Errorf("column %d's joint step state is not one of this column's", j+1)
		}
	}
	copy(s.lambda, st.Lambda)
	copy(s.eta, st.Eta)
	copy(s.prec, st.Prec)
	copy(s.zeta, st.Zeta)
	s.group.fresh = st.GroupFresh
	copy(s.group.s, st.GroupS)
	if s.collapsed != nil && st.LoadingsStep != 0 {
		// A state saved before the step existed keeps the first step size.
		s.collapsed.step = st.LoadingsStep
	}
	for j, js := range st.Joint {
		if h := s.cols[j].hmc; h != nil {
			h.kGuess = js.KGuess
			// A state saved with fewer tiers (before their number grew
			// with n) leaves the others at their starting factor.
			copy(h.beta[:h.tiers], js.Beta)
			copy(h.row, js.Row)
		}
	}
	return nil
}

// maxLatentSD bounds how far, in standard deviations of its conditional
// distribution, a restored latent value (or factor score) may lie from its
// conditional mean. A chain's draws lie within a few — the chance of one
// beyond 50 is below 10⁻⁵⁰⁰ — while a damaged state out there would make the
// exact-HMC trajectories, whose scale is that standard deviation, bounce
// until their caps (a column of values 10⁴ standard deviations out took
// 0.15 s per trajectory at n = 60, one of 10⁶ over 2 s).
const maxLatentSD = 50

// farLatent returns the column and row of a latent value farther than
// maxLatentSD conditional standard deviations from its conditional mean
// given the other columns under N(0, V) (as the column updates draw it), or
// −1, −1. Each column's Σ_k Ω_jk z_k is summed a whole column of z at a
// time, in the order of k, as a row at a time summed it: reading z row by
// row took a strided pass over p columns per value, 0.25 s a chain at
// 50,000 × 30 (sampling.md §8, "At survey scale").
func (s *fullSampler) farLatent() (col, row int) {
	p := s.p
	r := make([]float64, s.n)
	for j := 0; j < p; j++ {
		wjj := s.omega[j*p+j]
		bound := maxLatentSD / math.Sqrt(wjj) // σ_j = Ω_jj^{−1/2}
		// z_ij − μ_ij = Σ_k Ω_jk z_ik / Ω_jj.
		clear(r)
		for k := 0; k < p; k++ {
			w := s.omega[j*p+k]
			zk := s.z[k][:len(r)]
			for i, v := range zk {
				r[i] += w * v
			}
		}
		for i, v := range r {
			if !(math.Abs(v/wjj) <= bound) {
				return j, i
			}
		}
	}
	return -1, -1
}

// farResidual returns the column and row of a latent value z_ij farther
// than maxLatentSD from its mean λ_jᵀη_i given the factors (the noise has
// unit variance), or −1, −1. lambda is p×k and eta n×k, row-major.
func farResidual(z [][]float64, lambda, eta []float64, k int) (col, row int) {
	for j, zj := range z {
		lj := lambda[j*k : j*k+k]
		for i, v := range zj {
			m := 0.0
			for c, l := range lj {
				m += l * eta[i*k+c]
			}
			if !(math.Abs(v-m) <= maxLatentSD) {
				return j, i
			}
		}
	}
	return -1, -1
}

// gramOf reports whether g is ηᵀη (k×k) of eta (n×k) to within rounding.
func gramOf(g, eta []float64, n, k int) bool {
	want := make([]float64, k*k)
	gramRows(want, eta, n, k)
	for i, w := range want {
		if math.Abs(g[i]-w) > 1e-9*(1+math.Abs(w)) {
			return false
		}
	}
	return true
}

// sameSlots reports whether row orders h's slots as h's own order may:
// within each level's slots (and the missing rows' tail), the same rows.
func sameSlots(h *jointHMC, row []int32) bool {
	if len(row) != len(h.row) {
		return false
	}
	bounds := append(slices.Clone(h.start), int32(len(h.row)))
	for l := 0; l+1 < len(bounds); l++ {
		a := slices.Clone(h.row[bounds[l]:bounds[l+1]])
		b := slices.Clone(row[bounds[l]:bounds[l+1]])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// restoreLatent copies saved latent columns into z after checking that
// each is finite and meets its column's order constraints.
func restoreLatent(z, saved [][]float64, d *data) error {
	if len(saved) != d.p {
		return fmt.Errorf("it has %d latent columns, want %d", len(saved), d.p)
	}
	for j, col := range saved {
		if len(col) != d.n || !allFinite(col) {
			return fmt.Errorf("latent column %d is not %d numbers", j+1, d.n)
		}
		if l, amt := d.levels[j].Violation(col); l >= 0 {
			return fmt.Errorf("latent column %d breaks its order: level %d exceeds level %d by %g", j+1, l+1, l+2, amt)
		}
	}
	for j, col := range saved {
		copy(z[j], col)
	}
	return nil
}

// isPermutation reports whether perm holds 0..p-1 once each.
func isPermutation(perm []int, p int) bool {
	if len(perm) != p {
		return false
	}
	seen := make([]bool, p)
	for _, v := range perm {
		if v < 0 || v >= p || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
