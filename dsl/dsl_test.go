package dsl

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestGrammarGolden(t *testing.T) {
	golden(t, "grammar.ebnf", parser.String()+"\n")
}

// TestParseStatements parses one example of each statement form and checks
// its canonical form, which shows how the source was grouped.
func TestParseStatements(t *testing.T) {
	tests := []struct {
		name, src, want string
		typ             Stmt
	}{
		{"load", `data gss = load("gss.csv")`, `data gss = load("gss.csv")`, &DataStmt{}},
		{"load order", `data x = load("x.csv", order = {sex: ["m", "f"], "age group": ["young","old"],})`,
			`data x = load("x.csv", order = {sex: ["m", "f"], "age group": ["young", "old"]})`, &DataStmt{}},
		{"simulate", `data sim = simulate(FactorCopula(p=20,k=5),n=1000,levels=5,seed=7)`,
			`data sim = simulate(FactorCopula(p = 20, k = 5), n = 1000, levels = 5, seed = 7)`, &DataStmt{}},
		{"simulate multi-line", "data sim = simulate(\n  FullCopula(p = 4),\n  n = 10, levels = 2,\n  seed = 1, missing = 0.1\n)",
			`data sim = simulate(FullCopula(p = 4), n = 10, levels = 2, seed = 1, missing = 0.1)`, &DataStmt{}},
		{"model lines", "model m {\n  Y = sim\n\n  Z ~ GaussianCopula(C)   # latent\n  Y ordinal Z\n  C ~ FactorModel(k = 5, loadings = GDP(alpha = 3, beta = 1))\n}",
			"model m {\n  Y = sim\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ FactorModel(k = 5, loadings = GDP(alpha = 3, beta = 1))\n}", &ModelStmt{}},
		{"model semicolons", "model m { Y = gss[INC, DEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2, scale = 1) }",
			"model m {\n  Y = gss[INC, DEG]\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ InverseWishart(df = p + 2, scale = 1)\n}", &ModelStmt{}},
		{"model empty", "model m {}", "model m {\n}", &ModelStmt{}},
		{"explain", "explain m", "explain m", &ExplainStmt{}},
		{"explain fit", "explain fit m with hmc(T=1), iter=1500,chains = 2", "explain fit m with hmc(T = 1), iter = 1500, chains = 2", &ExplainStmt{}},
		{"explain a model named fit", "explain fit", "explain fit", &ExplainStmt{}},
		{"load order for many columns", `data x = load("x.csv", sep = ";", na = ["-99", "."], order = {[q1, "q 2"]: ["no", "yes"], *: [lo, hi]})`,
			`data x = load("x.csv", sep = ";", na = ["-99", "."], order = {[q1, "q 2"]: ["no", "yes"], *: [lo, hi]})`, &DataStmt{}},
		{"summary prob", "summary m.C,prob=0.8", "summary m.C, prob = 0.8", &SummaryStmt{}},
		{"impute to", `impute m to "cells.csv", draws = "d.csv"`, `impute m to "cells.csv", draws = "d.csv"`, &ImputeStmt{}},
		{"impute settings", `impute m, prob = 0.5`, `impute m, prob = 0.5`, &ImputeStmt{}},
		{"fit bare", "fit m", "fit m", &FitStmt{}},
		{"fit method", "fit m with gibbs", "fit m with gibbs", &FitStmt{}},
		{"fit method args", "fit m with hmc(T = pi/2), iter = 2000, warmup = 500, chains = 4, seed = 1",
			"fit m with hmc(T = pi / 2), iter = 2000, warmup = 500, chains = 4, seed = 1", &FitStmt{}},
		{"fit method empty parens", "fit m with hmc()", "fit m with hmc()", &FitStmt{}},
		{"fit settings only", "fit m, iter = 10, thin = 2", "fit m, iter = 10, thin = 2", &FitStmt{}},
		{"fit continued after a comma", "fit m, iter = 20,   # more below\n\n   warmup = 10, chains = 1\n",
			"fit m, iter = 20, warmup = 10, chains = 1", &FitStmt{}},
		{"compare continued after a comma", "compare m1,\n  m2,\n  folds = 5", "compare m1, m2, folds = 5", &CompareStmt{}},
		{"print continued after a comma", "print 1,\n2", "print 1, 2", &PrintStmt{}},
		{"extend", "extend m", "extend m", &ExtendStmt{}},
		{"extend iter", "extend m,iter=2*1000", "extend m, iter = 2 * 1000", &ExtendStmt{}},
		{"summary", "summary m.C", "summary m.C", &SummaryStmt{}},
		{"summary index names", "summary m.C[INC, DEG]", "summary m.C[INC, DEG]", &SummaryStmt{}},
		{"plot trace", "plot trace m.C[1, 2]", "plot trace m.C[1, 2]", &PlotStmt{}},
		{"plot vs", "plot rmse m vs sim", "plot rmse m vs sim", &PlotStmt{}},
		{"summary to", `summary m.C to "c.tex",prob=0.8`, `summary m.C to "c.tex", prob = 0.8`, &SummaryStmt{}},
		{"summary difference to", `summary a.C - b.C to "d.tex"`, `summary a.C - b.C to "d.tex"`, &SummaryStmt{}},
		{"summary difference continued to", "summary a.C -\n  b.C to \"d.md\"", `summary a.C - b.C to "d.md"`, &SummaryStmt{}},
		{"summary data levels to", `summary gss[income, degree] to "levels.csv"`, `summary gss[income, degree] to "levels.csv"`, &SummaryStmt{}},
		{"plot to", `plot heatmap m.C to "C.pdf"`, `plot heatmap m.C to "C.pdf"`, &PlotStmt{}},
		{"plot vs to", `plot rmse [a, b] vs sim to "rmse.svg"`, `plot rmse [a, b] vs sim to "rmse.svg"`, &PlotStmt{}},
		{"plot difference to settings", "plot graph a.partial - b.partial to \"g.pdf\",\n  prob = 0.8", `plot graph a.partial - b.partial to "g.pdf", prob = 0.8`, &PlotStmt{}},
		{"impute", "impute m", "impute m", &ImputeStmt{}},
		{"predict", "predict m[degree]", "predict m[degree]", &PredictStmt{}},
		{"predict given", `predict m[degree]given income=5,"p degree" = 3,sex="f"`, `predict m[degree] given income = 5, "p degree" = 3, sex = "f"`, &PredictStmt{}},
		{"predict settings", "predict m[degree, income],prob = 0.8", "predict m[degree, income], prob = 0.8", &PredictStmt{}},
		{"predict every column", "predict m given income = -1", "predict m given income = -1", &PredictStmt{}},
		{"export", `export m to "draws.csv"`, `export m to "draws.csv"`, &ExportStmt{}},
		{"export escapes", `export m to "a\"b\\c.csv"`, `export m to "a\"b\\c.csv"`, &ExportStmt{}},
		{"export member", `export m.partial to "p.csv"`, `export m.partial to "p.csv"`, &ExportStmt{}},
		{"export regress", `export m.regress(INC~DEG+AGE)[R2] to "r.csv"`, `export m.regress(INC ~ DEG + AGE)[R2] to "r.csv"`, &ExportStmt{}},
		{"show", "show gss", "show gss", &ShowStmt{}},
		{"precedence", "summary -a + b * -(c - d) / 2e-3", "summary -a + b * -(c - d) / 2e-3", &SummaryStmt{}},
		{"keyword as name", "show data", "show data", &ShowStmt{}},
		{"show list", "show [hmc,px]", "show [hmc, px]", &ShowStmt{}},
		{"plot rmse list", "plot rmse [hmc, px] vs sim", "plot rmse [hmc, px] vs sim", &PlotStmt{}},
		{"plot latent", "plot latent m.Z[Y1]", "plot latent m.Z[Y1]", &PlotStmt{}},
		{"plot settings", "plot graph m.partial,prob=0.95", "plot graph m.partial, prob = 0.95", &PlotStmt{}},
		{"plot difference settings", "plot graph a.partial - b.partial,\n  prob = 0.8", "plot graph a.partial - b.partial, prob = 0.8", &PlotStmt{}},
		{"summary member call", "summary m.regress(INC~DEG+AGE)", "summary m.regress(INC ~ DEG + AGE)", &SummaryStmt{}},
		{"summary member call empty", "summary m.partial()", "summary m.partial()", &SummaryStmt{}},
		{"plot member call", "plot hist m.regress(INC ~ DEG).R2", "plot hist m.regress(INC ~ DEG).R2", &PlotStmt{}},
		{"check", "check m", "check m", &CheckStmt{}},
		{"check pair settings", "check m[INC,DEG], draws=400, stat=kendall", "check m[INC, DEG], draws = 400, stat = kendall", &CheckStmt{}},
		{"compare", "compare m1,m2", "compare m1, m2", &CompareStmt{}},
		{"compare settings", "compare k1, k2, full, folds = 5, seed = 2", "compare k1, k2, full, folds = 5, seed = 2", &CompareStmt{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(f.Stmts) != 1 {
				t.Fatalf("got %d statements, want 1", len(f.Stmts))
			}
			if got, want := typeName(f.Stmts[0]), typeName(tt.typ); got != want {
				t.Errorf("statement type %s, want %s", got, want)
			}
			if got := strings.TrimSuffix(Format(f), "\n"); got != tt.want {
				t.Errorf("Format:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func typeName(s Stmt) string {
	return strings.TrimPrefix(strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(fmtType(s), "*"), "{", 2)[0], "dsl."), "*")
}

func fmtType(v any) string {
	switch v.(type) {
	case *DataStmt:
		return "DataStmt"
	case *ModelStmt:
		return "ModelStmt"
	case *ExplainStmt:
		return "ExplainStmt"
	case *FitStmt:
		return "FitStmt"
	case *ExtendStmt:
		return "ExtendStmt"
	case *SummaryStmt:
		return "SummaryStmt"
	case *PlotStmt:
		return "PlotStmt"
	case *ImputeStmt:
		return "ImputeStmt"
	case *ExportStmt:
		return "ExportStmt"
	case *ShowStmt:
		return "ShowStmt"
	case *CheckStmt:
		return "CheckStmt"
	case *CompareStmt:
		return "CompareStmt"
	}
	return "?"
}

// TestPrecedence checks the tree shape, not only the printed form.
func TestPrecedence(t *testing.T) {
	f, err := Parse("", []byte("summary 1 - 2 * 3 + -x.C[1]"))
	if err != nil {
		t.Fatal(err)
	}
	e := f.Stmts[0].(*SummaryStmt).Target
	if len(e.Tail) != 2 || e.Tail[0].Op != "-" || e.Tail[1].Op != "+" {
		t.Fatalf("sum: %+v", e)
	}
	mul := e.Tail[0].Term
	if len(mul.Tail) != 1 || mul.Tail[0].Op != "*" {
		t.Errorf("2 * 3 is not one product: %s", mul)
	}
	neg := e.Tail[1].Term.Head
	if neg.Neg == nil || len(neg.Neg.Postfix.Suffixes) != 2 {
		t.Errorf("-x.C[1] is not a negated postfix with two suffixes: %s", neg)
	}
}

func TestPositions(t *testing.T) {
	src := "# comment\nmodel m {\n  Y = gss\n  C ~ LKJ(eta = 2)\n}; fit m, iter = 10\n"
	f, err := Parse("cell", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := f.Stmts[0].(*ModelStmt)
	tilde := m.Items[1].(*Tilde)
	call, ok := tilde.Dist.AsCall()
	if !ok {
		t.Fatal("C ~ LKJ(...) is not a call")
	}
	fit := f.Stmts[1].(*FitStmt)
	tests := []struct {
		what      string
		got       Position
		line, col int
	}{
		{"model", m.Pos, 2, 1},
		{"model name", m.Name.Pos, 2, 7},
		{"Y", m.Items[0].(*Assign).Name.Pos, 3, 3},
		{"LKJ", call.Func.Pos, 4, 7},
		{"eta", call.Args[0].Name.Pos, 4, 11},
		{"2", call.Args[0].Value.Pos, 4, 17},
		{"fit", fit.Pos, 5, 4},
		{"iter", fit.Settings[0].Name.Pos, 5, 11},
	}
	for _, tt := range tests {
		if tt.got.Line != tt.line || tt.got.Column != tt.col || tt.got.Filename != "cell" {
			t.Errorf("%s at %s, want cell:%d:%d", tt.what, tt.got, tt.line, tt.col)
		}
		if want := lineColOffset(src, tt.line, tt.col); tt.got.Offset != want {
			t.Errorf("%s at offset %d, want %d", tt.what, tt.got.Offset, want)
		}
	}
	if _, end := m.Span(); end.Line != 5 || end.Column != 2 {
		t.Errorf("model ends at %s, want 5:2", end)
	}
}

func lineColOffset(src string, line, col int) int {
	lines := strings.SplitAfter(src, "\n")
	off := 0
	for _, l := range lines[:line-1] {
		off += len(l)
	}
	return off + col - 1
}

func TestLanguageExamples(t *testing.T) {
	src, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("language_examples.cop", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stmts) != 95 {
		t.Errorf("got %d statements, want 95", len(f.Stmts))
	}
	// The canonical form parses to itself.
	text := Format(f)
	g, err := Parse("", []byte(text))
	if err != nil {
		t.Fatalf("canonical form does not parse: %v\n%s", err, text)
	}
	if again := Format(g); again != text {
		t.Errorf("Format is not stable:\n%s\n---\n%s", text, again)
	}
}

// TestErrorsGolden runs every case of testdata/errors.golden: sections
// separated by "----" lines, each an input, a ">>>" line and the expected
// errors with their snippets and hints.
func TestErrorsGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/errors.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, section := range strings.Split(string(data), "\n----\n") {
		input, want, ok := strings.Cut(section, "\n>>>")
		want = strings.TrimPrefix(strings.TrimSuffix(want, "\n"), "\n")
		if !ok {
			t.Fatalf("section %d has no >>> line", i+1)
		}
		got := ""
		_, err := Parse("", []byte(input))
		var list ErrorList
		switch {
		case err == nil:
			got = "no error"
		case !errors.As(err, &list):
			t.Errorf("section %d: error %T is not an ErrorList", i+1, err)
		default:
			got = list.Format([]byte(input))
		}
		got = strings.TrimSuffix(got, "\n")
		if !*update && got != want {
			t.Errorf("section %d, input:\n%s\ngot:\n%s\nwant:\n%s", i+1, input, got, want)
		}
		if i > 0 {
			out.WriteString("\n----\n")
		}
		out.WriteString(input + "\n>>>\n" + got)
	}
	if *update {
		text := strings.TrimSuffix(out.String(), "\n")
		if err := os.WriteFile("testdata/errors.golden", []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Pos: Position{Line: 2, Column: 5}, Msg: "boom"}, "2:5: boom"},
		{&Error{Pos: Position{Filename: "a.cop", Line: 1, Column: 1}, Msg: "boom"}, "a.cop:1:1: boom"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	src := []byte("fit m\n\tfitt m\n")
	e := &Error{Pos: Position{Line: 2, Column: 2}, Msg: "x", Hint: "did you mean fit?"}
	if got, want := e.Snippet(src), " fitt m\n ^\nhint: did you mean fit?\n"; got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
	if got := (&Error{Pos: Position{Line: 9, Column: 1}}).Snippet(src); got != "" {
		t.Errorf("Snippet past the end = %q, want empty", got)
	}
}

func TestSeveralErrors(t *testing.T) {
	src := "fitt m\nexplain 3\nshow ok\nexplain (\n"
	f, err := Parse("", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Pos.String())
	}
	if strings.Join(got, " ") != "1:1 2:9 4:9" {
		t.Errorf("error positions %v, want [1:1 2:9 4:9]", got)
	}
	if len(f.Stmts) != 1 || StmtString(f.Stmts[0]) != "show ok" {
		t.Errorf("partial file %q, want the one good statement", Format(f))
	}
}

func TestIsComplete(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "complete"},
		{"# only a comment", "complete"},
		{"show m", "complete"},
		{"model m {", "incomplete"},
		{"model m {\n  Y = gss\n", "incomplete"},
		{"fit m with hmc(T = 1,", "incomplete"},
		{"summary m.C[1,", "incomplete"},
		{`export m to "draws`, "invalid"},
		{`data d = load("x.cs`, "invalid"},
		{"data d = load(\"x.csv\", na = [\"-9\n\"])", "invalid"},
		{"data d = load('x.csv',", "invalid"},
		{"model m {\n  Y = gss[\"a b]\n", "invalid"},
		{"data d = load(\"x.csv\", # a ( in a comment\n", "incomplete"},
		{"export m to \"draws\nshow m", "invalid"},
		{"fitt m", "invalid"},
		{"show m)", "invalid"},
		{"fit m,", "incomplete"},
		{"fit m, iter = 20,\n  # warm-up next\n", "incomplete"},
		{"show m\nprint 1,", "incomplete"},
		{"fit m,,", "invalid"},
		{"fitt m\nfit m,", "invalid"},
		{"fit m, iter = 20,\n  warmup = 10", "complete"},
		{"model m {\n  Y = gss\n}", "complete"},
		// A where condition goes on after where, and, or, not or a comparison.
		{"data d = gss where", "incomplete"},
		{"data d = gss where age >= 50 and", "incomplete"},
		{"data d = gss where age >= 50 or\n", "incomplete"},
		{"data d = gss where not", "incomplete"},
		{"data d = gss where age >=", "incomplete"},
		{"data d = gss where age >= 50 and\n  degree != 0", "complete"},
		{"data d = gss where age", "invalid"},
		{"data d = gss where age >= 50 50", "invalid"},
		{"print and", "complete"},
		{"help where", "complete"},
		{"help where\nhelp and", "complete"},
		{"data d = gss\nhelp where", "complete"},
		// A predict's given values may start on the next line, and go on
		// after a comma.
		{"predict m[degree] given", "incomplete"},
		{"predict m[degree] given\n  income = 5", "complete"},
		{"predict m[degree] given income = 5,", "incomplete"},
		{"predict m[degree] given income = 5", "complete"},
		{"show given", "complete"},
		// An expression goes on after + - * /, as in R.
		{"summary a.C -", "incomplete"},
		{"summary a.C -\n", "incomplete"},
		{"summary a.C -\n  # b next\n\n", "incomplete"},
		{"print 1 +", "incomplete"},
		{"print 2 *", "incomplete"},
		{"a.C[x, y] /", "incomplete"},
		{"summary a.C -\n  b.C", "complete"},
		{"summary a.C - b.C\nshow a", "complete"},
		{"summary a.C -)", "invalid"},
		{`summary a.C - b.C to "d.tex"`, "complete"},
		{`summary a.C - b.C to "d.tex",`, "incomplete"},
		{`plot heatmap m.C to "C.pdf"`, "complete"},
		{`summary m.C to "c.tex`, "invalid"},
		{"fitt m -", "invalid"},
	}
	for _, tt := range tests {
		if got := IsComplete(tt.src); got != tt.want {
			t.Errorf("IsComplete(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestTrailingOperatorContinues: a line that ends with + - * / goes on
// to the next (past blank lines and comments), as in R, so that a long
// difference may be split after its minus: one statement, the same as on
// one line. Inside a model's braces too.
func TestTrailingOperatorContinues(t *testing.T) {
	tests := []struct{ src, want string }{
		{"summary a.C -\n  b.C", "summary a.C - b.C"},
		{"summary a.C[income, degree] -\n\n  # the young\n  b.C[income, degree]\nshow a", "summary a.C[income, degree] - b.C[income, degree]\nshow a"},
		{"print 1 +\n2 *\n3", "print 1 + 2 * 3"},
		{"print 6 /\n 2; show a", "print 6 / 2\nshow a"},
		{"model m {\n  Y = gss\n  C ~ InverseWishart(df = p +\n 2)\n  Z ~ GaussianCopula(C)\n}", "model m {\n  Y = gss\n  C ~ InverseWishart(df = p + 2)\n  Z ~ GaussianCopula(C)\n}"},
	}
	for _, tt := range tests {
		f, err := Parse("", []byte(tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		w, err := Parse("", []byte(tt.want))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := Format(f), Format(w); got != want {
			t.Errorf("%q reads as\n%s\nwant\n%s", tt.src, got, want)
		}
	}
}

func TestNearest(t *testing.T) {
	words := []string{"GaussianCopula", "InverseWishart", "LKJ", "FactorModel"}
	tests := []struct{ name, want string }{
		{"GausianCopula", "GaussianCopula"},
		{"gaussiancopula", "GaussianCopula"},
		{"InverseWishrat", "InverseWishart"},
		{"LJK", "LKJ"},
		{"Wishart", ""},
		{"xyz", ""},
		{"FactorModel", ""}, // an exact match is not a suggestion
	}
	for _, tt := range tests {
		if got := Nearest(tt.name, words); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"iter", "itre", 1}, {"héllo", "hello", 1},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds, _ := os.ReadFile("testdata/language_examples.cop")
	f.Add(string(seeds))
	golden, _ := os.ReadFile("testdata/errors.golden")
	for _, s := range strings.Split(string(golden), "\n----\n") {
		in, _, _ := strings.Cut(s, "\n>>>")
		f.Add(in)
	}
	for _, s := range []string{"data d = gss[income, 2] where not (age < 30 or \"my col\" == -1) and sat in [\"a\", \"b\"]",
		"data d = gss where where > 3 and\n  and <= 2 or not not x != 1", "data d = gss where (age>=50)and(degree!=0)", "real<lower=0> x", "a <- 3",
		"", "model m {", "fit m with hmc(T = pi/2), iter = 1e3", `data x = load("a\"b")`, "summary -(-(1))", "plot rmse m vs s;;;\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("f", []byte(src))
		_ = IsComplete(src)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Column < 1 || e.Pos.Offset < 0 || e.Pos.Offset > len(src) {
					t.Fatalf("error %q has a bad position %#v", e.Msg, e.Pos)
				}
				_ = e.Snippet([]byte(src))
				if g := grammarIn(e); g != "" {
					t.Fatalf("error %q (hint %q) shows the grammar: %s", e.Msg, e.Hint, g)
				}
			}
			if file == nil {
				t.Fatal("nil File with an error")
			}
			return
		}
		text := Format(file)
		again, err := Parse("", []byte(text))
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", text, src, err)
		}
		if Format(again) != text {
			t.Fatalf("Format not stable for %q: %q then %q", src, text, Format(again))
		}
	})
}

// TestParseConcurrent parses from several goroutines at once: the kernel
// may check completeness while a cell runs. Run with -race.
func TestParseConcurrent(t *testing.T) {
	src, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	if f, err := Parse("", src); err == nil {
		want = Format(f)
	}
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			got := ""
			for i := 0; i < 20; i++ {
				f, err := Parse("", src)
				if err != nil {
					got = err.Error()
					break
				}
				got = Format(f)
				_ = IsComplete("fitt m")
			}
			done <- got
		}()
	}
	for g := 0; g < 4; g++ {
		if got := <-done; got != want {
			t.Errorf("concurrent parse gave %q", got)
		}
	}
}

// TestStatementKeywords checks the keywords read from the statements'
// grammar, and that callers get a copy.
func TestStatementKeywords(t *testing.T) {
	want := []string{"data", "model", "explain", "fit", "extend", "summary", "plot", "impute", "predict", "export", "show", "check", "compare", "print", "help", "clear"}
	got := StatementKeywords()
	if !slices.Equal(got, want) {
		t.Fatalf("StatementKeywords() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if again := StatementKeywords(); again[0] != "data" {
		t.Errorf("StatementKeywords()[0] = %q after a caller changed its copy", again[0])
	}
	f, err := Parse("", []byte("explain m\nshow [a, b]"))
	if err != nil {
		t.Fatal(err)
	}
	for i, kw := range []string{"explain", "show"} {
		if got := Keyword(f.Stmts[i]); got != kw {
			t.Errorf("Keyword(%s) = %q, want %q", StmtString(f.Stmts[i]), got, kw)
		}
	}
}

func TestIsName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"income", true}, {"_x1", true}, {"Y2", true}, {"a_b_9", true},
		{"", false}, {"1st", false}, {"my col", false}, {"âge", false}, {"a-b", false}, {"x.y", false},
	} {
		if got := IsName(c.s); got != c.want {
			t.Errorf("IsName(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestStringsAreNotKeywords: a string whose text is a keyword or a
// punctuation mark is a string, not that token (participle matches the
// grammar's literals by text: `fit m "with" hmc` parsed as fit m with hmc,
// and `print (0")"` as print (0)); strings and string keys keep their values.
func TestStringsAreNotKeywords(t *testing.T) {
	for _, src := range []string{
		`fit m "with" hmc`,
		`print (0")"`,
		`data d "=" load("x.csv")`,
		`model m "{" Y = d }`,
		`export m "to" "x.csv"`,
		`plot rmse m "vs" sim`,
	} {
		if _, err := Parse("", []byte(src)); err == nil {
			t.Errorf("%s parses", src)
		}
	}
	f, err := Parse("", []byte(`print "with", ")", "a\tb", "{"`+"\n"+`data x = load("x.csv", order = {"age group": ["y", "o"], ["q 1", q2]: ["n"]})`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Stmts[0].(*PrintStmt).Values {
		got = append(got, e.Head.Head.Postfix.Primary.Str.Value)
	}
	if want := []string{"with", ")", "a\tb", "{"}; !slices.Equal(got, want) {
		t.Errorf("print's strings are %q, want %q", got, want)
	}
	if s := Format(f); !strings.Contains(s, `order = {"age group": ["y", "o"], ["q 1", q2]: ["n"]}`) || !strings.Contains(s, `print "with", ")", "a\tb", "{"`) {
		t.Errorf("Format:\n%s", s)
	}
}

// TestWhereParses: a data statement's where condition parses into and, or,
// not, parentheses and comparisons, grammar words name columns in it, a
// line that ends in and goes on, and the canonical form is as written.
func TestWhereParses(t *testing.T) {
	tests := []struct{ src, want string }{
		{"data d = gss[income, degree] where age >= 50 and degree != 0", "data d = gss[income, degree] where age >= 50 and degree != 0"},
		{"data d = gss where (age>=50)and(degree!=0)", "data d = gss where (age >= 50) and (degree != 0)"},
		{`data d = gss where not (age < 30 or "my col" == -1) and sat in ["a", "b"]`, `data d = gss where not (age < 30 or "my col" == -1) and sat in ["a", "b"]`},
		{"data d = gss where age >= 50 and\n  # a comment\n  degree <= 2", "data d = gss where age >= 50 and degree <= 2"},
		{`data d = gss where where > 3 or "and" < 2 or not == 1`, `data d = gss where where > 3 or "and" < 2 or not == 1`},
		{`data d = gss where "age" > 3`, `data d = gss where "age" > 3`},
	}
	for _, tt := range tests {
		f, err := Parse("", []byte(tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if len(f.Stmts) != 1 {
			t.Errorf("%q: %d statements, want 1", tt.src, len(f.Stmts))
			continue
		}
		if got := StmtString(f.Stmts[0]); got != tt.want {
			t.Errorf("%q: canonical form %q, want %q", tt.src, got, tt.want)
		}
	}
	// Only a data statement's where goes on after a line's and: help
	// where and help and are two statements.
	if f, err := Parse("", []byte("help where\nhelp and\nshow where\ndata d = gss\nhelp or")); err != nil || len(f.Stmts) != 5 {
		t.Errorf("help where, help and, show where, data, help or: %v, want 5 statements", err)
	}
	f, err := Parse("", []byte(`data d = gss where not (a < 1 or b == "x") and c in [1, 2]`))
	if err != nil {
		t.Fatal(err)
	}
	w := f.Stmts[0].(*DataStmt).Where
	if len(w.Tail) != 0 || len(w.Head.Tail) != 1 {
		t.Fatalf("where %s: want one and of two tests", w)
	}
	inner := w.Head.Head.Not.Paren
	if inner == nil || len(inner.Tail) != 1 || inner.Tail[0].Head.Test.Op != "==" || inner.Tail[0].Head.Test.Value.String() != `"x"` {
		t.Errorf("where %s: want not (a < 1 or b == \"x\")", w)
	}
	if in := w.Head.Tail[0].Test; in.ColumnName() != "c" || in.In == nil || len(in.In.Items) != 2 {
		t.Errorf("where %s: want c in [1, 2]", w)
	}
}
