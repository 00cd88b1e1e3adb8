package inference

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBFADefectSameStart checks that Spec.BFADefect changes PX's chain only
// where bfa's defect acts: from the same seed the two samplers start from the
// same state and, after the loadings part of an iteration, have drawn the
// same loadings Λ (the scale move's g and the draw λ_j ~ N(g·m_j, V_j) do not
// depend on whether z_j is then rescaled) but different latent columns; and
// the rest of the iteration (η, which sees the rescaled z_j only without the
// defect, the factor moves that bfa lacks, Hoff's update) keeps them apart.
func TestBFADefectSameStart(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 5, K: 2, N: 200, Levels: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var samplers [2]*factorSampler
	for i, defect := range []bool{false, true} {
		spec := &Spec{Columns: sim.Columns, Model: FactorModel{K: 2}, Method: PX, BFADefect: defect, Iter: 1}
		cs, err := newFactorSampler(factorTestData(t, sim.Columns), spec, rand.New(rand.NewPCG(8, 9)))
		if err != nil {
			t.Fatal(err)
		}
		samplers[i] = cs.(*factorSampler)
	}
	good, bad := samplers[0], samplers[1]
	if good.bug != bugNone || bad.bug != bugNoRescale {
		t.Fatalf("bugs %v and %v, want bugNone and bugNoRescale", good.bug, bad.bug)
	}
	sameZ := func() bool {
		for j := range good.z {
			if !slices.Equal(good.z[j], bad.z[j]) {
				return false
			}
		}
		return true
	}
	if !sameZ() || !slices.Equal(good.lambda, bad.lambda) || !slices.Equal(good.eta, bad.eta) {
		t.Fatal("the samplers with and without the defect start from different states")
	}
	rngs := [2]*rand.Rand{rand.New(rand.NewPCG(10, 11)), rand.New(rand.NewPCG(10, 11))}
	for i, s := range samplers {
		if err := s.pxLoadings(rngs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(good.lambda, bad.lambda) {
		t.Errorf("first draws of Λ differ:\n%v\n%v", good.lambda, bad.lambda)
	}
	if sameZ() {
		t.Error("the defect left the latent columns unscaled in both samplers")
	}
	var st StepStats
	for i, s := range samplers {
		if err := s.iterate(rngs[i], false, &st); err != nil {
			t.Fatal(err)
		}
	}
	if sameZ() || slices.Equal(good.lambda, bad.lambda) {
		t.Error("the defect left the second iteration's latent columns or loadings unchanged")
	}
}

// TestBFADefectChangesDraws checks through Run that the defect changes PX's
// draws of C from the same seed, and that a correct chain is reproducible.
func TestBFADefectChangesDraws(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 5, K: 2, N: 200, Levels: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	run := func(defect bool) []float64 {
		res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 2}, Method: PX, BFADefect: defect, Iter: 20, Seed: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.C[0][len(res.C[0])-1]
	}
	if a, b := run(false), run(false); !slices.Equal(a, b) {
		t.Fatal("two PX runs from the same seed differ")
	}
	if a, b := run(false), run(true); slices.Equal(a, b) {
		t.Error("BFADefect left the draws of C unchanged")
	}
}
