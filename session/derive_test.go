package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// surveyCSV writes a survey of 12 rows to dir: a numeric age with a
// missing cell, a degree, and a text column sat ordered by load's order.
func surveyCSV(t *testing.T, dir string) string {
	t.Helper()
	const text = `age,degree,sat,income
25,0,agree,3
31,1,neutral,NA
44,2,disagree,5
52,1,agree,4
NA,3,neutral,2
67,4,agree,6
38,0,disagree,1
59,2,neutral,NA
71,4,agree,7
29,1,agree,2
48,NA,neutral,3
63,3,disagree,5
`
	if err := os.WriteFile(filepath.Join(dir, "survey.csv"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return `data s = load("survey.csv", order = {sat: ["disagree", "neutral", "agree"]})` + "\n"
}

// runErr runs code, which must fail, and returns its error's text.
func runErr(t *testing.T, s *Session, code string) string {
	t.Helper()
	_, err := s.Execute(context.Background(), code, &recorder{})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: error %v, want a session error", code, err)
	}
	return strings.Join(se.Traceback, "\n")
}

// TestDeriveData: data NAME = SOURCE[COL, ...] where CONDITION keeps the
// rows that meet the condition and the columns listed, as R's subset
// does: a row whose tested cell is missing is left out (three-valued
// logic: not decided by an or's other true test), and the statement says
// how many of which; text columns compare by load's order; a condition may
// test a column the selection leaves out; no row left is an error; a
// column that becomes constant, or a text column that loses labels, is
// warned of.
func TestDeriveData(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	tests := []struct {
		code  string
		names []string
		ages  []float64 // the age column of the result, when kept
		say   []string
		warn  string
	}{
		{code: "data d = s[age, sat] where age >= 50", names: []string{"age", "sat"}, ages: []float64{52, 67, 59, 71, 63},
			say: []string{"data d: 5 rows × 2 columns (age, sat), 0 missing cells, from survey.csv, then s[age, sat] where age >= 50",
				"d: 5 of 12 rows of s (age >= 50); 1 row left out because age is missing"}},
		{code: "data d = s[age] where sat >= \"neutral\" and degree != 0", names: []string{"age"}, ages: []float64{31, 52, math_NaN, 67, 59, 71, 29},
			say: []string{"d: 7 of 12 rows of s (sat >= \"neutral\" and degree != 0); 1 row left out because degree is missing"}},
		{code: "data d = s[2, \"age\"] where age < 30 or degree == 4", names: []string{"degree", "age"}, ages: []float64{25, 67, 71, 29},
			say: []string{"d: 4 of 12 rows of s (age < 30 or degree == 4)"}},
		// NA or TRUE is TRUE: the row of missing age and degree 3 is not
		// kept, that of degree 4 would be.
		{code: "data d = s where not (age < 40) and degree in [1, 2, 3]", names: []string{"age", "degree", "sat", "income"}, ages: []float64{44, 52, 59, 63},
			say: []string{"d: 4 of 12 rows of s (not (age < 40) and degree in [1, 2, 3]); 2 rows left out because a cell it tests is missing (age: 1, degree: 1)"}},
		{code: "data d = s[sat, degree] where sat == \"agree\" and age < 60", names: []string{"sat", "degree"},
			say:  []string{"d: 3 of 12 rows of s"},
			warn: "warning: d: column sat is constant: it tells nothing about the copula"},
		{code: "data d = s[sat, income] where age > 40", names: []string{"sat", "income"}, say: []string{"d: 7 of 12 rows"}},
		{code: "data d = s[sat, income] where age < 46", names: []string{"sat", "income"}, say: []string{"d: 5 of 12 rows"}},
		{code: "data d = s[sat, income] where age < 35", names: []string{"sat", "income"},
			warn: "warning: d: column sat has 2 of its 3 labels: no row has \"disagree\""},
		{code: "data d = s[income, age]", names: []string{"income", "age"}, ages: []float64{25, 31, 44, 52, math_NaN, 67, 38, 59, 71, 29, 48, 63},
			say: []string{"data d: 12 rows × 2 columns (income, age), 3 missing cells, from survey.csv, then s[income, age]"}},
	}
	for _, tt := range tests {
		s := New(Options{Dir: dir})
		out := mustRun(t, s, setup+tt.code)
		text := out.text()
		for _, want := range tt.say {
			if !strings.Contains(text, want) {
				t.Errorf("%s: output lacks %q:\n%s", tt.code, want, text)
			}
		}
		if tt.warn != "" && !strings.Contains(out.stderr.String(), tt.warn) {
			t.Errorf("%s: warnings lack %q:\n%s", tt.code, tt.warn, out.stderr.String())
		}
		if tt.warn == "" && strings.Contains(out.stderr.String(), "warning: d:") {
			t.Errorf("%s: warns:\n%s", tt.code, out.stderr.String())
		}
		d := s.data["d"]
		if !reflect.DeepEqual(d.Names, tt.names) {
			t.Errorf("%s: columns %v, want %v", tt.code, d.Names, tt.names)
		}
		if j := d.column("age"); tt.ages != nil && !sameCells(d.Columns[j], tt.ages) {
			t.Errorf("%s: ages %v, want %v", tt.code, d.Columns[j], tt.ages)
		}
		if j := d.column("sat"); j >= 0 && !reflect.DeepEqual(d.Labels[j], []string{"disagree", "neutral", "agree"}) {
			t.Errorf("%s: sat's labels %v, want load's order", tt.code, d.Labels[j])
		}
	}

	for _, tc := range []struct{ code, want string }{
		{"data d = s where age > 80", "no row of s (12 rows) meets age > 80; 1 row left out because age is missing: a data set needs rows"},
		{"data d = s where sat > \"agree\"", "no row of s (12 rows) meets sat > \"agree\""},
		{"data d = s where sat >= \"agre\"", `sat has no label "agre"`},
		{"data d = s where sat >= 2", "sat holds text labels, ordered by load's order"},
		{"data d = s where agee >= 2", "did you mean age?"},
		{"data d = s[age, incme]", "did you mean income?"},
	} {
		if got := runErr(t, New(Options{Dir: dir}), setup+tc.code); !strings.Contains(got, tc.want) {
			t.Errorf("%s: error\n%s\nwant it to say %q", tc.code, got, tc.want)
		}
	}
	// In one cell, or in a script: the source is read at check time, and
	// the derivation's error is reported before anything runs.
	s := New(Options{Dir: dir})
	if got := runErr(t, s, setup+"print 1\ndata d = s where age > 80"); !strings.Contains(got, "2:13") && !strings.Contains(got, "3:10") {
		t.Errorf("the error of a derivation in the cell that loads its source has no position:\n%s", got)
	}
	if _, bound := s.data["s"]; bound {
		t.Error("the cell ran before its derivation's error was found")
	}
}

const math_NaN = -1e300 // stands for a missing cell in sameCells

func sameCells(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if w == math_NaN {
			if got[i] == got[i] {
				return false
			}
			continue
		}
		if got[i] != w {
			return false
		}
	}
	return true
}

// TestDerivedSimulationTruth: columns chosen from simulated data keep the
// truth of those columns (the sub-matrix of C, so that plot heatmap and
// plot rmse work), while rows chosen by a condition drop it, with a note
// saying why, and plot rmse against them is refused.
func TestDerivedSimulationTruth(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data sim = simulate(FactorCopula(p = 5, k = 2), n = 200, levels = 4, seed = 3)")
	out := mustRun(t, s, "data sub = sim[Y4, 2]\nplot heatmap sub")
	if !strings.Contains(out.text(), "the true C of its columns is kept") || out.images() != 1 {
		t.Errorf("sub does not keep its truth, or its heatmap is not drawn:\n%s", out.text())
	}
	sim, sub := s.data["sim"], s.data["sub"]
	P := 5
	wantC := []float64{1, sim.Truth.C[3*P+1], sim.Truth.C[1*P+3], 1}
	if !reflect.DeepEqual(sub.Truth.C, wantC) || sub.TruthK != 2 {
		t.Errorf("sub's true C %v (k %d), want %v (k 2)", sub.Truth.C, sub.TruthK, wantC)
	}
	if want := append(append([]float64{}, sim.Truth.Lambda[6:8]...), sim.Truth.Lambda[2:4]...); !reflect.DeepEqual(sub.Truth.Lambda, want) {
		t.Errorf("sub's true loadings %v, want %v", sub.Truth.Lambda, want)
	}
	mustRun(t, s, "model m { Y = sub; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\nfit m, iter = 20, warmup = 10, chains = 1, seed = 1")
	if out := mustRun(t, s, "plot rmse m vs sub"); out.images() != 1 {
		t.Errorf("plot rmse m vs sub draws %d figures, want 1", out.images())
	}
	out = mustRun(t, s, "data hi = sim where Y1 >= 3")
	if text := out.text(); !strings.Contains(text, "note: the true C of sim is not kept for hi: rows chosen by their observed values (Y1 >= 3)") {
		t.Errorf("the filtered data do not say that their truth is dropped:\n%s", text)
	}
	if s.data["hi"].Truth != nil {
		t.Error("hi keeps the truth of sim")
	}
	// Their errors say why, not that the data were loaded.
	for _, code := range []string{"plot heatmap hi", "data hi2 = hi[Y1, Y2]\nplot heatmap hi2", "plot rmse m vs hi"} {
		got := runErr(t, s, code)
		if !strings.Contains(got, "no true C to show: its rows were chosen from sim by their observed values (Y1 >= 3)") &&
			!strings.Contains(got, "has no known truth: its rows were chosen from sim by their observed values (Y1 >= 3)") {
			t.Errorf("%s: %s", code, got)
		}
	}
	// A condition every row meets keeps the simulation's sample, and its
	// truth: it was dropped, and plot heatmap refused.
	out = mustRun(t, s, "data every = sim where Y1 >= 1\nplot heatmap every")
	if text := out.text(); strings.Contains(text, "not kept") || out.images() != 1 {
		t.Errorf("the data of every row of sim drop its truth, or their heatmap is not drawn:\n%s", text)
	}
	if every := s.data["every"]; every.Truth == nil || !reflect.DeepEqual(every.Truth.C, sim.Truth.C) {
		t.Errorf("every keeps not the true C of sim: %v", every.Truth)
	}
}

// TestDerivedDataProvenance: the derivation shows wherever the data's
// origin does: show, the export of the data and of a fit's draws
// (data_derived, after the file's SHA-256, which the derived data keep),
// and the note of a fit of a model whose data name other data now.
func TestDerivedDataProvenance(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir, Version: "9.9.9"})
	mustRun(t, s, setup+"data old = s[age, degree, income] where age >= 40")
	if text := mustRun(t, s, "print 1\nshow old").text(); !strings.Contains(text, "from survey.csv, then s[age, degree, income] where age >= 40") {
		t.Errorf("show old does not say how old was derived:\n%s", text)
	}
	mustRun(t, s, `export old to "old.csv"`)
	prov, err := os.ReadFile(filepath.Join(dir, "old.provenance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sum := s.data["s"].SHA256
	want := fmt.Sprintf("copulang,9.9.9\ndata,old\ndata_source,survey.csv\ndata_options,\"order = {sat: [\"\"disagree\"\", \"\"neutral\"\", \"\"agree\"\"]}\"\ndata_sha256,%s\ndata_derived,\"s[age, degree, income] where age >= 40\"\ndata_rows,7\n", sum)
	if !strings.Contains(string(prov), want) {
		t.Errorf("old.provenance.csv:\n%s\nwant it to hold:\n%s", prov, want)
	}
	mustRun(t, s, "data older = old where age >= 60\nmodel m { Y = older; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\nfit m, iter = 20, warmup = 10, chains = 1, seed = 1\nexport m to \"draws.csv\"")
	prov, err = os.ReadFile(filepath.Join(dir, "draws.provenance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "data_derived,\"s[age, degree, income] where age >= 40; then old where age >= 60\"\ndata_rows,3\n"; !strings.Contains(string(prov), want) {
		t.Errorf("draws.provenance.csv:\n%s\nwant it to hold:\n%s", prov, want)
	}
	out := mustRun(t, s, "data older = old where age >= 50\nfit m, iter = 20, warmup = 10, chains = 1, seed = 1")
	if want := "m fits older as it was when m was declared (3 rows, from survey.csv, then s[age, degree, income] where age >= 40, then old where age >= 60), not the data older names now (5 rows, from survey.csv, then s[age, degree, income] where age >= 40, then old where age >= 50)"; !strings.Contains(out.text(), want) {
		t.Errorf("the fit's note:\n%s\nwant:\n%s", out.text(), want)
	}
}

// TestFitFileOfDerivedData: a fit file is tied to the cells of derived
// data, so that a changed condition or column list is never answered from
// the fit of the data before: the fit samples again and says why, while
// the same derivation in a new session reads the file.
func TestFitFileOfDerivedData(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	const fit = "model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\nfit m, iter = 20, warmup = 10, chains = 1, seed = 1, file = \"m.fit\"\n"
	run := func(derive string) string {
		t.Helper()
		return mustRun(t, New(Options{Dir: dir}), setup+derive+"\n"+fit).text()
	}
	if text := run("data d = s[age, degree, income] where age >= 40"); !strings.Contains(text, "wrote the fit to m.fit") {
		t.Fatalf("the first fit does not write its file:\n%s", text)
	}
	if text := run("data d = s[age, degree, income] where age >= 40"); !strings.Contains(text, "read from m.fit") {
		t.Errorf("the same derivation does not read the fit file:\n%s", text)
	}
	for _, tc := range []struct{ derive, why string }{
		{"data d = s[age, degree, income] where age >= 30", "other data (7 rows; this fit's data have 9)"},
		{"data d = s[age, degree, income] where age >= 40 and degree != 2", "other data"},
		{"data d = s[age, income, degree] where age >= 40", "other data (the same columns in another order)"},
		{"data d = s[age, degree, income] where age < 40 or age >= 40", "other data"},
	} {
		text := run(tc.derive)
		if strings.Contains(text, "read from m.fit") || !strings.Contains(text, tc.why) {
			t.Errorf("%s: the fit reads the file of other data, or does not say %q:\n%s", tc.derive, tc.why, text)
		}
		run("data d = s[age, degree, income] where age >= 40") // the file as at first
	}
}

// TestCompleteWhere: in a data statement's where condition, completion
// offers the source's columns (all of them: a condition may test one the
// selection leaves out) after where, and, or, not and (, and a text
// column's labels, quoted, after a comparison or in [; inside the
// brackets of the source, its columns as in any index. Every match put in
// place makes a statement that parses or goes on.
func TestCompleteWhere(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir})
	mustRun(t, s, setup)
	all := []string{"age", "degree", "income", "sat"}
	checkCompletions(t, s, []completionCase{
		{`data d = s[age, `, []string{"degree", "income", "sat"}},
		{`data d = s[age] where `, all},
		{`data d = s[age] where a`, []string{"age"}},
		{`data d = s where age >= 50 and `, all},
		{"data d = s where age >= 50 or\n  d", []string{"degree"}},
		{`data d = s where not (`, all},
		{`data d = s where sat >= `, []string{`"agree"`, `"disagree"`, `"neutral"`}},
		{`data d = s where sat == "ne`, []string{"neutral"}},
		{`data d = s where sat in ["agree", `, []string{`"agree"`, `"disagree"`, `"neutral"`}},
		{`data d = s where age >= `, nil},
		{`data d = t where `, nil},
		{`data d = s where sand`, nil},
		{`data d = s where age >= 50 `, []string{"and", "or"}},
		{`data d = s where (sat == "agree") o`, []string{"or"}},
		{`data d = s where degree in [1, 2] `, []string{"and", "or"}},
		{`data d = s where age >= 50`, nil},
	})
	code := "data d = s where age >= 50"
	if b, ok := s.Inspect(code, strings.Index(code, "where")+2, 0); !ok || !strings.Contains(fmt.Sprint(b["text/plain"]), "Keeps the rows of DATA that meet CONDITION") {
		t.Errorf("Inspect of where: %v, %v", ok, b)
	}
	for _, code := range []string{"data d = s where age >= 50 and", "data d = s where"} {
		if st, _ := s.IsComplete(code); st != "incomplete" {
			t.Errorf("IsComplete(%q) = %s, want incomplete", code, st)
		}
	}
}

// TestDerivedLargeSimulationTruth: data derived by a condition from a
// simulation too large to draw when the cell is checked
// (maxCheckSimulation) keep its truth when every row meets the condition,
// and a plot heatmap of them in the same cell draws it: the check assumed
// the truth dropped and refused the cell. Rows left out drop it, which the
// statement says when it runs.
func TestDerivedLargeSimulationTruth(t *testing.T) {
	s := newTestSession(t)
	const big = "data big = simulate(FullCopula(p = 20), n = 50001, levels = 3, seed = 1)\n"
	if out := mustRun(t, s, big+"data every = big where Y1 >= 1\nplot heatmap every"); out.images() != 1 {
		t.Errorf("plot heatmap every draws %d figures, want 1:\n%s", out.images(), out.text())
	}
	got := runErr(t, s, big+"data some = big where Y1 >= 2\nplot heatmap some")
	if !strings.Contains(got, "data some has no true C to show: its rows were chosen from big by their observed values (Y1 >= 2)") {
		t.Errorf("plot heatmap some: %s", got)
	}
}

// TestDerivedRowsJoinTheirSource: impute's table and file and the export
// of data derived from other data give each row's source row, the row of
// the file it came from (through two derivations), by which a user joins
// them back to the file; the data's own rows keep their numbers. Loaded
// data keep the formats as they were.
func TestDerivedRowsJoinTheirSource(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir})
	// Rows 4, 6, 8, 9 and 12 of survey.csv; income is missing in row 8,
	// the third of older.
	out := mustRun(t, s, setup+"data old = s where age >= 40\ndata older = old where age >= 50\nexport older to \"older.csv\"\nexport s to \"s.csv\"")
	if want := "wrote 5 rows of older to " + filepath.Join(dir, "older.csv") + " (first source_row: the row of survey.csv each came from; load(..., drop = [source_row]) reads them back without it)"; !strings.Contains(out.text(), want) {
		t.Errorf("export older says:\n%s\nwant:\n%s", out.text(), want)
	}
	for file, want := range map[string]string{
		"older.csv": "source_row,age,degree,sat,income\n4,52,1,agree,4\n6,67,4,agree,6\n8,59,2,neutral,NA\n9,71,4,agree,7\n12,63,3,disagree,5\n",
		"s.csv":     "age,degree,sat,income\n25,0,agree,3\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(got), want) {
			t.Errorf("%s:\n%s\nwant it to start:\n%s", file, got, want)
		}
	}
	if text := mustRun(t, s, "print 1\nshow older").text(); !regexp.MustCompile(`row +source_row +age +degree +sat +income\n *1 +4 +52 +1 +agree +4\n`).MatchString(text) {
		t.Errorf("show older does not give the source rows:\n%s", text)
	}
	// Read back whole, the source rows are a column, which a warning
	// points out; dropped, the export reads back as the data.
	if text := mustRun(t, s, `data whole = load("older.csv", order = {sat: ["disagree", "neutral", "agree"]})`).stderr.String(); !strings.Contains(text, "column source_row is, as the export of derived data writes it first, each row's row in the data it was derived from") {
		t.Errorf("older.csv read back whole says:\n%s\nwant a warning of its source_row", text)
	}
	mustRun(t, s, `data back = load("older.csv", drop = [source_row], order = {sat: ["disagree", "neutral", "agree"]})`)
	if back, older := s.data["back"], s.data["older"]; !reflect.DeepEqual(back.Names, older.Names) || fmt.Sprint(back.Columns) != fmt.Sprint(older.Columns) {
		t.Errorf("older.csv read back as %v %v, want %v %v", back.Names, back.Columns, older.Names, older.Columns)
	}

	out = mustRun(t, s, "model m { Y = older[age, income]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\nfit m, iter = 20, warmup = 10, chains = 1, seed = 1\nimpute m to \"cells.csv\", draws = \"cdraws.csv\"")
	if want := "to " + filepath.Join(dir, "cdraws.csv") + ", each cell's row and source row to " + filepath.Join(dir, "cdraws.columns.csv"); !strings.Contains(out.text(), want) {
		t.Errorf("impute m says:\n%s\nwant:\n%s", out.text(), want)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "cdraws.columns.csv")); err != nil || string(got) != "param,row,source_row,column\nincome[3],3,8,income\n" {
		t.Errorf("cdraws.columns.csv: %q (%v), want income[3] of row 3, source row 8", got, err)
	}
	cells, err := os.ReadFile(filepath.Join(dir, "cells.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(cells), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "row,source_row,column,mode,") || !strings.HasPrefix(lines[1], "3,8,income,") {
		t.Errorf("cells.csv:\n%s\nwant row,source_row,column,... and 3,8,income,...", cells)
	}
	shown := captionedLines(t, mustRun(t, s, "impute m").displays[0])
	if got := strings.Fields(shown[0]); len(got) < 3 || got[0] != "row" || got[1] != "source_row" || got[2] != "column" {
		t.Errorf("impute m's header %q, want row source_row column ...", shown[0])
	}
	if got := strings.Fields(shown[1]); len(got) < 3 || got[0] != "3" || got[1] != "8" || got[2] != "income" {
		t.Errorf("impute m's row %q, want 3 8 income ...", shown[1])
	}

	// A column already named source_row keeps its name.
	if got := SourceRowName([]string{"age", "source_row", "source_row_"}); got != "source_row__" {
		t.Errorf("SourceRowName = %q, want source_row__", got)
	}
}

// TestWhereComparesTwoColumns: where income > pincome compares two
// columns in each row, as R's subset() does, with R's logic of NA (a row
// whose tested cell is missing is left out unless the rest decides it);
// two columns of text compare by their one order. The counts are R's
// (4.2), reading the same files:
//
//	g <- read.csv("gss_hoff2007.csv")
//	nrow(subset(g, income > pincome))                  # 446
//	nrow(subset(g, degree >= pdegree))                 # 809
//	nrow(subset(g, degree == pdegree | age < 30))      # 548
//	nrow(subset(g, !(children < pchildren)))           # 160
//	nrow(subset(g, degree > pdegree & age >= 50))      # 87
//	d <- read.csv("likert.csv"); lv <- c("disagree", "neutral", "agree")
//	d$q1 <- factor(d$q1, lv, ordered = TRUE); d$q2 <- factor(d$q2, lv, ordered = TRUE)
//	nrow(subset(d, q1 > q2)); nrow(subset(d, q1 == q2))                     # 2, 3
//	nrow(subset(d, q1 != q2 | n > 4)); nrow(subset(d, !(q1 <= q2)))         # 5, 2
//	nrow(subset(d, q1 >= q2 & n >= 3))                                      # 3
func TestWhereComparesTwoColumns(t *testing.T) {
	dir := t.TempDir()
	const likert = `q1,q2,n
agree,neutral,3
disagree,agree,1
neutral,neutral,4
NA,agree,2
agree,NA,5
neutral,disagree,NA
disagree,disagree,2
agree,agree,6
`
	if err := os.WriteFile(filepath.Join(dir, "likert.csv"), []byte(likert), 0o644); err != nil {
		t.Fatal(err)
	}
	gss, err := filepath.Abs("../notebooks/data/gss_hoff2007.csv")
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, fmt.Sprintf("data gss = load(%q)\n", gss)+
		`data lik = load("likert.csv", order = {[q1, q2]: ["disagree", "neutral", "agree"]})`)
	for _, c := range []struct {
		source, where string
		rows          int
	}{
		{"gss", "income > pincome", 446},
		{"gss", "degree >= pdegree", 809},
		{"gss", "degree == pdegree or age < 30", 548},
		{"gss", "not (children < pchildren)", 160},
		{"gss", "degree > pdegree and age >= 50", 87},
		{"lik", "q1 > q2", 2},
		{"lik", "q1 == q2", 3},
		{"lik", "q1 != q2 or n > 4", 5},
		{"lik", "not (q1 <= q2)", 2},
		{"lik", "q1 >= q2 and n >= 3", 3},
	} {
		mustRun(t, s, "data sub = "+c.source+" where "+c.where)
		if got := s.data["sub"].N(); got != c.rows {
			t.Errorf("%s where %s: %d rows, R's subset gives %d", c.source, c.where, got, c.rows)
		}
	}
	out := mustRun(t, s, "data sub = lik where q1 > q2")
	if want := "sub: 2 of 8 rows of lik (q1 > q2); 2 rows left out because a cell it tests is missing (q1: 1, q2: 1)"; !strings.Contains(out.text(), want) {
		t.Errorf("data sub = lik where q1 > q2 says:\n%s\nwant:\n%s", out.text(), want)
	}
	mustRun(t, s, `data other = load("likert.csv", order = {q1: ["disagree", "neutral", "agree"], q2: ["agree", "neutral", "disagree"]})`)
	if msg := runErr(t, s, "data sub = other where q1 > q2"); !strings.Contains(msg, "other cannot compare q1 with q2: their labels are ordered otherwise") {
		t.Errorf("columns of text in other orders:\n%s", msg)
	}
	if msg := runErr(t, s, "data sub = lik where q1 > n"); !strings.Contains(msg, "lik cannot compare q1 with n: q1 holds text labels and n numbers") {
		t.Errorf("a column of text with one of numbers:\n%s", msg)
	}
}
