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

// certOf returns the certificate of internal node i of tr: the time at which
// the node's loser overtakes its winner.
func (s *Sampler) certOf(tr *tree, i int32, t0, st, ct float64) uint64 {
	nodes := s.nodes[tr.off:]
	w := nodes[i].winner
	// The loser is the child winner that is not w; which child won is
	// unpredictable, so it is found without branching.
	a, b := tr.childWinners(nodes, i)
	o := a ^ b ^ w
	u, v := o, w // a max-tree fails when the loser rises above the winner
	if !tr.isMax {
		u, v = w, o
	}
	return keyOf(hitTime(&s.curves[u], &s.curves[v], t0, st, ct, &s.win))
}

// build fills tr at time t0 bottom-up.
func (s *Sampler) build(tr *tree, t0, st, ct float64) {
	nodes := s.nodes[tr.off : tr.off+2*tr.k]
	for j := int32(0); j < tr.k; j++ {
		nodes[tr.k+j] = node{cert: infKey, sub: infKey, winner: tr.first + j}
	}
	for i := tr.k - 1; i >= 1; i-- {
		a, b := nodes[2*i].winner, nodes[2*i+1].winner
		if !s.better(a, b, tr.isMax, st, ct) {
			a = b
		}
		nodes[i].winner = a
		nodes[i].cert = s.certOf(tr, i, t0, st, ct)
		pull(nodes, tr.k, i)
	}
}

// root returns the winner of tr.
func (s *Sampler) root(tr *tree) int32 { return s.nodes[tr.off+1].winner }

// rootKey returns the earliest certificate of tr.
func (s *Sampler) rootKey(tr *tree) float64 { return math.Float64frombits(s.nodes[tr.off+1].sub) }

// childWinners returns the winners of the children of internal node i of
// tr. Leaves (nodes k and beyond) hold their curve's index, which follows
// from theirs, so they are read only beside an internal sibling (node k, when
// k is odd): the bottom of a large tree stays out of the cache.
func (tr *tree) childWinners(nodes []node, i int32) (int32, int32) {
	c := 2 * i
	if c < tr.k {
		return nodes[c].winner, nodes[c+1].winner
	}
	w := tr.first + c - tr.k
	return w, w + 1
}

// pull recomputes the earliest certificate of the subtree of internal node i
// of a tree with k leaves from its own certificate and its children's, and
// reports whether it changed. Leaves have no certificates and are read only
// beside an internal sibling.
func pull(nodes []node, k, i int32) bool {
	nd := &nodes[i]
	sub, at := nd.cert, i
	if c := 2 * i; c < k {
		ch := nodes[c : c+2 : c+2]
		// The children are loaded unconditionally so that the compiler
		// selects with conditional moves: which child wins is unpredictable.
		ls, la, rs, ra := ch[0].sub, ch[0].at, ch[1].sub, ch[1].at
		if ls < sub {
			sub, at = ls, la
		}
		if rs < sub {
			sub, at = rs, ra
		}
	}
	if sub == nd.sub && at == nd.at {
		return false
	}
	nd.sub, nd.at = sub, at
	return true
}

// propagate recomputes the subtree minima from internal node i up to the
// root, stopping early once a minimum is unchanged.
func (s *Sampler) propagate(tr *tree, i int32) {
	nodes := s.nodes[tr.off:]
	for ; i >= 1 && pull(nodes, tr.k, i); i /= 2 {
	}
}

// nodeEvent processes the certificate failure at internal node i at time t:
// the loser becomes the winner (forced, never re-compared, §2.5), and the
// certificates up the path are recomputed, each node's subtree minimum with
// it, until the winner stops changing. It reports whether the root's winner
// changed.
func (s *Sampler) nodeEvent(tr *tree, i int32, t, st, ct float64) bool {
	nodes := s.nodes[tr.off:]
	old := nodes[i].winner
	a, b := tr.childWinners(nodes, i)
	nw := a ^ b ^ old // the loser
	for {
		nd := &nodes[i]
		won := nd.winner == old
		if won {
			nd.winner = nw
		} // else only the loser here changed, from old to nw
		nd.cert = s.certOf(tr, i, t, st, ct)
		pull(nodes, tr.k, i)
		if !won {
			s.propagate(tr, i/2)
			return false
		}
		if i == 1 {
			return true
		}
		i /= 2
	}
}

// repairPath recomputes the certificates involving curve p, whose curve
// changed at a bounce, from p's leaf to the root of tr. Winners are kept: the
// positions did not change, and a winner whose lead is lost fires at once
// through §2.6 rule 2.
func (s *Sampler) repairPath(tr *tree, p int32, t, st, ct float64) {
	if tr.k < 2 {
		return
	}
	nodes := s.nodes[tr.off:]
	i := (tr.k + p - tr.first) / 2
	for ; i >= 1; i /= 2 {
		nd := &nodes[i]
		nd.cert = s.certOf(tr, i, t, st, ct)
		pull(nodes, tr.k, i)
		if nd.winner != p {
			s.propagate(tr, i/2)
			return
		}
	}
}

// pairCert returns the bounce time of levels l and l+1: when the top of
// level l crosses the bottom of level l+1.
func (s *Sampler) pairCert(l int, t, st, ct float64) float64 {
	u := s.root(&s.trees[2*l])
	v := s.root(&s.trees[2*(l+1)+1])
	return hitTime(&s.curves[u], &s.curves[v], t, st, ct, &s.win)
}

// runKinetic runs one trajectory with the kinetic tournament search. Heap ids
// 0..2L−1 are trees (2l the max-tree, 2l+1 the min-tree of level l); id 2L+l is
// the pair of levels l, l+1.
func (s *Sampler) runKinetic(st *Stats) error {
	L := s.nlev
	s.heap.reset()
	for id := range s.trees {
		tr := &s.trees[id]
		if tr.k == 0 {
			continue
		}
		s.build(tr, 0, 0, 1)
		if tr.k >= 2 {
			s.heap.set(id, s.rootKey(tr))
		}
	}
	for l := 0; l+1 < L; l++ {
		s.heap.set(2*L+l, s.pairCert(l, 0, 0, 1))
	}
	for {
		id, t := s.heap.min()
		if t >= s.win.kT {
			return nil
		}
		st.Events++
		if st.Events > s.maxE {
			return capError("events", s.maxE)
		}
		sn, cs := sinCosK(t)
		if id < 2*L {
			tr := &s.trees[id]
			rootChanged := s.nodeEvent(tr, s.nodes[tr.off+1].at, t, sn, cs)
			s.heap.set(id, s.rootKey(tr))
			if rootChanged {
				l := id / 2
				if tr.isMax {
					s.heap.set(2*L+l, s.pairCert(l, t, sn, cs))
				} else {
					s.heap.set(2*L+l-1, s.pairCert(l-1, t, sn, cs))
				}
			}
			continue
		}
		l := id - 2*L
		st.Bounces++
		if st.Bounces > s.maxB {
			return capError("bounces", s.maxB)
		}
		u := s.root(&s.trees[2*l])
		v := s.root(&s.trees[2*(l+1)+1])
		s.bounce(u, v, sn, cs)
		for _, tid := range [4]int{2 * l, 2*l + 1, 2 * (l + 1), 2*(l+1) + 1} {
			tr := &s.trees[tid]
			if tr.k < 2 {
				continue // absent, or a single curve: no certificates
			}
			p := u
			if tid >= 2*(l+1) {
				p = v
			}
			s.repairPath(tr, p, t, sn, cs)
			s.heap.set(tid, s.rootKey(tr))
		}
		// Pair l involves both changed curves; pairs l−1 and l+1 only if u
		// is also the bottom of level l or v also the top of level l+1.
		s.heap.set(2*L+l, s.pairCert(l, t, sn, cs))
		if l > 0 && s.root(&s.trees[2*l+1]) == u {
			s.heap.set(2*L+l-1, s.pairCert(l-1, t, sn, cs))
		}
		if l+2 < L && s.root(&s.trees[2*(l+1)]) == v {
			s.heap.set(2*L+l+1, s.pairCert(l+1, t, sn, cs))
		}
	}
}
