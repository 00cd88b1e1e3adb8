package hough

import (
	"fmt"
	"math"
)

// ExampleSampler draws transitions for a column with a tie and a missing value.
func ExampleSampler() {
	y := []float64{2, 1, math.NaN(), 3, 1}
	lv, err := NewLevels(y)
	if err != nil {
		panic(err)
	}
	s := NewSampler(lv, Options{}) // kinetic search, travel time π/2
	rng := newRNG(1)
	x := []float64{0.5, -0.5, 0, 1.5, -1} // satisfies the order of y
	mu := make([]float64, len(y))
	total := Stats{}
	for k := 0; k < 100; k++ {
		st, err := s.Transition(rng, x, mu, 1)
		if err != nil {
			panic(err)
		}
		total.Rejections += st.Rejections
	}
	fmt.Println("feasible:", lv.Feasible(x), "rejections:", total.Rejections)
	// Output: feasible: true rejections: 0
}

// ExampleWorkspace runs the columns of a small data set in turn with one
// workspace: the memory of one column's trajectories instead of one each.
func ExampleWorkspace() {
	columns := [][]float64{
		{2, 1, math.NaN(), 3, 1, 2},
		{0, 1, 1, 0, math.NaN(), 1},
	}
	ws := NewWorkspace()
	samplers := make([]*Sampler, len(columns))
	levels := make([]*Levels, len(columns))
	for j, y := range columns {
		lv, err := NewLevels(y)
		if err != nil {
			panic(err)
		}
		levels[j] = lv
		samplers[j] = NewSampler(lv, Options{Workspace: ws})
	}
	x := [][]float64{{0.5, -0.5, 0, 1.5, -1, 0.6}, {-1, 1, 0.5, -0.5, 0, 2}}
	mu := make([]float64, 6)
	rng := newRNG(2)
	for it := 0; it < 50; it++ {
		for j, s := range samplers { // one after another, never at once
			if _, err := s.Transition(rng, x[j], mu, 1); err != nil {
				panic(err)
			}
		}
	}
	fmt.Println("feasible:", levels[0].Feasible(x[0]), levels[1].Feasible(x[1]))
	// Output: feasible: true true
}
