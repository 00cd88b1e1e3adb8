package session

import (
	"reflect"
	"testing"
)

// TestCompleteAfterADifference: after the minus of a difference
// (summary a.C - ), completion offers what may follow, the models and
// their part the left side selects, not the statements and setting words
// it offered; after a minus of numbers, or in a statement that takes no
// difference, it offers what it did.
func TestCompleteAfterADifference(t *testing.T) {
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`+"\n"+
		"model a { Y = gss[income, degree]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\n"+
		"model f { Y = gss[income, degree, age]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	tests := []struct {
		code string
		want []string
	}{
		{"summary a - ", []string{"a", "f"}},
		{"summary a.C - ", []string{"a", "a.C", "f", "f.C"}},
		{"summary a.C[income, degree] -\n  ", []string{"a", "a.C", "f", "f.C"}},
		{"plot hist a.C[income, degree] - f", []string{"f", "f.C"}},
		{"f.communality - ", []string{"a", "f", "f.communality"}},
		{"summary a.partial - ", []string{"a", "a.partial", "f", "f.partial"}},
		{"summary f.Lambda - ", []string{"a", "f"}},
		{"summary a.regress(income ~ degree) - ", []string{"a", "f"}},
	}
	for _, tt := range tests {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
	for _, code := range []string{"print 1 - ", "summary gss - "} {
		got, _, _ := s.Complete(code, len(code))
		if len(got) < 10 {
			t.Errorf("Complete(%q) = %v, want the usual words", code, got)
		}
	}
}

// TestCompleteKnowsTheCell: completion knows the data and models that
// earlier statements of the same cell bind, as far as their text says,
// before the cell runs: a derived data set's columns (in its index, in a
// model's Y = ..., in a where), a loaded file's (less those it drops), a
// simulation's, and a model's name, members and columns.
func TestCompleteKnowsTheCell(t *testing.T) {
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`)
	all := []string{"age", "children", "degree", "income", "pchildren", "pdegree", "pincome"}
	young := "data young = gss[income, degree, age] where age < 40\n"
	model := "model m { Y = young[income, degree]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }\n"
	tests := []struct {
		code string
		want []string
	}{
		{young + "show y", []string{"young"}},
		{young + "young[", []string{"age", "degree", "income"}},
		{young + "model m {\n  Y = young[income, ", []string{"age", "degree"}},
		{young + "data older = young where ", []string{"age", "degree", "income"}},
		{"data all = gss where age < 40\nall[", all},
		{young + model + "fit ", []string{"m"}},
		// A line that is an expression shows anything but Z.
		{young + model + "m.", []string{"C", "Lambda", "communality", "partial", "regress"}},
		{young + model + "plot latent m.", []string{"Z"}},
		{young + model + "summary m.C[", []string{"degree", "income"}},
		{young + model + "summary m.C - ", []string{"m", "m.C"}},
		{`data d = load("data/gss_hoff2007.csv", drop = [age, pchildren])` + "\nd[", []string{"children", "degree", "income", "pdegree", "pincome"}},
		{"data sim = simulate(FullCopula(p = 3), n = 100, levels = 4)\nsim[", []string{"Y1", "Y2", "Y3"}},
	}
	for _, tt := range tests {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

// TestCompletePlotSettings: after a plot's comma completion offers its
// settings (plot graph's edges, plot heatmap's order and prob), and after
// order = the heatmap's words and the models and simulations whose order
// it may share; load's order = takes a map, and is offered none of them.
func TestCompletePlotSettings(t *testing.T) {
	first := func(matches []string, _, _ int) []string { return matches }
	s := New(Options{Dir: "../notebooks"})
	const bound = "data sim = simulate(FullCopula(p = 3), n = 50, levels = 3)\n" +
		"model old { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"model young { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	for _, tt := range []struct {
		code string
		want []string
	}{
		{"plot graph m.partial, e", []string{"edges"}},
		{"plot graph m.partial, prob = 0.95, ed", []string{"edges"}},
		{"plot heatmap m.C, o", []string{"order"}},
		{"plot heatmap m.C - n.C, order = dependence, p", []string{"prob"}},
		{"plot heatmap m.C, order = ", []string{"columns", "dependence"}},
		{"plot heatmap sim, order = d", []string{"dependence"}},
		// (sim, not run yet, is not known to be simulated: see below.)
		{bound + "plot heatmap young.C, order = ", []string{"columns", "dependence", "old", "young"}},
		{bound + "plot heatmap old.C - young.C, order = o", []string{"old"}},
	} {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
	mustRun(t, s, "data truth = simulate(FullCopula(p = 3), n = 50, levels = 3)")
	if code := "plot heatmap truth, order = "; !reflect.DeepEqual(first(s.Complete(code, len(code))), []string{"columns", "dependence", "truth"}) {
		t.Errorf("Complete(%q) = %v, want a simulation's name among the orders", code, first(s.Complete(code, len(code))))
	}
	code := `data x = load("x.csv", order = `
	if got, _, _ := s.Complete(code, len(code)); reflect.DeepEqual(got, []string{"columns", "dependence"}) {
		t.Errorf("Complete(%q) = %v: load's order is a map, not a heatmap's order", code, got)
	}
}

// TestCompleteSummarySettings: summary's settings columns and layout are
// completed, and the words they take.
func TestCompleteSummarySettings(t *testing.T) {
	s := New(Options{Dir: "../notebooks"})
	for _, tt := range []struct {
		code string
		want []string
	}{
		{"summary m.C, l", []string{"layout"}},
		// width, a .tex file's text width, after a .tex path alone.
		{"summary m.C to \"C.tex\", w", []string{"width"}},
		{"summary m.C to \"C.TEX\", layout = matrix, w", []string{"width"}},
		{"summary m.C to \"C.csv\", w", nil},
		{"summary m.C, w", nil},
		{"summary m.C to \"C.tex\", c", []string{"columns"}},
		{"summary m.C, layout = ", []string{"long", "matrix"}},
		{"summary m.C, layout = m", []string{"matrix"}},
		{"summary m.C, columns = ", []string{"ess_bulk", "ess_tail", "interval", "mcse_mean", "mcse_sd", "mean", "p_positive", "q50", "rhat", "sd"}},
		// columns takes a list: inside it, the statistics not listed yet
		// (it offered every keyword, and after a comma summary's settings).
		{"summary m.C, columns = [", []string{"ess_bulk", "ess_tail", "interval", "mcse_mean", "mcse_sd", "mean", "p_positive", "q50", "rhat", "sd"}},
		{"summary m.C to \"C.tex\", columns = [mean, interval, r", []string{"rhat"}},
		{"summary m.C, columns = [mean, ", []string{"ess_bulk", "ess_tail", "interval", "mcse_mean", "mcse_sd", "p_positive", "q50", "rhat", "sd"}},
		// After layout = matrix, the columns that layout takes, which are
		// all the check accepts there: the loadings' communality and
		// uniqueness were never offered, and ess_bulk, rhat, ... were,
		// which it refuses.
		{"summary m.C, layout = matrix, columns = [", []string{"interval", "mean", "q50"}},
		{"summary m.partial to \"P.tex\", layout = matrix, columns = [mean, ", []string{"interval", "q50"}},
		{"summary f.Lambda, layout = matrix, columns = [", []string{"communality", "interval", "mean", "q50", "uniqueness"}},
		{"summary f.Lambda to \"L.csv\", layout = matrix, columns = [mean, c", []string{"communality"}},
		{"summary f.Lambda,\n  layout = matrix,\n  columns = [mean, ", []string{"communality", "interval", "q50", "uniqueness"}},
	} {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

// TestCompleteMembersTheStatementTakes: after NAME. completion offers the
// members of the model that the statement takes there, as its check
// accepts them (compiler.TargetMembers and DifferenceMembers), not every
// member: plot heatmap a.partial - b. offered Z and regress, which plot
// heatmap refuses.
func TestCompleteMembersTheStatementTakes(t *testing.T) {
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`+"\n"+
		"data sim = simulate(FullCopula(p = 3), n = 50, levels = 3)\n"+
		"model a { Y = gss[income, degree]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\n"+
		"model b { Y = gss[income, degree]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\n"+
		"model f { Y = gss[income, degree, age]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }\n"+
		"model g { Y = gss[income, degree, age]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	factorShown := []string{"C", "Lambda", "communality", "partial", "regress"} // all but Z
	fullShown := []string{"C", "partial", "regress"}
	wholeMatrices := []string{"C", "partial"}
	tests := []struct {
		code string
		want []string
	}{
		{"plot heatmap a.partial - b.", []string{"partial"}},
		{"plot heatmap a.C - b.", []string{"C"}},
		{"plot heatmap a.partial - b.p", []string{"partial"}},
		{"plot heatmap a.C - b.p", nil},
		{"plot heatmap b.", wholeMatrices},
		{"plot heatmap f.", wholeMatrices},
		{"plot heatmap a.C, order = b.", wholeMatrices},
		{"plot heatmap a.C - b.C, prob = b.", nil},
		{"plot graph f.", wholeMatrices},
		{"plot graph f.partial - g.", []string{"partial"}},
		{"plot graph f.communality - g.", nil},
		{"plot trace f.", factorShown},
		{"plot hist f.", factorShown},
		{"plot acf f.", factorShown},
		{"plot rank f.", factorShown},
		{"plot pairs f.", factorShown},
		{"plot intervals f.", factorShown},
		{"plot hist b.", fullShown},
		{"plot hist f.Lambda - g.", nil}, // loadings have no difference
		{"plot pairs f.communality - g.", []string{"communality"}},
		{"plot latent f.", []string{"Z"}},
		{"plot latent a.Z[income] - b.", nil},
		{"plot rmse f.", nil},
		{"plot rmse f vs sim.", nil},
		{"summary f.", factorShown},
		{"summary a.", fullShown},
		{"summary f.communality - g.", []string{"communality"}},
		{"summary a.regress(income ~ degree) - b.", []string{"regress"}},
		{"summary a.C[income, degree] -\n  b.", []string{"C"}},
		{"summary a.C, sort = b.", nil},
		{"export f.", factorShown},
		{"export a.C - b.", nil}, // export writes one fit's draws
		{"print f.", factorShown},
		{"print a.C, b.", fullShown},
		{"f.", factorShown},
		{"a.partial - b.", []string{"partial"}},
		{"impute b.", nil},
		{"check b.", nil},
		{"fit b.", nil},
		{"extend b.", nil},
		{"explain b.", nil},
		{"predict b.", nil},
		{"compare a, b.", nil},
		{"show b.", nil},
		{"check b[", []string{"degree", "income"}},
	}
	for _, tt := range tests {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
	// After the minus, the right side's part is offered only where the
	// statement takes it in a difference.
	for _, tt := range []struct {
		code string
		want []string
	}{
		{"plot heatmap f.communality - ", []string{"a", "b", "f", "g"}},
		{"plot pairs f.communality - ", []string{"a", "b", "f", "f.communality", "g", "g.communality"}},
	} {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

// TestCompleteLoadingsFactorIndex: the second place of an index of a
// model's Lambda takes a factor's number (f.Lambda[income, 2]), so
// completion offers no column there; it offered the model's columns,
// each of which the check refuses ('the second index of Lambda is a
// factor number').
func TestCompleteLoadingsFactorIndex(t *testing.T) {
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`+"\n"+
		"model f { Y = gss[income, degree, age]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }")
	for _, tt := range []struct {
		code string
		want []string
	}{
		{"summary f.Lambda[", []string{"age", "degree", "income"}},
		{"summary f.Lambda[inc", []string{"income"}},
		{`summary f.Lambda["a`, []string{"age"}},
		{`summary f.Lambda["a,b`, nil},
		{"summary f.Lambda[income, ", nil},
		{"plot trace f.Lambda[income, a", nil},
		{`summary f.Lambda["income", "a`, nil},
		{`summary f.Lambda["in, come", `, nil},
		{"summary f.C[income, ", []string{"age", "degree"}},
		{"summary f.communality[", []string{"age", "degree", "income"}},
	} {
		got, _, _ := s.Complete(tt.code, len(tt.code))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Complete(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}
