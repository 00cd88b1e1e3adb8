package compiler

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func check(t *testing.T, src string, env Env) (*Program, error) {
	t.Helper()
	f, err := dsl.Parse("", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return Check(f, env)
}

func mustCheck(t *testing.T, src string, env Env) *Program {
	t.Helper()
	prog, err := check(t, src, env)
	if err != nil {
		var list dsl.ErrorList
		errors.As(err, &list)
		t.Fatalf("Check(%q):\n%s", src, list.Format([]byte(src)))
	}
	return prog
}

// TestLanguageExamples checks every example of docs/language.md, first as
// one cell (gss is reloaded there, so its shape is unknown and the
// statements that use it are partial), then statement by statement as the
// session runs them, against an env whose gss is known and has the shipped
// file's columns.
func TestLanguageExamples(t *testing.T) {
	src, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	shipped := newFakeEnv()
	shipped["gss"] = shippedGSSInfo()
	prog := mustCheck(t, string(src), shipped)
	if len(prog.Stmts) != 95 {
		t.Errorf("got %d statements, want 95", len(prog.Stmts))
	}
	partial := 0
	for _, s := range prog.Stmts {
		if s.Partial() {
			partial++
		}
	}
	if partial == 0 {
		t.Error("no partial statement, though gss is loaded in the same cell")
	}

	// Without the load line every statement checks fully.
	lines := strings.Split(string(src), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "data gss = load") {
			kept = append(kept, l)
		}
	}
	env := shipped
	prog = mustCheck(t, strings.Join(kept, "\n"), env)
	var fit *Fit
	planned := 0
	for i := len(prog.Stmts) - 1; i >= 0; i-- {
		// Walk backwards so that each model is planned with its last fit.
		s := prog.Stmts[i]
		if s.Partial() {
			t.Errorf("statement at %s is partial though gss is known", s.Pos())
		}
		switch s := s.(type) {
		case *Fit:
			fit = s
		case *DeclareModel:
			d, _ := env[s.Data].(*DataInfo)
			for _, o := range prog.Stmts {
				if sim, ok := o.(*SimulateData); ok && sim.Name == s.Data {
					d = &DataInfo{Name: sim.Name, N: sim.N, HasTruth: true, TruthK: sim.K}
					for j := 1; j <= sim.P; j++ {
						d.Columns = append(d.Columns, ColumnInfo{Name: fmt.Sprintf("Y%d", j), Levels: sim.Levels})
					}
				}
			}
			f := fit
			if f != nil && f.Model != s.Name {
				f = nil
			}
			pl, err := Plan(s, d, f)
			if err != nil {
				t.Errorf("model %s: %v", s.Name, err)
				continue
			}
			if !strings.Contains(pl.Explain(), "each iteration:") {
				t.Errorf("model %s: explain says %q", s.Name, pl.Explain())
			}
			planned++
		}
	}
	if planned != 7 {
		t.Errorf("planned %d models, want 7", planned)
	}
}

func TestCheckGood(t *testing.T) {
	gssModel := "model g { Y = gss[INC, DEG, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	oneFactor := "model h1 { Y = gss[AGE, INC, DEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }\nfit h1\n"
	tests := []struct {
		name string
		src  string
		want Stmt // the last statement
	}{
		{"load", `data x = load("x.csv")`, &LoadData{Name: "x", Path: "x.csv"}},
		{"load order", `data x = load("x.csv", order = {sex: ["m", "f"], "age group": [young, old]})`,
			&LoadData{Name: "x", Path: "x.csv", Order: map[string][]string{"sex": {"m", "f"}, "age group": {"young", "old"}}}},
		{"load sep na and orders", `data x = load("x.csv", sep = "\t", na = ["-99", "."], order = {[q1, "q 2"]: [no, yes], q3: [lo, mid, hi], *: ["disagree", "agree"]})`,
			&LoadData{Name: "x", Path: "x.csv", Sep: '\t', NA: []string{"-99", "."},
				Order:    map[string][]string{"q1": {"no", "yes"}, "q 2": {"no", "yes"}, "q3": {"lo", "mid", "hi"}},
				OrderAll: []string{"disagree", "agree"}}},
		{"simulate factor", "data s = simulate(FactorCopula(p = 20, k = 5), n = 1000, levels = 5, seed = 7)",
			&SimulateData{Name: "s", P: 20, K: 5, N: 1000, Levels: 5, Seed: 7}},
		{"simulate full defaults", "data s = simulate(FullCopula(p = 4), n = 10, levels = 2, missing = 0.25)",
			&SimulateData{Name: "s", P: 4, N: 10, Levels: 2, Seed: 1, Missing: 0.25}},
		{"simulate big seed", "data s = simulate(FullCopula(p = 4), n = 10, levels = 2, seed = 18446744073709551615)",
			&SimulateData{Name: "s", P: 4, N: 10, Levels: 2, Seed: 18446744073709551615}},
		{"model columns", gssModel,
			&DeclareModel{Name: "g", Data: "gss", Columns: []string{"INC", "DEG", "AGE"},
				Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}}},
		{"model all columns", "model g {\n Y = gss\n Z ~ GaussianCopula(C)\n Y ordinal Z\n C ~ LKJ(eta = 2)\n}",
			&DeclareModel{Name: "g", Data: "gss", Columns: []string{"INC", "DEG", "CHILD", "PINC", "PDEG", "PCHILD", "AGE"},
				Model: inference.FullCorrelation{Prior: inference.LKJ{Eta: 2}}}},
		{"model positions and other names", "model g { Obs = gss[2, \"PDEG\", 7]; Lat ~ GaussianCopula(R); Obs ordinal Lat; R ~ InverseWishart }",
			&DeclareModel{Name: "g", Data: "gss", Columns: []string{"DEG", "PDEG", "AGE"},
				Model: inference.FullCorrelation{Prior: inference.InverseWishart{}}}},
		{"factor model", "model f { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2, loadings = GDP(alpha = 2)) }",
			&DeclareModel{Name: "f", Data: "sim", Columns: []string{"Y1", "Y2", "Y3", "Y4", "Y5", "Y6"},
				Model: inference.FactorModel{K: 2, Loadings: inference.GDPLoadings{Alpha: 2, Beta: 1}}}},
		{"factor model n and p", "model f { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = p / 2 - 1, loadings = Normal(var = n / 1000)) }",
			&DeclareModel{Name: "f", Data: "sim", Columns: []string{"Y1", "Y2", "Y3", "Y4", "Y5", "Y6"},
				Model: inference.FactorModel{K: 2, Loadings: inference.NormalLoadings{Var: 0.5}}}},
		{"explain", "explain draft", &Explain{Model: "draft"}},
		{"explain fit", "explain fit draft with hmc(T = 1), iter = 1500, chains = 2",
			&Explain{Model: "draft", Fit: &Fit{Model: "draft", Method: "hmc", TravelTime: 1, Iter: 1500, Warmup: 750, Chains: 2, Seed: 1, Thin: 1}}},
		{"summary prob", "summary hoff.C, prob = 0.5", &Summary{Target: Ref{Name: "hoff", Member: "C"}, Prob: 0.5}},
		{"summary sort", "summary hoff.C, sort = ess_tail", &Summary{Target: Ref{Name: "hoff", Member: "C"}, Prob: DefaultProb, Sort: "ess_tail"}},
		{"impute to", `impute hoff to "cells.csv", draws = "draws.csv", prob = 0.8`, &Impute{Model: "hoff", Path: "cells.csv", DrawsPath: "draws.csv", Prob: 0.8}},
		{"impute columns", `impute hoff[AGE, 1] to "cells.csv"`, &Impute{Model: "hoff", Path: "cells.csv", Prob: DefaultProb, Columns: []int{2, 0},
			Items: []IndexItem{{At: dsl.Position{Line: 1, Column: 13, Offset: 12}, Column: "AGE"}, {At: dsl.Position{Line: 1, Column: 18, Offset: 17}, Position: 1}}}},
		{"fit defaults", "fit draft", &Fit{Model: "draft", Method: "auto", TravelTime: DefaultTravelTime, Iter: 1000, Warmup: 500, Chains: 4, Seed: 1, Thin: 1}},
		{"fit settings", "fit draft with hmc(T = pi/4), iter = 2000, chains = 2, seed = 9, thin = 2",
			&Fit{Model: "draft", Method: "hmc", TravelTime: 0.7853981633974483, Iter: 2000, Warmup: 1000, Chains: 2, Seed: 9, Thin: 2}},
		{"fit warmup zero", "fit fm with px, warmup = 0", &Fit{Model: "fm", Method: "px", TravelTime: DefaultTravelTime, Iter: 1000, Warmup: 0, Chains: 4, Seed: 1, Thin: 1}},
		{"fit hmc on factor", "fit fm with hmc", &Fit{Model: "fm", Method: "hmc", TravelTime: DefaultTravelTime, Iter: 1000, Warmup: 500, Chains: 4, Seed: 1, Thin: 1}},
		{"summary C", "summary hoff.C", &Summary{Target: Ref{Name: "hoff", Member: "C"}, Prob: 0.9}},
		{"summary bare model", "summary hoff", &Summary{Target: Ref{Name: "hoff"}, Prob: 0.9}},
		{"summary data", "summary gss", &Summary{Target: Ref{Name: "gss"}, Prob: 0.9}},
		{"summary names", "summary hoff.C[AGE, INC]", &Summary{Target: Ref{Name: "hoff", Member: "C", Index: []int{2, 0},
			Items: []IndexItem{{Column: "AGE"}, {Column: "INC"}}}, Prob: 0.9}},
		{"summary row", "summary hoff.C[2]", &Summary{Target: Ref{Name: "hoff", Member: "C", Index: []int{1}, Items: []IndexItem{{Position: 2}}}, Prob: 0.9}},
		{"summary lambda", "summary fm.Lambda[Y3, 2]", &Summary{Target: Ref{Name: "fm", Member: "Lambda", Index: []int{2, 1},
			Items: []IndexItem{{Column: "Y3"}, {Position: 2}}}, Prob: 0.9}},
		{"plot trace", "plot trace hoff.C[1, 2]", &PlotStmt{Kind: "trace", Target: Ref{Name: "hoff", Member: "C", Index: []int{0, 1},
			Items: []IndexItem{{Position: 1}, {Position: 2}}}}},
		{"plot pairs", "plot pairs hoff.C", &PlotStmt{Kind: "pairs", Target: Ref{Name: "hoff", Member: "C"}}},
		{"plot heatmap truth", "plot heatmap sim", &PlotStmt{Kind: "heatmap", Target: Ref{Name: "sim"}, Order: "columns"}},
		{"plot rmse", "plot rmse fm vs sim", &PlotStmt{Kind: "rmse", Target: Ref{Name: "fm"}, Vs: "sim"}},
		{"plot latent", "plot latent hoff.Z[DEG]", &PlotStmt{Kind: "latent", Target: Ref{Name: "hoff", Member: "Z", Index: []int{1}, Items: []IndexItem{{Column: "DEG"}}}}},
		{"impute", "impute hoff", &Impute{Model: "hoff", Prob: 0.9}},
		{"export", `export hoff to "d.csv"`, &Export{Model: "hoff", Path: "d.csv"}},
		{"export data", `export gss to "g.csv"`, &Export{Data: "gss", Path: "g.csv"}},
		{"export a part", `export hoff.partial[DEG] to "p.csv"`, &Export{Model: "hoff", Part: &Ref{Name: "hoff", Member: "partial", Index: []int{1}, Items: []IndexItem{{Column: "DEG"}}}, Path: "p.csv"}},
		{"show", "show gss", &Show{Name: "gss", Names: []string{"gss"}}},
		{"show list", "show [hoff, fm]", &Show{Name: "hoff", Names: []string{"hoff", "fm"}}},
		{"fitted in the same cell", gssModel + "fit g\nsummary g.C[INC, AGE]",
			&Summary{Target: Ref{Name: "g", Member: "C", Index: []int{0, 2}, Items: []IndexItem{{Column: "INC"}, {Column: "AGE"}}}, Prob: 0.9}},
		{"summary partial", "summary hoff.partial[DEG, INC]", &Summary{Target: Ref{Name: "hoff", Member: "partial", Index: []int{1, 0},
			Items: []IndexItem{{Column: "DEG"}, {Column: "INC"}}}, Prob: 0.9}},
		{"summary communality", "summary fm.communality", &Summary{Target: Ref{Name: "fm", Member: "communality"}, Prob: 0.9}},
		{"summary regress", "summary hoff.regress(INC ~ DEG + 3)", &Summary{Target: Ref{Name: "hoff", Member: "regress",
			Regress: &Regression{Response: 0, Predictors: []int{1, 2}}}, Prob: 0.9}},
		{"plot hist regress R2", "plot hist hoff.regress(AGE ~ INC)[R2]", &PlotStmt{Kind: "hist", Target: Ref{Name: "hoff", Member: "regress",
			Regress: &Regression{Response: 2, Predictors: []int{0}}, Index: []int{1}, Items: []IndexItem{{Column: "R2"}}}}},
		{"plot trace regress beta", "plot trace hoff.regress(AGE ~ INC + DEG)[DEG]", &PlotStmt{Kind: "trace", Target: Ref{Name: "hoff", Member: "regress",
			Regress: &Regression{Response: 2, Predictors: []int{0, 1}}, Index: []int{1}, Items: []IndexItem{{Column: "DEG"}}}}},
		{"plot heatmap partial", "plot heatmap hoff.partial", &PlotStmt{Kind: "heatmap", Target: Ref{Name: "hoff", Member: "partial"}, Order: "columns"}},
		{"plot heatmap by dependence", "plot heatmap hoff.C, order = dependence", &PlotStmt{Kind: "heatmap", Target: Ref{Name: "hoff", Member: "C"}, Order: "dependence"}},
		{"plot heatmap truth by dependence", "plot heatmap sim, order = dependence", &PlotStmt{Kind: "heatmap", Target: Ref{Name: "sim"}, Order: "dependence"}},
		{"plot graph partial", "plot graph hoff.partial", &PlotStmt{Kind: "graph", Target: Ref{Name: "hoff", Member: "partial"}, Prob: DefaultProb}},
		{"plot graph C prob", "plot graph fm.C, prob = 0.95", &PlotStmt{Kind: "graph", Target: Ref{Name: "fm", Member: "C"}, Prob: 0.95}},
		{"plot graph difference", "plot graph hoff.partial - hoff.partial", &PlotStmt{Kind: "graph", Target: Ref{Name: "hoff", Member: "partial"},
			Minus: &Ref{Name: "hoff", Member: "partial"}, Prob: DefaultProb}},
		{"check", "check hoff", &CheckStmt{Model: "hoff", Draws: 200, Reps: 200}},
		{"check pair settings", "check fm[Y2, 5], draws = 50, reps = 99, stat = kendall, seed = 3",
			&CheckStmt{Model: "fm", Pair: []int{1, 4}, Items: []IndexItem{{Column: "Y2"}, {Position: 5}}, Draws: 50, Reps: 99,
				Stat: inference.Kendall, Seed: 3, SeedGiven: true}},
		{"compare", oneFactor + "compare hoff, h1", &Compare{Models: []string{"hoff", "h1"}, Holdout: 0.1, Folds: 1, Seed: 1}},
		{"compare folds", oneFactor + "compare hoff, h1, folds = 5, seed = 2", &Compare{Models: []string{"hoff", "h1"}, Holdout: 0.1, Folds: 5, Seed: 2}},
		{"compare holdout", oneFactor + "compare hoff, h1, holdout = 0.25", &Compare{Models: []string{"hoff", "h1"}, Holdout: 0.25, Folds: 1, Seed: 1}},
		{"summary difference of two fits", "summary hoff.C[INC, DEG] - fm.C[Y1, 2]", &Summary{Target: Ref{Name: "hoff", Member: "C", Index: []int{0, 1},
			Items: []IndexItem{{Column: "INC"}, {Column: "DEG"}}}, Minus: &Ref{Name: "fm", Member: "C", Index: []int{0, 1},
			Items: []IndexItem{{Column: "Y1"}, {Position: 2}}}, Prob: 0.9}},
		{"summary difference in one fit, parenthesised", "summary (hoff.C[INC, DEG] - hoff.C[INC, AGE]), prob = 0.5", &Summary{Target: Ref{Name: "hoff", Member: "C", Index: []int{0, 1},
			Items: []IndexItem{{Column: "INC"}, {Column: "DEG"}}}, Minus: &Ref{Name: "hoff", Member: "C", Index: []int{0, 2},
			Items: []IndexItem{{Column: "INC"}, {Column: "AGE"}}}, Prob: 0.5}},
		{"summary difference of whole matrices", "summary hoff.partial - hoff.partial", &Summary{Target: Ref{Name: "hoff", Member: "partial"},
			Minus: &Ref{Name: "hoff", Member: "partial"}, Prob: 0.9}},
		{"summary as a matrix", `summary hoff.partial to "p.tex", layout = matrix, columns = [q50, interval]`, &Summary{Target: Ref{Name: "hoff", Member: "partial"},
			Prob: 0.9, Path: "p.tex", Layout: "matrix", Statistics: []string{"q50", "interval"}}},
		{"summary of loadings as a matrix", `summary fm.Lambda to "L.csv", layout = matrix, columns = [q50, communality, uniqueness]`, &Summary{Target: Ref{Name: "fm", Member: "Lambda"},
			Prob: 0.9, Path: "L.csv", Layout: "matrix", Statistics: []string{"q50", "communality", "uniqueness"}}},
		{"summary for another text width", `summary fm.Lambda to "L.tex", layout = matrix, width = 240`, &Summary{Target: Ref{Name: "fm", Member: "Lambda"},
			Prob: 0.9, Path: "L.tex", Layout: "matrix", Width: 240}},
		{"summary of data for another text width", `summary gss to "g.tex", width = 550`, &Summary{Target: Ref{Name: "gss"},
			Prob: 0.9, Path: "g.tex", Width: 550}},
		{"summary of chosen statistics", "summary hoff.C - hoff.C, columns = rhat, layout = long", &Summary{Target: Ref{Name: "hoff", Member: "C"},
			Minus: &Ref{Name: "hoff", Member: "C"}, Prob: 0.9, Statistics: []string{"rhat"}}},
		{"plot hist difference", "plot hist fm.communality[Y1] - fm.communality[Y2]", &PlotStmt{Kind: "hist",
			Target: Ref{Name: "fm", Member: "communality", Index: []int{0}, Items: []IndexItem{{Column: "Y1"}}},
			Minus:  &Ref{Name: "fm", Member: "communality", Index: []int{1}, Items: []IndexItem{{Column: "Y2"}}}}},
		{"plot rmse list", "data s = simulate(FullCopula(p = 3), n = 50, levels = 3)\nmodel a { Y = s; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }\nfit a\nfit fm\nplot rmse [a, fm]",
			&PlotStmt{Kind: "rmse", Target: Ref{Name: "a"}, Others: []Ref{{Name: "fm"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := mustCheck(t, tt.src, newFakeEnv())
			got := prog.Stmts[len(prog.Stmts)-1]
			clearPositions(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			if got.Partial() {
				t.Error("statement is partial")
			}
		})
	}
}

// clearPositions zeroes the positions of an IR statement so that tables
// can compare the rest.
func clearPositions(s Stmt) {
	clearRef := func(r *Ref) {
		r.At = dsl.Position{}
		for i := range r.Items {
			r.Items[i].At = dsl.Position{}
		}
	}
	switch s := s.(type) {
	case *LoadData:
		s.At = dsl.Position{}
	case *SimulateData:
		s.At = dsl.Position{}
	case *DeclareModel:
		s.At = dsl.Position{}
	case *Explain:
		s.At = dsl.Position{}
		if s.Fit != nil {
			s.Fit.At = dsl.Position{}
		}
	case *Fit:
		s.At = dsl.Position{}
	case *Summary:
		s.At, s.Written = dsl.Position{}, "" // Written: TestWrittenAsInTheSource
		clearRef(&s.Target)
		if s.Minus != nil {
			clearRef(s.Minus)
		}
	case *PlotStmt:
		s.At, s.Written = dsl.Position{}, ""
		clearRef(&s.Target)
		if s.Minus != nil {
			clearRef(s.Minus)
		}
		for i := range s.Others {
			clearRef(&s.Others[i])
		}
	case *Impute:
		s.At = dsl.Position{}
	case *Export:
		s.At = dsl.Position{}
		if s.Part != nil {
			clearRef(s.Part)
		}
	case *Show:
		s.At = dsl.Position{}
	case *CheckStmt:
		s.At = dsl.Position{}
		for i := range s.Items {
			s.Items[i].At = dsl.Position{}
		}
	case *Compare:
		s.At = dsl.Position{}
	}
}

func TestPositionsAndPartial(t *testing.T) {
	src := "data x = load(\"x.csv\")\nmodel m {\n  Y = x\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ InverseWishart(df = p + 2)\n}\nfit m\nsummary m.C[A, B]\n" +
		"model two { Y = x[A, B]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\nfit two\nsummary two.C[2, 1]"
	prog := mustCheck(t, src, nil)
	wantPartial := []bool{false, true, false, true, true, false, false}
	wantLine := []int{1, 2, 8, 9, 10, 11, 12}
	for i, s := range prog.Stmts {
		if s.Partial() != wantPartial[i] {
			t.Errorf("statement %d: Partial() = %v, want %v", i, s.Partial(), wantPartial[i])
		}
		if s.Pos().Line != wantLine[i] || s.Pos().Column != 1 {
			t.Errorf("statement %d at %s, want %d:1", i, s.Pos(), wantLine[i])
		}
	}
	if m := prog.Stmts[1].(*DeclareModel); m.Columns != nil {
		t.Errorf("columns of Y = x are %v before x is read, want nil", m.Columns)
	}
	if s := prog.Stmts[3].(*Summary); s.Target.Index != nil || !s.Target.Unresolved {
		t.Errorf("m.C[A, B] on unknown columns resolved to %v, want unresolved", s.Target.Index)
	}
	if m := prog.Stmts[4].(*DeclareModel); !reflect.DeepEqual(m.Columns, []string{"A", "B"}) {
		t.Errorf("columns %v, want [A B]", m.Columns)
	}
	if s := prog.Stmts[6].(*Summary); !reflect.DeepEqual(s.Target.Index, []int{1, 0}) || s.Target.Unresolved {
		t.Errorf("two.C[2, 1] resolved to %v (unresolved %v), want [1 0]", s.Target.Index, s.Target.Unresolved)
	}
}

// TestErrorsGolden runs every case of testdata/errors.golden: sections
// separated by "----" lines, each a cell, a ">>>" line and the expected
// errors with snippets and hints, checked against newFakeEnv.
func TestErrorsGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/errors.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, section := range strings.Split(string(data), "\n----\n") {
		input, want, ok := strings.Cut(section, "\n>>>")
		if !ok {
			t.Fatalf("section %d has no >>> line", i+1)
		}
		want = strings.TrimPrefix(strings.TrimSuffix(want, "\n"), "\n")
		f, err := dsl.Parse("", []byte(input))
		if err != nil {
			t.Fatalf("section %d does not parse: %v", i+1, err)
		}
		got := "no error"
		if _, err := Check(f, newFakeEnv()); err != nil {
			var list dsl.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("section %d: error %T is not a dsl.ErrorList", i+1, err)
			}
			got = strings.TrimSuffix(list.Format([]byte(input)), "\n")
		}
		if !*update && got != want {
			t.Errorf("section %d, input:\n%s\ngot:\n%s\nwant:\n%s", i+1, input, got, want)
		}
		if i > 0 {
			out.WriteString("\n----\n")
		}
		out.WriteString(input + "\n>>>\n" + got)
	}
	if *update {
		if err := os.WriteFile("testdata/errors.golden", []byte(out.String()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDocCoversEveryWord(t *testing.T) {
	for _, list := range [][]string{Keywords(), Distributions(), Methods(), PlotKinds()} {
		for _, w := range list {
			if d, ok := Doc(w); !ok || len(d) < 20 {
				t.Errorf("Doc(%q) = %q, %v", w, d, ok)
			}
		}
	}
	for _, w := range OtherWords() {
		if _, ok := Doc(w); !ok {
			t.Errorf("Doc(%q) has no entry", w)
		}
	}
	if _, ok := Doc("nonsense"); ok {
		t.Error("Doc(nonsense) found something")
	}
	if !reflect.DeepEqual(Keywords(), dsl.StatementKeywords()) {
		t.Errorf("Keywords %v differ from the grammar's %v", Keywords(), dsl.StatementKeywords())
	}
}

// TestModelNeedsObservedData: a model on data of fewer than 2 rows, or
// with a column whose every cell is missing, is refused where it is
// declared, not by the sampler when the fit starts.
func TestModelNeedsObservedData(t *testing.T) {
	env := newFakeEnv()
	env["none"] = &DataInfo{Name: "none", N: 0, Columns: []ColumnInfo{{Name: "a"}, {Name: "b"}}}
	env["one"] = &DataInfo{Name: "one", N: 1, Columns: []ColumnInfo{{Name: "a", Levels: 1}, {Name: "b", Levels: 1}}}
	env["holes"] = &DataInfo{Name: "holes", N: 5, Columns: []ColumnInfo{
		{Name: "a", Missing: 5}, {Name: "my b", Levels: 3}, {Name: "c", Levels: 2, Missing: 1}, {Name: "d", Missing: 5}}}
	// flat's column k is constant: the hint's model leaves it out too (it
	// suggested Y = flat[e, k, g] after load had warned that k tells
	// nothing about the copula), unless that leaves fewer than 2 columns.
	env["flat"] = &DataInfo{Name: "flat", N: 5, Columns: []ColumnInfo{
		{Name: "e", Levels: 3}, {Name: "k", Levels: 1}, {Name: "gone", Missing: 5}, {Name: "g", Levels: 2}}}
	const rest = "; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }"
	tests := []struct{ y, want string }{
		{"none", "1:15: the model needs at least 2 rows of data; none has 0\nhint: after the header row, each row of the file is one observation\n"},
		{"one", "1:15: the model needs at least 2 rows of data; one has 1\nhint: after the header row, each row of the file is one observation\n"},
		{"holes", "1:15: columns a, d of holes have no observed values: every cell is missing\n" +
			`hint: leave them out, as in Y = holes["my b", c]` + "\n"},
		{"flat", "1:15: column gone of flat has no observed values: every cell is missing\n" +
			"hint: leave it out, as in Y = flat[e, g] (k is constant: it tells nothing about C either)\n"},
		{"flat[e, k, gone]", "1:15: column gone of flat has no observed values: every cell is missing\n" +
			"hint: a column with no observed value tells nothing about C: leave it out of Y\n"},
		{"holes[a, c]", "1:15: column a of holes has no observed values: every cell is missing\n" +
			"hint: a column with no observed value tells nothing about C: leave it out of Y\n"},
		{"holes[c, 2]", ""},
	}
	for _, tt := range tests {
		src := "model m { Y = " + tt.y + rest
		got, _ := checkErrors(t, src, env)
		// Keep the message and hint lines; the snippet is the source line.
		var lines []string
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "1:") || strings.HasPrefix(l, "hint:") {
				lines = append(lines, l+"\n")
			}
		}
		if g := strings.Join(lines, ""); g != tt.want {
			t.Errorf("Y = %s:\ngot:\n%s\nwant:\n%s", tt.y, g, tt.want)
		}
	}
}

// TestCompareNeedsCellsToHoldOut: compare holds out only observed cells
// whose value recurs in their column. On continuous columns there are none,
// and a script that fitted its models ran every fit before compare failed
// (inference: hold out: only 0 observed cells ...): now it fails at check
// time, before the first statement runs, saying why and what to do.
func TestCompareNeedsCellsToHoldOut(t *testing.T) {
	env := newFakeEnv()
	cont := &DataInfo{Name: "cont", N: 200}
	for _, n := range []string{"x", "y", "z"} {
		cont.Columns = append(cont.Columns, ColumnInfo{Name: n, Levels: 200, Singletons: 200})
	}
	// Two cells of w recur: enough for one split, not for folds = 2.
	few := &DataInfo{Name: "few", N: 200, Columns: []ColumnInfo{{Name: "x", Levels: 200, Singletons: 200}, {Name: "w", Levels: 199, Singletons: 198}}}
	env["cont"], env["few"] = cont, few
	// Simulated data have no CSV to cut: the hint says how to simulate.
	sim := &DataInfo{Name: "sim", N: 100, HasTruth: true, TruthK: 1}
	for _, n := range []string{"Y1", "Y2"} {
		sim.Columns = append(sim.Columns, ColumnInfo{Name: n, Levels: 100, Singletons: 100})
	}
	env["sim"] = sim
	for _, name := range []string{"sa", "sb"} {
		env[name] = &ModelInfo{Name: name, Data: "sim", Columns: []string{"Y1", "Y2"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 4}}, Fitted: true, Method: inference.Gibbs}
	}
	for _, name := range []string{"ca", "cb"} {
		env[name] = &ModelInfo{Name: name, Data: "cont", Columns: []string{"x", "y", "z"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}, Fitted: true, Method: inference.Gibbs}
	}
	for _, name := range []string{"fa", "fb"} {
		env[name] = &ModelInfo{Name: name, Data: "few", Columns: []string{"x", "w"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}, Fitted: true, Method: inference.Gibbs}
	}
	for _, tc := range []struct{ src, want, hint string }{
		{"compare sa, sb", "1:1: compare holds out observed cells whose value recurs in their column: the columns of sa in data sim have 0 such cells (Y1, Y2: no value occurs twice), and it needs 2",
			"simulate it with at most n/2 levels (levels = 50 or fewer for n = 100)"},
		{"compare ca, cb", "1:1: compare holds out observed cells whose value recurs in their column: the columns of ca in data cont have 0 such cells (x, y, z: no value occurs twice), and it needs 2", ""},
		{"compare fa, fb, folds = 2", "1:1: compare holds out observed cells whose value recurs in their column: the columns of fa in data few have 2 such cells (x: no value occurs twice), and it needs 4, 2 for each of folds = 2", ""},
		{"compare fa, fb", "", ""},
		{"compare hoff, hoff2", "", ""},
	} {
		if tc.src == "compare hoff, hoff2" {
			env["hoff2"] = env["hoff"]
		}
		f, err := dsl.Parse("", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Check(f, env)
		got := ""
		var list dsl.ErrorList
		if errors.As(err, &list) {
			got = list.Format([]byte(tc.src))
		} else if err != nil {
			got = err.Error()
		}
		if tc.want == "" && err != nil || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.src, got, tc.want)
		}
		hint := tc.hint
		if hint == "" {
			hint = "cut its columns into levels in the CSV"
		}
		if tc.want != "" && !strings.Contains(got, hint) {
			t.Errorf("%s: no hint %q in %q", tc.src, hint, got)
		}
	}
}

// TestSimulatedSingletons: the check knows how many cells of a simulated
// column without missing cells hold a value seen once, as the data will
// (compare's check needs it before the fits run: a script that compared
// models of data simulated with as many levels as rows ran its fits
// first, then failed).
func TestSimulatedSingletons(t *testing.T) {
	for _, n := range []int{2, 7, 10, 11, 40} {
		for levels := 2; levels <= n; levels++ {
			src := fmt.Sprintf("data s = simulate(FullCopula(p = 2), n = %d, levels = %d, seed = 3)", n, levels)
			f, err := dsl.Parse("", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			c := &checker{env: newFakeEnv(), local: map[string]*local{}, writes: map[string]bool{}}
			for _, s := range f.Stmts {
				c.stmt(s)
			}
			if len(c.errs) > 0 {
				t.Fatalf("%s: %v", src, c.errs)
			}
			info := c.local["s"].b.(*DataInfo)
			sim, err := inference.Simulate(inference.SimSpec{P: 2, N: n, Levels: levels, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for j, col := range sim.Columns {
				count := map[float64]int{}
				for _, v := range col {
					count[v]++
				}
				once := 0
				for _, c := range count {
					if c == 1 {
						once++
					}
				}
				if got := info.Columns[j].Singletons; got != once {
					t.Errorf("n = %d, levels = %d, column %d: the check says %d singletons, the data have %d", n, levels, j+1, got, once)
				}
			}
		}
	}
}

// TestNumberNamedColumns: a survey's columns named by years ("2019") are
// picked by name only as strings, since a number in brackets is a
// position; an out-of-range position that is such a name says so.
func TestNumberNamedColumns(t *testing.T) {
	years := &DataInfo{Name: "y", N: 50, Columns: []ColumnInfo{{Name: "id", Levels: 50}, {Name: "2019", Levels: 4}, {Name: "2020", Levels: 4}}}
	env := fakeEnv{
		"y":  years,
		"ym": &ModelInfo{Name: "ym", Data: "y", Columns: []string{"2019", "2020"}, Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 4}}, Fitted: true, Method: inference.Gibbs},
	}
	tests := []struct{ src, hint string }{
		{`model m { Y = y[2019, 2020]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }`, `the column named 2019 is written as a string: ["2019"]`},
		{`summary ym.C[2019, 1]`, `the column named 2019 is written as a string: ["2019"]`},
		{`check ym[2020, 1]`, `the column named 2020 is written as a string: ["2020"]`},
		{`summary ym.regress(2019 ~ "2020")`, `the column named 2019 is written as a string: ["2019"]`},
		{`summary ym.C[3, 1]`, ""}, // no column is named 3
	}
	for _, tt := range tests {
		list, err := checkSource(t, tt.src, env)
		if err == nil || len(list) == 0 {
			t.Fatalf("%s: no error, want one", tt.src)
		}
		if !strings.Contains(list[0].Msg, "out of range") {
			t.Errorf("%s: error %q, want out of range", tt.src, list[0].Msg)
		}
		if tt.hint == "" && list[0].Hint != "" || !strings.Contains(list[0].Hint, tt.hint) {
			t.Errorf("%s: hint %q, want %q", tt.src, list[0].Hint, tt.hint)
		}
	}
}

// TestDigitNamedColumnsAmbiguousPosition: in a file whose columns are
// named "3", "1", "2", d[1] took column "3" by position without a word,
// where its reader may mean the column named 1. A number that names a
// column other than the one at its position is an error naming both, whose
// hint writes each as a string; where the column named n is column n, or no
// column is named n, the number is a position as before.
func TestDigitNamedColumnsAmbiguousPosition(t *testing.T) {
	items := &DataInfo{Name: "d", N: 50, Columns: []ColumnInfo{{Name: "3", Levels: 4}, {Name: "1", Levels: 4}, {Name: "2", Levels: 4}, {Name: "x", Levels: 4}}}
	env := fakeEnv{
		"d":  items,
		"dm": &ModelInfo{Name: "dm", Data: "d", Columns: []string{"2", "1", "x"}, Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}, Fitted: true, Method: inference.Gibbs},
		"ok": &ModelInfo{Name: "ok", Data: "d", Columns: []string{"1", "2", "3"}, Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}, Fitted: true, Method: inference.Gibbs},
	}
	const model = `; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }`
	tests := []struct{ src, msg, hint string }{
		{`summary d[1]`, `index 1 is ambiguous: column 1 of d is "3", and column 2 is named "1"`, `write "1" for the column named 1, or "3" for column 1`},
		{`model m { Y = d[x, 2]` + model, `index 2 is ambiguous: column 2 of d is "1", and column 3 is named "2"`, `write "2" for the column named 2, or "1" for column 2`},
		{`summary dm.C[1, x]`, `index 1 is ambiguous: column 1 of dm is "2", and column 2 is named "1"`, `write "1" for the column named 1, or "2" for column 1`},
		{`plot latent dm.Z[2]`, `index 2 is ambiguous: column 2 of dm is "1", and column 1 is named "2"`, ""},
		{`check dm[x, 1]`, `index 1 is ambiguous`, ""},
		{`impute dm[2]`, `index 2 is ambiguous`, ""},
		{`summary dm.regress(x ~ 1)`, `index 1 is ambiguous`, ""},
		{`summary dm.regress(x ~ "1" + "2")[2]`, `index 2 is ambiguous`, ""},
		// Unambiguous: the column named n is column n, no column is named
		// n, the name is a string, or the index is Lambda's factor.
		{`summary ok.C[1, 2]`, "", ""},
		{`summary d[4]`, "", ""},
		{`summary dm.C[3, "1"]`, "", ""},
		{`summary dm.C["1", "2"]`, "", ""},
		{`model m { Y = d["1", "3"]` + model, "", ""},
	}
	for _, tt := range tests {
		list, err := checkSource(t, tt.src, env)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s: %v, want no error", tt.src, err)
			}
			continue
		}
		if len(list) != 1 {
			t.Fatalf("%s: errors %v, want one", tt.src, err)
		}
		if !strings.Contains(list[0].Msg, tt.msg) || !strings.Contains(list[0].Hint, tt.hint) {
			t.Errorf("%s:\n%s\nwant message %q, hint %q", tt.src, list.Format([]byte(tt.src)), tt.msg, tt.hint)
		}
	}
}

// TestSuggestWritesColumnsAsTheyAreWritten: the nearest column to a
// misspelt one was suggested bare (did you mean Income level?, did you mean
// 3?), which does not parse or means a position; it is quoted as an index
// writes it when it is not a name.
func TestSuggestWritesColumnsAsTheyAreWritten(t *testing.T) {
	env := fakeEnv{"w": &DataInfo{Name: "w", N: 50, Columns: []ColumnInfo{{Name: "Income level", Levels: 4}, {Name: "2019", Levels: 4}, {Name: "age", Levels: 40}}}}
	tests := []struct{ src, hint string }{
		{`summary w["Income levl"]`, `did you mean "Income level"?`},
		{`summary w["2018"]`, `did you mean "2019"?`},
		{`summary w[agee]`, `did you mean age?`},
	}
	for _, tt := range tests {
		_, list := checkErrors(t, tt.src, env)
		if len(list) != 1 || list[0].Hint != tt.hint {
			t.Errorf("%s: errors %v, want one with hint %q", tt.src, list, tt.hint)
		}
	}
}

// checkSource parses src, which must parse, and checks it in env: the
// check's error and, if it is an error list, its errors.
func checkSource(t *testing.T, src string, env Env) (dsl.ErrorList, error) {
	t.Helper()
	f, err := dsl.Parse("", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	_, err = Check(f, env)
	var list dsl.ErrorList
	errors.As(err, &list)
	return list, err
}

// TestGrammarWordsAsColumnNames: a data column named by a word of the
// grammar (a file's header may well say fit, data or to) is the file's, and
// every place that names columns reaches it, as it is or quoted; only the
// names of a model's own parts (Y, Z, C) cannot be such words
// (errors.golden). The model's Y is resolved to those columns.
func TestGrammarWordsAsColumnNames(t *testing.T) {
	env := newFakeEnv()
	env["votes"] = &DataInfo{Name: "votes", N: 200, Columns: []ColumnInfo{
		{Name: "fit", Levels: 3}, {Name: "data", Levels: 4}, {Name: "with", Levels: 2}, {Name: "to", Levels: 5},
	}}
	env["vm"] = &ModelInfo{Name: "vm", Data: "votes", Columns: []string{"fit", "data", "with", "to"},
		Model: inference.FullCorrelation{Prior: inference.LKJ{Eta: 1}}, Fitted: true, Method: inference.Gibbs}
	for _, src := range []string{
		"summary votes[fit, data]",
		`summary votes["fit", "to"]`,
		"summary vm.C[fit, with]",
		"summary vm.regress(fit ~ data + to)",
		`plot trace vm.C["data", to]`,
		"plot latent vm.Z[fit]",
		"impute vm[to]",
		"check vm[fit, data]",
		`predict vm[to] given fit = 1, "data" = 2, with = 1`,
		"predict vm given to = 3, prob = 0.8",
		`print vm.C[with, "fit"]`,
		`data v2 = load("votes.csv", drop = [to], order = {fit: ["no", "maybe", "yes"]})`,
		`data v3 = votes[fit, "to"] where with == 1 and data > 2 or "to" in [1, 2] or not (fit < 2)`,
	} {
		if list, err := checkSource(t, src, env); err != nil {
			t.Errorf("%s: %v", src, list.Format([]byte(src)))
		}
	}
	for _, src := range []string{
		"model m { Y = votes[fit, data, with]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }",
		`model m { Y = votes["fit", "data", "with"]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }`,
	} {
		f, err := dsl.Parse("", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		prog, err := Check(f, env)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if m := prog.Stmts[0].(*DeclareModel); !reflect.DeepEqual(m.Columns, []string{"fit", "data", "with"}) {
			t.Errorf("%s: columns %v, want [fit data with]", src, m.Columns)
		}
	}
}

// TestPredictSettingsAndColumns: after given, a NAME = VALUE that names a
// setting of predict and no column of the model is that setting; a column
// named like a setting is a given value.
func TestPredictSettingsAndColumns(t *testing.T) {
	env := newFakeEnv()
	env["odd"] = &DataInfo{Name: "odd", N: 100, Columns: []ColumnInfo{{Name: "x", Levels: 3}, {Name: "prob", Levels: 4}, {Name: "given", Levels: 2}}}
	env["om"] = &ModelInfo{Name: "om", Data: "odd", Columns: []string{"x", "prob", "given"},
		Model: inference.FullCorrelation{Prior: inference.LKJ{Eta: 1}}, Fitted: true, Method: inference.Gibbs}
	tests := []struct {
		src     string
		given   []string
		prob    float64
		seed    uint64
		seedSet bool
		targets []int
	}{
		{"predict hoff[DEG] given INC = 5, prob = 0.8, seed = 4", []string{"INC"}, 0.8, 4, true, []int{1}},
		{"predict hoff[DEG, AGE], prob = 0.5", nil, 0.5, 0, false, []int{1, 2}},
		{"predict hoff given DEG = 2", []string{"DEG"}, DefaultProb, 0, false, nil},
		{"predict om[x] given prob = 3, given = 1", []string{"prob", "given"}, DefaultProb, 0, false, []int{0}},
	}
	for _, tc := range tests {
		f, err := dsl.Parse("", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		prog, err := Check(f, env)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		x := prog.Stmts[0].(*Predict)
		var given []string
		for _, g := range x.Given {
			given = append(given, g.Column)
		}
		if !reflect.DeepEqual(given, tc.given) || x.Prob != tc.prob || x.Seed != tc.seed || x.SeedSet != tc.seedSet || !reflect.DeepEqual(x.Targets, tc.targets) {
			t.Errorf("%s: given %v, prob %v, seed %v (%v), targets %v", tc.src, given, x.Prob, x.Seed, x.SeedSet, x.Targets)
		}
	}
}

// TestPredictGivenValueNotObserved: a given number that the model's
// column never had is an error when the statement is checked, where the
// model's data are known, so that a script does not fail after its fit;
// where they are not (nil), the session checks it when predict runs.
func TestPredictGivenValueNotObserved(t *testing.T) {
	env := newFakeEnv()
	few := []float64{0, 1, 2, 3, 4}
	many := make([]float64, 60)
	for i := range many {
		many[i] = float64(18 + i)
	}
	env["known"] = &ModelInfo{Name: "known", Data: "gss", Columns: []string{"INC", "DEG", "AGE"},
		Model: inference.FullCorrelation{Prior: inference.LKJ{Eta: 1}}, Fitted: true, Method: inference.Gibbs,
		Values: [][]float64{nil, few, many}}
	for _, tc := range []struct {
		src, err, hint string
	}{
		{"predict known[INC] given DEG = 2", "", ""},
		{"predict known[INC] given DEG = 2.5", "1:26: DEG = 2.5 is not an observed value of DEG", "its values: 0, 1, 2, 3, 4"},
		{"predict known[INC] given AGE = 100", "1:26: AGE = 100 is not an observed value of AGE", "the nearest: 76, 77 (of 60 values from 18 to 77)"},
		{"predict known[INC] given AGE = 30.5", "1:26: AGE = 30.5 is not an observed value of AGE", "the nearest: 29, 30, 31, 32 (of 60 values from 18 to 77)"},
		{"predict known[DEG] given INC = 12345", "", ""}, // INC's values are not known
		{"predict hoff[INC] given DEG = 2.5", "", ""},    // nor are any of hoff's
	} {
		f, err := dsl.Parse("", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		_, err = Check(f, env)
		var list dsl.ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("%s: %T %v", tc.src, err, err)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.err != "" && (len(list) != 1 || !strings.Contains(list[0].Error(), tc.err) || list[0].Hint != tc.hint):
			t.Errorf("%s: error %v, want %q with hint %q", tc.src, err, tc.err, tc.hint)
		}
	}
}

// TestWrittenAsInTheSource: a summary or plot keeps what it shows as its
// source writes it, formatted, for the files it writes to quote.
func TestWrittenAsInTheSource(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"summary hoff.C[AGE,INC]", "hoff.C[AGE, INC]"},
		{"summary hoff.C[INC, DEG] - fm.C[Y1, 2], prob = 0.5", "hoff.C[INC, DEG] - fm.C[Y1, 2]"},
		{"summary hoff.regress(DEG ~ INC + AGE)", "hoff.regress(DEG ~ INC + AGE)"},
		{"summary gss[INC, DEG]", "gss[INC, DEG]"},
		{"plot hist fm.communality[Y1] - fm.communality[Y2]", "fm.communality[Y1] - fm.communality[Y2]"},
	} {
		prog := mustCheck(t, tt.src, newFakeEnv())
		var got string
		switch x := prog.Stmts[len(prog.Stmts)-1].(type) {
		case *Summary:
			got = x.Written
		case *PlotStmt:
			got = x.Written
		}
		if got != tt.want {
			t.Errorf("%s: Written = %q, want %q", tt.src, got, tt.want)
		}
	}
}
