package inference

import (
	"context"
	"testing"
)

// savedBenchResult is a full-model fit of 40 columns (4 chains × 1000 kept
// draws and 200 warm-up draws of C, 64 MB of draws): a fit file's Result is
// mostly its draws of C at this size.
func savedBenchResult(b *testing.B) (*Result, Spec) {
	sim, err := Simulate(SimSpec{P: 40, N: 60, Levels: 4, Seed: 5, Missing: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Columns: sim.Columns, Method: Gibbs, Warmup: 200, Iter: 1000, Chains: 4, Seed: 1, KeepWarmup: true}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		b.Fatal(err)
	}
	return res, spec
}

// BenchmarkMarshalResult writes a fit's Result as a fit file holds it.
func BenchmarkMarshalResult(b *testing.B) {
	res, _ := savedBenchResult(b)
	b.ReportAllocs()
	for b.Loop() {
		data, err := res.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
}

// BenchmarkUnmarshalResult reads it back, checks and all.
func BenchmarkUnmarshalResult(b *testing.B) {
	res, spec := savedBenchResult(b)
	data, err := res.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := UnmarshalResult(data, spec); err != nil {
			b.Fatal(err)
		}
	}
}
