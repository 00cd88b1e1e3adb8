package inference

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestFactorConstantColumn is the regression test of a review finding: a
// fully observed column with one value used to start PX at scores that were
// all equal (the mean rank's), so its quadratic form Q_j was 0 and the first
// scale move failed. Both factor samplers must fit such a column, which has
// no order constraints and is drawn from its conditional normal alone, and
// their draws must pass the invariants of sampling.md §6e.
func TestFactorConstantColumn(t *testing.T) {
	t.Parallel()
	const n = 60
	rng := rand.New(rand.NewPCG(14, 6))
	cols := [][]float64{ordinalColumn(rng, n, 3), ordinalColumn(rng, n, 4), ordinalColumn(rng, n, 2), make([]float64, n)}
	for _, method := range []Method{PX, Interweave} {
		res, err := Run(context.Background(), Spec{Columns: cols, Model: FactorModel{K: 1},
			Method: method, Iter: 20, Warmup: 10, Chains: 2, Seed: 5}, nil)
		if err != nil {
			t.Fatalf("%v: %v", method, err)
		}
		if err := res.Invariants(); err != nil {
			t.Errorf("%v: %v", method, err)
		}
	}
}
