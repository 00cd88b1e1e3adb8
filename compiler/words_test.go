package compiler

import (
	"regexp"
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

// TestHelpNamesEveryArgument: help of a call or statement names each of
// its arguments and settings (the first, positional one is written as a
// placeholder, PATH or SPEC). help load named order alone, so sep, na
// and drop could be found only in the reference (found by the review of a
// mixed survey).
func TestHelpNamesEveryArgument(t *testing.T) {
	for call, args := range Arguments() {
		d, ok := Doc(call)
		if !ok {
			t.Errorf("help %s: no documentation", call)
			continue
		}
		for _, a := range args {
			if p := paramNamed(call, a); p != nil && p.positional && p.required {
				continue
			}
			if !regexp.MustCompile(`\b` + a + `\b`).MatchString(d) {
				t.Errorf("help %s does not name %s: %q", call, a, d)
			}
		}
	}
}

// paramNamed is the parameter name of call, nil for a statement's setting.
func paramNamed(call, name string) *param {
	if slices.Contains(settingStatements(), call) {
		return nil
	}
	for _, p := range parameters(call) {
		if p.name == name {
			return &p
		}
	}
	return nil
}

func settingStatements() []string {
	return []string{"fit", "extend", "summary", "impute", "predict", "check", "compare", "plot graph", "plot heatmap"}
}
