package hough

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Search selects how a Sampler finds the next bounce of a trajectory. The
// searches produce the same trajectory up to rounding, except at exact ties
// (three curves meeting at one point, or equal values across a wall: a set
// of probability zero), where they may bounce different pairs.
type Search int

const (
	// Kinetic is the default: for a column of two levels, or whose levels
	// have at most 6,144 curves (sideMaxLevel), it runs the Walk search
	// below; otherwise it keeps, per level,
	// tournament trees for its maximum and minimum, all certificates in a
	// calendar queue (sampling.md §2.5).
	Kinetic Search = iota
	// Envelope follows the upper envelope of each level (the Hough envelope of
	// Kalaitzis & Silva §4.1, sampling.md §2.4), recomputing only the three
	// neighbouring level pairs after a bounce: O(n) work per bounce.
	Envelope
	// Walk keeps the sides of Kinetic (sleeping curves, wake certificates,
	// floors) but no level's extreme: per pair of adjacent levels it follows
	// the Hough envelope of the awake curves of the wall's two sides and
	// queues only the next bounce (walk.go). Levels of any size use sides.
	Walk
)

// String returns "kinetic", "hough" or "walk".
func (s Search) String() string {
	switch s {
	case Kinetic:
		return "kinetic"
	case Envelope:
		return "hough"
	case Walk:
		return "walk"
	}
	return fmt.Sprintf("Search(%d)", int(s))
}

// Options configures a Sampler.
type Options struct {
	// TravelTime is the HMC travel time T; 0 means π/2, which makes the
	// unconstrained (missing) coordinates exact independent draws.
	TravelTime float64
	// Search selects the collision search; the zero value is Kinetic.
	Search Search
	// Workspace, if not nil, holds the sampler's O(n) scratch memory, shared
	// with the other samplers given the same one (see Workspace); nil gives
	// the sampler its own.
	Workspace *Workspace
	// MaxBounces caps the bounces of one trajectory; 0 means 1000·n + 1000.
	// Hitting the cap is an error, never a silent truncation. A column whose
	// values are all distinct needs about 0.18·n² bounces (sampling.md §9), so
	// such columns need a larger cap when n exceeds a few thousand.
	MaxBounces int
}

// Stats counts what one transition did.
type Stats struct {
	// Bounces is the number of reflections between adjacent levels.
	Bounces int
	// Events is the number of events processed: bounces plus internal events
	// (for Walk, and Kinetic where it walks: curves waking
	// and floor certificates, curves falling asleep being no events there;
	// with the sides, kineticWalk = false, also curves falling asleep and
	// changes of a level's extreme; for Kinetic on larger levels:
	// changes of a tournament node's winner; for Envelope: envelope steps).
	Events int
	// Rejections is 1 if the end-of-trajectory check rejected the trajectory
	// (sampling.md §2.6 rule 7), else 0.
	Rejections int
}

// tree is one tournament over the curves of a level; the winners of its
// nodes are winners[off+1 : off+2k], node i having children 2i and 2i+1 and
// leaves k..2k−1 holding the level's curves in order. An internal node's
// certificate, the time at which its loser (the other child's winner)
// overtakes its winner, is queued under the node's index in winners.
type tree struct {
	off, k, first int32   // node offset, number of leaves, first curve of the level
	isMax         bool    //
	nodes         []int32 // winners[off : off+2k]
}

// sideMaxLevel is the largest level for which the kinetic search uses sides
// (the walk, walk.go) in a column of three levels or more; such a column
// with a larger level uses tournament trees (tournament.go). A column of two
// levels uses sides whatever its size. Measured with the walk's lazy sleep
// and margin by level size (sampling.md §2.5), exact HMC per iteration with
// the walk against trees: two levels −40% at n = 3000 to 10⁴, −37% at
// 3·10⁴, −50% at 10⁵ (levels of 50,000); three levels −29% and −32% at
// 3,333 and 6,667 curves a level; five levels −22% at 2,000, −2% at 6,000,
// +3% at 8,000 and +7% at 20,000. A variable so that tests can run both.
var sideMaxLevel int32 = 6144

// treesFor reports whether the kinetic search runs tournament trees for
// levels lv: a level of more than sideMaxLevel curves in a column of three
// levels or more.
func treesFor(lv *Levels) bool {
	L := lv.NumLevels()
	if L <= 2 && sideMaxLevel > 0 {
		return false
	}
	for l := 0; l < L; l++ {
		if lv.Start[l+1]-lv.Start[l] > sideMaxLevel {
			return true
		}
	}
	return false
}

// kineticWalk makes the kinetic search use the Walk search (walk.go) for
// columns with sides; false runs the sides that track each level's extreme
// and its challenger (kinetic.go). A variable so that tests can run both.
var kineticWalk = true

// Sampler draws exact HMC transitions for one column. It keeps the column's
// constraint structure and settings; the curves, certificates and queue of
// a trajectory live in its Workspace, laid out for the column at the start
// of each transition. It is reusable across transitions; it is not safe for
// concurrent use. Transition does not allocate.
type Sampler struct {
	lv   *Levels
	opt  Options
	ws   *Workspace
	nseg int     // the trajectory is run in nseg segments of length seg ≤ π/2
	seg  float64 // segment length
	win  window  // the end of a segment
	maxB int
	maxE int

	nlev       int
	midS, midC float64 // sin and cos of half a segment
	useTrees   bool    // kinetic search: tournament trees instead of sides
	walk       bool    // the Walk search (Walk, or Kinetic with sides and kineticWalk)
	sigma      float64

	views // of the workspace, laid out by bind

	afterBounce func(*Sampler) // test hook
	walkCount   walkCount      // with Walk: walks done, for benchmarks
}

// views are a Sampler's views of its workspace (see bind).
type views struct {
	curves  []curve   // curves[p] for row order[p].row
	xi      []float64 // standard normal draws, in row order
	xnew    []float64 // end positions, indexed as curves
	order   []rowKey  // the observed rows level by level (with trees: each level sorted by sortLevels)
	winners []int32   // with trees
	treeOf  []int32   // with trees: per index of winners, its tree
	trees   []tree    // with trees: trees[2l] max-tree of level l, trees[2l+1] min-tree; k = 0 if absent
	sideOf  []int32   // per queue id below pairID, its side
	queue   *calendar
	pairID  int32     // the queue id of the pair certificate of levels 0 and 1
	sides   []side    // sides[2l] the top of level l, sides[2l+1] its bottom; k = 0 if absent
	pos     []float64 // scratch: free positions, for the wall estimates
	ranks   []int32   // scratch: the ranks selected in pos
	wallMid []float64 // per wall l|l+1: estimated wall at the middle of the segment
	wallEnd []float64 // and at its end
	heap    *eventHeap
	env     []envEvent
	segs    []walkSeg // with Walk: walkSegCap per wall, the envelope's segments
	nsegs   []int32   // with Walk: per wall, its segments in segs, or −1 if more than walkSegCap
}

// rowKey is an observed row and the key that orders it within its level.
type rowKey struct {
	mid float64
	row int32
}

// envEvent is the next bounce of a pair of adjacent levels found by the
// envelope search.
type envEvent struct {
	t    float64
	u, v int32
}

// NewSampler returns a Sampler for the constraint structure lv.
func NewSampler(lv *Levels, opt Options) *Sampler {
	if opt.TravelTime < 0 || math.IsNaN(opt.TravelTime) || math.IsInf(opt.TravelTime, 0) {
		panic(fmt.Sprintf("hough: NewSampler: invalid travel time %v", opt.TravelTime))
	}
	if opt.TravelTime == 0 {
		opt.TravelTime = math.Pi / 2
	}
	if opt.Search != Kinetic && opt.Search != Envelope && opt.Search != Walk {
		panic(fmt.Sprintf("hough: NewSampler: unknown search %d", int(opt.Search)))
	}
	n := lv.N
	L := lv.NumLevels()
	s := &Sampler{
		lv:   lv,
		opt:  opt,
		ws:   opt.Workspace,
		nseg: int(math.Ceil(opt.TravelTime/(math.Pi/2) - 1e-12)),
		nlev: L,
	}
	if s.nseg < 1 {
		s.nseg = 1
	}
	s.seg = opt.TravelTime / float64(s.nseg)
	s.midS, s.midC = math.Sincos(s.seg / 2)
	s.win = newWindow(s.seg)
	s.maxB = opt.MaxBounces
	if s.maxB <= 0 {
		s.maxB = 1000*n + 1000
	}
	// Internal events per bounce are O(1) on average (floors widen
	// geometrically where curves travel far beside σ: widened); this cap
	// only stops runaway loops.
	s.maxE = 64*s.maxB + 64*n + 64
	if s.maxE < 0 || s.maxE/64 < s.maxB {
		s.maxE = math.MaxInt
	}
	if opt.Search == Kinetic {
		s.useTrees = treesFor(lv)
	}
	s.walk = opt.Search == Walk || (opt.Search == Kinetic && !s.useTrees && kineticWalk)
	if s.ws == nil {
		s.ws = new(Workspace)
	}
	// Grow the workspace now, so that Transition does not allocate; a
	// shared one is not held until this sampler runs.
	s.bind()
	if opt.Workspace != nil {
		s.unbind()
	}
	return s
}

// Transition replaces x (len lv.N) by the end point of one exact HMC
// trajectory for N(mu, sigma² I) restricted to the level constraints; mu has
// len lv.N. The mass matrix is the precision σ⁻²I, so the dynamics are
// x_i(t) = μ_i + a_i sin t + b_i cos t with a = σξ, ξ ~ N(0, I), b = x − μ, and
// a bounce between adjacent levels swaps two velocities (sampling.md §2.1–2.3).
// Missing rows come out as fresh N(μ_i, σ²) draws.
//
// It returns an error, leaving x unchanged, if x is infeasible at the start,
// an input is not finite, or the bounce or event cap is hit. A trajectory
// rejected by the end check leaves x unchanged and counts in Stats.Rejections.
func (s *Sampler) Transition(rng *rand.Rand, x, mu []float64, sigma float64) (Stats, error) {
	s.bind()
	for i := range s.xi {
		s.xi[i] = rng.NormFloat64()
	}
	return s.transition(x, mu, sigma, s.xi)
}

// transition runs one trajectory with the given standard normal draws xi (row order).
func (s *Sampler) transition(x, mu []float64, sigma float64, xi []float64) (Stats, error) {
	lv := s.lv
	if len(x) != lv.N || len(mu) != lv.N {
		panic(fmt.Sprintf("hough: Transition: len(x) = %d, len(mu) = %d, want %d", len(x), len(mu), lv.N))
	}
	var st Stats
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return st, fmt.Errorf("hough: transition: sigma = %v, want finite and > 0", sigma)
	}
	for _, i := range lv.Order {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(mu[i]) || math.IsInf(mu[i], 0) {
			return st, fmt.Errorf("hough: transition: row %d has x = %v, mu = %v", i+1, x[i], mu[i])
		}
	}
	for _, i := range lv.Missing {
		if math.IsNaN(mu[i]) || math.IsInf(mu[i], 0) {
			return st, fmt.Errorf("hough: transition: missing row %d has mu = %v", i+1, mu[i])
		}
	}
	if l, amt := lv.Violation(x); l >= 0 {
		return st, fmt.Errorf("hough: transition: start is infeasible: max of level %d exceeds min of level %d by %g", l+1, l+2, amt)
	}
	s.sigma = sigma
	s.bind()
	if s.useTrees {
		s.sortLevels(x, mu, xi, sigma)
	}
	for p, r := range s.order {
		i := r.row
		s.curves[p] = curve{mu: mu[i], a: sigma * xi[i], b: x[i] - mu[i]}
	}
	if s.nlev > 1 {
		for seg := 0; seg < s.nseg; seg++ {
			if seg > 0 {
				s.restart()
			}
			var err error
			if s.useTrees {
				err = s.runTrees(&st)
			} else if s.walk {
				err = s.runWalk(&st)
			} else if s.opt.Search == Kinetic {
				err = s.runSides(&st)
			} else {
				err = s.runEnvelope(&st)
			}
			if err != nil {
				return st, err
			}
		}
	} else {
		for seg := 1; seg < s.nseg; seg++ {
			s.restart()
		}
	}
	if !s.finish() {
		st.Rejections = 1
		return st, nil
	}
	for p, r := range s.order {
		x[r.row] = s.xnew[p]
	}
	for _, i := range lv.Missing {
		x[i] = mu[i] + sigma*xi[i]
	}
	return st, nil
}

// sortLevels orders the rows of each level by their free position at the
// middle of the first segment, μ + σξ sin(T/2) + (x − μ) cos(T/2), ties by
// row. Neighbouring leaves of a tournament tree then hold curves that tend to
// stay close during the trajectory, so fewer certificates fail high in the
// trees and those that fail read nearby memory: with 5 levels, 10% fewer
// events at n = 1000 and 11% at n ≥ 10⁴, 3% less time at n ≤ 10⁴ and 7% at
// n = 10⁵. The order changes no trajectory, only which of two simultaneous
// events is processed first. It is used with tournament trees only.
func (s *Sampler) sortLevels(x, mu, xi []float64, sigma float64) {
	for p := range s.order {
		r := &s.order[p]
		i := r.row
		c := curve{mu: mu[i], a: sigma * xi[i], b: x[i] - mu[i]}
		r.mid = c.pos(s.midS, s.midC)
	}
	lv := s.lv
	for l := 0; l < s.nlev; l++ {
		slices.SortFunc(s.order[lv.Start[l]:lv.Start[l+1]], func(a, b rowKey) int {
			if c := cmp.Compare(a.mid, b.mid); c != 0 {
				return c
			}
			return cmp.Compare(a.row, b.row)
		})
	}
}

// restart moves the time origin of every curve to the end of the current
// segment: a becomes the velocity and b the offset x − μ there. Splitting the
// travel time into segments of at most π/2 keeps K = tan(t/2) increasing and
// bounded by 1 within a segment.
func (s *Sampler) restart() {
	st, ct := math.Sincos(s.seg)
	for p := range s.curves {
		c := &s.curves[p]
		c.a, c.b = c.vel(st, ct), c.a*st+c.b*ct
	}
}

// finish evaluates the curves at the end of the last segment into s.xnew and applies the
// end-of-trajectory check of §2.6 rule 7: a violation of at most
// 1e−12(1+|x|) is repaired by moving the offending values to their midpoint,
// a larger one rejects. It reports whether the end point is accepted.
func (s *Sampler) finish() bool {
	st, ct := math.Sincos(s.seg)
	lv := s.lv
	x := s.xnew
	// One pass evaluates the curves and checks the order; the repair below
	// is rarely needed.
	ok, prevMax := true, math.Inf(-1)
	for l := 0; l < s.nlev; l++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for p := lv.Start[l]; p < lv.Start[l+1]; p++ {
			v := s.curves[p].pos(st, ct)
			x[p] = v
			lo, hi = min(lo, v), max(hi, v)
		}
		ok = ok && prevMax <= lo
		prevMax = hi
	}
	if ok {
		return true
	}
	for l := 0; l+1 < s.nlev; l++ {
		lo, mid, hi := lv.Start[l], lv.Start[l+1], lv.Start[l+2]
		mx, mn := math.Inf(-1), math.Inf(1)
		for _, v := range x[lo:mid] {
			mx = math.Max(mx, v)
		}
		for _, v := range x[mid:hi] {
			mn = math.Min(mn, v)
		}
		if mx <= mn {
			continue
		}
		if mx-mn > 1e-12*(1+math.Max(math.Abs(mx), math.Abs(mn))) {
			return false
		}
		c := 0.5 * (mx + mn)
		for p := lo; p < mid; p++ {
			x[p] = math.Min(x[p], c)
		}
		for p := mid; p < hi; p++ {
			x[p] = math.Max(x[p], c)
		}
	}
	// The repair may push a value across the previous pair's wall; recheck.
	for l := 0; l+1 < s.nlev; l++ {
		lo, mid, hi := lv.Start[l], lv.Start[l+1], lv.Start[l+2]
		mx, mn := math.Inf(-1), math.Inf(1)
		for _, v := range x[lo:mid] {
			mx = math.Max(mx, v)
		}
		for _, v := range x[mid:hi] {
			mn = math.Min(mn, v)
		}
		if !(mx <= mn) {
			return false
		}
	}
	return true
}

// bounce reflects curves u (top of a level) and v (bottom of the next) at
// time t: both are placed at their midpoint and their velocities swapped.
func (s *Sampler) bounce(u, v int32, st, ct float64) {
	cu, cv := &s.curves[u], &s.curves[v]
	p := 0.5 * (cu.pos(st, ct) + cv.pos(st, ct))
	wu, wv := cu.vel(st, ct), cv.vel(st, ct)
	cu.rebase(p, wv, st, ct)
	cv.rebase(p, wu, st, ct)
	if s.afterBounce != nil {
		s.afterBounce(s)
	}
}

// energy returns Σ(a_i² + b_i²) over the observed curves; bounces conserve it.
func (s *Sampler) energy() float64 {
	e := 0.0
	for _, c := range s.curves {
		e += c.a*c.a + c.b*c.b
	}
	return e
}

func capError(what string, limit int) error {
	return fmt.Errorf("hough: trajectory exceeded the cap of %d %s", limit, what)
}
