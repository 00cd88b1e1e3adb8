package inference_test

import (
	"context"
	"fmt"
	"math"

	"github.com/copulang/copulang/inference"
)

func ExampleKendallTauB() {
	// Two ordinal columns with ties and a missing cell.
	x := []float64{1, 1, 2, 2, 3, 3, 3, math.NaN()}
	y := []float64{1, 2, 2, 2, 3, 1, 3, 1}
	fmt.Printf("tau_b %.4f rho_S %.4f\n", inference.KendallTauB(x, y), inference.SpearmanRho(x, y))
	// R's cor(x, y, method = ..., use = "pairwise.complete.obs") agrees.
	// Output: tau_b 0.4375 rho_S 0.4500
}

func ExamplePartialCorrelation() {
	// z1 and z3 are correlated only through z2: their partial correlation
	// given z2 is 0.
	c := []float64{
		1, 0.5, 0.25,
		0.5, 1, 0.5,
		0.25, 0.5, 1,
	}
	pc := make([]float64, 9)
	inference.PartialCorrelation(pc, c, 3)
	beta := make([]float64, 2)
	r2, _ := inference.Regression(c, 3, 2, []int{0, 1}, beta)
	fmt.Printf("partial(1,3) %.3f partial(1,2) %.3f; z3 on z1, z2: beta %.3f %.3f R2 %.3f\n",
		math.Abs(pc[2]), pc[1], math.Abs(beta[0]), beta[1], r2) // |·| of the zeros: their sign is rounding
	// Output: partial(1,3) 0.000 partial(1,2) 0.447; z3 on z1, z2: beta 0.000 0.500 R2 0.250
}

func ExampleResult_Check() {
	// A one-factor model fitted to data from three factors: the check
	// finds the dependence it misses.
	sim, _ := inference.Simulate(inference.SimSpec{P: 8, K: 3, N: 300, Levels: 5, Seed: 3})
	res, _ := inference.Run(context.Background(), inference.Spec{Columns: sim.Columns,
		Model: inference.FactorModel{K: 1}, Method: inference.PX, Iter: 200, Warmup: 200, Chains: 2, Seed: 1}, nil)
	ck, _ := res.Check(context.Background(), inference.CheckOptions{Seed: 1})
	fmt.Printf("%d pairs; calibrated omnibus p below 0.05: %v\n", len(ck.Pairs), ck.P < 0.05)
	// Output: 28 pairs; calibrated omnibus p below 0.05: true
}

func ExampleCompareScores() {
	// Log scores of two models on the same four held-out cells.
	a := []float64{-1.0, -1.2, -0.8, -1.1}
	b := []float64{-1.5, -1.1, -1.0, -1.3}
	sums, best, _ := inference.CompareScores([][]float64{a, b})
	fmt.Printf("best: model %d; the other is worse by %.1f ± %.2f\n", best+1, -sums[1].Diff, sums[1].SEDiff)
	// Output: best: model 1; the other is worse by 0.8 ± 0.49
}
