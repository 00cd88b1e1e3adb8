package inference

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// imputedValues is every imputation of r as a value, as Result.Imputed held
// them before they were kept as level codes: [chain][draw][cell], nil for a
// chain without imputed draws.
func imputedValues(r *Result) [][][]float64 {
	out := make([][][]float64, len(r.imputed))
	for c, ch := range r.imputed {
		for d := range ch {
			v := make([]float64, len(r.Missing))
			r.ImputedTo(v, c, d)
			out[c] = append(out[c], v)
		}
	}
	return out
}

// TestImputedCodes: a run keeps each imputed value in one byte when every
// column with missing cells has at most 256 levels and in two past that
// (8 as a float64 before), ImputedValue and ImputedTo read the same
// observed values of the cells' columns, and recording a draw's
// imputations allocates nothing.
func TestImputedCodes(t *testing.T) {
	// Not parallel: AllocsPerRun.
	narrow, _ := saveTestData(t)
	wide := wideTestData()
	for _, tc := range []struct {
		name  string
		cols  [][]float64
		bytes int // per imputed value
	}{{"at most 256 levels", narrow, 1}, {"more than 256 levels", wide, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Columns: tc.cols, Method: Gibbs, Warmup: 10, Iter: 8, Chains: 2, Seed: 3}
			r, err := Run(context.Background(), spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			nm := len(r.Missing)
			if nm == 0 {
				t.Fatal("no missing cells")
			}
			held := 0
			for c, ch := range r.imputed {
				if r.ImputedDraws(c) != 8 {
					t.Errorf("chain %d: %d imputed draws, want 8", c+1, r.ImputedDraws(c))
				}
				for _, codes := range ch {
					held += len(codes)
				}
			}
			if want := tc.bytes * nm * 2 * 8; held != want {
				t.Errorf("imputations held in %d bytes, want %d: %d per value", held, want, tc.bytes)
			}
			vals := make([]float64, nm)
			for c := range r.C {
				for d := range r.ImputedDraws(c) {
					r.ImputedTo(vals, c, d)
					for m, v := range vals {
						if got := r.ImputedValue(c, d, m); got != v || !slices.Contains(r.levels[r.Missing[m].Col].Values, v) {
							t.Fatalf("chain %d, draw %d, cell %d: ImputedValue %v, ImputedTo %v", c+1, d+1, m+1, got, v)
						}
					}
				}
			}
			if err := r.Invariants(); err != nil {
				t.Error(err)
			}

			cs, d := warmSampler(t, spec, rand.New(rand.NewPCG(1, 2)), 2)
			imp := newImputer(d.levels, r.Missing, r.imputeWidth)
			dst := make([]byte, nm*r.imputeWidth)
			if n := testing.AllocsPerRun(10, func() { imp.impute(dst, cs) }); n != 0 {
				t.Errorf("recording a draw's imputations allocates %v times", n)
			}
		})
	}
}
