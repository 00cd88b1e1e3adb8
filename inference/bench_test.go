package inference

import (
	"testing"
)

// benchSampler builds one full-correlation chain on simulated data
// (n rows, p columns, 5 levels, factor truth with k = 5).
func benchSampler(b *testing.B, n, p int, method Method) (*fullSampler, *StepStats) {
	b.Helper()
	sim, err := Simulate(SimSpec{P: p, K: 5, N: n, Levels: 5, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	rng := chainRNG(1, 0)
	s, _ := mustFullSampler(b, Spec{Columns: sim.Columns, Method: method, Iter: 1}, rng)
	var st StepStats
	for range 20 {
		if err := s.iterate(rng, true, &st); err != nil {
			b.Fatal(err)
		}
	}
	return s, &st
}

// BenchmarkGibbsIteration is one full Hoff Gibbs iteration (Z sweep with
// shift and scaling moves, IW step) at n = 1000, p = 20, 5 levels
// (sampling.md §8).
func BenchmarkGibbsIteration(b *testing.B) {
	s, st := benchSampler(b, 1000, 20, Gibbs)
	rng := chainRNG(2, 0)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.iterate(rng, false, st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHMCIteration is one iteration with exact HMC on every column at
// n = 1000, p = 20, 5 levels.
func BenchmarkHMCIteration(b *testing.B) {
	s, st := benchSampler(b, 1000, 20, HMC)
	rng := chainRNG(2, 0)
	b.ReportAllocs()
	st.Bounces = 0
	for b.Loop() {
		if err := s.iterate(rng, false, st); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Bounces)/float64(b.N)/20, "bounces/column")
}

// BenchmarkIWDraw is one inverse-Wishart draw by Bartlett's decomposition at p = 20.
func BenchmarkIWDraw(b *testing.B) {
	s, _ := benchSampler(b, 1000, 20, Gibbs)
	rng := chainRNG(2, 0)
	s.fillPsi()
	b.ReportAllocs()
	for b.Loop() {
		s.iw.draw(rng, s.df+1000, s.psi, s.vNew, s.omegaNew)
	}
}
