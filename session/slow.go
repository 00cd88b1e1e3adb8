package session

import (
	"fmt"
	"math"

	"github.com/copulang/copulang/inference"
)

// slowComponentNote says, when an entry of C's batch means vary more than
// its ESS allows (inference.BatchMeansTau above inference.SlowComponentRatio
// times S/ESS), that the chains have a component slower than the ESS sees,
// so that the entry's mcse_mean is too small (sampling.md §7.2); "" when no
// entry shows it. Hoff's Gibbs sampler had such a component on the GSS,
// whose many-level age column's latent thresholds moved only by the gaps
// between neighbouring rows, over hundreds of iterations, with C following
// them a little, until the level stretches (sampling.md §1.4) redrew their
// spacing; any sampler may have one. The criterion is rarely met by chains
// whose ESS is right, and not met by many whose ESS is optimistic: silence
// proves nothing.
func slowComponentNote(r *inference.Result, d diagnostics) string {
	sums := r.EntrySummaries()
	if r.P < 2 || len(sums) < d.correlations {
		return ""
	}
	pairs := make([][2]int, 0, d.correlations)
	for i := 0; i < r.P; i++ {
		for j := i + 1; j < r.P; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	worst, flagged := -1, 0
	var worstRatio, worstBM, worstESS float64
	batch := 0
	for k, chains := range r.DrawsOf(pairs) {
		if d.priorOnly(k, r.P) {
			continue
		}
		chains = inference.NonEmptyShortest(chains)
		if len(chains) == 0 {
			return ""
		}
		draws := float64(len(chains) * len(chains[0]))
		s := sums[k]
		tauESS := draws * (s.MCSEMean / s.SD) * (s.MCSEMean / s.SD)
		tauBM := inference.BatchMeansTau(chains)
		ratio := tauBM / tauESS
		if math.IsNaN(ratio) || math.IsInf(ratio, 0) || ratio <= inference.SlowComponentRatio {
			continue
		}
		flagged++
		if ratio > worstRatio {
			worst, worstRatio, worstBM, worstESS = k, ratio, tauBM, tauESS
			perChain := (inference.BatchMeansBatches + len(chains) - 1) / len(chains)
			batch = len(chains[0]) / perChain
		}
	}
	if worst < 0 {
		return ""
	}
	name := d.name(worst)
	if name == "" {
		return ""
	}
	others := ""
	switch flagged {
	case 1:
	case 2:
		others = " (and on 1 other entry)"
	default:
		others = fmt.Sprintf(" (and on %d other entries)", flagged-1)
	}
	return fmt.Sprintf("the batch means of %s vary %.1f× as much as its ESS allows (autocorrelation time %.1f from batches of %d draws, against %.1f from the ESS)%s: the chains have a component slower than the ESS sees, so its mcse_mean is too small, by a factor of about %.1f or more (batches this short see only part of it); longer chains let the ESS see it (sampling.md §7.2)",
		name, worstRatio, worstBM, batch, worstESS, others, math.Sqrt(worstRatio))
}
