package inference_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/copulang/copulang/inference"
)

func ExampleSummarize() {
	// Four chains of an AR(1) process with autocorrelation 0.5.
	rng := rand.New(rand.NewPCG(1, 2))
	chains := make([][]float64, 4)
	for m := range chains {
		x := rng.NormFloat64()
		for range 1000 {
			x = 0.5*x + 0.8660254*rng.NormFloat64()
			chains[m] = append(chains[m], x)
		}
	}
	s := inference.Summarize(chains)
	fmt.Printf("mean %.2f sd %.2f rhat<1.01 %v ess_bulk>1000 %v\n", s.Mean, s.SD, s.RHat < 1.01, s.ESSBulk > 1000)
	// Output: mean 0.04 sd 0.98 rhat<1.01 true ess_bulk>1000 true
}
