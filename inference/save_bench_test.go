package inference

import (
	"context"
	"testing"
)

// benchResult runs a short fit of sim for the fit-file benchmarks.
func benchResult(b *testing.B, sim SimSpec, spec Spec) (*Result, Spec) {
	data, err := Simulate(sim)
	if err != nil {
		b.Fatal(err)
	}
	spec.Columns, spec.Method, spec.Seed = data.Columns, Gibbs, 1
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		b.Fatal(err)
	}
	return res, spec
}

// saveBenchCases are the fits the fit-file benchmarks write and read:
// "wide", 40 columns of 60 rows, whose bytes are mostly its draws of C,
// and "tall", 100,000 rows and 7 columns, whose chains' latent values and
// their running sums, and the latent means, n·p values each, are most of
// its bytes.
var saveBenchCases = []struct {
	name string
	sim  SimSpec
	spec Spec
}{
	{"wide", SimSpec{P: 40, N: 60, Levels: 4, Seed: 5, Missing: 0.05}, Spec{Warmup: 200, Iter: 1000, Chains: 4, KeepWarmup: true}},
	{"tall", SimSpec{P: 7, N: 100_000, Levels: 5, Seed: 5, Missing: 0.1}, Spec{Warmup: 5, Iter: 5, Chains: 4}},
}

// BenchmarkMarshalResult writes a fit's Result as a fit file holds it.
func BenchmarkMarshalResult(b *testing.B) {
	for _, bc := range saveBenchCases {
		b.Run(bc.name, func(b *testing.B) {
			res, _ := benchResult(b, bc.sim, bc.spec)
			b.ReportAllocs()
			for b.Loop() {
				data, err := res.MarshalBinary()
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
			}
		})
	}
}

// BenchmarkUnmarshalResult reads it back, checks and all.
func BenchmarkUnmarshalResult(b *testing.B) {
	for _, bc := range saveBenchCases {
		b.Run(bc.name, func(b *testing.B) {
			res, spec := benchResult(b, bc.sim, bc.spec)
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
		})
	}
}
