package inference

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/copulang/copulang/hough"
)

// This file keeps the joint (λ_j, z_j) exact HMC step as it was before the
// working-set search of factor_hmc.go (commit f11d4f4): every bounce updates
// every row's velocity and scans every row. It is the reference the new step
// is compared with (same velocity draws, same end point) and the "before" of
// BenchmarkJointHMCColumn.

// scanJointHMC is the exact HMC step of Kalaitzis & Silva (2013, §5) for one
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
// The structure makes the collision search cheap. The step keeps only z, ż
// (and u, u̇) at the last event time t₀; since every coordinate of w turns at
// the same unit frequency, z_i(t₀+s)/cos s = z_i(t₀) + ż_i(t₀)·K with
// K = tan s, so in K every latent curve is a straight line (s < π/2). The gap
// between levels ℓ and ℓ+1, f_ℓ(K) = max_{i∈ℓ}(z_i + ż_iK) −
// min_{j∈ℓ+1}(z_j + ż_jK), is then convex and piecewise linear with
// f_ℓ(0) ≤ 0, and the next bounce is the first root of the smallest f_ℓ:
//   - one pass over the rows at a trial K (fused with the previous bounce's
//     update) gives f_ℓ(0) and f_ℓ(K) for every ℓ; a pair with f_ℓ(K) ≤ 0 has
//     no root before K, and by convexity a pair's root is at least
//     K·(−f_ℓ(0))/(f_ℓ(K) − f_ℓ(0)), which prunes most of the others;
//   - the root of a pair is found by Newton's method from the right: each
//     step moves to the root of the active pair's line, which never
//     overshoots because every pair's line lies below f_ℓ, and lands exactly
//     on the root after a few O(n_ℓ + n_{ℓ+1}) passes.
//
// A bounce changes every ż_i by −κG_iᵀ(G_a − G_b), so each event costs O(nk)
// for that update plus about one O(n) pass: O(B·n·k) per column for B
// bounces, with no trigonometry per event besides one arctangent. Measured at
// n = 1000, k = 5, 5 levels: B ≈ 1100 and about 2.9 passes per bounce, about
// 6 ms per column. (A variant that keeps the curves in absolute time and
// scans only rows that a speed bound cannot exclude over a short window saved
// only 17%: the bound ‖G_i‖·‖u̇‖ is loose and the rows that bounce are the
// ones that define the window's thresholds, so windows are rebuilt often.)
//
// Rows are handled in level order (level ℓ is a contiguous range of
// positions, missing rows last). A scanJointHMC is not safe for concurrent use;
// step does not allocate.
type scanJointHMC struct {
	lv      *hough.Levels
	n, k, L int
	nObs    int
	order   []int32 // order[r] is the data row at position r
	start   []int32 // level ℓ is positions start[ℓ]:start[ℓ+1]

	gt    []float64 // k×n column-major: gt[c*n+r] = G_{order[r],c} = η_{order[r],c}/√P_c
	x, v  []float64 // z and ż by position at the current event time
	dv    []float64 // velocity change of a bounce, by position
	u, ud []float64 // u and u̇ at the current event time
	sq    []float64 // √P
	dg    []float64 // G_a − G_b
	ed    []float64 // ε̇(0) by data row (velocity draw)

	// Per level, at the trial K of the last scan: the maximum and minimum of
	// z + żK with their positions, and the maximum and minimum of z.
	hiVal, loVal, hi0, lo0 []float64
	hiArg, loArg           []int32

	maxBounces int
	kGuess     float64 // trial K for the next event search, adapted to the event rate

	// normExtra is the 2 in ‖f‖² = ‖G_a − G_b‖² + 2. It is 2 except in tests
	// that plant a bug to check that the Geweke test catches it.
	normExtra float64

	// kicked, if set, is told the time since the trajectory's start and the
	// kick κ(G_a − G_b) taken off u̇ at each bounce
	// (BenchmarkJointHMCDriftBound).
	kicked func(t float64, kick []float64)
}

// newScanJointHMC returns the joint step's workspace for a column with levels lv
// and k factors.
func newScanJointHMC(lv *hough.Levels, k int) *scanJointHMC {
	n := lv.N
	h := &scanJointHMC{
		n: n, k: k,
		order: make([]int32, n),
		gt:    make([]float64, n*k),
		x:     make([]float64, n),
		v:     make([]float64, n),
		dv:    make([]float64, n),
		u:     make([]float64, k),
		ud:    make([]float64, k),
		sq:    make([]float64, k),
		dg:    make([]float64, k),
		ed:    make([]float64, n),

		maxBounces: 1000*n + 1000,
		normExtra:  2,
	}
	h.setLevels(lv)
	return h
}

// setLevels points the workspace at new levels of the same number of rows.
// It allocates only if the number of levels grows.
func (h *scanJointHMC) setLevels(lv *hough.Levels) {
	if lv.N != h.n {
		panic(fmt.Sprintf("inference: scanJointHMC.setLevels: %d rows, want %d", lv.N, h.n))
	}
	h.lv = lv
	h.L = lv.NumLevels()
	h.nObs = len(lv.Order)
	copy(h.order, lv.Order)
	copy(h.order[h.nObs:], lv.Missing)
	if cap(h.start) < h.L+1 {
		h.start = make([]int32, h.L+1)
		h.hiVal = make([]float64, h.L)
		h.loVal = make([]float64, h.L)
		h.hi0 = make([]float64, h.L)
		h.lo0 = make([]float64, h.L)
		h.hiArg = make([]int32, h.L)
		h.loArg = make([]int32, h.L)
	}
	h.start = h.start[:h.L+1]
	copy(h.start, lv.Start)
	h.hiVal, h.loVal, h.hi0, h.lo0 = h.hiVal[:h.L], h.loVal[:h.L], h.hi0[:h.L], h.lo0[:h.L]
	h.hiArg, h.loArg = h.hiArg[:h.L], h.loArg[:h.L]
	h.kGuess = 0
}

// step replaces (lam, z) by the end point of one exact HMC trajectory of
// travel time T for the target above, with prior precision diag(prec) for λ
// and factors eta (n×k, row-major), drawing the whitened velocity
// (u̇, ε̇) ~ N(0, I) from rng (u̇ first, then ε̇ in row order). On error, or if
// the end-of-trajectory check rejects the trajectory (Stats.Rejections = 1),
// lam and z are left unchanged.
func (h *scanJointHMC) step(rng *rand.Rand, z, lam, eta, prec []float64, T float64) (hough.Stats, error) {
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
func (h *scanJointHMC) stepWith(z, lam, eta, prec []float64, T float64, ud0, ed0 []float64) (hough.Stats, error) {
	var st hough.Stats
	n, k := h.n, h.k
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
	for r, i := range h.order {
		er := eta[int(i)*k : int(i)*k+k]
		s := 0.0
		for c, e := range er {
			g := e / h.sq[c]
			h.gt[c*n+r] = g
			s += g * h.ud[c]
		}
		h.x[r] = z[i]
		h.v[r] = s + ed0[i]
	}
	for r := range h.x {
		if math.IsNaN(h.x[r]) || math.IsInf(h.x[r], 0) || math.IsNaN(h.v[r]) || math.IsInf(h.v[r], 0) {
			return st, fmt.Errorf("non-finite latent value or velocity at row %d", h.order[r]+1)
		}
	}
	if l, amt := h.violation(); l >= 0 {
		return st, fmt.Errorf("%w: level %d exceeds level %d by %g", errJointInfeasible, l+1, l+2, amt)
	}
	if h.kGuess == 0 {
		// About (L−1)·n bounces per trajectory (sampling.md §9) spread over π/2.
		h.kGuess = 4 / float64(1+(h.L-1)*h.nObs)
	}
	remaining := T
	scanned := -1.0 // the trial K of a fused scan of the current state, if any
	for remaining > 0 {
		win := math.Min(remaining, 1)
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
			h.rotate(math.Cos(win), math.Sin(win))
			remaining -= win
			scanned = -1
			continue
		}
		s := math.Atan(kStar)
		if s >= remaining {
			// Rounding put the event at or past the horizon.
			h.rotate(math.Cos(remaining), math.Sin(remaining))
			break
		}
		remaining -= s
		st.Bounces++
		st.Events++
		if st.Bounces > h.maxBounces {
			return st, fmt.Errorf("joint HMC trajectory exceeded %d bounces", h.maxBounces)
		}
		h.kGuess = 0.8*h.kGuess + 0.2*2*math.Max(kStar, 1e-3*h.kGuess)
		scanned = math.Min(h.kGuess, math.Tan(math.Min(remaining, 1)))
		c := 1 / math.Sqrt(1+kStar*kStar)
		h.bounce(c, kStar*c, a, b, scanned)
		if h.kicked != nil {
			h.kicked(T-remaining, h.dg)
		}
	}
	if !h.endCheck() {
		st.Rejections = 1
		return st, nil
	}
	for r, i := range h.order {
		z[i] = h.x[r]
	}
	for c := 0; c < k; c++ {
		lam[c] = h.u[c] / h.sq[c]
	}
	return st, nil
}

// rotate advances every curve by the angle s with cos s = c, sin s = sn.
func (h *scanJointHMC) rotate(c, sn float64) {
	x, v := h.x, h.v[:len(h.x)]
	for r, xr := range x {
		vr := v[r]
		x[r] = xr*c + vr*sn
		v[r] = vr*c - xr*sn
	}
	for i, ui := range h.u {
		vi := h.ud[i]
		h.u[i] = ui*c + vi*sn
		h.ud[i] = vi*c - ui*sn
	}
}

// bounce advances every curve by the angle s (cos s = c, sin s = sn) to the
// contact of positions a and b, reflects the velocity off their wall, and
// scans the new lines at the trial K (scan) as levelExtremes does.
func (h *scanJointHMC) bounce(c, sn float64, a, b int, K float64) {
	n := h.n
	va, vb := h.v[a]*c-h.x[a]*sn, h.v[b]*c-h.x[b]*sn
	nf := h.normExtra
	for i := range h.dg {
		h.dg[i] = h.gt[i*n+a] - h.gt[i*n+b]
		nf += h.dg[i] * h.dg[i]
	}
	kappa := 2 * (va - vb) / nf
	for i, ui := range h.u {
		vi := h.ud[i]
		h.u[i] = ui*c + vi*sn
		h.ud[i] = vi*c - ui*sn - kappa*h.dg[i]
	}
	// dv = κ·G(G_a − G_b), up to four columns of G per pass.
	dv := h.dv[:n]
	for i := range h.dg {
		h.dg[i] *= kappa
	}
	for c0 := 0; c0 < h.k; c0 += 4 {
		scanAxpyColumns(dv, h.gt, h.dg, c0, n, c0 == 0)
	}
	x, v := h.x[:n], h.v[:n]
	for l := 0; l < h.L; l++ {
		s, e := int(h.start[l]), int(h.start[l+1])
		xs, vs, ds := x[s:e], v[s:e:e], dv[s:e:e]
		hi, lo, hi0, lo0 := math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)
		i, j := 0, 0
		for r, xr := range xs {
			vr := vs[r]
			xr, vr = xr*c+vr*sn, vr*c-xr*sn-ds[r]
			xs[r], vs[r] = xr, vr
			y := xr + vr*K
			if y > hi || (y == hi && vr < vs[i]) {
				hi, i = y, r
			}
			if y < lo || (y == lo && vr > vs[j]) {
				lo, j = y, r
			}
			if xr > hi0 {
				hi0 = xr
			}
			if xr < lo0 {
				lo0 = xr
			}
		}
		h.hiVal[l], h.hiArg[l], h.loVal[l], h.loArg[l] = hi, int32(s+i), lo, int32(s+j)
		h.hi0[l], h.lo0[l] = hi0, lo0
	}
	// Both rows end exactly on the wall, and the reflection also moves ε̇_a
	// and ε̇_b: patch them and the scan of their levels. Moving to the
	// midpoint changes a position by rounding only; the bounds hi0 of a's
	// level and lo0 of b's level are only widened, which keeps the chord
	// bound of nextEvent conservative.
	mid := 0.5 * (x[a] + x[b])
	x[a], x[b] = mid, mid
	v[a] -= kappa
	v[b] += kappa
	la, lb := int(h.lv.Level[h.order[a]]), int(h.lv.Level[h.order[b]])
	h.hi0[la] = math.Max(h.hi0[la], mid)
	h.lo0[la] = math.Min(h.lo0[la], mid)
	h.hi0[lb] = math.Max(h.hi0[lb], mid)
	h.lo0[lb] = math.Min(h.lo0[lb], mid)
	h.rescan(la, a, K)
	if lb != la {
		h.rescan(lb, b, K)
	}
	for r := h.nObs; r < n; r++ {
		xr, vr := x[r], v[r]
		x[r], v[r] = xr*c+vr*sn, vr*c-xr*sn-dv[r]
	}
}

// scanAxpyColumns adds Σ_c d[c]·G[:, c] over the columns c0 ≤ c < min(c0+4, k)
// of the column-major gt (k×n) to dst, or stores it if first.
func scanAxpyColumns(dst, gt, d []float64, c0, n int, first bool) {
	dst = dst[:n]
	switch k := len(d) - c0; {
	case k >= 4:
		g0, g1, g2, g3 := gt[c0*n:c0*n+n], gt[(c0+1)*n:(c0+1)*n+n], gt[(c0+2)*n:(c0+2)*n+n], gt[(c0+3)*n:(c0+3)*n+n]
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
		g0, g1, g2 := gt[c0*n:c0*n+n], gt[(c0+1)*n:(c0+1)*n+n], gt[(c0+2)*n:(c0+2)*n+n]
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
		g0, g1 := gt[c0*n:c0*n+n], gt[(c0+1)*n:(c0+1)*n+n]
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
		g0 := gt[c0*n : c0*n+n]
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

// rescan updates level l's scan at K after row position r of that level
// changed: if r held the maximum or minimum the level is scanned again,
// otherwise r is compared with them.
func (h *scanJointHMC) rescan(l, r int, K float64) {
	if int(h.hiArg[l]) == r || int(h.loArg[l]) == r {
		h.scanLevel(l, K)
		return
	}
	y := h.x[r] + h.v[r]*K
	if y > h.hiVal[l] {
		h.hiVal[l], h.hiArg[l] = y, int32(r)
	}
	if y < h.loVal[l] {
		h.loVal[l], h.loArg[l] = y, int32(r)
	}
}

// nextEvent returns the smallest K = tan(s) in [0, kw] at which the maximum of
// some level ℓ meets the minimum of level ℓ+1 along the current lines, and the
// two positions that meet; a = −1 if there is none. If scanned ≥ 0 the level
// extremes already hold a scan of the current state at K = scanned. It counts
// the passes over rows it made in events.
func (h *scanJointHMC) nextEvent(kw, scanned float64) (kStar float64, a, b, events int, err error) {
	a, b = -1, -1
	if h.L < 2 {
		return 0, a, b, 0, nil
	}
	kTry := scanned
	if kTry < 0 || kTry > kw {
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

// scanPairEvent is a root of a level pair's gap and the two positions meeting.
type scanPairEvent struct {
	k    float64
	a, b int
}

// pairRoot is newton returning a scanPairEvent.
func (h *scanJointHMC) pairRoot(l int, K float64, i, j int) (scanPairEvent, int, error) {
	r, a, b, ev, err := h.newton(l, K, i, j)
	return scanPairEvent{r, a, b}, ev, err
}

// newton finds the first root of the gap f_ℓ(K) of level pair l, given
// f_ℓ(K) > 0 with active rows i (level ℓ) and j (level ℓ+1) at K. Each step
// moves to the root of the active pair's line, which is at or right of the
// first root because every pair's line lies below the convex f_ℓ; it stops
// when the active pair no longer changes.
func (h *scanJointHMC) newton(l int, K float64, i, j int) (root float64, a, b, events int, err error) {
	limit := int(h.start[l+2]-h.start[l]) + 10
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

// pairAt returns the gap f_ℓ(K) between level l's maximum and level l+1's
// minimum of the lines z + żK, and the positions attaining them (ties broken
// towards the smaller slope for the maximum and the larger for the minimum,
// which gives the left derivative).
func (h *scanJointHMC) pairAt(l int, K float64) (f float64, i, j int) {
	x, v := h.x, h.v
	hi := math.Inf(-1)
	for r := int(h.start[l]); r < int(h.start[l+1]); r++ {
		y := x[r] + v[r]*K
		if y > hi || (y == hi && v[r] < v[i]) {
			hi, i = y, r
		}
	}
	lo := math.Inf(1)
	for r := int(h.start[l+1]); r < int(h.start[l+2]); r++ {
		y := x[r] + v[r]*K
		if y < lo || (y == lo && v[r] > v[j]) {
			lo, j = y, r
		}
	}
	return hi - lo, i, j
}

// levelExtremes sets hiVal, hiArg, loVal, loArg to every level's maximum and
// minimum of the lines z + żK, with pairAt's tie rules, and hi0, lo0 to the
// maximum and minimum of z.
func (h *scanJointHMC) levelExtremes(K float64) {
	for l := 0; l < h.L; l++ {
		h.scanLevel(l, K)
	}
}

// scanLevel is levelExtremes for level l.
func (h *scanJointHMC) scanLevel(l int, K float64) {
	s, e := int(h.start[l]), int(h.start[l+1])
	xs, vs := h.x[s:e], h.v[s:e:e]
	hi, lo, hi0, lo0 := math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)
	i, j := 0, 0
	for r, xr := range xs {
		vr := vs[r]
		y := xr + vr*K
		if y > hi || (y == hi && vr < vs[i]) {
			hi, i = y, r
		}
		if y < lo || (y == lo && vr > vs[j]) {
			lo, j = y, r
		}
		if xr > hi0 {
			hi0 = xr
		}
		if xr < lo0 {
			lo0 = xr
		}
	}
	h.hiVal[l], h.hiArg[l] = hi, int32(s+i)
	h.loVal[l], h.loArg[l] = lo, int32(s+j)
	h.hi0[l], h.lo0[l] = hi0, lo0
}

// violation returns the first level l whose maximum exceeds the minimum of
// level l+1 in the current positions, and by how much, or (−1, 0).
func (h *scanJointHMC) violation() (int, float64) {
	h.levelExtremes(0)
	for l := 0; l+1 < h.L; l++ {
		if d := h.hiVal[l] - h.loVal[l+1]; d > 0 {
			return l, d
		}
	}
	return -1, 0
}

// endCheck applies sampling.md §2.6 rule 7 to the end point: a violation of
// at most 1e−12(1+|z|) is repaired by moving the offending pair to its
// midpoint; a larger one rejects the trajectory (false).
func (h *scanJointHMC) endCheck() bool {
	for it := 0; it <= h.nObs; it++ {
		l, d := h.violation()
		if l < 0 {
			return true
		}
		a, b := int(h.hiArg[l]), int(h.loArg[l+1])
		if d > 1e-12*(1+math.Abs(h.x[a])) {
			return false
		}
		mid := 0.5 * (h.x[a] + h.x[b])
		h.x[a], h.x[b] = mid, mid
	}
	return false
}
