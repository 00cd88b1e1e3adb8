package hough

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sharingColumn is one column of TestSharedWorkspace, sampled twice: by a
// sampler with its own workspace and by one sharing a workspace with the
// other columns.
type sharingColumn struct {
	name          string
	lv            *Levels
	own, shared   *Sampler
	xOwn, xShared []float64
	mu            []float64
	sigma         float64
	seed          uint64
}

// sharingColumns returns columns of every layout a workspace holds (sides,
// tournament trees, the envelope search, a continuous column, a single
// level, a travel time of two segments), smallest first so that the shared
// workspace grows as they are built.
func sharingColumns(t *testing.T, ws *Workspace) []*sharingColumn {
	t.Helper()
	rng := newRNG(31)
	type design struct {
		name  string
		n, L  int
		na    float64
		opt   Options
		trees bool
	}
	designs := []design{
		{name: "one level", n: 20, L: 1, na: 0.1},
		{name: "sides", n: 60, L: 3, na: 0.1},
		{name: "envelope", n: 90, L: 4, opt: Options{Search: Envelope}},
		{name: "walk", n: 120, L: 4, na: 0.1, opt: Options{Search: Walk}},
		{name: "trees", n: 150, L: 5, na: 0.05, trees: true},
		{name: "continuous", n: 80, L: 80},
		{name: "sides, 2 segments", n: 400, L: 5, na: 0.2, opt: Options{TravelTime: 2.5}},
		{name: "binary", n: 300, L: 2},
	}
	var cols []*sharingColumn
	for d, des := range designs {
		y := randomColumn(rng, des.n, des.L, des.na)
		if des.L == des.n { // distinct values
			for i := range y {
				y[i] = float64(i)
			}
			rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
		}
		lv := mustLevels(t, y)
		c := &sharingColumn{name: des.name, lv: lv, mu: make([]float64, des.n),
			sigma: 0.5 + rng.Float64(), seed: uint64(100 + d)}
		for i := range c.mu {
			c.mu[i] = 0.4 * rng.NormFloat64()
		}
		own, shared := des.opt, des.opt
		shared.Workspace = ws
		func() {
			if des.trees {
				defer func(k int32) { sideMaxLevel = k }(sideMaxLevel)
				sideMaxLevel = 0
			}
			c.own = NewSampler(lv, own)
			c.shared = NewSampler(lv, shared)
		}()
		if des.trees && !c.shared.useTrees {
			t.Fatalf("%s: the sampler does not use tournament trees", des.name)
		}
		c.xOwn = feasibleStart(rng, lv)
		c.xShared = slices.Clone(c.xOwn)
		cols = append(cols, c)
	}
	return cols
}

// TestSharedWorkspace checks that samplers sharing one workspace, run in
// turn in a varying order, draw exactly what samplers with their own
// workspaces draw from the same state and random numbers: same end points
// bit for bit and the same counts.
func TestSharedWorkspace(t *testing.T) {
	ws := NewWorkspace()
	cols := sharingColumns(t, ws)
	rngOwn := make([]*rand.Rand, len(cols))
	rngShared := make([]*rand.Rand, len(cols))
	for j, c := range cols {
		rngOwn[j], rngShared[j] = newRNG(c.seed), newRNG(c.seed)
	}
	order := newRNG(5)
	idx := make([]int, len(cols))
	for j := range idx {
		idx[j] = j
	}
	for round := range 12 {
		order.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, j := range idx {
			c := cols[j]
			stOwn, errOwn := c.own.Transition(rngOwn[j], c.xOwn, c.mu, c.sigma)
			stShared, errShared := c.shared.Transition(rngShared[j], c.xShared, c.mu, c.sigma)
			if errOwn != nil || errShared != nil {
				t.Fatalf("round %d, %s: errors %v (own), %v (shared)", round, c.name, errOwn, errShared)
			}
			if stOwn != stShared {
				t.Errorf("round %d, %s: stats %+v (own), %+v (shared)", round, c.name, stOwn, stShared)
			}
			for i := range c.xOwn {
				if math.Float64bits(c.xOwn[i]) != math.Float64bits(c.xShared[i]) {
					t.Fatalf("round %d, %s: row %d is %v (own), %v (shared)", round, c.name, i+1, c.xOwn[i], c.xShared[i])
				}
			}
			checkFeasible(t, c.lv, c.xShared)
		}
	}
}

// TestSharedWorkspaceAllocs checks that samplers taking turns with one
// workspace do not allocate: it was grown when they were built.
func TestSharedWorkspaceAllocs(t *testing.T) {
	ws := NewWorkspace()
	cols := sharingColumns(t, ws)
	rng := newRNG(8)
	allocs := testing.AllocsPerRun(5, func() {
		for _, c := range cols {
			if _, err := c.shared.Transition(rng, c.xShared, c.mu, c.sigma); err != nil {
				t.Fatal(fmt.Errorf("%s: %w", c.name, err))
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per round of transitions", allocs)
	}
}
