package hough

import (
	"fmt"
	"math"
)

// envelopeSearch finds the first bounce after t0 between levels l and l+1 by
// following the upper envelope of level l (the Hough envelope, K&S §4.1,
// sampling.md §2.4): the running maximum u of level l is replaced whenever
// another curve of the level overtakes it, until u hits a curve of level l+1.
// It costs O(h·(n_l + n_{l+1})) for h envelope steps, which it adds to
// *steps. Exceeding 10·n_l + 10 steps is an error.
func (s *Sampler) envelopeSearch(l int, t0, st, ct float64, steps *int) (envEvent, error) {
	lv := s.lv
	lo, mid, hi := lv.Start[l], lv.Start[l+1], lv.Start[l+2]
	c := s.curves
	u := lo
	for i := lo + 1; i < mid; i++ {
		pi, pu := c[i].pos(st, ct), c[u].pos(st, ct)
		if pi > pu || (pi == pu && c[i].vel(st, ct) > c[u].vel(st, ct)) {
			u = i
		}
	}
	none := envEvent{t: math.Inf(1), u: -1, v: -1}
	limit := 10*int(mid-lo) + 10
	t := t0
	for iter := 0; ; iter++ {
		if iter > limit {
			return none, fmt.Errorf("hough: envelope search of levels %d and %d exceeded the cap of %d steps", l+1, l+2, limit)
		}
		sEnv, next := math.Inf(1), int32(-1)
		for i := lo; i < mid; i++ {
			if i == u {
				continue
			}
			if ti := hitTime(&c[i], &c[u], t, st, ct, &s.win); ti < sEnv {
				sEnv, next = ti, i
			}
		}
		sHit, v := math.Inf(1), int32(-1)
		for j := mid; j < hi; j++ {
			if tj := hitTime(&c[u], &c[j], t, st, ct, &s.win); tj < sHit {
				sHit, v = tj, j
			}
		}
		if sHit <= sEnv && sHit < s.win.kT {
			return envEvent{t: sHit, u: u, v: v}, nil
		}
		if sEnv >= s.win.kT {
			return none, nil
		}
		u, t = next, sEnv
		st, ct = sinCosK(t)
		*steps++
	}
}

// runEnvelope runs one trajectory with the envelope search, keeping one
// pending bounce per pair of adjacent levels in a heap and recomputing only
// the three pairs next to a bounce.
func (s *Sampler) runEnvelope(st *Stats) error {
	L := s.nlev
	s.heap.reset()
	for l := 0; l+1 < L; l++ {
		ev, err := s.envelopeSearch(l, 0, 0, 1, &st.Events)
		if err != nil {
			return err
		}
		s.env[l] = ev
		s.heap.set(l, ev.t)
	}
	for {
		l, t := s.heap.min()
		if t >= s.win.kT {
			return nil
		}
		st.Events++
		st.Bounces++
		if st.Bounces > s.maxB {
			return capError("bounces", s.maxB)
		}
		if st.Events > s.maxE {
			return capError("events", s.maxE)
		}
		sn, cs := sinCosK(t)
		s.bounce(s.env[l].u, s.env[l].v, sn, cs)
		for q := l - 1; q <= l+1; q++ {
			if q < 0 || q+1 >= L {
				continue
			}
			ev, err := s.envelopeSearch(q, t, sn, cs, &st.Events)
			if err != nil {
				return err
			}
			s.env[q] = ev
			s.heap.set(q, ev.t)
		}
	}
}
