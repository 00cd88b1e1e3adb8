package inference

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/copulang/copulang/hough"
)

func TestKeptDrawsAndMeanC(t *testing.T) {
	tests := []struct {
		name  string
		c     [][][]float64
		draws int
		mean  []float64 // nil: every entry NaN
	}{
		{"two chains of unequal length", [][][]float64{
			{{1, 0.2, 0.2, 1}, {1, 0.4, 0.4, 1}},
			{{1, -0.3, -0.3, 1}},
		}, 3, []float64{1, 0.1, 0.1, 1}},
		{"one draw", [][][]float64{{{1, -0.5, -0.5, 1}}}, 1, []float64{1, -0.5, -0.5, 1}},
		{"no draws", [][][]float64{{}, {}}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{P: 2, C: tc.c}
			if got := r.KeptDraws(); got != tc.draws {
				t.Errorf("KeptDraws() = %d, want %d", got, tc.draws)
			}
			got := r.MeanC()
			if len(got) != 4 {
				t.Fatalf("MeanC() has %d entries, want 4", len(got))
			}
			for k, v := range got {
				if tc.mean == nil {
					if !math.IsNaN(v) {
						t.Errorf("MeanC()[%d] = %v, want NaN", k, v)
					}
					continue
				}
				if math.Abs(v-tc.mean[k]) > 1e-15 {
					t.Errorf("MeanC()[%d] = %v, want %v", k, v, tc.mean[k])
				}
			}
		})
	}
}

// TestImputedLevels: the level summary of an imputed cell uses observed
// values only: the mode and its probability, the type-1 quantiles (R's
// quantile(x, type = 1)), and every value's probability.
func TestImputedLevels(t *testing.T) {
	// 20 draws: 1 ×3, 2 ×8, 5 ×8, 9 ×1. R: quantile(x, c(.05, .5, .95), type = 1) = 1, 2, 5.
	var draws []float64
	for v, k := range map[float64]int{1: 3, 2: 8, 5: 8, 9: 1} {
		for range k {
			draws = append(draws, v)
		}
	}
	s := Imputed{Draws: draws}.Levels(0.9)
	if s.Mode != 2 || s.PMode != 0.4 {
		t.Errorf("mode %v with probability %v, want 2 (the lower of two modes) with 0.4", s.Mode, s.PMode)
	}
	if s.Lo != 1 || s.Median != 2 || s.Hi != 5 {
		t.Errorf("quantiles %v %v %v, want 1 2 5", s.Lo, s.Median, s.Hi)
	}
	if !slices.Equal(s.Values, []float64{1, 2, 5, 9}) || !slices.Equal(s.Probs, []float64{0.15, 0.4, 0.4, 0.05}) {
		t.Errorf("values %v probabilities %v", s.Values, s.Probs)
	}
	// prob = 0.5: quantiles at 0.25 and 0.75, type 1: 2 and 5.
	if s := (Imputed{Draws: draws}).Levels(0.5); s.Lo != 2 || s.Hi != 5 {
		t.Errorf("prob 0.5: %v %v, want 2 5", s.Lo, s.Hi)
	}
	if s := (Imputed{}).Levels(0.9); !math.IsNaN(s.Mode) || s.Values != nil {
		t.Errorf("no draws: %+v", s)
	}
}

// TestTallyMatchesSorting: the imputed cells' summaries come from a tally of
// their distinct values; every statistic must equal the one computed from
// the sorted draws, to the bit: for cells of 1 to 200 distinct values (past
// 64 the tally sorts), draws of 1 to 500, and probabilities at the edges.
func TestTallyMatchesSorting(t *testing.T) {
	// No imputation is NaN, but a NaN draw must not break the order.
	for _, draws := range [][]float64{{1, math.NaN(), 0.5}, {math.NaN()}, {2, 2, math.NaN(), 1}} {
		v, c := tally(draws)
		wv, wc := tallySorted(draws)
		if fmt.Sprint(v, c) != fmt.Sprint(wv, wc) {
			t.Errorf("tally(%v) = %v %v, sorting gives %v %v", draws, v, c, wv, wc)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		distinct := 1 + rng.IntN(200)
		levels := make([]float64, distinct)
		for i := range levels {
			levels[i] = math.Round(rng.NormFloat64()*1e3) / 7
		}
		draws := make([]float64, 1+rng.IntN(500))
		for i := range draws {
			// Skewed, so that some cells have rare values.
			draws[i] = levels[int(float64(distinct)*math.Pow(rng.Float64(), 3))]
		}
		sorted := slices.Clone(draws)
		slices.Sort(sorted)
		values, counts := tally(draws)
		if !slices.IsSorted(values) {
			t.Fatalf("trial %d: tally values not ascending: %v", trial, values)
		}
		k := 0
		for i, v := range values {
			for range counts[i] {
				if sorted[k] != v {
					t.Fatalf("trial %d: tally expands to %v at %d, sorted draws have %v", trial, v, k, sorted[k])
				}
				k++
			}
		}
		if k != len(draws) {
			t.Fatalf("trial %d: tally counts %d draws, want %d", trial, k, len(draws))
		}
		n := len(draws)
		for _, prob := range []float64{0, 1e-9, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-9, 1} {
			if got, want := tallyQuantileType1(values, counts, n, prob), quantileType1(sorted, prob); got != want {
				t.Errorf("trial %d: type-1 quantile at %v: %v, want %v", trial, prob, got, want)
			}
			if got, want := tallyQuantileType7(values, counts, n, prob), quantileSorted(sorted, prob); got != want {
				t.Errorf("trial %d: type-7 quantile at %v: %v, want %v", trial, prob, got, want)
			}
		}
	}
}

// quantileType1 is R's type-1 quantile of sorted draws, the reference for
// the tally's: the smallest draw x with F(x) ≥ prob.
func quantileType1(sorted []float64, prob float64) float64 {
	k := int(math.Ceil(prob*float64(len(sorted)) - 1e-9))
	return sorted[min(max(k, 1), len(sorted))-1]
}

// TestImputeLevelsMatchesImpute: ImputeLevels, which reads the draws once
// in tiles, gives every cell Impute's mean and Levels' summary exactly: 150
// cells (past two tiles) in 3 chains of 40 draws, cells of 1 to 120
// distinct values (past 64 it sorts), and a result without imputations;
// ImputeLevelsOf gives some of the cells the same summaries.
func TestImputeLevelsMatchesImpute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const cells, chains, draws = 150, 3, 40
	// Each cell is in a column of its own, of values 0, 1/3, 2/3, ….
	r := &Result{Missing: make([]Cell, cells), imputed: make([][][]byte, chains), imputeWidth: 1, levels: make([]*hough.Levels, cells)}
	distinct := make([]int, cells)
	for m := range cells {
		r.Missing[m] = Cell{Row: m, Col: m}
		distinct[m] = 1 + rng.IntN(120)
		r.levels[m] = &hough.Levels{Values: make([]float64, distinct[m])}
		for l := range r.levels[m].Values {
			r.levels[m].Values[l] = float64(l) / 3
		}
	}
	for c := range chains {
		r.imputed[c] = make([][]byte, draws)
		for d := range draws {
			codes := make([]byte, cells)
			for m := range codes {
				codes[m] = byte(rng.IntN(distinct[m]))
			}
			r.imputed[c][d] = codes
		}
	}
	for _, prob := range []float64{0.9, 0.5} {
		want := r.Impute()
		got := r.ImputeLevels(prob)
		if len(got) != cells {
			t.Fatalf("prob %v: %d cells, want %d", prob, len(got), cells)
		}
		for m := range got {
			w := want[m].Levels(prob)
			g := got[m]
			if g.Row != want[m].Row || g.Col != want[m].Col || g.Mean != want[m].Mean ||
				g.Mode != w.Mode || g.PMode != w.PMode || g.Lo != w.Lo || g.Median != w.Median || g.Hi != w.Hi ||
				!slices.Equal(g.Values, w.Values) || !slices.Equal(g.Probs, w.Probs) {
				t.Fatalf("prob %v, cell %d (%d distinct values): got %+v, want mean %v and %+v", prob, m, distinct[m], g, want[m].Mean, w)
			}
		}
		// Some cells only, across tiles and with a cell of many values:
		// each the same as among every cell's.
		at := []int{0, 3, 4, 70, 71, cells - 1}
		for m := range distinct {
			if distinct[m] > tallyMaxDistinct && !slices.Contains(at, m) {
				at = append(at, m)
			}
		}
		slices.Sort(at)
		some := r.ImputeLevelsOf(prob, at)
		for k, m := range at {
			if !reflect.DeepEqual(some[k], got[m]) {
				t.Fatalf("prob %v: ImputeLevelsOf's cell %d (index %d) is %+v, ImputeLevels's %+v", prob, k, m, some[k], got[m])
			}
		}
	}
	if got := (&Result{Missing: r.Missing[:3]}).ImputeLevels(0.9); len(got) != 3 || !math.IsNaN(got[0].Mean) || !math.IsNaN(got[0].Mode) {
		t.Errorf("no imputations: %+v", got)
	}
}

// TestEntrySummaries: a Result's EntrySummaries are SummarizeAll of each
// entry of C (i < j) and each aligned loading, in the documented order,
// remembered (the same slice twice); an extension has its own, of its
// draws; a Result read back computes them afresh; and a Result built by
// hand computes them without remembering.
func TestEntrySummaries(t *testing.T) {
	cols, _ := saveTestData(t)
	spec := Spec{Columns: cols, Model: FactorModel{K: 2}, Method: PX, Warmup: 10, Iter: 12, Chains: 2, Seed: 7}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	direct := func(r *Result) []Summary {
		var params [][][]float64
		for i := 0; i < r.P; i++ {
			for j := i + 1; j < r.P; j++ {
				params = append(params, r.Draws(i, j))
			}
		}
		for i := 0; i < r.P; i++ {
			for h := 0; h < r.K; h++ {
				draws := make([][]float64, len(r.Lambda))
				for c, ch := range r.Lambda {
					for _, l := range ch {
						draws[c] = append(draws[c], l[i*r.K+h])
					}
				}
				params = append(params, draws)
			}
		}
		return SummarizeAll(params)
	}
	got := res.EntrySummaries()
	if want := direct(res); fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 4*3/2+4*2 {
		t.Fatalf("EntrySummaries: %d summaries\n%v\nwant %d\n%v", len(got), got, len(want), want)
	}
	if again := res.EntrySummaries(); &again[0] != &got[0] {
		t.Error("EntrySummaries computed twice")
	}
	more, err := res.Extend(context.Background(), 6, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := more.EntrySummaries(), direct(more); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("an extension's EntrySummaries are not of its draws:\n%v\nwant\n%v", got, want)
	}
	b, err := more.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	read, err := UnmarshalResult(b, spec)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(read.EntrySummaries()) != fmt.Sprint(more.EntrySummaries()) {
		t.Error("a Result read back summarises its entries differently")
	}
	byHand := &Result{P: 2, C: [][][]float64{{{1, 0.5, 0.5, 1}, {1, 0.4, 0.4, 1}, {1, 0.3, 0.3, 1}}}}
	if s := byHand.EntrySummaries(); len(s) != 1 || math.Abs(s[0].Mean-0.4) > 1e-12 {
		t.Errorf("a Result built by hand: %+v", s)
	}
}

// TestDrawsOf: DrawsOf gathers, for any entries, what Draws gives for each,
// across blocks of draws, with chains of unequal length and an empty one.
func TestDrawsOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const p = 5
	r := &Result{P: p}
	for _, n := range []int{150, 64, 0} {
		var chain [][]float64
		for range n {
			m := make([]float64, p*p)
			for k := range m {
				m[k] = rng.Float64()
			}
			chain = append(chain, m)
		}
		r.C = append(r.C, chain)
	}
	entries := [][2]int{{0, 1}, {3, 2}, {4, 4}, {0, 1}, {2, 4}}
	got := r.DrawsOf(entries)
	for k, e := range entries {
		if want := r.Draws(e[0], e[1]); !reflect.DeepEqual(got[k], want) {
			t.Errorf("entry %v: DrawsOf differs from Draws", e)
		}
	}
}
