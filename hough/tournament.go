package hough

// The kinetic search of sampling.md §2.5 before the sides of kinetic.go:
// one kinetic tournament tree per level and direction over all its curves,
// O(log n) certificates per event. It is used for levels of more than
// sideMaxLevel curves, where too many curves come near a wall for the sides
// (the guide's error does not shrink with the spacing of the curves).

// certOf returns the certificate of internal node i of tr: the time at which
// the node's loser overtakes its winner.
func (s *Sampler) certOf(tr *tree, i int32, t0, st, ct float64) uint64 {
	nodes := tr.nodes
	w := nodes[i]
	// The loser is the child winner that is not w; which child won is
	// unpredictable, so it is found without branching.
	a, b := tr.childWinners(nodes, i)
	o := a ^ b ^ w
	u, v := o, w // a max-tree fails when the loser rises above the winner
	if !tr.isMax {
		u, v = w, o
	}
	cu, cv := &s.curves[u], &s.curves[v]
	m, A, B := cu.mu-cv.mu, cu.a-cv.a, cu.b-cv.b
	if !mayHit(m, A, B, t0, st, ct, &s.win) { // hitTime's sign test, inlined
		return infKey
	}
	return keyOf(hitRoot(m, A, B, t0, st, ct, &s.win))
}

// build fills tr at time t0 bottom-up and queues its certificates.
func (s *Sampler) build(tr *tree, t0, st, ct float64) {
	nodes := tr.nodes
	for j := int32(0); j < tr.k; j++ {
		nodes[tr.k+j] = tr.first + j
	}
	for i := tr.k - 1; i >= 1; i-- {
		a, b := nodes[2*i], nodes[2*i+1]
		if !s.better(a, b, tr.isMax, st, ct) {
			a = b
		}
		nodes[i] = a
		s.queue.set(tr.off+i, s.certOf(tr, i, t0, st, ct))
	}
}

// root returns the winner of tr.
func (s *Sampler) root(tr *tree) int32 { return tr.nodes[1] }

// childWinners returns the winners of the children of internal node i of
// tr. Leaves (nodes k and beyond) hold their curve's index, which follows
// from theirs, so they are read only beside an internal sibling (node k, when
// k is odd): the bottom of a large tree stays out of the cache.
func (tr *tree) childWinners(nodes []int32, i int32) (int32, int32) {
	c := 2 * i
	if c < tr.k {
		return nodes[c], nodes[c+1]
	}
	w := tr.first + c - tr.k
	return w, w + 1
}

// nodeEvent processes the certificate failure at internal node i at time t:
// the loser becomes the winner (forced, never re-compared, §2.5), and the
// certificates up the path are recomputed until the winner stops changing.
// It reports whether the root's winner changed.
func (s *Sampler) nodeEvent(tr *tree, i int32, t, st, ct float64) bool {
	nodes := tr.nodes
	old := nodes[i]
	a, b := tr.childWinners(nodes, i)
	nw := a ^ b ^ old // the loser
	for {
		won := nodes[i] == old
		if won {
			nodes[i] = nw
		} // else only the loser here changed, from old to nw
		s.queue.set(tr.off+i, s.certOf(tr, i, t, st, ct))
		if !won {
			return false
		}
		if i == 1 {
			return true
		}
		i /= 2
	}
}

// repairPath recomputes the certificates involving curve p, whose curve
// changed at a bounce, from p's leaf to the first node p does not win.
// Winners are kept: the positions did not change, and a winner whose lead is
// lost fires at once through §2.6 rule 2.
func (s *Sampler) repairPath(tr *tree, p int32, t, st, ct float64) {
	if tr.k < 2 {
		return
	}
	nodes := tr.nodes
	for i := (tr.k + p - tr.first) / 2; i >= 1; i /= 2 {
		s.queue.set(tr.off+i, s.certOf(tr, i, t, st, ct))
		if nodes[i] != p {
			return
		}
	}
}

// pairCert queues the bounce of levels l and l+1: when the top of level l
// crosses the bottom of level l+1.
func (s *Sampler) pairCert(l int, t, st, ct float64) {
	u := s.root(&s.trees[2*l])
	v := s.root(&s.trees[2*(l+1)+1])
	s.queue.set(s.pairID+int32(l), keyOf(hitTime(&s.curves[u], &s.curves[v], t, st, ct, &s.win)))
}

// runTrees runs one segment of a trajectory with tournament trees. The
// queue holds every tree's node certificates, under the id of the node in
// s.winners, and the pair certificates, under s.pairID + l for levels l, l+1.
func (s *Sampler) runTrees(st *Stats) error {
	L := s.nlev
	s.queue.reset(s.win.kT)
	for id := range s.trees {
		if tr := &s.trees[id]; tr.k > 0 {
			s.build(tr, 0, 0, 1)
		}
	}
	for l := 0; l+1 < L; l++ {
		s.pairCert(l, 0, 0, 1)
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
			tid := int(s.treeOf[id])
			tr := &s.trees[tid]
			if s.nodeEvent(tr, id-tr.off, t, sn, cs) {
				l := tid / 2
				if tr.isMax {
					s.pairCert(l, t, sn, cs)
				} else {
					s.pairCert(l-1, t, sn, cs)
				}
			}
			continue
		}
		l := int(id - s.pairID)
		st.Bounces++
		if st.Bounces > s.maxB {
			return capError("bounces", s.maxB)
		}
		u := s.root(&s.trees[2*l])
		v := s.root(&s.trees[2*(l+1)+1])
		s.bounce(u, v, sn, cs)
		for _, tid := range [4]int{2 * l, 2*l + 1, 2 * (l + 1), 2*(l+1) + 1} {
			p := u
			if tid >= 2*(l+1) {
				p = v
			}
			s.repairPath(&s.trees[tid], p, t, sn, cs) // absent trees have k = 0
		}
		// Pair l involves both changed curves; pairs l−1 and l+1 only if u
		// is also the bottom of level l or v also the top of level l+1.
		s.pairCert(l, t, sn, cs)
		if l > 0 && s.root(&s.trees[2*l+1]) == u {
			s.pairCert(l-1, t, sn, cs)
		}
		if l+2 < L && s.root(&s.trees[2*(l+1)]) == v {
			s.pairCert(l+1, t, sn, cs)
		}
	}
}
