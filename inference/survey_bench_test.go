package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// surveyLevels are the levels of the survey-shaped data of
// BenchmarkGibbsSurveyShape (sampling.md §8, "At survey scale"): 28 items
// of 2 to 11 levels, then columns of 78 and 1,169 levels, as `copulang
// bench cost`'s mixed setups have them.
func surveyLevels() []int {
	items := []int{2, 5, 4, 7, 3, 11, 5, 2, 6, 10, 4, 3}
	levels := make([]int, 30)
	for j := range 28 {
		levels[j] = items[j%len(items)]
	}
	levels[28], levels[29] = 78, 1169
	return levels
}

// surveyData returns n rows of survey-shaped columns (surveyLevels), 7.5%
// of cells missing: dependent, Simulate's factor-copula data with k = 3
// cut at each column's quantiles into its levels; or independent, every
// cell uniform over its column's levels.
func surveyData(tb testing.TB, n int, dependent bool) [][]float64 {
	tb.Helper()
	levels := surveyLevels()
	if dependent {
		sim, err := Simulate(SimSpec{P: len(levels), K: 3, N: n, Levels: n, Missing: 0.075, Seed: 1})
		if err != nil {
			tb.Fatal(err)
		}
		for j, l := range levels {
			for i, v := range sim.Columns[j] {
				if !math.IsNaN(v) {
					sim.Columns[j][i] = float64(1 + (int(v)-1)*l/n)
				}
			}
		}
		return sim.Columns
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cols := make([][]float64, len(levels))
	for j, l := range levels {
		cols[j] = make([]float64, n)
		for i := range cols[j] {
			cols[j][i] = float64(1 + rng.IntN(l))
			if rng.Float64() < 0.075 {
				cols[j][i] = math.NaN()
			}
		}
	}
	return cols
}

// surveySampler is a Gibbs chain on survey-shaped data after warm
// warm-up iterations.
func surveySampler(tb testing.TB, n int, dependent bool, warm int) (*fullSampler, *StepStats) {
	tb.Helper()
	rng := chainRNG(1, 0)
	s, _ := mustFullSampler(tb, Spec{Columns: surveyData(tb, n, dependent), Method: Gibbs, Iter: 1}, rng)
	var st StepStats
	for range warm {
		if err := s.iterate(rng, true, &st); err != nil {
			tb.Fatal(err)
		}
	}
	return s, &st
}

// BenchmarkGibbsSurveyShape is one Gibbs iteration at a survey's shape
// (n = 10,000 or 50,000, surveyLevels, 7.5% missing) on independent columns and on
// factor-copula data (k = 3), after 30 warm-up iterations: sampling.md §8
// found the second 1.55× the first's time.
func BenchmarkGibbsSurveyShape(b *testing.B) {
	for _, c := range []struct {
		name      string
		dependent bool
	}{{"independent", false}, {"factor", true}} {
		for _, n := range []int{10000, 50000} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				s, st := surveySampler(b, n, c.dependent, 30)
				rng := chainRNG(2, 0)
				for b.Loop() {
					if err := s.iterate(rng, false, st); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// countingSource is a rand.Source that counts its draws.
type countingSource struct {
	src   rand.Source
	draws int64
}

func (c *countingSource) Uint64() uint64 { c.draws++; return c.src.Uint64() }

// truncRegime names the proposal truncNormal chooses for the standardised
// interval [alpha, beta] (the lower tail reflected into the upper).
func truncRegime(alpha, beta float64) string {
	a, b := alpha, beta
	if beta <= 0 {
		a, b = -beta, -alpha
	}
	switch {
	case a < 0 && b-a < sqrt2Pi:
		return "central-uniform"
	case a < 0:
		return "central-normal"
	case (b-a)*(b+a) <= 2:
		return "tail-uniform"
	case a < 0.4:
		return "tail-halfnormal"
	default:
		return "tail-robert"
	}
}

// BenchmarkTruncNormalRegimes runs Gibbs on the survey-shaped data of
// BenchmarkGibbsSurveyShape (n = 10,000 here) and tallies the truncated
// normal draws of its sweeps by the proposal truncNormal chooses: the share
// of draws in each (…-share), the uniform draws each took (…-rng/draw, two
// per uniform proposal, one or two per normal, half-normal or exponential
// one), and how often a draw's proposal differs from the previous draw's
// (switches/draw, what a branch predictor sees). It mirrors sweepZ's
// column update (gibbsLevels) draw by draw with a counting source; the
// chain is the same in law, not in its draws.
func BenchmarkTruncNormalRegimes(b *testing.B) {
	for _, c := range []struct {
		name      string
		dependent bool
	}{{"independent", false}, {"factor", true}} {
		b.Run(c.name, func(b *testing.B) {
			s, st := surveySampler(b, 10000, c.dependent, 30)
			src := &countingSource{src: rand.NewPCG(2, 3)}
			rng := rand.New(src)
			draws := map[string]int64{}
			uniforms := map[string]int64{}
			var switches, total int64
			prev := ""
			p := s.p
			for b.Loop() {
				for _, j := range s.perm {
					ojj := s.omega[j*p+j]
					sigma := 1 / math.Sqrt(ojj)
					s.coef, s.cols = s.coef[:0], s.cols[:0]
					for k := 0; k < p; k++ {
						if k != j {
							s.coef = append(s.coef, -s.omega[j*p+k]/ojj)
							s.cols = append(s.cols, s.z[k])
						}
					}
					linComb(s.mu, s.coef, s.cols)
					z, mu, lv := s.z[j], s.mu, s.d.levels[j]
					L := lv.NumLevels()
					s.stretch.reset(L)
					lo := math.Inf(-1)
					for l := 0; l < L; l++ {
						hi := math.Inf(1)
						if l+1 < L {
							for _, i := range lv.Rows(l + 1) {
								hi = min(hi, z[i])
							}
						}
						next := math.Inf(-1)
						var sz, szz, szm, sm float64
						for _, i := range lv.Rows(l) {
							r := truncRegime((lo-mu[i])/sigma, (hi-mu[i])/sigma)
							before := src.draws
							v := truncNormal(rng, mu[i], sigma, lo, hi)
							draws[r]++
							uniforms[r] += src.draws - before
							if r != prev {
								switches++
							}
							prev = r
							total++
							z[i] = v
							next = max(next, v)
							sz += v
							szz += v * v
							szm += v * mu[i]
							sm += mu[i]
						}
						s.stretch.record(l, len(lv.Rows(l)), sz, szz, szm, sm, next)
						lo = next
					}
					for _, i := range lv.Missing {
						z[i] = mu[i] + sigma*rng.NormFloat64()
					}
					s.groupMoves(rng, lv, z, mu, sigma)
				}
				if err := s.stepV(rng, st); err != nil {
					b.Fatal(err)
				}
			}
			for r, n := range draws {
				b.ReportMetric(float64(n)/float64(total), r+"-share")
				b.ReportMetric(float64(uniforms[r])/float64(n), r+"-rng/draw")
			}
			b.ReportMetric(float64(switches)/float64(total), "switches/draw")
		})
	}
}
