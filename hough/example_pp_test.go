package hough

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// ExampleNewPPCov samples N(0, [[1, .8], [.8, 1]]) restricted to the
// positive orthant, written as F x ≤ g with F = −I and g = 0.
func ExampleNewPPCov() {
	F := mat.NewDense(2, 2, []float64{-1, 0, 0, -1})
	cov := mat.NewSymDense(2, []float64{1, 0.8, 0.8, 1})
	pp, err := NewPPCov(F, []float64{0, 0}, []float64{0, 0}, cov)
	if err != nil {
		panic(err)
	}
	rng := newRNG(1)
	x := []float64{1, 1}
	inside := true
	for k := 0; k < 1000; k++ {
		if _, err := pp.Transition(rng, x, 0); err != nil {
			panic(err)
		}
		inside = inside && x[0] >= 0 && x[1] >= 0
	}
	fmt.Println("all draws in the orthant:", inside)
	// Output: all draws in the orthant: true
}
