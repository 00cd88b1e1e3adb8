package figure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// gssPartial is the posterior of the partial correlations of notebook 02's
// fit of the GSS extract (summary survey.partial: mean, q5, q95), in
// column order: income, degree, children, pincome, pdegree, pchildren,
// age.
var gssPartial = [][3]float64{
	{0.446, 0.392, 0.497}, {0.205, 0.144, 0.265}, {0.099, 0.012, 0.186}, {0.023, -0.049, 0.094}, {-0.004, -0.065, 0.056}, {0.201, 0.143, 0.258},
	{-0.099, -0.163, -0.032}, {-0.052, -0.143, 0.038}, {0.373, 0.308, 0.436}, {-0.085, -0.146, -0.022}, {0.048, -0.014, 0.110},
	{-0.043, -0.133, 0.045}, {-0.079, -0.150, -0.007}, {0.148, 0.088, 0.206}, {0.500, 0.456, 0.544},
	{0.345, 0.263, 0.421}, {-0.097, -0.175, -0.016}, {-0.030, -0.115, 0.058},
	{-0.136, -0.201, -0.070}, {-0.155, -0.221, -0.088},
	{-0.028, -0.084, 0.027},
}

func gssPairs() []GraphPair {
	var pairs []GraphPair
	k := 0
	for i := range 7 {
		for j := i + 1; j < 7; j++ {
			s := gssPartial[k]
			pairs = append(pairs, GraphPair{I: i, J: j, Mean: s[0], Lo: s[1], Hi: s[2], Truth: math.NaN()})
			k++
		}
	}
	return pairs
}

// blockPairs is a graph of p nodes in blocks (node i in block[i]): an edge
// of mean 0.3 between every two nodes of a block, then, with rng, extra
// edges between blocks of mean 0.1, each pair with probability between.
func blockPairs(block []int, between float64, rng *rand.Rand) []GraphPair {
	var pairs []GraphPair
	for i := range block {
		for j := i + 1; j < len(block); j++ {
			m := 0.0
			switch {
			case block[i] == block[j]:
				m = 0.3
			case rng != nil && rng.Float64() < between:
				m = -0.1
			}
			lo, hi := m-0.05, m+0.05
			if m == 0 {
				lo, hi = -0.05, 0.05
			}
			pairs = append(pairs, GraphPair{I: i, J: j, Mean: m, Lo: lo, Hi: hi, Truth: math.NaN()})
		}
	}
	return pairs
}

// shuffledBlocks puts p nodes in k blocks of about p/k, in a shuffled
// order, as the items of a questionnaire on k themes.
func shuffledBlocks(p, k int, seed uint64) []int {
	block := make([]int, p)
	for i := range block {
		block[i] = i % k
	}
	rand.New(rand.NewPCG(seed, 1)).Shuffle(p, func(a, b int) { block[a], block[b] = block[b], block[a] })
	return block
}

func binomial4(n int) int { return n * (n - 1) * (n - 2) * (n - 3) / 24 }

func identity(p int) []int {
	out := make([]int, p)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestGraphOrderReducesCrossings: the nodes of a graph are ordered by
// dependence, so that fewer drawn edges cross than in column order, which
// drew a graph of blocks of items as a hairball of crossing chords. A
// graph of complete blocks crosses least with each block together: the
// C(k, 4) crossings of each block's k nodes, which no order avoids.
func TestGraphOrderReducesCrossings(t *testing.T) {
	for _, tt := range []struct {
		name  string
		p     int
		pairs []GraphPair
		// most is the most crossings the order may have; fewest, when
		// not 0, the fewest any order has, which it must reach.
		most, fewest int
		opts         GraphOptions
	}{
		// Notebook 02's GSS fit: 15 crossings in column order.
		{"GSS partial correlations", 7, gssPairs(), 8, 0, GraphOptions{}},
		{"two blocks of 4", 8, blockPairs(shuffledBlocks(8, 2, 1), 0, nil), 2, 2 * binomial4(4), GraphOptions{}},
		{"three blocks of 4", 12, blockPairs(shuffledBlocks(12, 3, 2), 0, nil), 3, 3 * binomial4(4), GraphOptions{}},
		{"three blocks of 10, the strongest 90 edges", 30, blockPairs(shuffledBlocks(30, 3, 3), 0, nil), 0, 0, GraphOptions{}},
		// Every edge drawn: 135, past the default 90.
		{"three blocks of 10, 30 columns", 30, blockPairs(shuffledBlocks(30, 3, 3), 0, nil), 3 * binomial4(10), 3 * binomial4(10), GraphOptions{MaxEdges: 135}},
		{"three blocks of 10 and edges between", 30, blockPairs(shuffledBlocks(30, 3, 4), 0.03, rand.New(rand.NewPCG(5, 1))), 0, 0, GraphOptions{MaxEdges: 1000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := LayoutGraph(tt.p, tt.pairs, tt.opts)
			if got := crossings(identity(tt.p), l.Drawn); got != l.ColumnCrossings {
				t.Fatalf("ColumnCrossings %d, but column order crosses %d", l.ColumnCrossings, got)
			}
			if got := crossings(l.Positions, l.Drawn); got != l.Crossings {
				t.Fatalf("Crossings %d, but the positions cross %d", l.Crossings, got)
			}
			t.Logf("%d edges drawn: %d crossings, %d in column order", len(l.Drawn), l.Crossings, l.ColumnCrossings)
			if !l.Reordered() || l.Crossings >= l.ColumnCrossings {
				t.Errorf("%d crossings, %d in column order: want fewer", l.Crossings, l.ColumnCrossings)
			}
			if tt.most > 0 && l.Crossings > tt.most {
				t.Errorf("%d crossings, want at most %d", l.Crossings, tt.most)
			}
			if tt.fewest > 0 && l.Crossings != tt.fewest {
				t.Errorf("%d crossings, want the fewest, %d", l.Crossings, tt.fewest)
			}
			if l.Positions[0] != 0 {
				t.Errorf("the first column is at position %d, want the top", l.Positions[0])
			}
			sorted := slices.Clone(l.Positions)
			slices.Sort(sorted)
			if !slices.Equal(sorted, identity(tt.p)) {
				t.Errorf("positions %v are not a permutation", l.Positions)
			}
		})
	}
}

// TestGraphOrderNeverWorseThanColumnOrder: on random graphs (fixed
// seeds), the order found crosses no more edges than column order, and
// where it crosses no fewer the nodes stay in column order; and the
// order is the same each time.
func TestGraphOrderNeverWorseThanColumnOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	reordered := 0
	for trial := range 200 {
		p := 3 + rng.IntN(20)
		density := rng.Float64()
		var pairs []GraphPair
		for i := range p {
			for j := i + 1; j < p; j++ {
				m := rng.Float64()*2 - 1
				lo, hi := m-0.1, m+0.1
				if rng.Float64() > density {
					lo, hi = -0.1, 0.1
				}
				pairs = append(pairs, GraphPair{I: i, J: j, Mean: m, Lo: lo, Hi: hi, Truth: math.NaN()})
			}
		}
		l := LayoutGraph(p, pairs, GraphOptions{})
		again := LayoutGraph(p, pairs, GraphOptions{})
		if !slices.Equal(l.Positions, again.Positions) {
			t.Fatalf("trial %d: positions %v, then %v", trial, l.Positions, again.Positions)
		}
		switch {
		case l.Crossings > l.ColumnCrossings:
			t.Errorf("trial %d (p %d, %d edges): %d crossings, %d in column order", trial, p, len(l.Drawn), l.Crossings, l.ColumnCrossings)
		case !l.Reordered() && !slices.Equal(l.Positions, identity(p)):
			t.Errorf("trial %d: no fewer crossings (%d), but positions %v", trial, l.Crossings, l.Positions)
		case l.Reordered():
			reordered++
		}
	}
	if reordered == 0 {
		t.Error("no graph reordered")
	}
	// Any order of a complete graph crosses as many edges: column order
	// stays.
	l := LayoutGraph(6, blockPairs(make([]int, 6), 0, nil), GraphOptions{})
	if l.Reordered() || !slices.Equal(l.Positions, identity(6)) || l.ColumnCrossings != binomial4(6) {
		t.Errorf("complete graph of 6: positions %v, %d crossings, %d in column order; want column order, 15", l.Positions, l.Crossings, l.ColumnCrossings)
	}
}

// TestGraphDrawsTheStrongestEdges: past MaxEdges (by default
// DefaultGraphEdges) a graph draws only its strongest edges, and its text
// says so, how many there are and how the nodes are ordered.
func TestGraphDrawsTheStrongestEdges(t *testing.T) {
	p := 40
	nodes := make([]string, p)
	var pairs []GraphPair
	for i := range p {
		nodes[i] = fmt.Sprintf("q%02d", i+1)
		for j := i + 1; j < p; j++ {
			m := 0.05 + 0.9*math.Abs(math.Sin(float64(i*p+j)))
			pairs = append(pairs, GraphPair{I: i, J: j, Mean: m, Lo: m - 0.04, Hi: m + 0.04, Truth: math.NaN()})
		}
	}
	edges := len(pairs) // every pair: 780
	for _, tt := range []struct {
		name     string
		maxEdges int
		drawn    int
	}{
		{"default", 0, DefaultGraphEdges(p)},
		{"fewer", 25, 25},
		{"every one", edges, edges},
		{"more than there are", 10 * edges, edges},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := LayoutGraph(p, pairs, GraphOptions{MaxEdges: tt.maxEdges})
			if len(l.Drawn) != tt.drawn || l.Edges != edges {
				t.Fatalf("%d of %d edges drawn, want %d of %d", len(l.Drawn), l.Edges, tt.drawn, edges)
			}
			weakest := math.Inf(1)
			for _, e := range l.Drawn {
				weakest = math.Min(weakest, math.Abs(e.Mean))
			}
			left := 0
			for _, pr := range pairs {
				if math.Abs(pr.Mean) > weakest && !slices.ContainsFunc(l.Drawn, func(e GraphPair) bool { return e.I == pr.I && e.J == pr.J }) {
					left++
				}
			}
			if left > 0 {
				t.Errorf("%d edges stronger than the weakest drawn are not drawn", left)
			}
			f, err := GraphWith("graph of m.partial", "partial correlation", nodes, pairs, 0.9, GraphOptions{MaxEdges: tt.maxEdges})
			if err != nil {
				t.Fatal(err)
			}
			note := fmt.Sprintf("only the %d strongest of the %d edges drawn", tt.drawn, edges)
			if capped := tt.drawn < edges; strings.Contains(f.Text, note) != capped {
				t.Errorf("text %q: want %q %v", f.Text, note, capped)
			}
			if l.Reordered() != strings.Contains(f.Text, "nodes ordered by dependence, "+l.OrderText()) {
				t.Errorf("text %q, reordered %v", f.Text, l.Reordered())
			}
		})
	}
	// With the truth known, its counts are of every edge, and say so
	// when some are not drawn.
	for k := range pairs {
		pairs[k].Truth = 0.1
	}
	f, err := GraphWith("g", "partial correlation", nodes, pairs, 0.9, GraphOptions{MaxEdges: 25})
	if err != nil {
		t.Fatal(err)
	}
	if want := "780 true edges (truth not 0): 780 found, 0 missed; 0 found where the truth is 0 (counting every edge, drawn or not)"; !strings.Contains(f.Text, want) {
		t.Errorf("text %q, want %q", f.Text, want)
	}
}

// BenchmarkGraphLayout lays out the graph of 60 columns in 5 blocks with
// edges between, at the default cap and with every edge drawn.
func BenchmarkGraphLayout(b *testing.B) {
	pairs := blockPairs(shuffledBlocks(60, 5, 6), 0.1, rand.New(rand.NewPCG(7, 1)))
	for _, opts := range []GraphOptions{{}, {MaxEdges: len(pairs)}} {
		b.Run(fmt.Sprint(opts.MaxEdges), func(b *testing.B) {
			for range b.N {
				LayoutGraph(60, pairs, opts)
			}
		})
	}
}
