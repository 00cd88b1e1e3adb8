package hough

import (
	"slices"
	"testing"
)

// TestSelectRanks compares selectRanks with a full sort, ties included.
func TestSelectRanks(t *testing.T) {
	rng := newRNG(5)
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(200)
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(rng.IntN(1 + trial%40)) // many ties when trial%40 is small
		}
		want := slices.Clone(a)
		slices.Sort(want)
		var ranks []int32
		for r := 0; r < n; r++ {
			if rng.IntN(4) == 0 {
				ranks = append(ranks, int32(r))
			}
		}
		selectRanks(a, ranks, 0)
		for _, r := range ranks {
			if a[r] != want[r] {
				t.Fatalf("trial %d: rank %d is %v, want %v", trial, r, a[r], want[r])
			}
			for i := 0; i < int(r); i++ {
				if a[i] > a[r] {
					t.Fatalf("trial %d: a[%d] = %v > a[%d] = %v", trial, i, a[i], r, a[r])
				}
			}
		}
	}
}
