package inference_test

import (
	"context"
	"fmt"
	"math"

	"github.com/copulang/copulang/inference"
)

// ExampleRun fits Hoff's full-correlation model by Gibbs sampling to
// simulated ordinal data and compares the posterior mean of C to the truth.
func ExampleRun() {
	sim, err := inference.Simulate(inference.SimSpec{P: 3, N: 500, Levels: 4, Seed: 1, Missing: 0.05})
	if err != nil {
		panic(err)
	}
	res, err := inference.Run(context.Background(), inference.Spec{
		Columns: sim.Columns, Names: sim.Names,
		Model:  inference.FullCorrelation{}, // inverse-Wishart prior, sbgcop defaults
		Method: inference.Gibbs,
		Warmup: 200, Iter: 500, Chains: 2, Seed: 7,
	}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("draws per chain:", len(res.C[0]), "invariants:", res.Invariants())
	for _, s := range res.Summary() {
		i, j := 0, 0
		fmt.Sscanf(s.Name, "C.%d.%d", &i, &j)
		truth := sim.C[(i-1)*3+(j-1)]
		fmt.Printf("%s within 4 sd of the truth: %v\n", s.Name, math.Abs(s.Mean-truth) < 4*s.SD)
	}
	imp := res.Impute()
	fmt.Println("missing cells imputed:", len(imp) == len(res.Missing) && len(imp) > 0)
	// Output:
	// draws per chain: 500 invariants: <nil>
	// C.1.2 within 4 sd of the truth: true
	// C.1.3 within 4 sd of the truth: true
	// C.2.3 within 4 sd of the truth: true
	// missing cells imputed: true
}

// ExampleResult_Extend runs a short fit whose least ESS is low, then runs
// its chains on from where they stopped: the draws are those of one longer
// run.
func ExampleResult_Extend() {
	sim, err := inference.Simulate(inference.SimSpec{P: 3, N: 300, Levels: 3, Seed: 2})
	if err != nil {
		panic(err)
	}
	spec := inference.Spec{Columns: sim.Columns, Method: inference.Gibbs, Warmup: 200, Iter: 50, Chains: 2, Seed: 5}
	short, err := inference.Run(context.Background(), spec, nil)
	if err != nil {
		panic(err)
	}
	res, err := short.Extend(context.Background(), 950, nil)
	if err != nil {
		panic(err)
	}
	spec.Iter = 1000
	long, err := inference.Run(context.Background(), spec, nil)
	if err != nil {
		panic(err)
	}
	least := func(r *inference.Result) float64 {
		m := math.Inf(1)
		for _, s := range r.Summary() {
			m = math.Min(m, s.ESSBulk)
		}
		return m
	}
	fmt.Println("draws per chain:", len(short.C[0]), "then", len(res.C[0]))
	fmt.Printf("least bulk ESS: %.0f then %.0f\n", least(short), least(res))
	fmt.Println("same draws as one run of 1000:", fmt.Sprint(res.C) == fmt.Sprint(long.C))
	// Output:
	// draws per chain: 50 then 1000
	// least bulk ESS: 22 then 140
	// same draws as one run of 1000: true
}
