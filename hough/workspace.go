package hough

// Workspace is the scratch memory of exact HMC trajectories: the curves,
// the certificates and the event queue, O(n) for a column of n rows. A
// Sampler given no workspace has its own. Samplers that run one after
// another, as the columns of one chain do, can share one (Options.Workspace)
// and so hold the memory of their largest column instead of one copy per
// column: at n = 10⁵ with 5 levels a column's is about 18 MB. A sampler
// lays the workspace out for its column at the start of each transition,
// O(n + levels) work against the trajectory's O(n·levels) bounces.
//
// A Workspace is not safe for concurrent use: samplers that share one must
// not run at the same time. The zero value is ready to use.
type Workspace struct {
	owner *Sampler // the sampler whose views are current, or nil

	curves  []curve
	xi      []float64
	xnew    []float64
	order   []rowKey
	winners []int32
	treeOf  []int32
	trees   []tree
	sideOf  []int32
	sides   []side
	awake   []int32 // backing of the sides' awake lists
	apos    []int32 // backing of the sides' apos
	ac      []curve // backing of the sides' awake curves
	queue   calendar
	pos     []float64
	ranks   []int32
	wallMid []float64
	wallEnd []float64
	heap    eventHeap
	env     []envEvent
	segs    []walkSeg
	nsegs   []int32
}

// NewWorkspace returns an empty Workspace, to be shared by samplers through
// Options.Workspace.
func NewWorkspace() *Workspace { return new(Workspace) }

// resize returns b with length n, reusing its memory if it is large enough.
// The contents are unspecified.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// bind makes the workspace s's: unless s was the last sampler to use it, it
// lays out the views of s (every slice, the queue and the heap) for s's
// levels, growing the workspace if needed.
func (s *Sampler) bind() {
	ws := s.ws
	if ws.owner == s {
		return
	}
	ws.owner = s
	lv := s.lv
	n, L, m := lv.N, s.nlev, len(lv.Order)
	s.views = views{}
	ws.curves = resize(ws.curves, m)
	ws.xi = resize(ws.xi, n)
	ws.xnew = resize(ws.xnew, m)
	ws.order = resize(ws.order, m)
	s.curves, s.xi, s.xnew, s.order = ws.curves, ws.xi, ws.xnew, ws.order
	for p, i := range lv.Order {
		s.order[p] = rowKey{row: i}
	}
	s.queue, s.heap = &ws.queue, &ws.heap
	if L == 0 {
		return
	}
	switch {
	case s.opt.Search == Kinetic && s.useTrees:
		ws.trees = resize(ws.trees, 2*L)
		s.trees = ws.trees
		total := int32(0)
		for l := 0; l < L; l++ {
			k := lv.Start[l+1] - lv.Start[l]
			s.trees[2*l], s.trees[2*l+1] = tree{}, tree{}
			if l < L-1 {
				s.trees[2*l] = tree{off: total, k: k, first: lv.Start[l], isMax: true}
				total += 2 * k
			}
			if l > 0 {
				s.trees[2*l+1] = tree{off: total, k: k, first: lv.Start[l]}
				total += 2 * k
			}
		}
		ws.winners = resize(ws.winners, int(total))
		ws.treeOf = resize(ws.treeOf, int(total))
		s.winners, s.treeOf = ws.winners, ws.treeOf
		for id := range s.trees {
			tr := &s.trees[id]
			tr.nodes = s.winners[tr.off : tr.off+2*tr.k]
			for i := tr.off; i < tr.off+2*tr.k; i++ {
				s.treeOf[i] = int32(id)
			}
		}
		s.pairID = total
		ws.queue.layout(int(total) + L - 1)
	case s.opt.Search == Kinetic || s.opt.Search == Walk:
		ws.sides = resize(ws.sides, 2*L)
		s.sides = ws.sides
		ws.awake = resize(ws.awake, 2*m)
		ws.apos = resize(ws.apos, 2*m)
		ws.ac = resize(ws.ac, 2*m)
		total, used := int32(0), int32(0)
		for l := 0; l < L; l++ {
			k := lv.Start[l+1] - lv.Start[l]
			for _, top := range [2]bool{true, false} {
				id := 2 * l
				if !top {
					id++
				}
				s.sides[id] = side{}
				if (top && l == L-1) || (!top && l == 0) {
					continue
				}
				s.sides[id] = side{first: lv.Start[l], k: k, isMax: top, id0: total,
					awake: ws.awake[used : used : used+k], apos: ws.apos[used : used+k],
					ac: ws.ac[used : used : used+k]}
				total += k + 2
				used += k
			}
		}
		ws.sideOf = resize(ws.sideOf, int(total))
		s.sideOf = ws.sideOf
		for id := range s.sides {
			sd := &s.sides[id]
			for i := sd.id0; i < sd.id0+sd.k+2 && sd.k > 0; i++ {
				s.sideOf[i] = int32(id)
			}
		}
		s.pairID = total
		ws.queue.layout(int(total) + L - 1)
		ws.pos = resize(ws.pos, m)
		ws.ranks = resize(ws.ranks, 2*L)
		ws.wallMid = resize(ws.wallMid, L)
		ws.wallEnd = resize(ws.wallEnd, L)
		s.pos, s.ranks, s.wallMid, s.wallEnd = ws.pos, ws.ranks[:0], ws.wallMid, ws.wallEnd
		if s.walk {
			ws.env = resize(ws.env, L)
			ws.segs = resize(ws.segs, walkSegCap*L)
			ws.nsegs = resize(ws.nsegs, L)
			s.env, s.segs, s.nsegs = ws.env, ws.segs, ws.nsegs
		}
	default:
		ws.env = resize(ws.env, L)
		s.env = ws.env
		ws.heap.layout(L)
	}
}

// unbind drops s's views of its workspace, so that they keep no memory the
// workspace has since replaced; the next bind lays them out again.
func (s *Sampler) unbind() {
	s.views = views{}
	if s.ws.owner == s {
		s.ws.owner = nil
	}
}
