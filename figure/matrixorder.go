package figure

// The order of a heatmap's rows and columns: by dependence, so that
// columns that depend on each other sit side by side and blocks of them
// show as squares along the diagonal.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxOrderNames is the most column names a description lists in their
// order.
const maxOrderNames = 50

// maxSpectralColumns is the most columns OrderMatrix seriates
// spectrally: the eigenvectors of a dense p×p Laplacian take about 5 s at
// p = 1,000 and 0.4 s at 400, and past it the local moves from column
// order alone are kept (on shuffled blocks they found the blocks as
// often as from the spectral order).
const maxSpectralColumns = 400

// MatrixOrder is the order of a p×p matrix's rows and columns: Order[k]
// is the column at position k. Neighbours is the mean |value| of the p−1
// pairs of columns side by side in that order, ColumnNeighbours in
// column order (the objective the order is kept by).
type MatrixOrder struct {
	Order                        []int
	Neighbours, ColumnNeighbours float64
}

// OrderMatrix orders the rows and columns of m (p×p, row-major, such as a
// correlation matrix) by dependence: a spectral seriation of |m| (the
// graph of every pair with a finite, non-zero value, weighted by its
// |value| averaged over m[i,j] and m[j,i], each connected part by its
// Fiedler vector, as spectralOrder orders a graph's nodes), then local
// moves that raise the |value| of neighbouring columns (raiseNeighbours),
// from it and from column order, the better kept (from column order alone
// past maxSpectralColumns). The order found is
// kept only when the mean |value| of neighbouring columns
// (Neighbours) is larger than in column order by more than rounding;
// else column order is kept, so that the order is never worse than
// column order by that objective. Of an order and its reverse, equally
// good, the one whose first column comes before its last is taken.
// Deterministic.
func OrderMatrix(p int, m []float64) MatrixOrder {
	column := identityOrder(p)
	o := MatrixOrder{Order: column, ColumnNeighbours: neighbourDependence(p, m, column)}
	o.Neighbours = o.ColumnNeighbours
	var pairs []GraphPair
	adj := make([][]int, p)
	for i := range p {
		for j := i + 1; j < p; j++ {
			w := symmetricAbs(p, m, i, j)
			if w == 0 {
				continue
			}
			adj[i] = append(adj[i], len(pairs))
			adj[j] = append(adj[j], len(pairs))
			pairs = append(pairs, GraphPair{I: i, J: j, Mean: w})
		}
	}
	if len(pairs) == 0 {
		return o
	}
	w := make([]float64, p*p)
	for _, e := range pairs {
		w[e.I*p+e.J], w[e.J*p+e.I] = e.Mean, e.Mean
	}
	var starts [][]int
	if p <= maxSpectralColumns {
		starts = append(starts, spectralOrder(p, pairs, adj))
	}
	starts = append(starts, identityOrder(p))
	for _, start := range starts {
		order := raiseNeighbours(p, w, start)
		if order[0] > order[p-1] {
			// Reversed, it is as good: the one that starts with the
			// earlier column, so that like matrices are read alike.
			slices.Reverse(order)
		}
		if s := neighbourDependence(p, m, order); s > o.Neighbours+1e-12*max(1, o.Neighbours) {
			o.Order, o.Neighbours = order, s
		}
	}
	return o
}

// maxNeighbourPasses bounds the passes of raiseNeighbours; they stop sooner
// when one moves nothing.
const maxNeighbourPasses = 20

// raiseNeighbours improves order (the columns by position, changed in
// place and returned) by local moves that raise the sum of w (p×p,
// symmetric) over neighbouring columns: each column in turn moved to the
// place between two others (or at an end) where the sum gains most, and
// each stretch of columns reversed, when that gains more than rounding,
// until a pass moves nothing. A spectral order puts blocks of columns
// side by side when its Fiedler vector separates them, but with several
// blocks of like strength the vector may split or interleave some (its
// eigenvalue is then nearly repeated); these moves mend that.
func raiseNeighbours(p int, w []float64, order []int) []int {
	if p < 3 {
		return order
	}
	const eps = 1e-12
	// link is the weight between the columns at positions a and b, 0
	// past either end.
	link := func(a, b int) float64 {
		if a < 0 || b < 0 || a >= p || b >= p {
			return 0
		}
		return w[order[a]*p+order[b]]
	}
	for range maxNeighbourPasses {
		moved := false
		for col := range p {
			k := slices.Index(order, col)
			// Taking col out loses its two links and joins its
			// neighbours.
			out := link(k-1, k) + link(k, k+1) - link(k-1, k+1)
			bestGain, bestAt := eps, -1
			// Put back between the columns now at positions a-1 and a
			// of the order without col (a = 0 and a = p-1 are the ends).
			rest := slices.Delete(slices.Clone(order), k, k+1)
			for a := 0; a < p; a++ {
				if a == k {
					continue // where it was
				}
				in := 0.0
				if a > 0 {
					in += w[rest[a-1]*p+col]
				}
				if a < p-1 {
					in += w[col*p+rest[a]]
				}
				if a > 0 && a < p-1 {
					in -= w[rest[a-1]*p+rest[a]]
				}
				if g := in - out; g > bestGain {
					bestGain, bestAt = g, a
				}
			}
			if bestAt >= 0 {
				order = slices.Insert(rest, bestAt, col)
				moved = true
			}
		}
		// Reversing positions i..j changes only the links at its ends.
		for i := 0; i < p-1; i++ {
			for j := i + 1; j < p; j++ {
				if i == 0 && j == p-1 {
					continue
				}
				gain := link(i-1, j) + link(i, j+1) - link(i-1, i) - link(j, j+1)
				if gain > eps {
					slices.Reverse(order[i : j+1])
					moved = true
				}
			}
		}
		if !moved {
			break
		}
	}
	return order
}

// Reordered reports whether the order is not column order.
func (o MatrixOrder) Reordered() bool {
	for k, c := range o.Order {
		if k != c {
			return true
		}
	}
	return false
}

// Text says how strongly neighbouring columns depend in the order and in
// column order, and lists the columns (named by labels) in the order, up to
// maxOrderNames of them: "mean |value| of neighbouring columns 0.31, 0.12
// in column order; columns a, c, b".
func (o MatrixOrder) Text(labels []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mean |value| of neighbouring columns %s, %s in column order", fixed(o.Neighbours, 2), fixed(o.ColumnNeighbours, 2))
	if len(o.Order) <= maxOrderNames {
		names := make([]string, len(o.Order))
		for k, c := range o.Order {
			names[k] = rowName(labels, c)
		}
		fmt.Fprintf(&b, "; columns %s", strings.Join(names, ", "))
	}
	return b.String()
}

// neighbourDependence is the mean |value| of the pairs of columns side by
// side in order (the columns by position), NaN counting 0; 0 for p < 2.
func neighbourDependence(p int, m []float64, order []int) float64 {
	if p < 2 {
		return 0
	}
	s := 0.0
	for k := 1; k < p; k++ {
		s += symmetricAbs(p, m, order[k-1], order[k])
	}
	return s / float64(p-1)
}

// symmetricAbs is the mean of |m[i,j]| and |m[j,i]|, non-finite values
// counting 0.
func symmetricAbs(p int, m []float64, i, j int) float64 {
	abs := func(v float64) float64 {
		if !drawable(v) {
			return 0
		}
		return math.Abs(v)
	}
	return (abs(m[i*p+j]) + abs(m[j*p+i])) / 2
}

// identityOrder is column order of p columns.
func identityOrder(p int) []int {
	out := make([]int, p)
	for i := range out {
		out[i] = i
	}
	return out
}

// permuteMatrix returns m (p×p) with its rows and columns in order, and
// labels likewise (an empty label becomes its column's number).
func permuteMatrix(p int, m []float64, labels []string, order []int) ([]float64, []string) {
	out := make([]float64, p*p)
	names := make([]string, p)
	for a, i := range order {
		names[a] = rowName(labels, i)
		for b, j := range order {
			out[a*p+b] = m[i*p+j]
		}
	}
	return out, names
}
