package hough

import "math"

// better reports whether curve x beats curve y at the time with sin st, cos
// ct in a max-tree (higher position, ties by higher velocity) or a min-tree
// (lower position, ties by lower velocity).
func (s *Sampler) better(x, y int32, isMax bool, st, ct float64) bool {
	cx, cy := &s.curves[x], &s.curves[y]
	px, py := cx.pos(st, ct), cy.pos(st, ct)
	if px != py {
		return (px > py) == isMax
	}
	return (cx.vel(st, ct) > cy.vel(st, ct)) == isMax
}

// side is the top (isMax) or the bottom of one level in the kinetic search:
// it knows the level's extreme (the root) and, among the curves that may
// overtake it, the one that does so first.
//
// A curve is awake or asleep. A guide curve theta — a sinusoid fitted to an
// estimate of the wall the side faces — and a margin c define the floor
// F = theta − c of a top (theta + c for a bottom; below, "under" means
// farther from the wall). The root stays over F: the floor certificate fires
// when it reaches F + eps, and then c is widened. A sleeping curve stays
// under F − eps: its wake certificate fires when it reaches that line. An
// awake curve other than the root falls asleep when it reaches F − 2eps. So
// a sleeping curve is never the extreme, and the root and its challenger are
// found among the awake curves, a handful of the level's.
// (The Walk search, walk.go, keeps no sleep certificates: it puts awake
// curves under F − 2eps to sleep when it scans them.)
type side struct {
	first, k int32 // the level's curves are first .. first+k−1
	isMax    bool
	id0      int32   // queue ids: id0+j the certificate of leaf j, id0+k the root's, id0+k+1 the floor's
	awake    []int32 // awake leaves; awake[0] is the root's (sides; not kept by the walk)
	apos     []int32 // per leaf: its index in awake, or −1 when asleep
	// ac[i] is a copy of the curve of leaf awake[i], negated in a bottom, so
	// that the challenger scan reads contiguous memory and treats both
	// kinds of side as tops ((−x) − (−y) rounds as −(x − y), so the
	// differences are those of the curves, bit for bit). It is kept in step
	// with the curves by wake, the sleep and overtake events and modified.
	ac     []curve
	root   int32   // the extreme, a curve index
	chal   int32   // the awake curve that overtakes root first, or −1
	theta  curve   // the guide
	c, eps float64 // the floor's margin and rounding allowance
	walks  int32   // the walk: walks of the wall sd faces since its last doze
}

// crossNow returns the key of the time at which u − v rises through zero, or
// the present key k0 if u − v ≥ 0 already.
func (s *Sampler) crossNow(u, v *curve, k0, st, ct float64) uint64 {
	if u.pos(st, ct)-v.pos(st, ct) >= 0 {
		return keyOf(k0)
	}
	// hitTime written out: most pairs stop at the sign test, without a call.
	m, A, B := u.mu-v.mu, u.a-v.a, u.b-v.b
	if !mayHit(m, A, B, k0, st, ct, &s.win) {
		return infKey
	}
	return keyOf(hitRoot(m, A, B, k0, st, ct, &s.win))
}

// rises returns the key of the time at which x rises past y towards the
// wall of sd (up for a top, down for a bottom), k0 if it is there already.
func (s *Sampler) rises(sd *side, x, y *curve, k0, st, ct float64) uint64 {
	if !sd.isMax {
		x, y = y, x
	}
	return s.crossNow(x, y, k0, st, ct) // one call, so that rises is inlined
}

// line returns the floor of sd moved off·eps towards the wall.
func (sd *side) line(off float64) curve {
	l := sd.theta
	if sd.isMax {
		l.mu += -sd.c + off*sd.eps
	} else {
		l.mu += sd.c - off*sd.eps
	}
	return l
}

// signed returns curve p of sd, negated in a bottom (see side.ac).
func (s *Sampler) signed(sd *side, p int32) curve {
	c := s.curves[p]
	if !sd.isMax {
		c = curve{-c.mu, -c.a, -c.b}
	}
	return c
}

// wake appends leaf j of sd to its awake curves.
func (s *Sampler) wake(sd *side, j int32) {
	sd.apos[j] = int32(len(sd.awake))
	sd.awake = append(sd.awake, j)
	sd.ac = append(sd.ac, s.signed(sd, sd.first+j))
}

// leafCert queues the certificate of leaf j of sd: its wake certificate if
// it sleeps, its sleep certificate if it is awake (none for the root).
func (s *Sampler) leafCert(sd *side, j int32, k0, st, ct float64) {
	p := sd.first + j
	c := &s.curves[p]
	var key uint64
	switch {
	case sd.apos[j] < 0:
		l := sd.line(-1)
		key = s.rises(sd, c, &l, k0, st, ct)
	case p == sd.root:
		key = infKey
	default:
		l := sd.line(-2)
		key = s.rises(sd, &l, c, k0, st, ct)
	}
	s.queue.set(sd.id0+j, key)
}

// retime queues the certificates of every leaf of sd, as leafCert does one
// by one: at the start of a segment and when the floor is widened.
func (s *Sampler) retime(sd *side, k0, st, ct float64) {
	wl, sl := sd.line(-1), sd.line(-2)
	q := s.queue
	lazy := s.walk // the walk's awake curves carry no certificate (doze)
	for j := int32(0); j < sd.k; j++ {
		p := sd.first + j
		c := &s.curves[p]
		var u, v *curve
		switch {
		case sd.apos[j] < 0:
			u, v = c, &wl
		case p == sd.root || lazy:
			q.set(sd.id0+j, infKey)
			continue
		default:
			u, v = &sl, c
		}
		if !sd.isMax {
			u, v = v, u
		}
		if key := s.crossNow(u, v, k0, st, ct); key != q.e[sd.id0+j].key {
			q.set(sd.id0+j, key)
		}
	}
}

// floorCert queues the floor certificate of sd: when the root reaches
// F + eps; none when no curve sleeps.
func (s *Sampler) floorCert(sd *side, k0, st, ct float64) {
	key := infKey
	if int(sd.k) > len(sd.awake) {
		l := sd.line(1)
		key = s.rises(sd, &l, &s.curves[sd.root], k0, st, ct)
	}
	s.queue.set(sd.id0+sd.k+1, key)
}

// rootCert returns the key of the time at which curve p, awake, overtakes
// the root of sd (hitTime, §2.2 and §2.6).
func (s *Sampler) rootCert(sd *side, p int32, k0, st, ct float64) uint64 {
	u, v := &sd.ac[sd.apos[p-sd.first]], &sd.ac[0]
	m, A, B := u.mu-v.mu, u.a-v.a, u.b-v.b
	if !mayHit(m, A, B, k0, st, ct, &s.win) {
		return infKey
	}
	return keyOf(hitRoot(m, A, B, k0, st, ct, &s.win))
}

// recalcRoot finds the awake curve that overtakes the root first and queues
// that time as the root's certificate. Once a crossing is found, the others
// are tested against it instead of the end of the segment (mayHit with a
// nearer horizon), so few need the root solve. It reads the copies sd.ac,
// the root's first (sampling.md §2.5 "The awake-curve scan, measured" says
// which ways of writing this loop cost more).
func (s *Sampler) recalcRoot(sd *side, k0, st, ct float64) {
	best, chal := infKey, 0
	kT := s.win.kT
	hk, hs, hc := kT, s.win.sT, s.win.cT // the horizon
	ac := sd.ac
	r := &ac[0]
	for i := 1; i < len(ac); i++ {
		c := &ac[i]
		m, A, B := c.mu-r.mu, c.a-r.a, c.b-r.b
		// mayHit with the horizon, then hitRoot, written out: a call in the
		// loop would make the compiler store the loop's values on every
		// iteration.
		d0 := m + A*st + B*ct
		if d0 < 0 && m+A*hs+B*hc <= 0 {
			if cc := B - m; !(cc > 0 && A > k0*cc && A < hk*cc) {
				continue
			}
		}
		d1 := A*ct - B*st
		k := k0
		if !(d0 >= 0 && d1 > 0) {
			r2 := A*A + B*B
			lim := math.Abs(m) * (1 + tangency)
			if r2 <= lim*lim {
				continue
			}
			q := math.Sqrt(r2 - m*m)
			if A < 0 {
				k = (q - A) / (m - B)
			} else {
				k = -(m + B) / (q + A)
			}
			if !(k >= k0) || k >= kT || (k-k0 < spuriousRoot && d1 <= 0) {
				continue
			}
		}
		if key := keyOf(k); key < best {
			best, chal = key, i
			hk = k
			hs, hc = sinCosK(k)
		}
	}
	sd.chal = -1
	if chal > 0 {
		sd.chal = sd.first + sd.awake[chal]
	}
	s.queue.set(sd.id0+sd.k, best)
}

// challenge updates sd after curve p (awake, not the root) changed or woke at
// time k0: p may now overtake the root first.
func (s *Sampler) challenge(sd *side, p int32, k0, st, ct float64) {
	if p == sd.chal {
		s.recalcRoot(sd, k0, st, ct)
		return
	}
	id := sd.id0 + sd.k
	if key := s.rootCert(sd, p, k0, st, ct); key < s.queue.e[id].key {
		sd.chal = p
		s.queue.set(id, key)
	}
}

// widened returns the margin of a floor whose extreme has fallen to depth
// below the guide: past the depth by step (the margin's σ-multiple), or by
// a quarter of the margin if that is more, so that a level whose curves
// travel many σ (σ tiny beside |x − μ|, as for a column nearly determined by
// the others) widens its floor O(log) times, not O(distance/σ) times, which
// ran into the cap on events at σ = 1e-5; and by at least a few eps, so the
// floor moves clear of the extreme however small σ is beside the values.
// While the margin stays under 4·step (the first widenings of a typical
// trajectory) the step is step alone.
func widened(c, depth, step, eps float64) float64 {
	c = max(c, depth)
	return c + max(step, c/4, 4*eps)
}

// guideMargin is the initial margin of a floor in units of σ.
const guideMargin = 0.03

// buildSide starts sd at the beginning of a segment.
func (s *Sampler) buildSide(sd *side, w1, w2 float64) {
	s.initSide(sd, w1, w2, guideMargin)
	s.recalcRoot(sd, 0, 0, 1)
	s.floorCert(sd, 0, 0, 1)
}

// initSide starts sd at the beginning of a segment but for the root's
// certificate and the floor's: it finds the root, fits the guide with a
// margin of margin·σ, wakes the curves near the wall and queues every leaf's
// certificate.
func (s *Sampler) initSide(sd *side, w1, w2, margin float64) {
	ext := sd.first
	for j := int32(1); j < sd.k; j++ {
		if s.better(sd.first+j, ext, sd.isMax, 0, 1) {
			ext = sd.first + j
		}
	}
	sd.root = ext
	sd.awake, sd.ac = sd.awake[:0], sd.ac[:0]
	for j := int32(0); j < sd.k; j++ {
		sd.apos[j] = -1
	}
	s.wake(sd, ext-sd.first)
	sd.theta = s.fitGuide(s.curves[ext].pos(0, 1), w1, w2)
	th := &sd.theta
	sd.eps = 1e-9 * (1 + math.Abs(th.mu) + math.Abs(th.a) + math.Abs(th.b))
	sd.c = margin * s.sigma
	l := sd.line(-1)
	at := l.pos(0, 1)
	for j := int32(0); j < sd.k; j++ {
		p := sd.first + j
		x := s.curves[p].pos(0, 1)
		if p != ext && ((sd.isMax && x >= at) || (!sd.isMax && x <= at)) {
			s.wake(sd, j)
		}
	}
	s.retime(sd, 0, 0, 1)
}

// fitGuide returns the sinusoid μ + a sin t + b cos t through w0, w1 and w2 at
// the start, middle and end of the segment.
func (s *Sampler) fitGuide(w0, w1, w2 float64) curve {
	// a·sM + b·(cM − 1) = w1 − w0 and a·sT + b·(cT − 1) = w2 − w0.
	sM, cM, sT, cT := s.midS, s.midC, s.win.sT, s.win.cT
	r1, r2 := w1-w0, w2-w0
	det := sM*(cT-1) - sT*(cM-1)
	a := (r1*(cT-1) - r2*(cM-1)) / det
	b := (sM*r2 - sT*r1) / det
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		return curve{mu: w0}
	}
	return curve{mu: w0 - b, a: a, b: b}
}

// estimateWalls estimates the wall between levels l and l+1 at the middle
// and the end of the segment as the midpoint of the order statistics of
// ranks n_≤l − 1 and n_≤l of the free curves: the exact wall when every μ_i
// is equal, where a bounce only exchanges labels. Any estimate keeps the
// search exact; a good one keeps few curves awake.
func (s *Sampler) estimateWalls() {
	lv := s.lv
	s.ranks = s.ranks[:0]
	for l := 1; l < s.nlev; l++ {
		r := lv.Start[l]
		if n := len(s.ranks); n == 0 || s.ranks[n-1] != r-1 {
			s.ranks = append(s.ranks, r-1)
		}
		s.ranks = append(s.ranks, r)
	}
	for _, at := range [2]struct {
		st, ct float64
		out    []float64
	}{{s.midS, s.midC, s.wallMid}, {s.win.sT, s.win.cT, s.wallEnd}} {
		for p := range s.curves {
			s.pos[p] = s.curves[p].pos(at.st, at.ct)
		}
		selectRanks(s.pos, s.ranks, 0)
		for l := 1; l < s.nlev; l++ {
			r := lv.Start[l]
			at.out[l-1] = 0.5 * (s.pos[r-1] + s.pos[r])
		}
	}
}

// sideEvent processes a certificate of sd at time t: a curve waking or
// falling asleep, the root being overtaken, or the root reaching the floor.
// It reports whether the root changed.
func (s *Sampler) sideEvent(sd *side, j int32, t, st, ct float64) bool {
	switch {
	case j < sd.k && sd.apos[j] < 0: // wake
		s.wake(sd, j)
		s.leafCert(sd, j, t, st, ct)
		s.challenge(sd, sd.first+j, t, st, ct)
		if int(sd.k) == len(sd.awake) {
			s.floorCert(sd, t, st, ct)
		}
	case j < sd.k: // sleep
		p := sd.first + j
		if p == sd.root {
			s.queue.set(sd.id0+j, infKey)
			return false
		}
		i, n := sd.apos[j], len(sd.awake)-1 // i > 0: the root does not sleep
		last := sd.awake[n]
		sd.awake[i], sd.ac[i] = last, sd.ac[n]
		sd.apos[last] = i
		sd.awake, sd.ac = sd.awake[:n], sd.ac[:n]
		sd.apos[j] = -1
		s.leafCert(sd, j, t, st, ct)
		if p == sd.chal {
			s.recalcRoot(sd, t, st, ct)
		}
		if int(sd.k) == len(sd.awake)+1 {
			s.floorCert(sd, t, st, ct)
		}
	case j == sd.k: // the challenger overtakes the root (forced, §2.5)
		old := sd.root
		sd.root = sd.chal
		// Move the new root to awake[0].
		jo, jn := old-sd.first, sd.root-sd.first
		i := sd.apos[jn]
		sd.awake[0], sd.awake[i] = jn, jo
		sd.ac[0], sd.ac[i] = sd.ac[i], sd.ac[0]
		sd.apos[jn], sd.apos[jo] = 0, i
		s.queue.set(sd.id0+(old-sd.first), infKey) // re-timed below
		s.recalcRoot(sd, t, st, ct)
		s.leafCert(sd, old-sd.first, t, st, ct)
		s.leafCert(sd, sd.root-sd.first, t, st, ct)
		s.floorCert(sd, t, st, ct)
		return true
	default: // the root reached the floor: widen it, re-time every leaf
		depth := sd.theta.pos(st, ct) - s.curves[sd.root].pos(st, ct)
		if !sd.isMax {
			depth = -depth
		}
		sd.c = widened(sd.c, depth, guideMargin*s.sigma, sd.eps)
		s.retime(sd, t, st, ct)
		s.floorCert(sd, t, st, ct)
	}
	return false
}

// modified updates sd after curve p changed at a bounce at time t.
func (s *Sampler) modified(sd *side, p int32, t, st, ct float64) {
	j := p - sd.first
	if i := sd.apos[j]; i >= 0 {
		sd.ac[i] = s.signed(sd, p)
	}
	switch {
	case p == sd.root:
		s.recalcRoot(sd, t, st, ct)
		s.floorCert(sd, t, st, ct)
	case sd.apos[j] >= 0:
		s.leafCert(sd, j, t, st, ct)
		s.challenge(sd, p, t, st, ct)
	default:
		s.leafCert(sd, j, t, st, ct)
	}
}

// sidePair queues the bounce of levels l and l+1.
func (s *Sampler) sidePair(l int, t, st, ct float64) {
	u := s.sides[2*l].root
	v := s.sides[2*(l+1)+1].root
	s.queue.set(s.pairID+int32(l), keyOf(hitTime(&s.curves[u], &s.curves[v], t, st, ct, &s.win)))
}

// runSides runs one segment of a trajectory with the kinetic search over
// sides. The queue holds every side's certificates, under ids from its id0,
// and the pair certificates, under s.pairID + l for levels l, l+1.
func (s *Sampler) runSides(st *Stats) error {
	L := s.nlev
	s.queue.reset(s.win.kT)
	s.estimateWalls()
	for id := range s.sides {
		if sd := &s.sides[id]; sd.k > 0 {
			wall := id/2 - 1 // the bottom of level l faces wall l−1|l
			if sd.isMax {
				wall = id / 2
			}
			s.buildSide(sd, s.wallMid[wall], s.wallEnd[wall])
		}
	}
	for l := 0; l+1 < L; l++ {
		s.sidePair(l, 0, 0, 1)
	}
	for {
		id, key := s.queue.min()
		if id < 0 {
			return nil
		}
		st.Events++
		if st.Events > s.maxE {
			return capError("events", s.maxE)
		}
		t := keyTime(key)
		sn, cs := sinCosK(t)
		if id < s.pairID {
			sid := int(s.sideOf[id])
			sd := &s.sides[sid]
			if s.sideEvent(sd, id-sd.id0, t, sn, cs) {
				if sd.isMax {
					s.sidePair(sid/2, t, sn, cs)
				} else {
					s.sidePair(sid/2-1, t, sn, cs)
				}
			}
			continue
		}
		l := int(id - s.pairID)
		st.Bounces++
		if st.Bounces > s.maxB {
			return capError("bounces", s.maxB)
		}
		u := s.sides[2*l].root
		v := s.sides[2*(l+1)+1].root
		s.bounce(u, v, sn, cs)
		for _, sid := range [4]int{2 * l, 2*l + 1, 2 * (l + 1), 2*(l+1) + 1} {
			p := u
			if sid >= 2*(l+1) {
				p = v
			}
			if sd := &s.sides[sid]; sd.k > 0 {
				s.modified(sd, p, t, sn, cs)
			}
		}
		// Pair l involves both changed curves; pairs l−1 and l+1 only if u
		// is also the bottom of level l or v also the top of level l+1.
		s.sidePair(l, t, sn, cs)
		if l > 0 && s.sides[2*l+1].root == u {
			s.sidePair(l-1, t, sn, cs)
		}
		if l+2 < L && s.sides[2*(l+1)].root == v {
			s.sidePair(l+1, t, sn, cs)
		}
	}
}
