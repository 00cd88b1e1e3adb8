package hough

import "math"

// curve is one coordinate's trajectory between bounces, in absolute time t:
//
//	x(t) = mu + a·sin t + b·cos t,   ẋ(t) = a·cos t − b·sin t.
//
// Storing the curve in absolute time means a bounce re-bases only the two
// curves involved; every other curve and every certificate built on it stays
// valid (sampling.md §2.3).
type curve struct {
	mu, a, b float64
}

// pos returns x(t) given st = sin t and ct = cos t.
func (c *curve) pos(st, ct float64) float64 { return c.mu + c.a*st + c.b*ct }

// vel returns ẋ(t) given st = sin t and ct = cos t.
func (c *curve) vel(st, ct float64) float64 { return c.a*ct - c.b*st }

// rebase makes c pass through position p with velocity w at the time t with
// st = sin t, ct = cos t: a = (p−μ) sin t + w cos t, b = (p−μ) cos t − w sin t.
func (c *curve) rebase(p, w, st, ct float64) {
	q := p - c.mu
	c.a = q*st + w*ct
	c.b = q*ct - w*st
}

const (
	// spuriousRoot is the window of §2.6 rule 3, in K = tan(t/2): a root this
	// close to the current time on a curve that is not increasing is the wall
	// just left.
	spuriousRoot = 1e-12
	// tangency is the relative margin of §2.6 rule 4.
	tangency = 1e-14
)

// sinCosK returns sin t and cos t for K = tan(t/2), without trigonometry.
func sinCosK(k float64) (st, ct float64) {
	k2 := k * k
	den := 1 / (1 + k2)
	return 2 * k * den, (1 - k2) * den
}

// window is the end of the current segment [0, T] of a trajectory:
// kT = tan(T/2), sT = sin T, cT = cos T.
type window struct{ kT, sT, cT float64 }

func newWindow(T float64) window {
	s, c := math.Sincos(T)
	return window{kT: math.Tan(T / 2), sT: s, cT: c}
}

// hitTime returns the first time in [t0, T) at which the difference
// d = x_u − x_v of two curves crosses zero upwards, that is enters the
// violation d > 0, or +Inf if it does not before T. Times are represented
// as K = tan(t/2), which is increasing on the segment [0, T] ⊂ [0, π/2]: k0 is
// the K of t0, st, ct are sin t0, cos t0, and w describes T.
//
// With m = μ_u − μ_v, A = a_u − a_v and B = b_u − b_v, d(t) = m + A sin t +
// B cos t (sampling.md §2.2). Substituting sin t = 2K/(1+K²) and
// cos t = (1−K²)/(1+K²) gives d = Q(K)/(1+K²) with the quadratic
//
//	Q(K) = (m − B) K² + 2A K + (m + B),
//
// which has real roots only if R² = A² + B² > m², namely
// K± = (−A ± q)/(m − B) with q = sqrt(R² − m²). Q′(K±) = ±2q and dK/dt > 0,
// so d increases through zero at K+: the entering root (§2.6 rule 1) is
//
//	K = (q − A)/(m − B) = −(m + B)/(q + A),
//
// the form without cancellation chosen by the sign of A. If K < k0 the
// entering root of this period has passed and the next lies 2π later, beyond
// the segment. The guards of §2.6 apply: a pair already at or past its wall
// and approaching returns k0 (rule 2); a root within 1e−12 of k0 on a
// non-increasing curve is the wall just left (rule 3); R ≤ |m|(1+1e−14) is no
// crossing (rule 4). No trigonometric function is evaluated.
//
// Before any square root or division, a sign test decides whether there is a
// root in the window at all: when d(t0) < 0, Q(k0) < 0, so Q has an entering
// root in [k0, kT) if Q(kT) > 0, that is d(T) > 0; otherwise only if Q is
// concave (B > m) with its vertex −A/(m−B) inside (k0, kT) and positive
// discriminant. Most pairs fail this test.
func hitTime(u, v *curve, k0, st, ct float64, w *window) float64 {
	m, A, B := u.mu-v.mu, u.a-v.a, u.b-v.b
	if !mayHit(m, A, B, k0, st, ct, w) {
		return math.Inf(1)
	}
	return hitRoot(m, A, B, k0, st, ct, w)
}

// mayHit is the sign test of hitTime for d = m + A sin t + B cos t: it
// reports false only if d cannot rise through zero in [t0, T). It is small
// enough to be inlined where many certificates are computed; most pairs stop
// here.
func mayHit(m, A, B, k0, st, ct float64, w *window) bool {
	if m+A*st+B*ct < 0 && m+A*w.sT+B*w.cT <= 0 {
		c := B - m
		return c > 0 && A > k0*c && A < w.kT*c
	}
	return true
}

// hitRoot finishes hitTime once mayHit has not ruled out a root.
func hitRoot(m, A, B, k0, st, ct float64, w *window) float64 {
	d0 := m + A*st + B*ct
	d1 := A*ct - B*st
	if d0 >= 0 && d1 > 0 {
		return k0
	}
	r2 := A*A + B*B
	lim := math.Abs(m) * (1 + tangency)
	if r2 <= lim*lim {
		return math.Inf(1)
	}
	q := math.Sqrt(r2 - m*m)
	var k float64
	if A < 0 {
		k = (q - A) / (m - B)
	} else {
		k = -(m + B) / (q + A)
	}
	if !(k >= k0) || k >= w.kT || (k-k0 < spuriousRoot && d1 <= 0) {
		return math.Inf(1)
	}
	return k
}
