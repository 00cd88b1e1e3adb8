package inference

import (
	"math"
	"slices"
	"testing"
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
