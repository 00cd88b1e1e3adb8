package inference

import "math"

// BatchMeansTau returns the autocorrelation time of one scalar quantity that
// the variance of its batch means implies: each of the M chains of N draws is
// cut into n = ⌈20/M⌉ batches of b = ⌊N/n⌋ consecutive draws (the first
// N − n·b draws of each chain, the ones nearest the warm-up, left out), and
//
//	τ_bm = b · var(batch means) / var(draws),
//
// both variances about the mean of the draws used, over B − 1 = M·n − 1 and
// S − 1 = M·n·b − 1. The variance of the mean is then τ_bm·var/S, the
// estimate of the batch-means method (Flegal and Jones 2010), to compare
// with the τ = S/ESS of the reported mcse_mean (sampling.md §7.2): Geyer's
// truncation of the autocorrelations, which the ESS uses, stops at the
// first lags where a small, slowly decaying component is lost in their
// noise, while the batch means of draws that far apart still carry it.
//
// With at least 20 batches of independent draws τ_bm is distributed about
// as τ·χ²₁₉/19 or tighter. NaN if a batch would hold fewer than
// MinBatchDraws draws, or the draws are not finite or do not vary.
func BatchMeansTau(chains [][]float64) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	for _, c := range chains[1:] {
		n = min(n, len(c))
	}
	perChain := (BatchMeansBatches + m - 1) / m
	b := n / perChain
	if b < MinBatchDraws {
		return math.NaN()
	}
	batches := m * perChain
	means := make([]float64, 0, batches)
	total := 0.0
	for _, c := range chains {
		used := c[len(c)-perChain*b:]
		for k := 0; k < perChain; k++ {
			s := 0.0
			for _, x := range used[k*b : (k+1)*b] {
				s += x
			}
			total += s
			means = append(means, s/float64(b))
		}
	}
	draws := float64(batches * b)
	mean := total / draws
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return math.NaN()
	}
	ss := 0.0
	for _, c := range chains {
		for _, x := range c[len(c)-perChain*b:] {
			ss += (x - mean) * (x - mean)
		}
	}
	if !(ss > 0) {
		return math.NaN()
	}
	bm := 0.0
	for _, x := range means {
		bm += (x - mean) * (x - mean)
	}
	return float64(b) * (bm / float64(batches-1)) / (ss / (draws - 1))
}

// BatchMeansBatches is how many batches BatchMeansTau makes at least: ⌈20/M⌉
// per chain of M chains.
const BatchMeansBatches = 20

// MinBatchDraws is the fewest draws a batch of BatchMeansTau may hold.
const MinBatchDraws = 10

// SlowComponentRatio is how many times the autocorrelation time from the
// ESS, τ = S/ESS, the batch-means one must exceed for a fit's report to say
// that its chains have a component slower than the ESS sees. With 20
// batches of independent or AR(1) draws the ratio exceeds it with
// probability about 10⁻⁵ per quantity (τ_bm/τ is about χ²₁₉/19, whose
// upper 10⁻⁵ tail starts near 3), so among the 190 entries of C of 20
// columns it stays rare; it is not reached by AR(1) chains of φ up to 0.9
// in TestBatchMeansRatioOnWellMixedChains.
const SlowComponentRatio = 3
