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

// tallBenchResult is a short fit of 100,000 rows and 7 columns: its
// chains' latent values and their running sums, and the latent means, n·p
// values each, are most of its bytes.
func tallBenchResult(b *testing.B) (*Result, Spec) {
	sim, err := Simulate(SimSpec{P: 7, N: 100_000, Levels: 5, Seed: 5, Missing: 0.1})
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Columns: sim.Columns, Method: Gibbs, Warmup: 5, Iter: 5, Chains: 4, Seed: 1}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		b.Fatal(err)
	}
	return res, spec
}

// BenchmarkMarshalResultTall writes tallBenchResult's fit.
func BenchmarkMarshalResultTall(b *testing.B) {
	res, _ := tallBenchResult(b)
	b.ReportAllocs()
	for b.Loop() {
		data, err := res.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
}

// BenchmarkUnmarshalResultTall reads it back.
func BenchmarkUnmarshalResultTall(b *testing.B) {
	res, spec := tallBenchResult(b)
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
