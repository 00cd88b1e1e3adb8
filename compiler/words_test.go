package compiler

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/copulang/copulang/dsl"
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

// TestTargetMembersAreWhatTheChecksAccept checks TargetMembers and
// DifferenceMembers, which completion offers after NAME., against the
// checks themselves: for every statement that takes a part of a fit, every
// member of a full-correlation and of a factor model, alone and in a
// difference of two fits, the statement checks (in one of the member's
// usual forms: whole, an entry, a column, a regression) exactly when the
// lists take the member and the model has it.
func TestTargetMembersAreWhatTheChecksAccept(t *testing.T) {
	env := newFakeEnv()
	hoff2, fm2 := *env["hoff"].(*ModelInfo), *env["fm"].(*ModelInfo)
	hoff2.Name, fm2.Name = "hoff2", "fm2"
	env["hoff2"], env["fm2"] = &hoff2, &fm2
	models := []struct {
		name, other string
		factor      bool
		formula     string
	}{
		{"hoff", "hoff2", false, "(INC ~ DEG)"},
		{"fm", "fm2", true, "(Y1 ~ Y2)"},
	}
	forms := map[string][]string{
		"C":           {"", "[1, 2]"},
		"partial":     {"", "[1, 2]"},
		"Lambda":      {"", "[1, 1]"},
		"communality": {"", "[1]"},
		"Z":           {"", "[1]"},
	}
	var stmts []string
	for _, kind := range PlotKinds() {
		stmts = append(stmts, "plot "+kind)
	}
	stmts = append(stmts, "summary", "export", "print", "check")
	written := func(stmt, target string) string {
		if stmt == "export" {
			return "export " + target + ` to "draws.csv"`
		}
		return stmt + " " + target
	}
	for _, stmt := range stmts {
		for _, m := range models {
			for _, member := range members() {
				has := m.factor || member != "Lambda" && member != "communality"
				suffixes := forms[member]
				if member == "regress" {
					suffixes = []string{m.formula, m.formula + "[R2]"}
				}
				for _, diff := range []bool{false, true} {
					accepted := ""
					for _, suffix := range suffixes {
						target := m.name + "." + member + suffix
						if diff {
							target += " - " + m.other + "." + member + suffix
						}
						src := written(stmt, target)
						f, err := dsl.Parse("", []byte(src))
						if err != nil {
							t.Fatalf("Parse(%q): %v", src, err)
						}
						if _, err := Check(f, env); err == nil {
							accepted = src
							break
						}
					}
					want := has && takesMember(stmt, member, diff)
					if got := accepted != ""; got != want {
						t.Errorf("%s, %s.%s, difference %v: the check accepts it %v (%q), TargetMembers/DifferenceMembers say %v",
							stmt, m.name, member, diff, got, accepted, want)
					}
				}
			}
		}
	}
}
