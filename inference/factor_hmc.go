package inference

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/copulang/copulang/hough"
)

// jointHMC is the exact HMC step of Kalaitzis & Silva (2013, §5) for one
// column of the copula factor model given the factors η (sampling.md §4.4):
// it moves the loadings row λ_j and the latent column z_j jointly under
//
//	π(λ, z) ∝ N(z; ηλ, I) · N(λ; 0, P⁻¹) · 1{z ∈ D_j},
//
// with the mass matrix equal to the precision, in the whitened coordinates
// u = P^{1/2}λ, ε = z − ηλ, where w = (u, ε) ~ N(0, I_{k+n}) and every
// trajectory is w(t) = ẇ(0) sin t + w(0) cos t between bounces. With
// G = ηP^{-1/2}, z = Gu + ε; the wall between rows a (level ℓ) and b (level
// ℓ+1) has normal f = (G_a − G_b; e_a − e_b), ‖f‖² = ‖G_a − G_b‖² + 2, and a
// bounce is u̇ −= κ(G_a − G_b), ε̇_a −= κ, ε̇_b += κ with
// κ = 2(ż_a − ż_b)/‖f‖².
//
// A bounce changes every row's velocity (by −κG_iᵀ(G_a − G_b)), but only the
// few rows near a level boundary can take part in the next bounce. The step
// therefore moves only a working set of rows per level and certifies that
// the others stay out of the way (sampling.md §4.4):
//
//   - Every row's noise part is kept in absolute time,
//     ε_i(t) = a_i sin t + b_i cos t, and changes only when row i bounces; u
//     and u̇ are kept at the current event time. So any row's exact state
//     z_i = G_iᵀu + ε_i, ż_i = G_iᵀu̇ + ε̇_i costs O(k) when it is wanted.
//   - A window of a level is anchored at a time t_A: its rows' states
//     (x_i, v_i) are computed, and the free curve x_i cos s + v_i sin s
//     (s = t − t_A) would be row i's exact path if no bounce happened.
//     Bounces after t_A move a row outside the working set only through u:
//     z_i(t) = x_i cos s + v_i sin s + G_iᵀδ(t), where δ(t) is u(t) minus
//     u's free path from t_A, tracked exactly (it rotates like u and takes
//     each bounce's kick of u̇).
//   - The window has a budget: a length S and a bound B on ‖δ‖. Within it,
//     row i stays between x_i − v_i⁻S − |x_i|S²/2 − ‖G_i‖B and
//     x_i + v_i⁺S + |x_i|S²/2 + ‖G_i‖B. A row whose upper bound stays below a
//     reference taken from the level's highest row, and whose lower bound
//     stays above the mirror reference from its lowest, is certified by the
//     window; ncHi (ncLo) is the largest upper (smallest lower) bound of the
//     rows it certifies. The others form the working set, split into the
//     rows that may be the level's maximum, the rows that may be its minimum,
//     and the rows that may be either (a row that bounces joins these).
//   - Before each event search every window computes how long its
//     certificate is known to hold from now: until the window ends, until
//     ‖δ(t)‖ ≤ ‖δ‖ + ‖δ̇‖s could reach B, and until the working-set row that
//     is highest (lowest) now, moving at most |v|s + |x|s²/2, could fall to
//     ncHi (rise to ncLo). A window with less than windowRenew mean bounce
//     spacings to run is anchored afresh; the others cap the search horizon.
//     Within the horizon the maximum (minimum) of a level is that of its
//     working set, so the search over working sets finds exactly the event
//     the full scan would: the trajectory is the same.
//   - The rows outside the working set are held in tiers (2 up to 1,500
//     rows, more for more: windowTiersFor) whose windows are windowBounces,
//     windowBounces·windowGrowth, … mean spacings long: a row goes to the deepest tier whose window certifies it, and
//     anchoring a window anchors every window inside it, so rows far from a
//     boundary are recomputed less often. Each tier's B is S times a factor
//     that grows by 10% when B ends the window and shrinks by 3% when S does.
//
// The search over the working sets is the one of the full scan, on fewer
// rows: z_i(t₀+s)/cos s = z_i(t₀) + ż_i(t₀)·K with K = tan s is a straight
// line in K (s < π/2), so the gap between levels ℓ and ℓ+1,
// f_ℓ(K) = max_{i∈ℓ}(z_i + ż_iK) − min_{j∈ℓ+1}(z_j + ż_jK), is convex and
// piecewise linear with f_ℓ(0) ≤ 0, and the next bounce is the first root of
// the smallest f_ℓ:
//   - one pass over the working sets at a trial K (fused with the previous
//     bounce's update) gives f_ℓ(0) and f_ℓ(K) for every ℓ; a pair with
//     f_ℓ(K) ≤ 0 has no root before K, and by convexity a pair's root is at
//     least K·(−f_ℓ(0))/(f_ℓ(K) − f_ℓ(0)), which prunes most of the others;
//   - the root of a pair is found by Newton's method from the right: each
//     step moves to the root of the active pair's line, which never
//     overshoots because every pair's line lies below f_ℓ, and lands exactly
//     on the root after a few passes over the two working sets.
//
// Measured at n = 1000, k = 5, 5 levels (BenchmarkJointHMCColumn and
// callgrind, one core): B ≈ 960 bounces per trajectory; per bounce about
// 126 working-set rows moved and 66 rows recomputed, against 1000 rows moved
// and scanned about three times by the full scan (scanJointHMC in the
// tests); 40k instructions per bounce against 121k, about 1.8× less CPU time
// (the branchier code runs at a lower IPC). The working sets do not grow
// with n, so at n = 10⁴ a bounce costs 7 µs against 62 µs. Issue 14's pass
// over the inner loops (one pass per row in moveLevel, no rescans after a
// bounce, five-column blocks, fewer bounds checks, window norms kept) took
// the same column from 43.7k to about 36k instructions per bounce
// (callgrind, 21 trajectories, 843.7 M -> 670.0 M with a renewal at one
// spacing that saved another 3.6% but moved trajectories by rounding and
// was reverted, so about 695 M), with about 134 working-set rows moved and
// 66 recomputed per bounce. Re-measured the same way on this code:
// jointHMC.step's 22 calls in the timed loops (b.N = 1, then 21) take
// 665.8 M instructions, 33.0k per bounce at 918 bounces per trajectory,
// with 127 working-set rows moved and 66 recomputed per bounce.
//
// The drift term ‖G_i‖B is most of a row's band (about five times |v_i|S),
// yet no bound fixed before a window is much tighter
// (BenchmarkJointHMCDriftBound, sampling.md §4.4): the kicks are
// κ(G_a − G_b), so δ lies where G's rows lie, and ‖G_i‖‖δ‖ overstates
// |G_iᵀδ| only through the angle between G_i and δ, which is random and
// unknown when the window is anchored. Over windows of 8 spacings the
// realized max |G_iᵀδ| is 0.40 of ‖G_i‖·max ‖δ‖ on average, and
// per-coordinate bounds Σ_m |g_im|·max |δ_m| (in u's axes or G's principal
// axes) 0.73–0.74; with budgets fixed in advance, as a window needs, one
// budget per coordinate gives a 7% smaller bound but ends windows 14%
// sooner.
// Tried in this step, per-coordinate budgets moved 121 rather than 127
// working-set rows and recomputed 78 rather than 66 per bounce (and cost
// 1074 M against 724 M instructions for the benchmark's 24 trajectories,
// partly a quick per-row sum over k; the row counts decide); it was
// reverted. Any change of the certificates also moves the horizons,
// hence where the path is split, hence the end state by rounding.
//
// Rows sit in slots in level order (level ℓ is slots start[ℓ]:start[ℓ+1],
// missing rows last); within a level the working set comes first, in slots
// start[ℓ]:cend[ℓ], then the tiers. A jointHMC is not safe for concurrent
// use; step does not allocate.
type jointHMC struct {
	lv      *hough.Levels
	n, k, L int
	nObs    int
	start   []int32 // level ℓ is slots start[ℓ]:start[ℓ+1]
	cend    []int32 // level ℓ's working set is slots start[ℓ]:cend[ℓ], of which
	botS    []int32 // the rows that may be its minimum are botS[ℓ]:cend[ℓ]
	topE    []int32 // and those that may be its maximum are start[ℓ]:topE[ℓ]
	levelOf []int32 // level of each observed slot

	// By slot.
	row    []int32   // the data row in the slot
	gt     []float64 // k×n column-major: gt[c*n+s] = G_{row[s],c} = η_{row[s],c}/√P_c
	dv     []float64 // velocity change of a bounce, by slot
	gnorm  []float64 // ‖G_s‖
	ea, eb []float64 // ε_s(t) = ea[s]·sin t + eb[s]·cos t, t from the trajectory's start
	x, v   []float64 // z and ż at t in the working sets; scratch elsewhere
	upb    []float64 // scratch: bounds of an anchor
	lob    []float64
	cls    []uint8 // scratch: the rows' classes at an anchor

	t     float64   // current event time
	u, ud []float64 // u and u̇ at t
	sq    []float64 // √P
	dg    []float64 // G_a − G_b, then κ(G_a − G_b)
	ed    []float64 // ε̇(0) by data row (velocity draw)

	// Per level: at the trial K of the last scan, the maximum and minimum of
	// z + żK over the working set with their slots; the maximum and minimum
	// of z with their slots.
	hiVal, loVal, hi0, lo0       []float64
	hiArg, loArg, hi0Arg, lo0Arg []int32
	// Per level and tier j = 1..tiers: the window
	// win[l*tiers+j-1] certifies the rows in slots
	// tierEnd(l, j-1):tierEnd(l, j), where tierEnd(l, 0) is cend[l] and
	// tierEnd(l, tiers) is start[l+1].
	win  []levelWindow
	winU []float64 // backing of the windows' δ and δ̇, 2k per window
	tEnd []int32   // tEnd[l*tiers+j-1] = tierEnd(l, j)

	maxBounces int
	kGuess     float64                 // trial K for the next event search, adapted to the event rate
	tiers      int                     // windows per level (windowTiersFor)
	beta       [maxWindowTiers]float64 // each tier's bound on ‖δ‖ per unit of window length, adapted

	// normExtra is the 2 in ‖f‖² = ‖G_a − G_b‖² + 2. It is 2 except in tests
	// that plant a bug to check that the Geweke test catches it.
	normExtra float64

	anchors, anchoredRows, workingRows int // counters for benchmarks
}

// levelWindow is the certificate of the rows of one tier of a level (see
// jointHMC).
type levelWindow struct {
	partial    bool    // the window certifies some rows
	t          float64 // anchor time
	smax, bmax float64 // budget: window length and bound on ‖δ‖
	ncHi, ncLo float64 // every excluded row stays below ncHi and above ncLo
	du, dud    []float64
	du2, dud2  float64 // ‖δ‖² and ‖δ̇‖², summed where δ and δ̇ change
}

// The tiers' windows: the first is windowBounces mean bounce spacings long,
// each further one windowGrowth times longer; a window is anchored afresh
// when it has less than windowRenew mean spacings to run. An anchor takes as
// reference the level's highest row lowered by windowReference of its own
// worst-case fall over the window (a heuristic: any reference gives a valid
// certificate). Chosen by instruction counts at n = 1000, k = 5, 5 levels,
// where the cost is flat within about 5% for 5–12 spacings, growth 3–4 and
// reference 0.15–0.5.
const (
	maxWindowTiers  = 6
	windowBounces   = 8
	windowGrowth    = 3
	windowRenew     = 0.5
	windowReference = 0.25
)

// windowTiersFor returns the number of tiers of a column of n rows: 2 up to
// 4,500 rows, one more for every factor of windowGrowth beyond, at most
// maxWindowTiers. A level's deepest tier holds most of its rows and is
// anchored about once per windowBounces·windowGrowth^(tiers−1) mean bounce
// spacings, so with a fixed number of tiers the rows anchored per bounce
// grow like n: with 2 tiers, 5 levels and k = 2, 106, 465 and 1,358 at
// n = 2,000, 10⁴ and 3·10⁴, and 3.3, 5.3 and 15 µs of CPU per bounce. More
// tiers anchor fewer rows (68, 108 and 130 with one per factor of 3 from
// 1,500 rows) but each tier's horizon is checked before every event search,
// which costs 3–10% more per bounce below about 5,000 rows (sampling.md
// §4.4).
func windowTiersFor(n int) int {
	t := 2
	for m := 4500.0; float64(n) > m && t < maxWindowTiers; m *= windowGrowth {
		t++
	}
	return t
}

// jointScratch is the O(n·k) memory a joint step uses only while it runs:
// every slice that jointHMC marks as by slot, except the slots' rows and
// levels, which carry over between steps. Columns stepped one after another
// share one (jointHMC.use), so a chain holds one per worker instead of one
// per column: at n = 10⁵ and k = 3 a scratch is about 10 MB.
type jointScratch struct {
	n, k                                  int
	gt, dv, gnorm, ea, eb, x, v, upb, lob []float64
	ed                                    []float64
	cls                                   []uint8
}

// newJointScratch returns the scratch memory of joint steps on n rows with k
// factors.
func newJointScratch(n, k int) *jointScratch {
	return &jointScratch{
		n: n, k: k,
		gt:    make([]float64, n*k),
		dv:    make([]float64, n),
		gnorm: make([]float64, n),
		ea:    make([]float64, n),
		eb:    make([]float64, n),
		x:     make([]float64, n),
		v:     make([]float64, n),
		upb:   make([]float64, n),
		lob:   make([]float64, n),
		ed:    make([]float64, n),
		cls:   make([]uint8, n),
	}
}

// newJointHMC returns the joint step's workspace for a column with levels lv
// and k factors, running in the scratch memory sc (of lv.N rows and k
// factors), or in its own if sc is nil.
func newJointHMC(lv *hough.Levels, k int, sc *jointScratch) *jointHMC {
	n := lv.N
	h := &jointHMC{
		n: n, k: k,
		levelOf: make([]int32, n),
		row:     make([]int32, n),
		u:       make([]float64, k),
		ud:      make([]float64, k),
		sq:      make([]float64, k),
		dg:      make([]float64, k),

		maxBounces: 1000*n + 1000,
		normExtra:  2,
	}
	h.tiers = windowTiersFor(n)
	for i := range h.beta {
		h.beta[i] = 2.5
	}
	if sc == nil {
		sc = newJointScratch(n, k)
	}
	h.use(sc)
	h.setLevels(lv)
	return h
}

// use makes h's next steps run in the scratch memory sc, which must be for
// h's numbers of rows and factors. A step leaves nothing in its scratch that
// the next step reads.
func (h *jointHMC) use(sc *jointScratch) {
	if sc.n != h.n || sc.k != h.k {
		panic(fmt.Sprintf("inference: jointHMC.use: scratch for %d rows and %d factors, want %d and %d", sc.n, sc.k, h.n, h.k))
	}
	h.gt, h.dv, h.gnorm, h.ea, h.eb = sc.gt, sc.dv, sc.gnorm, sc.ea, sc.eb
	h.x, h.v, h.upb, h.lob, h.ed, h.cls = sc.x, sc.v, sc.upb, sc.lob, sc.ed, sc.cls
}

// setLevels points the workspace at new levels of the same number of rows.
// It allocates only if the number of levels (or of tiers) grows.
func (h *jointHMC) setLevels(lv *hough.Levels) {
	if lv.N != h.n {
		panic(fmt.Sprintf("inference: jointHMC.setLevels: %d rows, want %d", lv.N, h.n))
	}
	h.lv = lv
	h.L = lv.NumLevels()
	h.nObs = len(lv.Order)
	copy(h.row, lv.Order)
	copy(h.row[h.nObs:], lv.Missing)
	L := h.L
	if cap(h.start) < L+1 {
		h.start = make([]int32, L+1)
		h.cend = make([]int32, L)
		h.botS, h.topE = make([]int32, L), make([]int32, L)
		h.hiVal, h.loVal = make([]float64, L), make([]float64, L)
		h.hi0, h.lo0 = make([]float64, L), make([]float64, L)
		h.hiArg, h.loArg = make([]int32, L), make([]int32, L)
		h.hi0Arg, h.lo0Arg = make([]int32, L), make([]int32, L)
	}
	if cap(h.win) < L*h.tiers {
		h.win = make([]levelWindow, L*h.tiers)
		h.winU = make([]float64, 2*L*h.tiers*h.k)
		h.tEnd = make([]int32, L*h.tiers)
	}
	h.start = h.start[:L+1]
	copy(h.start, lv.Start)
	h.cend, h.botS, h.topE = h.cend[:L], h.botS[:L], h.topE[:L]
	h.hiVal, h.loVal, h.hi0, h.lo0 = h.hiVal[:L], h.loVal[:L], h.hi0[:L], h.lo0[:L]
	h.hiArg, h.loArg, h.hi0Arg, h.lo0Arg = h.hiArg[:L], h.loArg[:L], h.hi0Arg[:L], h.lo0Arg[:L]
	h.win, h.tEnd = h.win[:L*h.tiers], h.tEnd[:L*h.tiers]
	k := h.k
	for w := range h.win {
		h.win[w].du = h.winU[2*w*k : 2*w*k+k : 2*w*k+k]
		h.win[w].dud = h.winU[2*w*k+k : 2*w*k+2*k : 2*w*k+2*k]
	}
	for l := 0; l < L; l++ {
		for j := 0; j < h.tiers; j++ {
			h.tEnd[l*h.tiers+j] = h.start[l+1]
		}
		for s := h.start[l]; s < h.start[l+1]; s++ {
			h.levelOf[s] = int32(l)
		}
	}
	h.kGuess = 0
}

// firstGuess is the trial K of a column's first trajectory: about (L−1)·n
// bounces per trajectory (sampling.md §9) spread over π/2.
func (h *jointHMC) firstGuess() float64 { return 4 / float64(1+(h.L-1)*h.nObs) }

// errJointInfeasible reports a column that violates its order constraints at
// the start of a joint step.
var errJointInfeasible = errors.New("latent column violates its order constraints")

// step replaces (lam, z) by the end point of one exact HMC trajectory of
// travel time T for the target above, with prior precision diag(prec) for λ
// and factors eta (n×k, row-major), drawing the whitened velocity
// (u̇, ε̇) ~ N(0, I) from rng (u̇ first, then ε̇ in row order). On error, or if
// the end-of-trajectory check rejects the trajectory (Stats.Rejections = 1),
// lam and z are left unchanged.
func (h *jointHMC) step(rng *rand.Rand, z, lam, eta, prec []float64, T float64) (hough.Stats, error) {
	for c := range h.ud {
		h.ud[c] = rng.NormFloat64()
	}
	for i := range h.ed {
		h.ed[i] = rng.NormFloat64()
	}
	return h.stepWith(z, lam, eta, prec, T, h.ud, h.ed)
}

// stepWith is step with the initial whitened velocity given: u̇(0) = ud0
// (len k) and ε̇(0) = ed0 (len n, by data row). ud0 may alias h.ud.
func (h *jointHMC) stepWith(z, lam, eta, prec []float64, T float64, ud0, ed0 []float64) (hough.Stats, error) {
	var st hough.Stats
	k := h.k
	if T == 0 {
		T = math.Pi / 2
	}
	for c := 0; c < k; c++ {
		if !(prec[c] > 0) || math.IsInf(prec[c], 0) {
			return st, fmt.Errorf("prior precision of loading %d is %v", c+1, prec[c])
		}
		h.sq[c] = math.Sqrt(prec[c])
		h.u[c] = lam[c] * h.sq[c]
		h.ud[c] = ud0[c]
	}
	n := h.n
	for s, i := range h.row {
		er := eta[int(i)*k : int(i)*k+k]
		zg, vg, q := 0.0, 0.0, 0.0
		for c, e := range er {
			gc := e / h.sq[c]
			h.gt[c*n+s] = gc
			zg += gc * h.u[c]
			vg += gc * h.ud[c]
			q += gc * gc
		}
		h.gnorm[s] = math.Sqrt(q)
		h.x[s] = z[i]
		h.v[s] = vg + ed0[i]
		h.ea[s] = ed0[i]
		h.eb[s] = z[i] - zg
		if math.IsNaN(h.x[s]) || math.IsInf(h.x[s], 0) || math.IsNaN(h.v[s]) || math.IsInf(h.v[s], 0) {
			return st, fmt.Errorf("non-finite latent value or velocity at row %d", i+1)
		}
	}
	if l, amt, _, _ := h.violation(); l >= 0 {
		return st, fmt.Errorf("%w: level %d exceeds level %d by %g", errJointInfeasible, l+1, l+2, amt)
	}
	if h.kGuess == 0 {
		h.kGuess = h.firstGuess()
	}
	h.t = 0
	for l := 0; l < h.L; l++ {
		// Every row's state is at hand: all are in the working set.
		h.botS[l], h.topE[l], h.cend[l] = h.start[l], h.start[l+1], h.start[l+1]
		h.scanLevel(l, 0)
		h.anchor(l, h.tiers)
		st.Events++
	}
	h.levelExtremes(0)
	remaining := T
	lastBounce := 0.0
	scanned := -1.0 // the trial K of a fused scan of the current state, if any
	// Every pass of the loop ends at a bounce or moves time on to a window's
	// horizon; a pathological trial K (a damaged saved state, say) could
	// make the horizons crawl, so passes are capped like bounces.
	for passes := 0; remaining > 0; passes++ {
		if passes > 10*h.maxBounces {
			return st, fmt.Errorf("joint HMC trajectory exceeded %d passes of its event search", 10*h.maxBounces)
		}
		win := math.Min(remaining, 1)
		hmin := windowRenew * 0.5 * h.kGuess
		for l := 0; l < h.L; l++ {
			var hz [maxWindowTiers]float64
			var lim [maxWindowTiers]windowLimit
			renew := 0 // the deepest window that runs out
			for j := 0; j < h.tiers; j++ {
				hz[j] = math.Inf(1)
				if w := &h.win[l*h.tiers+j]; w.partial {
					if hz[j], lim[j] = h.horizon(l, w); hz[j] < hmin {
						renew = j + 1
					}
				}
			}
			if renew > 0 {
				// Balance the window's two budgets: stretch the bound on
				// ‖δ‖ when it ends the window, shrink it slowly when the
				// length does.
				switch lim[renew-1] {
				case limitDrift:
					h.beta[renew-1] *= 1.1
				case limitLength:
					h.beta[renew-1] *= 0.97
				}
				// It is anchored afresh with every window inside it.
				h.anchor(l, renew)
				st.Events++
				h.scanLevel(l, math.Max(scanned, 0))
				for j := 0; j < renew; j++ {
					hz[j] = math.Inf(1)
					if w := &h.win[l*h.tiers+j]; w.partial {
						hz[j], _ = h.horizon(l, w)
					}
				}
			}
			for j := 0; j < h.tiers; j++ {
				win = min(win, hz[j])
			}
		}
		kw := math.Tan(win)
		kStar, a, b, ev, err := h.nextEvent(kw, scanned)
		st.Events += ev
		if errors.Is(err, errJointLost) {
			st.Rejections = 1
			return st, nil
		}
		if err != nil {
			return st, err
		}
		if a < 0 {
			h.t += win
			remaining -= win
			scanned = math.Min(h.kGuess, math.Tan(math.Min(remaining, 1)))
			h.rotate(math.Cos(win), math.Sin(win), scanned)
			continue
		}
		s := math.Atan(kStar)
		if s >= remaining {
			// Rounding put the event at or past the horizon.
			h.rotate(math.Cos(remaining), math.Sin(remaining), 0)
			h.t += remaining
			break
		}
		remaining -= s
		h.t += s
		st.Bounces++
		st.Events++
		if st.Bounces > h.maxBounces {
			return st, fmt.Errorf("joint HMC trajectory exceeded %d bounces", h.maxBounces)
		}
		// The guess follows the time between bounces (horizons may split it).
		h.kGuess = 0.8*h.kGuess + 0.2*2*math.Max(h.t-lastBounce, 1e-3*h.kGuess)
		lastBounce = h.t
		scanned = math.Min(h.kGuess, math.Tan(math.Min(remaining, 1)))
		c := 1 / math.Sqrt(1+kStar*kStar)
		h.bounce(c, kStar*c, a, b, scanned)
	}
	h.finalState()
	if !h.endCheck() {
		st.Rejections = 1
		return st, nil
	}
	for s, i := range h.row {
		z[i] = h.x[s]
	}
	for c := 0; c < k; c++ {
		lam[c] = h.u[c] / h.sq[c]
	}
	return st, nil
}

// tierEnd returns the end of tier j of level l (0: of the working set).
func (h *jointHMC) tierEnd(l, j int) int {
	if j == 0 {
		return int(h.cend[l])
	}
	return int(h.tEnd[l*h.tiers+j-1])
}

// anchor anchors the windows 1..i of level l at the current time (see
// jointHMC): it takes the state at t of every row in the working set and in
// tiers 1..i, from x and v for the working set and from G, u and ε for the
// others; puts each row in the deepest tier whose window certifies it, or in
// the working set; and orders the slots by tier. The level's extremes must be
// scanned afterwards.
func (h *jointHMC) anchor(l, i int) {
	s0, s1 := int(h.start[l]), h.tierEnd(l, i)
	if ce := int(h.cend[l]); ce < s1 {
		h.freeState(ce, s1, true)
		h.anchoredRows += s1 - ce
		h.anchors++
	}
	// Each window j takes as reference the level's highest row now, lowered
	// by windowReference of its worst-case fall over the window, and the
	// mirror image; a row whose bounds stay clear of both references is
	// certified by the window, the others are needed. (Any reference gives a
	// valid certificate: horizon checks it against the rows as they move.)
	var S, B, c2, refHi, refLo, ncHi, ncLo [maxWindowTiers]float64
	hasUp, hasLo := l+1 < h.L, l > 0
	x, v, gnorm := h.x[:s1], h.v[:s1], h.gnorm[:s1]
	a, b := int(h.hi0Arg[l]), int(h.lo0Arg[l])
	scale := windowBounces * 0.5 * h.kGuess
	for j := range i {
		S[j] = scale
		B[j] = h.beta[j] * scale
		c2[j] = 0.5*scale*scale + 1e-12
		scale *= windowGrowth
		refHi[j], refLo[j] = math.Inf(1), math.Inf(-1)
		if hasUp {
			refHi[j] = x[a] - windowReference*(math.Abs(x[a])*c2[j]+gnorm[a]*B[j]-min(v[a], 0)*S[j])
		}
		if hasLo {
			refLo[j] = x[b] + windowReference*(math.Abs(x[b])*c2[j]+gnorm[b]*B[j]+max(v[b], 0)*S[j])
		}
		ncHi[j], ncLo[j] = math.Inf(-1), math.Inf(1)
	}
	// Classes: 0 may be the maximum only, 1 either, 2 the minimum only (the
	// working set); 2+j in tier j.
	var count [3 + maxWindowTiers]int
	cls := h.cls[s0:s1]
	xs, vs, gs := x[s0:s1][:len(cls)], v[s0:s1][:len(cls)], gnorm[s0:s1][:len(cls)]
	// The first tier's budget in registers: every row is tested against it
	// unless a deeper tier certifies it.
	S0, B0, c20, refHi0, refLo0 := S[0], B[0], c2[0], refHi[0], refLo[0]
	ncHi0, ncLo0 := ncHi[0], ncLo[0]
rows:
	for r, xr := range xs {
		vr, g := vs[r], gs[r]
		ax, av := math.Abs(xr), math.Abs(vr)
		vp, vm := 0.5*(av+vr), 0.5*(vr-av)
		for j := i - 1; j > 0; j-- {
			d := ax*c2[j] + 1e-12 + g*B[j]
			up, lo := xr+d+vp*S[j], xr-d+vm*S[j]
			top, bot := up >= refHi[j], lo <= refLo[j]
			if !top && !bot {
				cls[r] = uint8(3 + j)
				count[3+j]++
				if up > ncHi[j] {
					ncHi[j] = up
				}
				if lo < ncLo[j] {
					ncLo[j] = lo
				}
				continue rows
			}
		}
		d := ax*c20 + 1e-12 + g*B0
		up, lo := xr+d+vp*S0, xr-d+vm*S0
		top, bot := up >= refHi0, lo <= refLo0
		c := uint8(1)
		switch {
		case !top && !bot:
			c = 3
			if up > ncHi0 {
				ncHi0 = up
			}
			if lo < ncLo0 {
				ncLo0 = lo
			}
		case !bot:
			c = 0
			if lo < ncLo0 {
				ncLo0 = lo
			}
		case !top:
			c = 2
			if up > ncHi0 {
				ncHi0 = up
			}
		}
		cls[r] = c
		count[c]++
	}
	ncHi[0], ncLo[0] = ncHi0, ncLo0
	for j := range i {
		if !hasUp {
			ncHi[j] = math.Inf(-1)
		}
		if !hasLo {
			ncLo[j] = math.Inf(1)
		}
	}
	var bound [3 + maxWindowTiers]int // where each class begins
	bound[0] = s0
	for c := 1; c < 3+i; c++ {
		bound[c] = bound[c-1] + count[c-1]
	}
	h.sortClasses(bound[:3+i], s1)
	h.cend[l], h.botS[l], h.topE[l] = int32(bound[3]), int32(bound[1]), int32(bound[2])
	for j := range i {
		h.tEnd[l*h.tiers+j] = int32(s1)
		if j+1 < i {
			h.tEnd[l*h.tiers+j] = int32(bound[4+j])
		}
		w := &h.win[l*h.tiers+j]
		w.partial = ncHi[j] > math.Inf(-1) || ncLo[j] < math.Inf(1)
		w.t = h.t
		w.smax, w.bmax = S[j], B[j]
		w.ncHi, w.ncLo = ncHi[j], ncLo[j]
		clear(w.du)
		clear(w.dud)
		w.du2, w.dud2 = 0, 0
	}
}

// sortClasses orders the slots from bound[0] to s1 by cls, class c to begin
// at bound[c]: it swaps each misplaced row into the region of its class.
func (h *jointHMC) sortClasses(bound []int, s1 int) {
	var next [3 + maxWindowTiers]int
	copy(next[:], bound)
	nc := len(bound)
	for c := 0; c+1 < nc; c++ {
		for s := next[c]; s < bound[c+1]; s = next[c] {
			d := int(h.cls[s])
			if d == c {
				next[c]++
				continue
			}
			// Swap the row into its class's region, past the rows of that
			// class already in place.
			for int(h.cls[next[d]]) == d {
				next[d]++
			}
			h.swapSlots(s, next[d])
			next[d]++
		}
	}
}

// swapSlots exchanges the rows in slots i and j.
func (h *jointHMC) swapSlots(i, j int) {
	k := h.k
	h.row[i], h.row[j] = h.row[j], h.row[i]
	h.gnorm[i], h.gnorm[j] = h.gnorm[j], h.gnorm[i]
	h.ea[i], h.ea[j] = h.ea[j], h.ea[i]
	h.eb[i], h.eb[j] = h.eb[j], h.eb[i]
	h.x[i], h.x[j] = h.x[j], h.x[i]
	h.v[i], h.v[j] = h.v[j], h.v[i]
	h.cls[i], h.cls[j] = h.cls[j], h.cls[i]
	for c := 0; c < k; c++ {
		gi, gj := &h.gt[c*h.n+i], &h.gt[c*h.n+j]
		*gi, *gj = *gj, *gi
	}
}

// freeState sets x (and v if vel) of slots s0:s1 to their state at the
// current time from G, u and ε. The noise and the first block of columns
// are taken in one pass, and five columns left make one block, not four and
// one (the same sums in the same order).
func (h *jointHMC) freeState(s0, s1 int, vel bool) {
	if s0 >= s1 {
		return
	}
	sn, cs := math.Sincos(h.t)
	x, v, ea, eb := h.x[s0:s1], h.v[s0:s1], h.ea[s0:s1], h.eb[s0:s1]
	m := len(x)
	v, ea, eb = v[:len(x)], ea[:len(x)], eb[:len(x)]
	n, k := h.n, h.k
	col := func(c int) []float64 { return h.gt[c*n+s0 : c*n+s0+m : c*n+s0+m][:len(x)] }
	c := 0
	for first := true; c+4 <= k; first = false {
		g0, g1, g2, g3 := col(c), col(c+1), col(c+2), col(c+3)
		u0, u1, u2, u3 := h.u[c], h.u[c+1], h.u[c+2], h.u[c+3]
		w0, w1, w2, w3 := h.ud[c], h.ud[c+1], h.ud[c+2], h.ud[c+3]
		if k-c == 5 {
			g4 := col(c + 4)
			u4, w4 := h.u[c+4], h.ud[c+4]
			c += 5
			switch {
			case first && vel:
				for r := range x {
					a0, a1, a2, a3, a4 := g0[r], g1[r], g2[r], g3[r], g4[r]
					x[r] = ea[r]*sn + eb[r]*cs + (a0*u0 + a1*u1 + a2*u2 + a3*u3) + a4*u4
					v[r] = ea[r]*cs - eb[r]*sn + (a0*w0 + a1*w1 + a2*w2 + a3*w3) + a4*w4
				}
			case first:
				for r := range x {
					x[r] = ea[r]*sn + eb[r]*cs + (g0[r]*u0 + g1[r]*u1 + g2[r]*u2 + g3[r]*u3) + g4[r]*u4
				}
			case vel:
				for r := range x {
					a0, a1, a2, a3, a4 := g0[r], g1[r], g2[r], g3[r], g4[r]
					x[r] = x[r] + (a0*u0 + a1*u1 + a2*u2 + a3*u3) + a4*u4
					v[r] = v[r] + (a0*w0 + a1*w1 + a2*w2 + a3*w3) + a4*w4
				}
			default:
				for r := range x {
					x[r] = x[r] + (g0[r]*u0 + g1[r]*u1 + g2[r]*u2 + g3[r]*u3) + g4[r]*u4
				}
			}
			continue
		}
		c += 4
		switch {
		case first && vel:
			for r := range x {
				a0, a1, a2, a3 := g0[r], g1[r], g2[r], g3[r]
				x[r] = ea[r]*sn + eb[r]*cs + (a0*u0 + a1*u1 + a2*u2 + a3*u3)
				v[r] = ea[r]*cs - eb[r]*sn + (a0*w0 + a1*w1 + a2*w2 + a3*w3)
			}
		case first:
			for r := range x {
				x[r] = ea[r]*sn + eb[r]*cs + (g0[r]*u0 + g1[r]*u1 + g2[r]*u2 + g3[r]*u3)
			}
		case vel:
			for r := range x {
				a0, a1, a2, a3 := g0[r], g1[r], g2[r], g3[r]
				x[r] += a0*u0 + a1*u1 + a2*u2 + a3*u3
				v[r] += a0*w0 + a1*w1 + a2*w2 + a3*w3
			}
		default:
			for r := range x {
				x[r] += g0[r]*u0 + g1[r]*u1 + g2[r]*u2 + g3[r]*u3
			}
		}
	}
	if c == 0 {
		// Fewer than four columns: the noise first.
		for i := range x {
			x[i] = ea[i]*sn + eb[i]*cs
		}
		if vel {
			for i := range v {
				v[i] = ea[i]*cs - eb[i]*sn
			}
		}
	}
	for ; c < k; c++ {
		g0 := col(c)
		u0, w0 := h.u[c], h.ud[c]
		if !vel {
			for r, a0 := range g0 {
				x[r] += a0 * u0
			}
			continue
		}
		for r, a0 := range g0 {
			x[r] += a0 * u0
			v[r] += a0 * w0
		}
	}
}

// horizon returns how long from now the certificate w of level l is known
// to hold (see jointHMC), ≤ 0 if it has run out, and which limit binds.
func (h *jointHMC) horizon(l int, w *levelWindow) (float64, windowLimit) {
	hz, lim := w.smax-(h.t-w.t), limitLength
	du, dud := math.Sqrt(w.du2), math.Sqrt(w.dud2)
	if du >= w.bmax {
		return 0, limitDrift
	}
	if dud > 0 {
		if t := (w.bmax - du) / dud; t < hz {
			hz, lim = t, limitDrift
		}
	}
	if w.ncHi > math.Inf(-1) {
		c := h.hi0Arg[l]
		m := h.x[c] - w.ncHi
		if !(m > 0) {
			return 0, limitMargin
		}
		if t := driftTime(m, math.Abs(h.v[c]), math.Abs(h.x[c])); t < hz {
			hz, lim = t, limitMargin
		}
	}
	if w.ncLo < math.Inf(1) {
		c := h.lo0Arg[l]
		m := w.ncLo - h.x[c]
		if !(m > 0) {
			return 0, limitMargin
		}
		if t := driftTime(m, math.Abs(h.v[c]), math.Abs(h.x[c])); t < hz {
			hz, lim = t, limitMargin
		}
	}
	return hz, lim
}

// windowLimit is what ends a window: its length, the bound on ‖δ‖, or the
// margin of its rows.
type windowLimit int

const (
	limitLength windowLimit = iota
	limitDrift
	limitMargin
)

// driftTime returns the time s > 0 at which |v|s + |x|s²/2 = m: a curve
// x cos s + v sin s moves by less than m before it.
func driftTime(m, av, ax float64) float64 {
	return 2 * m / (av + math.Sqrt(av*av+2*ax*m))
}

// rotate advances the working sets and u by the angle s with cos s = c,
// sin s = sn, and scans every level at K.
func (h *jointHMC) rotate(c, sn, K float64) {
	for i, ui := range h.u {
		vi := h.ud[i]
		h.u[i] = ui*c + vi*sn
		h.ud[i] = vi*c - ui*sn
	}
	h.rotateWindows(c, sn)
	for l := 0; l < h.L; l++ {
		s, e := int(h.start[l]), int(h.cend[l])
		xs, vs := h.x[s:e], h.v[s:e]
		vs = vs[:len(xs)]
		for r, xr := range xs {
			vr := vs[r]
			xs[r], vs[r] = xr*c+vr*sn, vr*c-xr*sn
		}
		h.scanLevel(l, K)
	}
}

// rotateWindows advances every partial level's δ and δ̇ by the angle s.
func (h *jointHMC) rotateWindows(c, sn float64) {
	for l := range h.win {
		w := &h.win[l]
		if !w.partial {
			continue
		}
		du, dud := w.du, w.dud[:len(w.du)]
		du2, dud2 := 0.0, 0.0
		for i, d := range du {
			dd := dud[i]
			d, dd = d*c+dd*sn, dd*c-d*sn
			du[i], dud[i] = d, dd
			du2 += d * d
			dud2 += dd * dd
		}
		w.du2, w.dud2 = du2, dud2
	}
}

// bounce advances every working-set curve by the angle s (cos s = c,
// sin s = sn) to the contact of slots a and b, reflects the velocity off
// their wall, and scans the new lines at the trial K as levelExtremes does.
func (h *jointHMC) bounce(c, sn float64, a, b int, K float64) {
	k := h.k
	va, vb := h.v[a]*c-h.x[a]*sn, h.v[b]*c-h.x[b]*sn
	n := h.n
	nf := h.normExtra
	dg := h.dg[:k]
	for i := range dg {
		d := h.gt[i*n+a] - h.gt[i*n+b]
		dg[i] = d
		nf += d * d
	}
	kappa := 2 * (va - vb) / nf
	for i, ui := range h.u {
		vi := h.ud[i]
		h.u[i] = ui*c + vi*sn
		h.ud[i] = vi*c - ui*sn - kappa*dg[i]
	}
	// Rotate every window's δ and δ̇ and give δ̇ the kick, in one pass.
	for l := range h.win {
		w := &h.win[l]
		if !w.partial {
			continue
		}
		du, dud := w.du[:k], w.dud[:k]
		du2, dud2 := 0.0, 0.0
		for i, d := range du {
			dd := dud[i]
			d, dd = d*c+dd*sn, dd*c-d*sn-kappa*dg[i]
			du[i], dud[i] = d, dd
			du2 += d * d
			dud2 += dd * dd
		}
		w.du2, w.dud2 = du2, dud2
	}
	for i := range dg {
		dg[i] *= kappa
	}
	for l := 0; l < h.L; l++ {
		s, e := int(h.start[l]), int(h.cend[l])
		h.workingRows += e - s
		dv := h.dv[s:e]
		for c0 := 0; c0 < k; c0 += axpyWidth(k - c0) {
			axpyColumns(dv, h.gt, dg, c0, n, s, c0 == 0)
		}
		skipHi, skipLo := -1, -1
		if l == int(h.levelOf[a]) {
			skipHi = a
		} else if l == int(h.levelOf[b]) {
			skipLo = b
		}
		h.moveLevel(l, c, sn, K, skipHi, skipLo)
	}
	x, v := h.x, h.v
	// Both rows end exactly on the wall (moving them to the midpoint changes
	// a position by rounding only), and the reflection also moves ε̇_a and
	// ε̇_b: patch them and their noise in absolute time.
	mid := 0.5 * (x[a] + x[b])
	st, ct := math.Sincos(h.t)
	h.shiftNoise(a, mid-x[a], -kappa, st, ct)
	h.shiftNoise(b, mid-x[b], kappa, st, ct)
	x[a], x[b] = mid, mid
	v[a] -= kappa
	v[b] += kappa
	// a may now be its level's minimum and b its level's maximum: they join
	// the rows that may be. moveLevel left a out of its level's maximum and
	// b out of its level's minimum: the scans now take their new lines.
	la, lb := int(h.levelOf[a]), int(h.levelOf[b])
	if a < int(h.botS[la]) {
		h.botS[la]--
		p := int(h.botS[la])
		h.swapSlots(a, p)
		h.fixArgs(la, a, p)
		a = p
	}
	if b >= int(h.topE[lb]) {
		p := int(h.topE[lb])
		h.swapSlots(b, p)
		h.fixArgs(lb, b, p)
		h.topE[lb]++
		b = p
	}
	h.noteTop(la, a, K)
	h.noteBottom(la, a, K)
	h.noteBottom(lb, b, K)
	h.noteTop(lb, b, K)
}

// fixArgs renames position p to q and q to p in level l's scan after the
// rows there were swapped.
func (h *jointHMC) fixArgs(l, p, q int) {
	for _, arg := range []*int32{&h.hiArg[l], &h.loArg[l], &h.hi0Arg[l], &h.lo0Arg[l]} {
		switch int(*arg) {
		case p:
			*arg = int32(q)
		case q:
			*arg = int32(p)
		}
	}
}

// moveLevel advances level l's working set by the angle s (cos s = c,
// sin s = sn), less the velocity change in dv, and scans it at K as
// scanLevel does. It visits each row once: the rows that may be the maximum
// only (start:botS), those that may be either (botS:topE), and those that
// may be the minimum only (topE:cend). The maximum leaves out slot skipHi
// and the minimum slot skipLo (−1: none).
func (h *jointHMC) moveLevel(l int, c, sn, K float64, skipHi, skipLo int) {
	s, bs, te, e := int(h.start[l]), int(h.botS[l]), int(h.topE[l]), int(h.cend[l])
	hi, hi0 := math.Inf(-1), math.Inf(-1)
	i, i0 := s, s
	lo, lo0 := math.Inf(1), math.Inf(1)
	j, j0 := bs, bs
	x, v, dv := h.x[:e], h.v[:e], h.dv[:e]
	// The maximum only.
	xs := x[s:bs]
	vs, dvs := v[s:bs][:len(xs)], dv[s:bs][:len(xs)]
	for r, xr := range xs {
		vr := vs[r]
		xr, vr = xr*c+vr*sn, vr*c-xr*sn-dvs[r]
		xs[r], vs[r] = xr, vr
		y := xr + vr*K
		if (y > hi || (y == hi && vr < v[i])) && s+r != skipHi {
			hi, i = y, s+r
		}
		if xr > hi0 && s+r != skipHi {
			hi0, i0 = xr, s+r
		}
	}
	// Either.
	xs = x[bs:te]
	vs, dvs = v[bs:te][:len(xs)], dv[bs:te][:len(xs)]
	for r, xr := range xs {
		vr := vs[r]
		xr, vr = xr*c+vr*sn, vr*c-xr*sn-dvs[r]
		xs[r], vs[r] = xr, vr
		y := xr + vr*K
		if (y > hi || (y == hi && vr < v[i])) && bs+r != skipHi {
			hi, i = y, bs+r
		}
		if xr > hi0 && bs+r != skipHi {
			hi0, i0 = xr, bs+r
		}
		if (y < lo || (y == lo && vr > v[j])) && bs+r != skipLo {
			lo, j = y, bs+r
		}
		if xr < lo0 && bs+r != skipLo {
			lo0, j0 = xr, bs+r
		}
	}
	// The minimum only.
	xs = x[te:e]
	vs, dvs = v[te:e][:len(xs)], dv[te:e][:len(xs)]
	for r, xr := range xs {
		vr := vs[r]
		xr, vr = xr*c+vr*sn, vr*c-xr*sn-dvs[r]
		xs[r], vs[r] = xr, vr
		y := xr + vr*K
		if (y < lo || (y == lo && vr > v[j])) && te+r != skipLo {
			lo, j = y, te+r
		}
		if xr < lo0 && te+r != skipLo {
			lo0, j0 = xr, te+r
		}
	}
	h.hiVal[l], h.hiArg[l], h.hi0[l], h.hi0Arg[l] = hi, int32(i), hi0, int32(i0)
	h.loVal[l], h.loArg[l], h.lo0[l], h.lo0Arg[l] = lo, int32(j), lo0, int32(j0)
}

// shiftNoise moves the noise ε of slot s by dz and its velocity by dv at the
// current time t (sin t = st, cos t = ct), in the absolute-time form.
func (h *jointHMC) shiftNoise(s int, dz, dv, st, ct float64) {
	h.ea[s] += dz*st + dv*ct
	h.eb[s] += dz*ct - dv*st
}

// errJointLost reports a trajectory that lost feasibility by more than
// rounding between events; the step rejects it.
var errJointLost = errors.New("joint HMC trajectory left the constraint set")

// nextEvent returns the smallest K = tan(s) in [0, kw] at which the maximum of
// some level ℓ meets the minimum of level ℓ+1 along the current lines, and the
// two slots that meet; a = −1 if there is none. If scanned ≥ 0 the level
// extremes already hold a scan of the current state at K = scanned. It counts
// the passes over the working sets it made in events.
func (h *jointHMC) nextEvent(kw, scanned float64) (kStar float64, a, b, events int, err error) {
	a, b = -1, -1
	if h.L < 2 {
		return 0, a, b, 0, nil
	}
	// A scan beyond kw serves as well: f_ℓ(kTry) ≤ 0 rules out a root in
	// [0, kTry], and a root past kw is no event.
	kTry := scanned
	if kTry < 0 {
		kTry = math.Min(h.kGuess, kw)
		h.levelExtremes(kTry)
		events++
	}
	for {
		// The pair whose active lines at kTry cross first goes first.
		first, firstK := -1, math.Inf(1)
		for l := 0; l+1 < h.L; l++ {
			if h.hiVal[l]-h.loVal[l+1] <= 0 {
				continue // the gap is convex and ≤ 0 at 0 and at kTry
			}
			i, j := h.hiArg[l], h.loArg[l+1]
			if kt := (h.x[j] - h.x[i]) / (h.v[i] - h.v[j]); first < 0 || kt < firstK {
				first, firstK = l, kt
			}
		}
		if first >= 0 {
			best, ev, err := h.pairRoot(first, kTry, int(h.hiArg[first]), int(h.loArg[first+1]))
			events += ev
			if err != nil {
				return 0, -1, -1, events, err
			}
			kStar, a, b = best.k, best.a, best.b
			for l := 0; l+1 < h.L; l++ {
				f1 := h.hiVal[l] - h.loVal[l+1]
				if l == first || f1 <= 0 {
					continue
				}
				// Chord bound: f_ℓ ≤ f_ℓ(0) + (f_ℓ(kTry) − f_ℓ(0))·K/kTry.
				if f0 := h.hi0[l] - h.lo0[l+1]; f0 < 0 && kTry*(-f0)/(f1-f0) >= kStar {
					continue
				}
				f, i, j := h.pairAt(l, kStar)
				events++
				if f <= 0 {
					continue
				}
				r, ev, err := h.pairRoot(l, kStar, i, j)
				events += ev
				if err != nil {
					return 0, -1, -1, events, err
				}
				if r.k < kStar {
					kStar, a, b = r.k, r.a, r.b
				}
			}
			if kStar > kw {
				return 0, -1, -1, events, nil
			}
			return kStar, a, b, events, nil
		}
		if kTry >= kw {
			return 0, -1, -1, events, nil
		}
		kTry = math.Min(kw, 4*kTry)
		h.levelExtremes(kTry)
		events++
	}
}

// pairEvent is a root of a level pair's gap and the two slots meeting.
type pairEvent struct {
	k    float64
	a, b int
}

// pairRoot is newton returning a pairEvent.
func (h *jointHMC) pairRoot(l int, K float64, i, j int) (pairEvent, int, error) {
	r, a, b, ev, err := h.newton(l, K, i, j)
	return pairEvent{r, a, b}, ev, err
}

// newton finds the first root of the gap f_ℓ(K) of level pair l, given
// f_ℓ(K) > 0 with active slots i (level ℓ) and j (level ℓ+1) at K. Each step
// moves to the root of the active pair's line, which is at or right of the
// first root because every pair's line lies below the convex f_ℓ; it stops
// when the active pair no longer changes.
func (h *jointHMC) newton(l int, K float64, i, j int) (root float64, a, b, events int, err error) {
	limit := int(h.cend[l]-h.start[l]) + int(h.cend[l+1]-h.start[l+1]) + 10
	for it := 0; it < limit; it++ {
		slope := h.v[i] - h.v[j]
		if !(slope > 0) {
			// f_ℓ > 0 on all of [0, K]: the state is infeasible.
			return 0, -1, -1, events, errJointLost
		}
		kn := (h.x[j] - h.x[i]) / slope
		if kn < 0 {
			kn = 0 // touching already and approaching: bounce now
		}
		if !(kn < K) {
			return K, i, j, events, nil
		}
		f, i2, j2 := h.pairAt(l, kn)
		events++
		if f <= 0 || (i2 == i && j2 == j) {
			return kn, i, j, events, nil
		}
		K, i, j = kn, i2, j2
	}
	return 0, -1, -1, events, fmt.Errorf("joint HMC collision search did not converge between levels %d and %d", l+1, l+2)
}

// pairAt returns the gap f_ℓ(K) between the maximum of level l's working set
// and the minimum of level l+1's of the lines z + żK, and the slots
// attaining them (ties broken towards the smaller slope for the maximum and
// the larger for the minimum, which gives the left derivative).
func (h *jointHMC) pairAt(l int, K float64) (f float64, i, j int) {
	s, bs := int(h.start[l]), int(h.botS[l+1])
	hi, vhi := math.Inf(-1), 0.0
	xs, vs := h.x[s:h.topE[l]], h.v[s:h.topE[l]]
	vs = vs[:len(xs)]
	for r, xr := range xs {
		vr := vs[r]
		y := xr + vr*K
		if y > hi || (y == hi && vr < vhi) {
			hi, i, vhi = y, r, vr
		}
	}
	lo, vlo := math.Inf(1), 0.0
	xs, vs = h.x[bs:h.cend[l+1]], h.v[bs:h.cend[l+1]]
	vs = vs[:len(xs)]
	for r, xr := range xs {
		vr := vs[r]
		y := xr + vr*K
		if y < lo || (y == lo && vr > vlo) {
			lo, j, vlo = y, r, vr
		}
	}
	return hi - lo, s + i, bs + j
}

// levelExtremes sets hiVal, hiArg, loVal, loArg to every level's maximum and
// minimum of the lines z + żK over its working set, with pairAt's tie rules,
// and hi0, lo0 (with their slots) to the maximum and minimum of z.
func (h *jointHMC) levelExtremes(K float64) {
	for l := 0; l < h.L; l++ {
		h.scanLevel(l, K)
	}
}

// scanLevel is levelExtremes for level l.
func (h *jointHMC) scanLevel(l int, K float64) {
	h.scanTop(l, K)
	h.scanBottom(l, K)
}

// scanTop is scanLevel for the rows that may be level l's maximum.
func (h *jointHMC) scanTop(l int, K float64) {
	s, e := int(h.start[l]), int(h.topE[l])
	xs, vs := h.x[s:e], h.v[s:e]
	vs = vs[:len(xs)]
	hi, hi0 := math.Inf(-1), math.Inf(-1)
	i, i0 := 0, 0
	for r, xr := range xs {
		y := xr + vs[r]*K
		if y > hi || (y == hi && vs[r] < vs[i]) {
			hi, i = y, r
		}
		if xr > hi0 {
			hi0, i0 = xr, r
		}
	}
	h.hiVal[l], h.hiArg[l], h.hi0[l], h.hi0Arg[l] = hi, int32(s+i), hi0, int32(s+i0)
}

// scanBottom is scanLevel for the rows that may be level l's minimum.
func (h *jointHMC) scanBottom(l int, K float64) {
	s, e := int(h.botS[l]), int(h.cend[l])
	xs, vs := h.x[s:e], h.v[s:e]
	vs = vs[:len(xs)]
	lo, lo0 := math.Inf(1), math.Inf(1)
	j, j0 := 0, 0
	for r, xr := range xs {
		y := xr + vs[r]*K
		if y < lo || (y == lo && vs[r] > vs[j]) {
			lo, j = y, r
		}
		if xr < lo0 {
			lo0, j0 = xr, r
		}
	}
	h.loVal[l], h.loArg[l], h.lo0[l], h.lo0Arg[l] = lo, int32(s+j), lo0, int32(s+j0)
}

// noteBottom updates level l's scan of the rows that may be its minimum at
// K after the row at position r changed, r not having been its minimum.
func (h *jointHMC) noteBottom(l, r int, K float64) {
	if int(h.loArg[l]) == r || int(h.lo0Arg[l]) == r {
		h.scanBottom(l, K)
		return
	}
	y := h.x[r] + h.v[r]*K
	if y < h.loVal[l] || (y == h.loVal[l] && h.v[r] > h.v[h.loArg[l]]) {
		h.loVal[l], h.loArg[l] = y, int32(r)
	}
	if h.x[r] < h.lo0[l] {
		h.lo0[l], h.lo0Arg[l] = h.x[r], int32(r)
	}
}

// noteTop is noteBottom for the rows that may be level l's maximum.
func (h *jointHMC) noteTop(l, r int, K float64) {
	if int(h.hiArg[l]) == r || int(h.hi0Arg[l]) == r {
		h.scanTop(l, K)
		return
	}
	y := h.x[r] + h.v[r]*K
	if y > h.hiVal[l] || (y == h.hiVal[l] && h.v[r] < h.v[h.hiArg[l]]) {
		h.hiVal[l], h.hiArg[l] = y, int32(r)
	}
	if h.x[r] > h.hi0[l] {
		h.hi0[l], h.hi0Arg[l] = h.x[r], int32(r)
	}
}

// axpyWidth is the number of columns axpyColumns takes when k columns are
// left.
func axpyWidth(k int) int {
	if k == 5 {
		return 5
	}
	return 4
}

// axpyColumns adds Σ_c d[c]·G[off:off+len(dst), c] over the columns
// c0 ≤ c < c0+axpyWidth(k−c0) (at most k) of the column-major gt (k×n) to
// dst, or stores it if first.
func axpyColumns(dst, gt, d []float64, c0, n, off int, first bool) {
	m := len(dst)
	col := func(c int) []float64 { return gt[c*n+off : c*n+off+m : c*n+off+m][:len(dst)] }
	switch k := len(d) - c0; {
	case k == 5:
		// Five columns left: one pass rather than four and one (the same
		// sums, in the same order).
		g0, g1, g2, g3, g4 := col(c0), col(c0+1), col(c0+2), col(c0+3), col(c0+4)
		d0, d1, d2, d3, d4 := d[c0], d[c0+1], d[c0+2], d[c0+3], d[c0+4]
		if first {
			for r := range dst {
				dst[r] = d0*g0[r] + d1*g1[r] + d2*g2[r] + d3*g3[r] + d4*g4[r]
			}
		} else {
			for r := range dst {
				dst[r] += d0*g0[r] + d1*g1[r] + d2*g2[r] + d3*g3[r] + d4*g4[r]
			}
		}
	case k >= 4:
		g0, g1, g2, g3 := col(c0), col(c0+1), col(c0+2), col(c0+3)
		d0, d1, d2, d3 := d[c0], d[c0+1], d[c0+2], d[c0+3]
		if first {
			for r := range dst {
				dst[r] = d0*g0[r] + d1*g1[r] + d2*g2[r] + d3*g3[r]
			}
		} else {
			for r := range dst {
				dst[r] += d0*g0[r] + d1*g1[r] + d2*g2[r] + d3*g3[r]
			}
		}
	case k == 3:
		g0, g1, g2 := col(c0), col(c0+1), col(c0+2)
		d0, d1, d2 := d[c0], d[c0+1], d[c0+2]
		if first {
			for r := range dst {
				dst[r] = d0*g0[r] + d1*g1[r] + d2*g2[r]
			}
		} else {
			for r := range dst {
				dst[r] += d0*g0[r] + d1*g1[r] + d2*g2[r]
			}
		}
	case k == 2:
		g0, g1 := col(c0), col(c0+1)
		d0, d1 := d[c0], d[c0+1]
		if first {
			for r := range dst {
				dst[r] = d0*g0[r] + d1*g1[r]
			}
		} else {
			for r := range dst {
				dst[r] += d0*g0[r] + d1*g1[r]
			}
		}
	default:
		g0 := col(c0)
		d0 := d[c0]
		if first {
			for r := range dst {
				dst[r] = d0 * g0[r]
			}
		} else {
			for r := range dst {
				dst[r] += d0 * g0[r]
			}
		}
	}
}

// finalState sets x to every row's position at the current time: the working
// sets have it, the other rows' is computed from G, u and ε.
func (h *jointHMC) finalState() {
	for l := 0; l < h.L; l++ {
		h.freeState(int(h.cend[l]), int(h.start[l+1]), false)
	}
	h.freeState(h.nObs, h.n, false)
}

// violation returns the first level l whose maximum in x exceeds the
// minimum of level l+1, by how much, and the two slots; or l = −1.
func (h *jointHMC) violation() (l int, amount float64, a, b int) {
	x := h.x
	for l := 0; l+1 < h.L; l++ {
		hi, i := math.Inf(-1), -1
		for s := int(h.start[l]); s < int(h.start[l+1]); s++ {
			if x[s] > hi {
				hi, i = x[s], s
			}
		}
		lo, j := math.Inf(1), -1
		for s := int(h.start[l+1]); s < int(h.start[l+2]); s++ {
			if x[s] < lo {
				lo, j = x[s], s
			}
		}
		if d := hi - lo; d > 0 {
			return l, d, i, j
		}
	}
	return -1, 0, -1, -1
}

// endCheck applies sampling.md §2.6 rule 7 to the end point in x: a
// violation of at most 1e−12(1+|z|) is repaired by moving the offending pair
// to its midpoint; a larger one rejects the trajectory (false).
func (h *jointHMC) endCheck() bool {
	for it := 0; it <= h.nObs; it++ {
		l, d, a, b := h.violation()
		if l < 0 {
			return true
		}
		if d > 1e-12*(1+math.Abs(h.x[a])) {
			return false
		}
		mid := 0.5 * (h.x[a] + h.x[b])
		h.x[a], h.x[b] = mid, mid
	}
	return false
}
