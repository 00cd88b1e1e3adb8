package compiler

import (
	"slices"
	"strings"
	"testing"
)

// TestWordListsAreCopies checks that a caller changing a word list does not
// change the language.
func TestWordListsAreCopies(t *testing.T) {
	lists := []struct {
		name string
		get  func() []string
	}{
		{"Keywords", Keywords},
		{"Distributions", Distributions},
		{"Methods", Methods},
		{"PlotKinds", PlotKinds},
		{"OtherWords", OtherWords},
	}
	for _, l := range lists {
		before := l.get()
		if len(before) == 0 {
			t.Fatalf("%s() is empty", l.name)
		}
		changed := l.get()
		changed[0] = "changed"
		if after := l.get(); !slices.Equal(after, before) {
			t.Errorf("%s() = %v after a caller changed its copy, want %v", l.name, after, before)
		}
	}
}

func TestMethodsFollowInference(t *testing.T) {
	want := []string{"auto", "gibbs", "hmc", "px", "interweave"}
	if got := Methods(); !slices.Equal(got, want) {
		t.Errorf("Methods() = %v, want %v", got, want)
	}
}

// TestHelpSaysWhatFactorModelsIdentify: help FactorModel and help Lambda
// said only "1 <= K < p" and "the loadings of a factor model (p × k)":
// nothing of the scale m.Lambda shows them on, their alignment, or the
// Ledermann bound past which only C is identified, which the plan now
// notes (TestPlanFactorsPastLedermannBound).
func TestHelpSaysWhatFactorModelsIdentify(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"FactorModel", "the loadings and communalities only up to the Ledermann\nbound, the largest K with (p - K)² >= p + K"},
		{"Lambda", "on the correlation scale, aligned across draws (identified only up to rotation and sign"},
		// Within the bound the communalities can still be weakly determined
		// (the GSS with K = 3: sampling.md §9.6; found by the k = 3 review).
		{"FactorModel", "Identified is not always well determined: with K = 3 on the GSS's 7\ncolumns the chains trade the columns' variance between the factors so\nslowly"},
	} {
		doc, ok := Doc(tc.word)
		if !ok || !strings.Contains(doc, tc.want) {
			t.Errorf("help %s = %q, want it to contain %q", tc.word, doc, tc.want)
		}
	}
}
