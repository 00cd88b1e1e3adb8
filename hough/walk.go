package hough

import (
	"fmt"
	"math"
)

// The Walk search (sampling.md §2.5) keeps the sides of the kinetic search —
// per level a top and a bottom, each with a guide, a floor, and sleeping
// curves that carry wake certificates — but not the extreme of each side nor
// the curve that overtakes it. Instead, per wall l|l+1 it runs the envelope
// search of §2.4 over the awake curves of the top of level l and the bottom
// of level l+1 only, and queues the bounce it finds.
//
// A side's root field holds a witness: an awake curve over the floor F + ε,
// not necessarily the extreme. Its floor certificate fires when the witness
// falls to F + ε; then the awake curve that stays over F + ε longest becomes
// the witness, or, if none is over it, the floor is widened under the
// extreme as in the kinetic search. A sleeping curve stays under F − ε, hence
// under the witness, and so is never the extreme: the extreme of every side
// is always awake, and the walk over the awake curves finds the same bounce
// as the walk over all curves. A walk stays valid until one of the curves it
// read changes: a bounce re-walks the wall bounced; a curve waking, or
// bounced at a neighbouring wall while awake in a side of this one, is
// tested against the wall's recorded envelope (topChanged, botChanged), and
// the walk stands, resumes where the curve overtakes the envelope, or is
// redone if the curve was on it or was the bounce's. A curve falling asleep
// or a new witness or a wider floor changes no walk.
//
// Unlike the sides, the walk gives an awake curve no certificate: a curve
// may stay awake under the floor as long as it likes, since the walk over
// more curves finds the same envelope. Curves at or under F − 2ε are put to
// sleep (doze) when the walk of their wall is about to scan them, every
// walk while few are awake and less often when many are (mayDoze), and
// where the witness is sought. That saves the sleep certificate timed at
// every wake and re-timed at every bounce of an awake curve, and the sleep
// event itself.

// walkMargin is the initial margin of a floor, and its step at a widening,
// in units of σ, for the Walk search: on the column states of the inference
// package's BenchmarkHMCIteration 0.03–0.05 are best (0.02 costs 3–4% more
// instructions, 0.015 8%), while BenchmarkWalkMargin (μ = 0) prefers 0.02
// (3.5% fewer than 0.03). A variable so that the benchmark can vary it.
var walkMargin = 0.03

// levelMargin returns the floor margin and widening step, in units of σ, of
// a side whose level has k curves: walkMargin up to marginLevel curves,
// shrinking like 1/√k above. The curves near a wall grow with the level, so
// a fixed margin keeps more of them awake (53 per side at n = 5000, L = 5,
// against 15 at n = 1000), and every walk scans them; a narrower floor
// widens more often but keeps fewer awake. marginLevel is a variable so
// that tests can vary it.
func levelMargin(k int32) float64 {
	if k <= marginLevel {
		return walkMargin
	}
	return walkMargin * math.Sqrt(float64(marginLevel)/float64(k))
}

var marginLevel int32 = 256

// walkCount counts the walks of the Walk search, for benchmarks: walks from
// a level's extreme, envelope steps, and curves tested against a recorded
// envelope (woken, or changed by a bounce at a neighbouring wall) and the
// walks those tests restarted.
type walkCount struct {
	walks, steps, tests, resumed int
}

// walkSeg is a segment of a wall's envelope: from time t (as K) until the
// next segment's t, or the wall's bounce, curve u is the greatest awake
// curve of the top of the level under the wall.
type walkSeg struct {
	t float64
	u int32
}

// walkSegCap is the room for segments per wall; a walk with more than
// walkSegLimit (rare) is redone from the start whenever one of its curves
// changes. walkSegLimit is a variable so that tests can make it small.
const walkSegCap = 16

var walkSegLimit = walkSegCap

// walkWall finds the first bounce after time k0 (st = sin t0, ct = cos t0)
// between levels l and l+1 among the awake curves of the top of level l and
// the bottom of level l+1, records it in s.env[l] with the envelope's
// segments and queues it.
func (s *Sampler) walkWall(l int, k0, st, ct float64) error {
	top := &s.sides[2*l]
	s.mayDoze(top, k0, st, ct)
	s.mayDoze(&s.sides[2*(l+1)+1], k0, st, ct)
	u := top.first + top.awake[greatest(top.ac, st, ct)]
	s.walkCount.walks++
	s.nsegs[l] = 0
	return s.walkOn(l, u, k0, st, ct)
}

// walkOn continues the walk of wall l from time t with u the greatest awake
// curve of the top of level l, appending the segments from t.
func (s *Sampler) walkOn(l int, u int32, t, st, ct float64) error {
	top, bot := &s.sides[2*l], &s.sides[2*(l+1)+1]
	ev := envEvent{t: math.Inf(1), u: -1, v: -1}
	limit := 10*int(top.k) + 10
	for iter := 0; ; iter++ {
		if iter > limit {
			return fmt.Errorf("hough: walk of levels %d and %d exceeded the cap of %d steps", l+1, l+2, limit)
		}
		s.record(l, walkSeg{t: t, u: u})
		ui := int(top.apos[u-top.first])
		cu := &top.ac[ui]
		// The first awake curve of the top of level l to overtake u, then
		// the first hit of u with an awake curve of the bottom of level l+1
		// up to that time: most walks start from a curve just bounced, which
		// is overtaken at once, so the second scan has a near horizon.
		kT := s.win.kT
		hk, hs, hc := kT, s.win.sT, s.win.cT // the horizon
		// Both scans read the sides' copies of their awake curves (side.ac,
		// negated in the bottom: cv.mu − x rounds as cv.mu + (−x)), and run
		// mayHit with the horizon and then hitRoot written out: a call in
		// the loop would make the compiler store the loop's values on every
		// iteration.
		// The first found makes hk the horizon; so "k < sEnv" reads "next < 0
		// || k < hk", and "k < sHit" "vi < 0 || k < hk": fewer registers.
		next, ac := -1, top.ac
		for i := range ac {
			if i == ui {
				continue
			}
			ci := &ac[i]
			m, A, B := ci.mu-cu.mu, ci.a-cu.a, ci.b-cu.b
			d0 := m + A*st + B*ct
			if d0 < 0 && m+A*hs+B*hc <= 0 {
				if cc := B - m; !(cc > 0 && A > t*cc && A < hk*cc) {
					continue
				}
			}
			d1 := A*ct - B*st
			k := t
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
				if !(k >= t) || k >= kT || (k-t < spuriousRoot && d1 <= 0) {
					continue
				}
			}
			if next < 0 || k < hk {
				next, hk = i, k
				hs, hc = sinCosK(k)
			}
		}
		sEnv := math.Inf(1)
		if next >= 0 {
			sEnv = hk
		}
		vi, ac := -1, bot.ac
		for i := range ac {
			cv := &ac[i]
			m, A, B := cu.mu+cv.mu, cu.a+cv.a, cu.b+cv.b
			d0 := m + A*st + B*ct
			if d0 < 0 && m+A*hs+B*hc <= 0 {
				if cc := B - m; !(cc > 0 && A > t*cc && A < hk*cc) {
					continue
				}
			}
			d1 := A*ct - B*st
			k := t
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
				if !(k >= t) || k >= kT || (k-t < spuriousRoot && d1 <= 0) {
					continue
				}
			}
			if vi < 0 || k < hk {
				vi, hk = i, k
				hs, hc = sinCosK(k)
			}
		}
		sHit := math.Inf(1)
		if vi >= 0 {
			sHit = hk
		}
		if sHit <= sEnv && sHit < kT {
			ev = envEvent{t: sHit, u: u, v: bot.first + bot.awake[vi]}
			break
		}
		if sEnv >= kT {
			break
		}
		u, t = top.first+top.awake[next], sEnv
		st, ct = sinCosK(t)
		s.walkCount.steps++
	}
	s.env[l] = ev
	s.queue.set(s.pairID+int32(l), keyOf(ev.t))
	return nil
}

// record appends sg to the segments of wall l, or marks them overflowed.
//
//go:noinline
func (s *Sampler) record(l int, sg walkSeg) {
	if n := int(s.nsegs[l]); n >= 0 && n < walkSegLimit {
		s.segs[walkSegCap*l+n] = sg
		s.nsegs[l]++
	} else {
		s.nsegs[l] = -1
	}
}

// segEnd returns the end of segment i of wall l's envelope: the next
// segment's start, or the wall's bounce (+Inf if none in the segment).
func (s *Sampler) segEnd(l, i int) float64 {
	if i+1 < int(s.nsegs[l]) {
		return s.segs[walkSegCap*l+i+1].t
	}
	return s.env[l].t
}

// topChanged updates wall l after curve w of the top of level l woke, or
// changed at a bounce of wall l+1, at time t: the walk stands unless w
// overtakes the envelope before the bounce, and then it resumes from there
// with w on the envelope. A changed curve that was on the envelope after t
// restarts the walk.
func (s *Sampler) topChanged(l int, w int32, t, st, ct float64) error {
	n := int(s.nsegs[l])
	if n < 0 {
		return s.walkWall(l, t, st, ct)
	}
	s.walkCount.tests++
	segs := s.segs[walkSegCap*l : walkSegCap*l+n]
	c := s.curves
	cw := &c[w]
	for i := range segs {
		end := s.segEnd(l, i)
		if end <= t {
			continue
		}
		if segs[i].u == w {
			return s.walkWall(l, t, st, ct)
		}
		k0, s0, c0 := t, st, ct
		if segs[i].t > t {
			k0 = segs[i].t
			s0, c0 = sinCosK(k0)
		}
		cu := &c[segs[i].u]
		m, A, B := cw.mu-cu.mu, cw.a-cu.a, cw.b-cu.b
		if !mayHit(m, A, B, k0, s0, c0, &s.win) {
			continue
		}
		if k := hitRoot(m, A, B, k0, s0, c0, &s.win); k < end {
			// w overtakes the envelope at k: resume the walk there.
			for _, sg := range segs[i+1:] {
				if sg.u == w {
					return s.walkWall(l, t, st, ct)
				}
			}
			s.walkCount.resumed++
			s.nsegs[l] = int32(i + 1)
			sk, ck := sinCosK(k)
			return s.walkOn(l, w, k, sk, ck)
		}
	}
	return nil
}

// botChanged updates wall l after curve w of the bottom of level l+1 woke,
// or changed at a bounce of wall l+1, at time t: the bounce becomes the
// first hit of the envelope with w if that comes earlier. A changed curve
// that was the bounce's restarts the walk.
func (s *Sampler) botChanged(l int, w int32, t, st, ct float64) error {
	n := int(s.nsegs[l])
	if n < 0 || s.env[l].v == w {
		return s.walkWall(l, t, st, ct)
	}
	s.walkCount.tests++
	segs := s.segs[walkSegCap*l : walkSegCap*l+n]
	c := s.curves
	cw := &c[w]
	for i := range segs {
		end := s.segEnd(l, i)
		if end <= t {
			continue
		}
		k0, s0, c0 := t, st, ct
		if segs[i].t > t {
			k0 = segs[i].t
			s0, c0 = sinCosK(k0)
		}
		cu := &c[segs[i].u]
		m, A, B := cu.mu-cw.mu, cu.a-cw.a, cu.b-cw.b
		if !mayHit(m, A, B, k0, s0, c0, &s.win) {
			continue
		}
		if k := hitRoot(m, A, B, k0, s0, c0, &s.win); k < end {
			s.nsegs[l] = int32(i + 1)
			s.env[l] = envEvent{t: k, u: segs[i].u, v: w}
			s.queue.set(s.pairID+int32(l), keyOf(k))
			return nil
		}
	}
	return nil
}

// walkFloor handles the floor certificate of sd at time t: its witness has
// fallen to F + ε. The awake curve that stays over F + ε longest becomes the
// witness; if none is over it now, the floor is widened under the extreme
// (an awake curve, since the sleeping ones are under F − ε).
func (s *Sampler) walkFloor(sd *side, t, st, ct float64) {
	s.doze(sd, t, st, ct)
	l := sd.line(1)
	best, bestKey := int32(-1), keyOf(t)
	for _, j := range sd.awake {
		p := sd.first + j
		if key := s.rises(sd, &l, &s.curves[p], t, st, ct); key > bestKey {
			best, bestKey = p, key
			if key == infKey {
				break
			}
		}
	}
	if best >= 0 {
		sd.root = best // both awake: neither has a leaf certificate
		s.queue.set(sd.id0+sd.k+1, bestKey)
		return
	}
	ext := sd.first + sd.awake[0]
	for _, j := range sd.awake[1:] {
		if s.better(sd.first+j, ext, sd.isMax, st, ct) {
			ext = sd.first + j
		}
	}
	sd.root = ext
	depth := sd.theta.pos(st, ct) - s.curves[ext].pos(st, ct)
	if !sd.isMax {
		depth = -depth
	}
	sd.c = widened(sd.c, depth, levelMargin(sd.k)*s.sigma, sd.eps)
	s.retime(sd, t, st, ct)
	s.floorCert(sd, t, st, ct)
}

// walkSideEvent processes a certificate of sd at time t: a curve waking, or
// the witness reaching the floor. It reports whether a curve woke, which may
// change the walk of the wall sd faces. Awake curves carry no certificate:
// they fall asleep lazily (doze).
func (s *Sampler) walkSideEvent(sd *side, j int32, t, st, ct float64) bool {
	switch {
	case j < sd.k: // wake: only a sleeping curve has a leaf certificate
		s.wake(sd, j)
		s.queue.set(sd.id0+j, infKey)
		if int(sd.k) == len(sd.awake) {
			s.floorCert(sd, t, st, ct)
		}
		return true
	case j == sd.k: // no root certificate is queued by Walk
		s.queue.set(sd.id0+j, infKey)
	default:
		s.walkFloor(sd, t, st, ct)
	}
	return false
}

// doze puts to sleep the awake curves of sd other than the witness that are
// at or under the sleep line F − 2ε at the time k0 (sin st, cos ct), and
// queues their wake certificates (see the comment at the top of the file).
//
// A sleeper must stay under the witness, so the witness must be over
// F + ε: while no curve sleeps it has no floor certificate and may be
// anywhere. If it is not over F + ε now, the greatest awake curve becomes
// the witness; if that is not over F + ε either, no curve is put to sleep
// (the floor's event, if any curve sleeps, is due now and widens it).
func (s *Sampler) doze(sd *side, k0, st, ct float64) {
	sl, fl := sd.line(-2), sd.line(1)
	y, yf := sl.pos(st, ct), fl.pos(st, ct)
	if !sd.isMax {
		y, yf = -y, -yf // the copies in sd.ac are negated in a bottom
	}
	ac := sd.ac
	witness := false
	if x := ac[sd.apos[sd.root-sd.first]].pos(st, ct); x <= yf || x <= y {
		bi := greatest(ac, st, ct)
		if x := ac[bi].pos(st, ct); x <= yf || x <= y {
			return
		}
		sd.root = sd.first + sd.awake[bi]
		witness = true
	}
	slept := false
	for i := len(ac) - 1; i >= 0; i-- {
		if ac[i].pos(st, ct) > y {
			continue // the witness among them
		}
		j := sd.awake[i]
		n := len(sd.awake) - 1
		last := sd.awake[n]
		sd.awake[i], sd.ac[i] = last, sd.ac[n]
		sd.apos[last] = int32(i)
		sd.awake, sd.ac = sd.awake[:n], sd.ac[:n]
		sd.apos[j] = -1
		s.leafCert(sd, j, k0, st, ct)
		slept = slept || int(sd.k) == n+1
	}
	if witness || slept {
		s.floorCert(sd, k0, st, ct)
	}
}

// mayDoze dozes sd at the walk of the wall it faces, once in so many walks:
// a doze costs a pass over the awake curves, while a curve left awake under
// the floor costs a little in each walk, and there are about as many of
// them as walks since the last doze. So sd is dozed when the square of the
// walks since (times dozeRate) reaches its awake curves: every walk while
// few curves are awake, every fifth or so with fifty.
func (s *Sampler) mayDoze(sd *side, k0, st, ct float64) {
	sd.walks++
	if sd.walks*sd.walks*dozeRate < int32(len(sd.awake)) {
		return
	}
	sd.walks = 0
	s.doze(sd, k0, st, ct)
}

// dozeRate sets how often mayDoze dozes; a variable so that benchmarks can
// vary it.
var dozeRate int32 = 2

// greatest returns the index of the greatest curve in ac at the time with
// sin st, cos ct, ties by velocity.
func greatest(ac []curve, st, ct float64) int {
	bi, bx := 0, ac[0].pos(st, ct)
	for i := 1; i < len(ac); i++ {
		if x := ac[i].pos(st, ct); x > bx || (x == bx && ac[i].vel(st, ct) > ac[bi].vel(st, ct)) {
			bi, bx = i, x
		}
	}
	return bi
}

// runWalk runs one segment of a trajectory with the Walk search. The queue
// holds every side's leaf and floor certificates, under ids from its id0, and
// the walls' bounces, under s.pairID + l for levels l, l+1.
func (s *Sampler) runWalk(st *Stats) error {
	L := s.nlev
	s.queue.reset(s.win.kT)
	s.estimateWalls()
	for id := range s.sides {
		if sd := &s.sides[id]; sd.k > 0 {
			wall := id/2 - 1 // the bottom of level l faces wall l−1|l
			if sd.isMax {
				wall = id / 2
			}
			s.initSide(sd, s.wallMid[wall], s.wallEnd[wall], levelMargin(sd.k))
			sd.walks = 0
			s.floorCert(sd, 0, 0, 1)
		}
	}
	for l := 0; l+1 < L; l++ {
		if err := s.walkWall(l, 0, 0, 1); err != nil {
			return err
		}
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
			if j := id - sd.id0; s.walkSideEvent(sd, j, t, sn, cs) {
				var err error
				if sd.isMax {
					err = s.topChanged(sid/2, sd.first+j, t, sn, cs)
				} else {
					err = s.botChanged(sid/2-1, sd.first+j, t, sn, cs)
				}
				if err != nil {
					return err
				}
			}
			continue
		}
		l := int(id - s.pairID)
		st.Bounces++
		if st.Bounces > s.maxB {
			return capError("bounces", s.maxB)
		}
		u, v := s.env[l].u, s.env[l].v
		s.bounce(u, v, sn, cs)
		for _, sid := range [4]int{2 * l, 2*l + 1, 2 * (l + 1), 2*(l+1) + 1} {
			p := u
			if sid >= 2*(l+1) {
				p = v
			}
			if sd := &s.sides[sid]; sd.k > 0 {
				if i := sd.apos[p-sd.first]; i >= 0 {
					sd.ac[i] = s.signed(sd, p)
				} else {
					s.leafCert(sd, p-sd.first, t, sn, cs)
				}
				if p == sd.root {
					s.floorCert(sd, t, sn, cs)
				}
			}
		}
		// Wall l read both changed curves. Walls l−1 and l+1 are tested
		// with u and v where these are awake in the sides facing them; a
		// walk there may still name one asleep, but it must wake (its wake
		// certificate re-timed above) before it can touch the wall, and
		// the wake tests the wall again.
		if err := s.walkWall(l, t, sn, cs); err != nil {
			return err
		}
		if sd := &s.sides[2*l+1]; l > 0 && sd.apos[u-sd.first] >= 0 {
			if err := s.botChanged(l-1, u, t, sn, cs); err != nil {
				return err
			}
		}
		if sd := &s.sides[2*(l+1)]; l+2 < L && sd.apos[v-sd.first] >= 0 {
			if err := s.topChanged(l+1, v, t, sn, cs); err != nil {
				return err
			}
		}
	}
}
