package compiler

import (
	"slices"
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
