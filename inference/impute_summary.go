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
	if len(im.Draws) == 0 {
		return levelSummary(nil, nil, 0, prob)
	}
	values, counts := tally(im.Draws)
	return levelSummary(values, counts, len(im.Draws), prob)
}

// levelSummary is the LevelSummary of n tallied draws (no draws: every
// statistic NaN).
func levelSummary(values []float64, counts []int, n int, prob float64) LevelSummary {
	nan := math.NaN()
	s := LevelSummary{Mode: nan, PMode: nan, Lo: nan, Median: nan, Hi: nan}
	if n == 0 {
		return s
	}
	s.Values = values
	s.Probs = make([]float64, len(values))
	for i, v := range values {
		p := float64(counts[i]) / float64(n)
		s.Probs[i] = p
		if p > s.PMode || math.IsNaN(s.PMode) {
			s.Mode, s.PMode = v, p
		}
	}
	s.Lo = tallyQuantileType1(values, counts, n, (1-prob)/2)
	s.Median = tallyQuantileType1(values, counts, n, 0.5)
	s.Hi = tallyQuantileType1(values, counts, n, (1+prob)/2)
	return s
}

// ImputedLevels is a missing cell's posterior predictive mean and the
// summary of its distribution on its column's levels.
type ImputedLevels struct {
	// Row and Col are 0-based.
	Row, Col int
	// Mean is the posterior predictive mean of the imputed values.
	Mean float64
	LevelSummary
}

// ImputeLevels returns, for every missing cell in the order of r.Missing,
// what Impute's Mean and Levels(prob) give, without gathering each cell's
// draws: at survey scale (80,000 cells, 400 kept draws) that copy alone is
// 256 MB. The draws are read once, 64 cells at a time.
func (r *Result) ImputeLevels(prob float64) []ImputedLevels {
	return r.ImputeLevelsOf(prob, nil)
}

// ImputeLevelsOf is ImputeLevels of the missing cells at the given indices
// of r.Missing, in their order (nil: every cell): a display that shows a
// thousand of a survey's hundred thousand cells summarises only those.
func (r *Result) ImputeLevelsOf(prob float64, at []int) []ImputedLevels {
	cells := len(at)
	if at == nil {
		cells = len(r.Missing)
	}
	index := func(k int) int {
		if at == nil {
			return k
		}
		return at[k]
	}
	out := make([]ImputedLevels, cells)
	rows := r.imputedRows()
	n := len(rows)
	const tile = 64
	var tallies [tile]tallier
	var sums, vals [tile]float64
	var tileAt [tile]int
	for k0 := 0; k0 < cells; k0 += tile {
		k1 := min(k0+tile, cells)
		for m := range k1 - k0 {
			tileAt[m] = index(k0 + m)
			tallies[m].reset()
			sums[m] = 0
		}
		for _, codes := range rows {
			r.imputedAtTo(vals[:k1-k0], codes, tileAt[:k1-k0])
			for m, v := range vals[:k1-k0] {
				sums[m] += v
				tallies[m].add(v)
			}
		}
		for m := range k1 - k0 {
			cell := r.Missing[tileAt[m]]
			values, counts := tallies[m].values, tallies[m].counts
			if tallies[m].overflow {
				draws := make([]float64, n)
				for i, codes := range rows {
					r.imputedAtTo(draws[i:i+1], codes, tileAt[m:m+1])
				}
				values, counts = tallySorted(draws)
			}
			mean := math.NaN()
			if n > 0 {
				mean = sums[m] / float64(n)
			}
			out[k0+m] = ImputedLevels{Row: cell.Row, Col: cell.Col, Mean: mean, LevelSummary: levelSummary(values, counts, n, prob)}
		}
	}
	return out
}

// tallyMaxDistinct is the most distinct values tally places one draw at a
// time; past it, sorting a copy is cheaper.
const tallyMaxDistinct = 64

// tally returns the distinct values of draws, ascending, and how often each
// occurs. An imputed cell takes one of its column's observed values, most
// often a few, so each draw is found among the values seen so far; a cell with more than tallyMaxDistinct distinct values (a column
// of many levels) is tallied from a sorted copy instead.
func tally(draws []float64) (values []float64, counts []int) {
	var t tallier
	t.reset()
	for _, v := range draws {
		t.add(v)
		if t.overflow {
			return tallySorted(draws)
		}
	}
	return t.values, t.counts
}

// tallier tallies draws one at a time: the distinct values so far,
// ascending, and their counts, up to tallyMaxDistinct values (then, or at a
// NaN, overflow is set and it stops counting).
type tallier struct {
	values   []float64
	counts   []int
	last     int // the index of the previous draw's value (chains repeat values), or −1
	overflow bool
}

// reset starts a new tally; the slices are new, as the caller keeps them.
func (t *tallier) reset() {
	*t = tallier{values: make([]float64, 0, 8), counts: make([]int, 0, 8), last: -1}
}

func (t *tallier) add(v float64) {
	if v != v { // NaN, which no imputation is: sorting places it
		t.overflow = true
		return
	}
	if t.last >= 0 && t.values[t.last] == v {
		t.counts[t.last]++
		return
	}
	if t.overflow {
		return
	}
	// A linear search: at most tallyMaxDistinct values, most often a few.
	i := 0
	for i < len(t.values) && t.values[i] < v {
		i++
	}
	if i < len(t.values) && t.values[i] == v {
		t.counts[i]++
		t.last = i
		return
	}
	if len(t.values) == tallyMaxDistinct {
		t.overflow = true
		return
	}
	t.values = slices.Insert(t.values, i, v)
	t.counts = slices.Insert(t.counts, i, 1)
	t.last = i
}

// tallySorted is tally by sorting a copy of draws.
func tallySorted(draws []float64) (values []float64, counts []int) {
	sorted := slices.Clone(draws)
	slices.Sort(sorted)
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		values = append(values, sorted[i])
		counts = append(counts, j-i)
		i = j
	}
	return values, counts
}

// tallyOrderStat returns the k-th smallest (0-based) of the n tallied draws.
func tallyOrderStat(values []float64, counts []int, k int) float64 {
	for i, c := range counts {
		if k < c {
			return values[i]
		}
		k -= c
	}
	return values[len(values)-1]
}

// tallyQuantileType1 is R's type-1 quantile of the n tallied draws: the
// smallest x with F(x) ≥ prob, F the empirical distribution function (as
// quantileType1 of the sorted draws).
func tallyQuantileType1(values []float64, counts []int, n int, prob float64) float64 {
	k := int(math.Ceil(prob*float64(n) - 1e-9))
	return tallyOrderStat(values, counts, min(max(k, 1), n)-1)
}

// tallyQuantileType7 is R's type-7 quantile of the n tallied draws (as
// quantileSorted of the sorted draws, to the bit).
func tallyQuantileType7(values []float64, counts []int, n int, prob float64) float64 {
	h := float64(n-1) * prob
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return values[len(values)-1]
	}
	a, b := tallyOrderStat(values, counts, lo), tallyOrderStat(values, counts, lo+1)
	return a + (h-float64(lo))*(b-a)
}
