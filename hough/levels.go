package hough

import (
	"fmt"
	"math"
	"sort"
)

// Levels is the constraint structure an ordinal column imposes on its latent
// Gaussian column x (sampling.md §1.1). Rows with equal observed values share
// a level; the levels are ordered by value; a missing (NaN) row belongs to no
// level and is unconstrained. Only adjacent levels constrain each other:
//
//	max_{i in level l} x_i <= min_{i in level l+1} x_i   for every l.
//
// Rows are stored sorted by level, so level l is the contiguous range
// Order[Start[l]:Start[l+1]]. A Levels is immutable once built and may be
// shared by goroutines.
type Levels struct {
	// N is the number of rows, observed and missing.
	N int
	// Values are the distinct observed values, ascending; level l has value Values[l].
	Values []float64
	// Order lists the observed rows grouped by level, levels ascending.
	Order []int32
	// Start has len(Values)+1 entries; level l is Order[Start[l]:Start[l+1]].
	Start []int32
	// Level maps a row to its level, or -1 for a missing row.
	Level []int32
	// Missing lists the rows whose value is NaN, ascending.
	Missing []int32
}

// NewLevels builds the constraint structure of column y in O(n log n) time and
// O(n) memory. NaN entries are missing. Infinite values are rejected.
func NewLevels(y []float64) (*Levels, error) {
	if len(y) > math.MaxInt32 {
		return nil, fmt.Errorf("hough: column has %d rows, more than %d", len(y), math.MaxInt32)
	}
	lv := &Levels{N: len(y), Level: make([]int32, len(y))}
	observed := make([]int32, 0, len(y))
	for i, v := range y {
		switch {
		case math.IsNaN(v):
			lv.Missing = append(lv.Missing, int32(i))
			lv.Level[i] = -1
		case math.IsInf(v, 0):
			return nil, fmt.Errorf("hough: row %d has infinite value %v", i+1, v)
		default:
			observed = append(observed, int32(i))
		}
	}
	sort.SliceStable(observed, func(a, b int) bool { return y[observed[a]] < y[observed[b]] })
	lv.Order = observed
	for k, i := range observed {
		if k == 0 || y[i] != y[observed[k-1]] {
			lv.Values = append(lv.Values, y[i])
			lv.Start = append(lv.Start, int32(k))
		}
		lv.Level[i] = int32(len(lv.Values) - 1)
	}
	lv.Start = append(lv.Start, int32(len(observed)))
	return lv, nil
}

// NumLevels returns the number of distinct observed values.
func (lv *Levels) NumLevels() int { return len(lv.Values) }

// Rows returns the rows of level l; the slice aliases lv.Order.
func (lv *Levels) Rows(l int) []int32 { return lv.Order[lv.Start[l]:lv.Start[l+1]] }

// Violation returns the first level l whose maximum exceeds the minimum of
// level l+1 in x, and by how much. It returns (-1, 0) when x satisfies every
// constraint.
func (lv *Levels) Violation(x []float64) (level int, amount float64) {
	if len(x) != lv.N {
		panic(fmt.Sprintf("hough: Violation: len(x) = %d, want %d", len(x), lv.N))
	}
	var prevMax float64
	for l := 0; l < len(lv.Values); l++ {
		lo, hi, nan := rangeOf(x, lv.Rows(l))
		if l > 0 && (prevMax > lo || math.IsNaN(prevMax) || nan) {
			if nan {
				lo = math.NaN()
			}
			return l - 1, prevMax - lo
		}
		prevMax = hi
		if nan {
			prevMax = math.NaN()
		}
	}
	return -1, 0
}

// rangeOf returns the least and greatest of x[i] over rows, and whether one
// of them is NaN, in one pass without calls.
func rangeOf(x []float64, rows []int32) (lo, hi float64, nan bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, i := range rows {
		v := x[i]
		nan = nan || v != v
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi, nan
}

// Feasible reports whether x satisfies every order constraint.
func (lv *Levels) Feasible(x []float64) bool {
	l, _ := lv.Violation(x)
	return l < 0
}
