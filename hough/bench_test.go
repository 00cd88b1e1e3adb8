package hough

import (
	"fmt"
	"testing"
)

// benchColumn returns levels of n rows in L equal levels (L = n: all
// distinct), mu = 0, and a feasible start (sorted normal draws).
// benchmarkTransition burns in 20 transitions at sigma² = 0.5 (sampling.md §9)
// before timing.
func benchColumn(b *testing.B, n, L int) (*Levels, []float64, []float64) {
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i * L / n)
	}
	lv := mustLevels(b, y)
	rng := newRNG(1)
	x := feasibleStart(rng, lv)
	mu := make([]float64, n)
	return lv, x, mu
}

func benchmarkTransition(b *testing.B, search Search, n, L int) {
	lv, x, mu := benchColumn(b, n, L)
	s := NewSampler(lv, Options{Search: search, MaxBounces: 10 * n * n})
	rng := newRNG(2)
	sigma := 0.7071067811865476
	for k := 0; k < 20; k++ {
		if _, err := s.Transition(rng, x, mu, sigma); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	bounces, events := 0, 0
	s.walkCount = walkCount{}
	for i := 0; i < b.N; i++ {
		st, err := s.Transition(rng, x, mu, sigma)
		if err != nil {
			b.Fatal(err)
		}
		bounces += st.Bounces
		events += st.Events
	}
	b.ReportMetric(float64(bounces)/float64(b.N), "bounces/op")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	if search == Walk {
		b.ReportMetric(float64(s.walkCount.walks)/float64(b.N), "walks/op")
		b.ReportMetric(float64(s.walkCount.steps)/float64(b.N), "steps/op")
		b.ReportMetric(float64(s.walkCount.tests)/float64(b.N), "tests/op")
		b.ReportMetric(float64(s.walkCount.resumed)/float64(b.N), "resumed/op")
	}
}

func BenchmarkKinetic(b *testing.B) {
	for _, c := range []struct{ n, L int }{{1000, 2}, {1000, 5}, {1000, 20}, {1000, 1000}, {5000, 5}, {10000, 5}, {100000, 5}} {
		b.Run(fmt.Sprintf("n=%d/L=%d", c.n, c.L), func(b *testing.B) { benchmarkTransition(b, Kinetic, c.n, c.L) })
	}
}

func BenchmarkEnvelope(b *testing.B) {
	for _, c := range []struct{ n, L int }{{1000, 2}, {1000, 5}} {
		b.Run(fmt.Sprintf("n=%d/L=%d", c.n, c.L), func(b *testing.B) { benchmarkTransition(b, Envelope, c.n, c.L) })
	}
}

func BenchmarkWalk(b *testing.B) {
	for _, c := range []struct{ n, L int }{{1000, 2}, {1000, 5}, {1000, 20}, {5000, 5}} {
		b.Run(fmt.Sprintf("n=%d/L=%d", c.n, c.L), func(b *testing.B) { benchmarkTransition(b, Walk, c.n, c.L) })
	}
}

// BenchmarkWalkMargin tries floor margins for the Walk search.
func BenchmarkWalkMargin(b *testing.B) {
	defer func(m float64) { walkMargin = m }(walkMargin)
	for _, m := range []float64{0.015, 0.02, 0.03, 0.05, 0.08} {
		b.Run(fmt.Sprintf("m=%g", m), func(b *testing.B) {
			walkMargin = m
			benchmarkTransition(b, Walk, 1000, 5)
		})
	}
}

// BenchmarkSides runs the kinetic search with the sides that track each
// level's extreme (kineticWalk = false), the default before the walk.
func BenchmarkSides(b *testing.B) {
	defer func(w bool) { kineticWalk = w }(kineticWalk)
	kineticWalk = false
	for _, c := range []struct{ n, L int }{{1000, 2}, {1000, 5}, {1000, 20}, {5000, 5}} {
		b.Run(fmt.Sprintf("n=%d/L=%d", c.n, c.L), func(b *testing.B) { benchmarkTransition(b, Kinetic, c.n, c.L) })
	}
}
