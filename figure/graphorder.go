package figure

// The order of a graph's nodes on its circle: by dependence, so that
// columns that depend on each other sit side by side and fewer edges
// cross than in column order.

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// maxSiftPasses bounds the passes of sift, each of which moves every node
// to where it crosses fewest edges; they stop sooner when one moves none.
// siftWork bounds the pairs of edges the passes compare (about 4E² a
// pass of E edges): a graph of every one of 5,000 edges would take
// minutes of passes; sift stops after the pass that passes the bound,
// and does not start when one pass would.
const (
	maxSiftPasses = 20
	siftWork      = 50_000_000
)

// dependenceOrder returns the positions on the circle (clockwise from the
// top) of p nodes joined by edges, and the crossings of the edges there
// and in column order: a spectral seriation of the graph weighted by
// |mean| (each connected part by its Fiedler vector, the parts by their
// first column), then sifted (each node moved to where its edges cross
// fewest others) from it and from column order, the fewer crossings
// kept. Column order is kept unless the order found crosses strictly
// fewer edges, so it is never worse by the count. Deterministic: ties
// go to column order, and the Fiedler vector's sign is fixed.
func dependenceOrder(p int, edges []GraphPair) (pos []int, crossed, columnCrossed int) {
	column := make([]int, p)
	for i := range column {
		column[i] = i
	}
	columnCrossed = crossings(column, edges)
	if columnCrossed == 0 {
		return column, 0, 0
	}
	adj := make([][]int, p) // the edges at each node, by index
	for k, e := range edges {
		adj[e.I] = append(adj[e.I], k)
		adj[e.J] = append(adj[e.J], k)
	}
	best, bestCrossed := column, columnCrossed
	for _, start := range [][]int{spectralOrder(p, edges, adj), slices.Clone(column)} {
		order := sift(start, edges, adj)
		at := positions(order)
		if c := crossings(at, edges); c < bestCrossed {
			best, bestCrossed = at, c
		}
	}
	return best, bestCrossed, columnCrossed
}

// positions returns the position of each node of order (the nodes by
// position), rotated so that node 0 is at the top, where column order
// has it.
func positions(order []int) []int {
	p := len(order)
	first := slices.Index(order, 0)
	pos := make([]int, p)
	for k, node := range order {
		pos[node] = (k - first + p) % p
	}
	return pos
}

// crossings counts the pairs of edges that cross when node i is at
// position pos[i] on a circle: chords with four distinct ends cross when
// exactly one end of one lies between the ends of the other.
func crossings(pos []int, edges []GraphPair) int {
	n := 0
	for a := range edges {
		for b := a + 1; b < len(edges); b++ {
			if cross(pos, edges[a], edges[b]) {
				n++
			}
		}
	}
	return n
}

// cross reports whether edges e and f cross when node i is at pos[i].
func cross(pos []int, e, f GraphPair) bool {
	if e.I == f.I || e.I == f.J || e.J == f.I || e.J == f.J {
		return false
	}
	lo, hi := min(pos[e.I], pos[e.J]), max(pos[e.I], pos[e.J])
	inside := func(x int) bool { return lo < x && x < hi }
	return inside(pos[f.I]) != inside(pos[f.J])
}

// spectralOrder orders the nodes by the Fiedler vector of the Laplacian of
// the graph weighted by |mean|, each connected part on its own (a graph of
// several parts has as many zero eigenvalues), the parts by their first
// column and lone nodes in their column's place among them. Within a part,
// the vector's sign makes it increase with column order (else its first
// entry not negative), and equal entries keep column order.
func spectralOrder(p int, edges []GraphPair, adj [][]int) []int {
	part := make([]int, p)
	for i := range part {
		part[i] = -1
	}
	var order []int
	for first := range p {
		if part[first] >= 0 {
			continue
		}
		// The part of first, by a search over the edges.
		members := []int{first}
		part[first] = first
		for k := 0; k < len(members); k++ {
			for _, e := range adj[members[k]] {
				for _, other := range []int{edges[e].I, edges[e].J} {
					if part[other] < 0 {
						part[other] = first
						members = append(members, other)
					}
				}
			}
		}
		slices.Sort(members)
		order = append(order, fiedlerOrder(members, edges, adj)...)
	}
	return order
}

// fiedlerOrder orders members, the nodes of one connected part in column
// order, by the Fiedler vector of their Laplacian.
func fiedlerOrder(members []int, edges []GraphPair, adj [][]int) []int {
	n := len(members)
	if n <= 2 {
		return members
	}
	index := make(map[int]int, n)
	for k, i := range members {
		index[i] = k
	}
	lap := mat.NewSymDense(n, nil)
	for _, i := range members {
		for _, e := range adj[i] {
			if edges[e].I != i {
				continue // each edge once, from its first node
			}
			a, b := index[edges[e].I], index[edges[e].J]
			w := math.Abs(edges[e].Mean)
			lap.SetSym(a, b, lap.At(a, b)-w)
			lap.SetSym(a, a, lap.At(a, a)+w)
			lap.SetSym(b, b, lap.At(b, b)+w)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(lap, true) {
		return members
	}
	var vectors mat.Dense
	eig.VectorsTo(&vectors)
	// The eigenvalues come in ascending order: the first is 0 (the
	// constant vector), the second's vector is Fiedler's.
	v := mat.Col(nil, 1, &vectors)
	trend := 0.0
	for k, x := range v {
		trend += x * (float64(k) - float64(n-1)/2)
	}
	if trend < 0 || trend == 0 && v[0] < 0 {
		for k := range v {
			v[k] = -v[k]
		}
	}
	// Rounded, so that entries equal but for rounding keep column order.
	key := make([]float64, n)
	for k, x := range v {
		key[k] = math.Round(x * 1e9)
	}
	ks := make([]int, n)
	for k := range ks {
		ks[k] = k
	}
	slices.SortStableFunc(ks, func(a, b int) int { return cmpFloat(key[a], key[b]) })
	out := make([]int, n)
	for k, a := range ks {
		out[k] = members[a]
	}
	return out
}

// sift improves order, the nodes by position on the circle, by moving
// each node in turn (in column order) to the place where fewest pairs of
// edges cross, when that is strictly fewer, until a pass moves none.
// Moving a node past its neighbour on the circle changes whether its
// edges cross the neighbour's (those with four distinct ends), and no
// other pair, so each step costs the product of their degrees.
func sift(order []int, edges []GraphPair, adj [][]int) []int {
	p := len(order)
	if p < 4 || 4*len(edges)*len(edges) > siftWork {
		return order // past about 3,500 edges even one pass is too long
	}
	order = slices.Clone(order)
	pos := make([]int, p)
	place := func() {
		for k, node := range order {
			pos[node] = k
		}
	}
	place()
	// step moves the node at position k past the next one and returns the
	// change in the number of crossings.
	work := 0
	step := func(k int) int {
		next := (k + 1) % p
		u, w := order[k], order[next]
		work += len(adj[u]) * len(adj[w])
		delta := 0
		for _, a := range adj[u] {
			for _, b := range adj[w] {
				e, f := edges[a], edges[b]
				if e.I == f.I || e.I == f.J || e.J == f.I || e.J == f.J {
					continue
				}
				if cross(pos, e, f) {
					delta--
				} else {
					delta++
				}
			}
		}
		order[k], order[next] = w, u
		pos[u], pos[w] = next, k
		return delta
	}
	for range maxSiftPasses {
		moved := false
		for node := range p {
			if len(adj[node]) == 0 {
				continue
			}
			start := slices.Clone(order)
			k := pos[node]
			change, best, bestSteps := 0, 0, 0
			for s := 1; s < p; s++ {
				change += step((k + s - 1) % p)
				if change < best {
					best, bestSteps = change, s
				}
			}
			copy(order, start)
			place()
			for s := 1; s <= bestSteps; s++ {
				step((k + s - 1) % p)
			}
			if bestSteps > 0 {
				moved = true
			}
		}
		if !moved || work > siftWork {
			break
		}
	}
	return order
}
