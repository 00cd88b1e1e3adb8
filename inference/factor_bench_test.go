package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/copulang/copulang/hough"
)

// cpuTime returns the CPU time (user + system) used by the process so far,
// which, unlike wall time, does not grow when other processes compete for
// the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// factorBenchSampler builds a sampler for data simulated from a factor copula
// with n rows, p columns, k factors and the given number of levels (the K&S
// setup: n = 1000, p = 20, k = 5, 5 levels), warmed up by warm PX iterations
// so that the timed iterations start near the posterior.
func factorBenchSampler(b testing.TB, n, p, k, levels int, method Method, warm int) (*factorSampler, *rand.Rand) {
	b.Helper()
	rng := rand.New(rand.NewPCG(2013, 5))
	cols, _ := simulateFactorCopula(rng, n, p, k, levels, 0)
	d := factorTestData(b, cols)
	spec := &Spec{Columns: cols, Model: FactorModel{K: k}, Method: PX}
	cs, err := newFactorSampler(d, spec, rng)
	if err != nil {
		b.Fatal(err)
	}
	s := cs.(*factorSampler)
	var st StepStats
	for range warm {
		if err := s.iterate(rng, true, &st); err != nil {
			b.Fatal(err)
		}
	}
	if method == Interweave {
		spec.Method = Interweave
		cs2, err := newFactorSampler(d, spec, rng)
		if err != nil {
			b.Fatal(err)
		}
		s2 := cs2.(*factorSampler)
		copy(s2.lambda, s.lambda)
		copy(s2.eta, s.eta)
		for j := range s.z {
			copy(s2.z[j], s.z[j])
		}
		s = s2
	}
	return s, rng
}

// BenchmarkFactorPX times PX iterations at n = 1000, p = 20, k = 5, 5 levels
// (target ≤ 1 s per 1000 iterations per chain; K&S report 48 ms per
// iteration on 4 cores).
func BenchmarkFactorPX(b *testing.B) {
	s, rng := factorBenchSampler(b, 1000, 20, 5, 5, PX, 20)
	var st StepStats
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for range b.N {
		if err := s.iterate(rng, false, &st); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N)*1000, "s/1000iter")
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N)*1000, "cpu-s/1000iter")
}

// BenchmarkCollapsedLoadings times PX's collapsed loadings step alone
// (sampling.md §4.6): ZᵀZ, then 5 to 20 leapfrog steps of Λ given Z, at
// the K&S setup (n = 1000, p = 20, k = 5) and at 5000 rows of 40 columns
// with k = 3.
func BenchmarkCollapsedLoadings(b *testing.B) {
	for _, c := range []struct{ n, p, k int }{{1000, 20, 5}, {5000, 40, 3}} {
		b.Run(fmt.Sprintf("n=%d/p=%d/k=%d", c.n, c.p, c.k), func(b *testing.B) {
			s, rng := factorBenchSampler(b, c.n, c.p, c.k, 5, PX, 20)
			var st StepStats
			b.ReportAllocs()
			for b.Loop() {
				s.stepCollapsedLoadings(rng, false, &st)
			}
		})
	}
}

// BenchmarkMoveFactors times the factor group moves alone (sampling.md §4.5)
// at n = 1000, p = 20, k = 5: ηᵀη, k scale and k(k−1) shear moves, and η's
// transform.
func BenchmarkMoveFactors(b *testing.B) {
	s, rng := factorBenchSampler(b, 1000, 20, 5, 5, PX, 20)
	b.ReportAllocs()
	for b.Loop() {
		s.moveFactors(rng)
	}
}

// BenchmarkFactorInterweave times interweaved iterations (joint (λ_j, z_j)
// exact HMC per column in parallel, Hoff update, η) at n = 1000, p = 20,
// k = 5, 5 levels. K&S report 690 ms per iteration on 4 cores; issue 14 asks
// for 30 ms of CPU per iteration on one core (run with GOMAXPROCS=1 and read
// cpu-ms/iter): measured 88 ms on a shared machine, 155 ms before the
// working-set search; the inner-loop pass of issue 14 item 5 took a noisy
// 2-core machine's median from 156 to 123 ms (sampling.md §8).
func BenchmarkFactorInterweave(b *testing.B) {
	s, rng := factorBenchSampler(b, 1000, 20, 5, 5, Interweave, 200)
	var st StepStats
	if err := s.iterate(rng, true, &st); err != nil { // settle the event-rate guess
		b.Fatal(err)
	}
	st = StepStats{}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for range b.N {
		if err := s.iterate(rng, false, &st); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	b.ReportMetric(float64(el.Microseconds())/1000/float64(b.N), "ms/iter")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/iter")
	b.ReportMetric(float64(st.Bounces)/float64(b.N*s.p), "bounces/column")
	b.ReportMetric(float64(st.Events)/float64(b.N*s.p), "events/column")
	if st.Rejections != 0 {
		b.Errorf("%d rejections", st.Rejections)
	}
}

// simulateFactorCopula draws n rows of ordinal data from the factor copula:
// Λ ~ N(0, 1) (p×k), z_i = Λη_i + ε_i, and y_ij = the number of thresholds
// Φ⁻¹(ℓ/levels), ℓ = 1..levels−1, below z_ij/√(1+‖λ_j‖²); a fraction miss of
// the cells is missing completely at random. It returns the columns and the
// true copula correlation C (p×p).
func simulateFactorCopula(rng *rand.Rand, n, p, k, levels int, miss float64) ([][]float64, []float64) {
	lam := make([]float64, p*k)
	for i := range lam {
		lam[i] = rng.NormFloat64()
	}
	cut := make([]float64, levels-1)
	for l := range cut {
		cut[l] = -math.Sqrt2 * math.Erfcinv(2*float64(l+1)/float64(levels))
	}
	cols := make([][]float64, p)
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	eta := make([]float64, k)
	for i := 0; i < n; i++ {
		for h := range eta {
			eta[h] = rng.NormFloat64()
		}
		for j := 0; j < p; j++ {
			row := lam[j*k : j*k+k]
			z := dotK(row, eta) + rng.NormFloat64()
			z /= math.Sqrt(1 + dotK(row, row))
			y := 0
			for _, c := range cut {
				if z > c {
					y++
				}
			}
			cols[j][i] = float64(y)
			if rng.Float64() < miss {
				cols[j][i] = math.NaN()
			}
		}
	}
	c := make([]float64, p*p)
	for a := 0; a < p; a++ {
		ra := lam[a*k : a*k+k]
		for bb := 0; bb < p; bb++ {
			rb := lam[bb*k : bb*k+k]
			if a == bb {
				c[a*p+bb] = 1
				continue
			}
			c[a*p+bb] = dotK(ra, rb) / math.Sqrt((1+dotK(ra, ra))*(1+dotK(rb, rb)))
		}
	}
	return cols, c
}

// BenchmarkJointHMCColumn times one column's joint (λ_j, z_j) exact HMC
// trajectory at n = 1000, k = 5, 5 levels (a column of the
// BenchmarkFactorInterweave state), with the working-set search of jointHMC
// and with the full scan it replaced (scanJointHMC), on the same column and
// velocity stream.
func BenchmarkJointHMCColumn(b *testing.B) {
	s, _ := factorBenchSampler(b, 1000, 20, 5, 5, Interweave, 200)
	const j = 3
	k := s.k
	type stepper interface {
		step(rng *rand.Rand, z, lam, eta, prec []float64, T float64) (hough.Stats, error)
	}
	for _, tc := range []struct {
		name string
		hmc  stepper
	}{
		{"workingset", newJointHMC(s.d.levels[j], k, nil)},
		{"scan", newScanJointHMC(s.d.levels[j], k)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			z := append([]float64(nil), s.z[j]...)
			lam := append([]float64(nil), s.lambda[j*k:j*k+k]...)
			prec := s.prec[j*k : j*k+k]
			if _, err := tc.hmc.step(rng, z, lam, s.eta, prec, 0); err != nil { // settle the event-rate guess
				b.Fatal(err)
			}
			var bounces, events int
			if h, ok := tc.hmc.(*jointHMC); ok {
				h.workingRows, h.anchoredRows = 0, 0
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				st, err := tc.hmc.step(rng, z, lam, s.eta, prec, 0)
				if err != nil {
					b.Fatal(err)
				}
				if st.Rejections != 0 {
					b.Fatal("rejected trajectory")
				}
				bounces += st.Bounces
				events += st.Events
			}
			b.ReportMetric(float64(bounces)/float64(b.N), "bounces/op")
			b.ReportMetric(float64(events)/float64(bounces), "events/bounce")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(bounces), "ns/bounce")
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(bounces), "cpu-ns/bounce")
			if h, ok := tc.hmc.(*jointHMC); ok {
				b.ReportMetric(float64(h.workingRows)/float64(bounces), "wsrows/bounce")
				b.ReportMetric(float64(h.anchoredRows)/float64(bounces), "anchoredrows/bounce")
			}
		})
	}
}

// BenchmarkJointHMCLarge times the joint step of one column at 10⁴ and
// 3·10⁴ rows (p = 5, k = 2, 5 levels), where the tiers of windowTiersFor
// keep the rows recomputed per bounce, and so its cost, nearly flat
// (sampling.md §4.4: with two tiers 468 and 1,358 rows and 5.3 and 15 µs
// per bounce, now about 180 and 200 rows and 4.6–5.3 µs).
func BenchmarkJointHMCLarge(b *testing.B) {
	for _, n := range []int{10_000, 30_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			const k = 2
			s, _ := factorBenchSampler(b, n, 5, k, 5, Interweave, 30)
			const j = 3
			h := newJointHMC(s.d.levels[j], k, nil)
			rng := rand.New(rand.NewPCG(7, 7))
			z := append([]float64(nil), s.z[j]...)
			lam := append([]float64(nil), s.lambda[j*k:j*k+k]...)
			prec := s.prec[j*k : j*k+k]
			for range 2 { // settle the event-rate guess and the windows' budgets
				if _, err := h.step(rng, z, lam, s.eta, prec, 0); err != nil {
					b.Fatal(err)
				}
			}
			h.anchoredRows = 0
			bounces := 0
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				st, err := h.step(rng, z, lam, s.eta, prec, 0)
				if err != nil {
					b.Fatal(err)
				}
				bounces += st.Bounces
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(bounces), "cpu-ns/bounce")
			b.ReportMetric(float64(h.anchoredRows)/float64(bounces), "anchoredrows/bounce")
			b.ReportMetric(float64(h.tiers), "tiers")
		})
	}
}
