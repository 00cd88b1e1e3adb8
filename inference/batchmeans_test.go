package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBatchMeansTauArithmetic checks BatchMeansTau on draws whose batch
// means are known: when every batch is constant, var(draws) over S − 1 is
// b·Σ(v − m)²/(S − 1) and var(batch means) Σ(v − m)²/(B − 1), so
// τ_bm = (S − 1)/(B − 1) whatever the values.
func TestBatchMeansTauArithmetic(t *testing.T) {
	constantBatches := func(m, perChain, b, lead int) [][]float64 {
		chains := make([][]float64, m)
		v := 0.0
		for c := range chains {
			for range lead {
				chains[c] = append(chains[c], 1e6) // before the batches: left out
			}
			for range perChain {
				v = math.Mod(v*7+3, 11)
				for range b {
					chains[c] = append(chains[c], v)
				}
			}
		}
		return chains
	}
	for _, tc := range []struct {
		name    string
		chains  [][]float64
		want    float64
		wantNaN bool
	}{
		{"4 chains of 5 batches of 10", constantBatches(4, 5, 10, 0), 199.0 / 19, false},
		{"the first draws of a chain that does not divide are left out", constantBatches(4, 5, 10, 3), 199.0 / 19, false},
		{"1 chain of 20 batches of 12", constantBatches(1, 20, 12, 0), 239.0 / 19, false},
		{"3 chains of 7 batches of 10", constantBatches(3, 7, 10, 0), 209.0 / 20, false},
		{"30 chains of 1 batch of 10", constantBatches(30, 1, 10, 0), 299.0 / 29, false},
		{"batches under MinBatchDraws", constantBatches(4, 5, MinBatchDraws-1, 0), 0, true},
		{"constant draws", [][]float64{make([]float64, 100), make([]float64, 100)}, 0, true},
		{"no chains", nil, 0, true},
	} {
		got := BatchMeansTau(tc.chains)
		if tc.wantNaN {
			if !math.IsNaN(got) {
				t.Errorf("%s: BatchMeansTau = %v, want NaN", tc.name, got)
			}
			continue
		}
		if math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s: BatchMeansTau = %.12g, want %.12g", tc.name, got, tc.want)
		}
	}
	inf := constantBatches(4, 5, 10, 0)
	inf[2][3] = math.Inf(1)
	if got := BatchMeansTau(inf); !math.IsNaN(got) {
		t.Errorf("BatchMeansTau with an infinite draw = %v, want NaN", got)
	}
}

// slowComponentChains simulates m chains of n draws of x_t = a_t + s_t: a
// fast AR(1) a (φ 0.3, variance 1) plus a slow one s (φ 0.995, variance
// 0.03), the shape of the slow mode of Hoff's Gibbs sampler on the GSS
// (sampling.md §7.2): ρ_t = (0.3^t + 0.03·0.995^t)/1.03, τ = (1.857 +
// 0.03·399)/1.03 = 13.4, where the slow part alone puts ρ_t near 0.03 for
// hundreds of lags.
func slowComponentChains(rng *rand.Rand, m, n int) [][]float64 {
	fast, slow := ar1(rng, m, n, 0.3), ar1(rng, m, n, 0.995)
	for c := range fast {
		for i := range fast[c] {
			fast[c][i] += math.Sqrt(0.03) * slow[c][i]
		}
	}
	return fast
}

// essTau is τ = S/ESS, the autocorrelation time of the reported mcse_mean.
func essTau(chains [][]float64) float64 {
	return float64(len(chains)*len(chains[0])) / ESS(chains)
}

// TestBatchMeansTauOfAR1 checks that BatchMeansTau estimates τ without
// bias where the batches are long against it: AR(1) chains of φ 0.5, τ =
// (1 + φ)/(1 − φ) = 3, 4 chains × 2000 draws (20 batches of 400, whose
// bias, −2φ/((1 − φ)²b)·…, is under 1%). Over 400 replicates the mean's
// Monte Carlo standard error is about 3·√(2/19)/√400 = 0.049, so ±0.2 is
// four of them.
func TestBatchMeansTauOfAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const reps = 400
	sum := 0.0
	for range reps {
		sum += BatchMeansTau(ar1(rng, 4, 2000, 0.5))
	}
	if got := sum / reps; math.Abs(got-3) > 0.2 {
		t.Errorf("mean BatchMeansTau of AR(1) φ 0.5 over %d replicates = %.3f, want 3 ± 0.2", reps, got)
	}
}

// TestBatchMeansRatioOnWellMixedChains checks that the report's criterion,
// BatchMeansTau above SlowComponentRatio times S/ESS, stays silent on
// chains whose ESS is right: AR(1) chains of φ 0, 0.5 and 0.9, 4 × 2000
// draws (a fit's default shape), 300 replicates each. The ratio is about
// χ²₁₉/19, which exceeds 3 with probability 1.1·10⁻⁵, so the 900 replicates
// would all stay below it 99% of the time; their largest ratio is logged.
func TestBatchMeansRatioOnWellMixedChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, phi := range []float64{0, 0.5, 0.9} {
		largest := 0.0
		for range 300 {
			chains := ar1(rng, 4, 2000, phi)
			r := BatchMeansTau(chains) / essTau(chains)
			largest = max(largest, r)
			if r > SlowComponentRatio {
				t.Errorf("AR(1) φ %.1f: batch-means τ / ESS τ = %.2f, above %v", phi, r, float64(SlowComponentRatio))
			}
		}
		t.Logf("AR(1) φ %.1f: largest ratio over 300 replicates %.2f", phi, largest)
	}
}

// TestBatchMeansSeeASlowComponent checks that the criterion catches what the
// ESS misses: on slowComponentChains (τ 13.4), 4 × 2000 draws, the ESS's τ
// stays far below 13.4 (3.8 on average) while the batch means see twice as
// much (8.1: batches of 400 draws still miss part of a component of τ 399),
// and the ratio passes SlowComponentRatio in 30 of the 200 replicates. The
// criterion is built to be rare on well-mixed chains, so it misses many slow
// ones: the test asserts that the batch means see at least 1.5 times the
// ESS's τ (Monte Carlo error of the ratio of the means about 0.05) and that
// at least 10 replicates are flagged (binomial sd about 5).
func TestBatchMeansSeeASlowComponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	const reps = 200
	flagged, sumESS, sumBM := 0, 0.0, 0.0
	for range reps {
		chains := slowComponentChains(rng, 4, 2000)
		te, tb := essTau(chains), BatchMeansTau(chains)
		sumESS += te
		sumBM += tb
		if tb > SlowComponentRatio*te {
			flagged++
		}
	}
	t.Logf("mean ESS τ %.2f, mean batch-means τ %.2f, flagged %d of %d", sumESS/reps, sumBM/reps, flagged, reps)
	if sumBM < 1.5*sumESS {
		t.Errorf("mean batch-means τ %.2f is under 1.5 times the ESS's %.2f: the batch means do not see the slow component", sumBM/reps, sumESS/reps)
	}
	if flagged < 10 {
		t.Errorf("%d of %d replicates with a slow component flagged, want at least 10", flagged, reps)
	}
}
