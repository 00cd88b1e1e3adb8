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
