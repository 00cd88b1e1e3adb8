package inference

import (
	"math"
	"slices"
)

// LevelSummary describes the posterior predictive distribution of a missing
// cell on its column's levels: every statistic is one of the column's
// observed values, as an ordinal cell must be.
type LevelSummary struct {
	// Mode is the most probable value (the lowest of equally probable
	// ones) and PMode its probability.
	Mode, PMode float64
	// Lo, Median and Hi are the type-1 quantiles (the inverse of the
	// empirical distribution function, R's quantile type 1) at (1 − prob)/2,
	// 1/2 and (1 + prob)/2.
	Lo, Median, Hi float64
	// Values are the distinct values drawn, ascending, and Probs their
	// posterior predictive probabilities.
	Values, Probs []float64
}

// Levels summarises the imputed draws of the cell on its levels, with the
// central interval of probability prob (0 < prob < 1). With no draws every
// field is NaN or empty.
func (im Imputed) Levels(prob float64) LevelSummary {
	nan := math.NaN()
	s := LevelSummary{Mode: nan, PMode: nan, Lo: nan, Median: nan, Hi: nan}
	if len(im.Draws) == 0 {
		return s
	}
	sorted := slices.Clone(im.Draws)
	slices.Sort(sorted)
	n := float64(len(sorted))
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		p := float64(j-i) / n
		s.Values = append(s.Values, sorted[i])
		s.Probs = append(s.Probs, p)
		if p > s.PMode || math.IsNaN(s.PMode) {
			s.Mode, s.PMode = sorted[i], p
		}
		i = j
	}
	s.Lo = quantileType1(sorted, (1-prob)/2)
	s.Median = quantileType1(sorted, 0.5)
	s.Hi = quantileType1(sorted, (1+prob)/2)
	return s
}

// quantileType1 is R's type-1 quantile of sorted draws: the smallest draw
// x with F(x) ≥ prob, F the empirical distribution function.
func quantileType1(sorted []float64, prob float64) float64 {
	k := int(math.Ceil(prob*float64(len(sorted)) - 1e-9))
	return sorted[min(max(k, 1), len(sorted))-1]
}
