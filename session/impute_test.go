package session

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImputeLevelsAllCellsAndFiles: issue 17 found impute showing the first
// 60 cells with quantiles between levels. Every missing cell is shown, with
// level-valued summaries (mode, its probability, type-1 quantiles: always
// observed values); impute m to "cells.csv" writes one row per cell with
// the probability of each level, and draws = "..." every draw.
func TestImputeLevelsAllCellsAndFiles(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 400, levels = 4, seed = 3, missing = 0.1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 60, warmup = 20, chains = 2")
	d := s.data["d"]
	missing := 0
	observed := make([]map[string]bool, 3)
	for j, col := range d.Columns {
		observed[j] = map[string]bool{}
		for _, v := range col {
			if math.IsNaN(v) {
				missing++
			} else {
				observed[j][formatValue(d, j, v)] = true
			}
		}
	}
	if missing <= 60 {
		t.Fatalf("%d missing cells: the test needs more than the 60 shown before", missing)
	}
	out := mustRun(t, s, "impute m, prob = 0.8")
	lines := captionedLines(t, out.displays[0])
	if got := strings.Join(strings.Fields(lines[0]), " "); got != "row column mode p_mode q10 q50 q90 mean" {
		t.Errorf("header %q", got)
	}
	if len(lines)-1 != missing {
		t.Errorf("%d rows for %d missing cells", len(lines)-1, missing)
	}
	col := map[string]int{"Y1": 0, "Y2": 1, "Y3": 2}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		j := col[f[1]]
		for _, v := range []string{f[2], f[4], f[5], f[6]} {
			if !observed[j][v] {
				t.Errorf("row %q: %s is not an observed level of %s", l, v, f[1])
			}
		}
		if p, err := strconv.ParseFloat(f[3], 64); err != nil || p <= 0 || p > 1 {
			t.Errorf("row %q: p_mode %s", l, f[3])
		}
	}
	if plain, _ := out.displays[0]["text/plain"].(string); !strings.Contains(plain, `impute m to "cells.csv"`) {
		t.Errorf("impute does not say how to write the cells: %q", plain)
	}

	mustRun(t, s, `impute m to "cells.csv", draws = "cell_draws.csv"`)
	cells := readCSV(t, filepath.Join(dir, "cells.csv"))
	if got := strings.Join(cells[0], ","); got != "row,column,mode,p_mode,q5,q50,q95,mean,probs" {
		t.Errorf("cells.csv header %s", got)
	}
	if len(cells)-1 != missing {
		t.Errorf("cells.csv has %d rows for %d missing cells", len(cells)-1, missing)
	}
	for _, row := range cells[1:] {
		var probs map[string]float64
		if err := json.Unmarshal([]byte(row[8]), &probs); err != nil {
			t.Fatalf("probs %q: %v", row[8], err)
		}
		sum := 0.0
		for level, p := range probs {
			if !observed[col[row[1]]][level] {
				t.Errorf("probs %q has level %s, not observed in %s", row[8], level, row[1])
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-5 || math.Abs(probs[row[2]]-parseOr(row[3])) > 0.0005 {
			t.Errorf("row %v: probabilities sum to %v; the mode's is %v", row, sum, probs[row[2]])
		}
	}
	draws := readCSV(t, filepath.Join(dir, "cell_draws.csv"))
	if len(draws[0]) != 2+missing || len(draws)-1 != s.models["m"].Fit.KeptDraws() {
		t.Errorf("cell_draws.csv: %d columns, %d rows; want %d and %d", len(draws[0]), len(draws)-1, 2+missing, s.models["m"].Fit.KeptDraws())
	}
	if !strings.HasPrefix(draws[0][2], "Y1[") {
		t.Errorf("draw columns are named %v", draws[0][:3])
	}

	// A fit that kept the imputations of one kept draw in 3 (as one with
	// more cells × draws than inference.DefaultMaxImputed does) says so, and
	// its draws file numbers them as the kept draws they belong to.
	m := s.models["m"]
	m.Fit = m.Fit.ThinImputations(3)
	out = mustRun(t, s, `impute m, draws = "thin_draws.csv"`)
	if !strings.Contains(out.stdout.String(), "one kept draw in 3") {
		t.Errorf("impute does not say the imputations are thinned: %q", out.stdout.String())
	}
	draws = readCSV(t, filepath.Join(dir, "thin_draws.csv"))
	if want := 2 * 20; len(draws)-1 != want { // 2 chains, 60 draws each, one in 3
		t.Fatalf("thin_draws.csv has %d rows, want %d", len(draws)-1, want)
	}
	for k, row := range draws[1:] {
		if want := strconv.Itoa(3*(k%20) + 1); row[1] != want {
			t.Fatalf("row %d of thin_draws.csv is draw %s, want %s", k+1, row[1], want)
		}
	}
}

func parseOr(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// TestKernelTablesElided: with Options.TableRows (the kernel's), impute and
// summary show the first and last rows of a longer table and name the
// statement that gives them all, which still does; without it (the CLI)
// every row is shown. A table of 80,000 imputed cells was 12 MB of display
// data, past what Jupyter's servers forward.
func TestKernelTablesElided(t *testing.T) {
	const script = "data d = simulate(FullCopula(p = 8), n = 200, levels = 4, seed = 3, missing = 0.1)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 40, warmup = 10, chains = 2"
	dir := t.TempDir()
	full, short := New(Options{Dir: dir}), New(Options{Dir: dir, TableRows: 20})
	mustRun(t, full, script)
	mustRun(t, short, script)
	plainLines := func(out *recorder) []string {
		return captionedLines(t, out.displays[0])
	}
	for _, c := range []struct{ stmt, whole string }{
		{"impute m", `impute m to "cells.csv" writes every cell`},
		{"summary m.C", `summary m.C[Y1] shows one column's; export m to "draws.csv" writes every draw`},
		{"summary m", `summary m.C[Y1] shows one column's; export m to "draws.csv" writes every draw`},
	} {
		all, cut := plainLines(mustRun(t, full, c.stmt)), plainLines(mustRun(t, short, c.stmt))
		rows := len(all) - 1
		if rows <= 20 {
			t.Fatalf("%s: %d rows, the test needs more than 20", c.stmt, rows)
		}
		note := fmt.Sprintf("(20 of %d rows shown, the first 10 and the last 10: %s)", rows, c.whole)
		if len(cut) != 1+20+1+1 || cut[len(cut)-1] != note {
			t.Errorf("%s: %d lines ending %q, want 23 ending %q", c.stmt, len(cut), cut[len(cut)-1], note)
			continue
		}
		if !slices.Equal(cut[:11], all[:11]) || !slices.Equal(cut[12:22], all[len(all)-10:]) {
			t.Errorf("%s: the elided table is not the first and last rows of the whole one", c.stmt)
		}
		if !strings.HasPrefix(strings.TrimSpace(cut[11]), "…") {
			t.Errorf("%s: no gap row: %q", c.stmt, cut[11])
		}
	}
	// The value of m.C, a list of posterior means, is cut the same way (print
	// and a cell's result write the same text).
	want := `  … (20 of 28 shown, the first 10 and the last 10: summary m.C[Y1] shows one column's; export m to "draws.csv" writes every draw)`
	if out := mustRun(t, short, "print m.C"); !strings.Contains(out.text(), "\n"+want+"\n") || strings.Count(out.text(), "(sd ") != 20 {
		t.Errorf("m.C in the kernel:\n%s", out.text())
	}
	if out := mustRun(t, full, "print m.C"); strings.Count(out.text(), "(sd ") != 28 {
		t.Errorf("m.C in the CLI:\n%s", out.text())
	}
	if lines := plainLines(mustRun(t, short, "summary m.C[Y1]")); len(lines) != 1+7 {
		t.Errorf("summary m.C[Y1]: %d lines, want a header and 7 rows", len(lines))
	}
	// A data set's summary (a row per column) is cut the same way.
	tiny := New(Options{Dir: dir, TableRows: 4})
	mustRun(t, tiny, "data d = simulate(FullCopula(p = 8), n = 50, levels = 3)")
	for _, stmt := range []string{"summary d", "show d"} {
		out := mustRun(t, tiny, stmt)
		lines := plainLines(&recorder{displays: out.displays[len(out.displays)-1:]})
		if len(lines) != 1+4+1+1 || lines[len(lines)-1] != "(4 of 8 rows shown, the first 2 and the last 2: copulang run prints every column)" {
			t.Errorf("%s with TableRows 4:\n%s", stmt, strings.Join(lines, "\n"))
		}
	}
	mustRun(t, short, `impute m to "cells.csv"`)
	cells := readCSV(t, filepath.Join(dir, "cells.csv"))
	if want := len(plainLines(mustRun(t, full, "impute m"))); len(cells) != want {
		t.Errorf("cells.csv has %d lines, want every cell: %d", len(cells), want)
	}
}

// TestImputedProbsInLevelOrder: the probs object of cells.csv lists the
// levels in their order; a Go map wrote them sorted as text, "1", "10",
// "11", "12", "2", ….
func TestImputedProbsInLevelOrder(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 2), n = 300, levels = 12, seed = 4, missing = 0.05)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n"+
		`impute m to "cells.csv"`)
	cells := readCSV(t, filepath.Join(dir, "cells.csv"))
	longest := 0
	for _, row := range cells[1:] {
		dec := json.NewDecoder(strings.NewReader(row[len(row)-1]))
		dec.Token() // {
		prev, n := math.Inf(-1), 0
		for dec.More() {
			key, _ := dec.Token()
			dec.Token() // its probability
			v, err := strconv.ParseFloat(key.(string), 64)
			if err != nil || v <= prev {
				t.Fatalf("probs %s: level %v after %v", row[len(row)-1], key, prev)
			}
			prev, n = v, n+1
		}
		longest = max(longest, n)
	}
	if longest < 10 {
		t.Fatalf("no cell drew 10 or more levels (at most %d): the test needs them", longest)
	}
}

// TestImputeFilesHoldObservedValuesExactly: the files impute writes hold
// each imputed cell of a numeric column as one of the column's observed
// values, exactly: an income of 54091.04 was written 54091, and values
// that agree in 6 significant digits (54091.01 and 54091.02) were written
// alike, so a completed data set held values no respondent gave and the
// probs object of a cell named a level twice (JSON keeps one of them). A
// table on the screen still shows 6 digits.
func TestImputeFilesHoldObservedValuesExactly(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("income,band\n")
	observed := map[float64]bool{}
	for i := range 300 {
		income := 54091 + 0.01*float64(i) // 6 significant digits tell ten of them apart at most
		if i == 299 {
			income = 1234567.89 // 1.23457e+06 in 6 digits
		}
		cell := strconv.FormatFloat(income, 'f', -1, 64)
		if i%10 == 5 {
			cell = "NA"
		} else {
			observed[income] = true
		}
		fmt.Fprintf(&csv, "%s,%d\n", cell, i/60)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = load(\"d.csv\")\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n"+
		`impute m to "cells.csv", draws = "cell_draws.csv"`)
	isObserved := func(where, text string) {
		t.Helper()
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || !observed[v] {
			t.Errorf("%s: %q is not an observed income", where, text)
		}
	}
	cells := readCSV(t, filepath.Join(dir, "cells.csv"))
	if len(cells)-1 != 30 {
		t.Fatalf("cells.csv has %d rows, want the 30 missing cells", len(cells)-1)
	}
	for _, row := range cells[1:] {
		for _, q := range row[4:7] { // q5, q50, q95
			isObserved("cells.csv row "+row[0], q)
		}
		dec := json.NewDecoder(strings.NewReader(row[8]))
		dec.Token() // {
		keys := map[string]bool{}
		for dec.More() {
			key, _ := dec.Token()
			dec.Token() // its probability
			if keys[key.(string)] {
				t.Errorf("probs of row %s names level %s twice", row[0], key)
			}
			keys[key.(string)] = true
			isObserved("probs of row "+row[0], key.(string))
		}
	}
	draws := readCSV(t, filepath.Join(dir, "cell_draws.csv"))
	for _, row := range draws[1:] {
		for _, v := range row[2:] {
			isObserved("cell_draws.csv", v)
		}
	}
	// The table on the screen keeps 6 significant digits.
	out := mustRun(t, s, "impute m")
	if plain, _ := out.displays[0]["text/plain"].(string); !strings.Contains(plain, " 54091.") && !strings.Contains(plain, " 54092.") && !strings.Contains(plain, " 54093.") {
		t.Errorf("the table shows no income of 6 digits: %q", plain)
	}
}

// TestDataBoundAgain: once the name of a model's data is bound to other
// data, plot rmse against that name is refused (the new truth is not the
// one the model was fitted to; it compared with the old one silently), and
// impute and show say which data they mean.
func TestDataBoundAgain(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data a = simulate(FactorCopula(p = 3, k = 1), n = 100, levels = 3, seed = 1, missing = 0.1)
model m { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit m, iter = 20, warmup = 10, chains = 1
data a = simulate(FactorCopula(p = 3, k = 1), n = 100, levels = 3, seed = 9)`)
	if _, err := s.Execute(context.Background(), "plot rmse m vs a", &recorder{}); err == nil || !strings.Contains(err.Error(), "held before it was bound again") {
		t.Errorf("plot rmse m vs a after a was bound again: %v", err)
	}
	if b, ok := s.Inspect("m", 0, 0); !ok || !strings.Contains(b["text/plain"].(string), "a names other data now") {
		t.Errorf("inspecting m does not say which data a is: %v", b)
	}
	for _, cell := range []string{"impute m", "show m"} {
		if out := mustRun(t, s, cell); !strings.Contains(out.text(), "a (as bound when m was declared; a names other data now)") {
			t.Errorf("%s does not say which data a is:\n%s", cell, out.text())
		}
	}
}

// TestImputeCaptionOfOneDraw: a fit of one kept draw says so in the
// singular ("each from 1 draws" before).
func TestImputeCaptionOfOneDraw(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, fitFileSetup+"fit m with gibbs, iter = 1, warmup = 1, chains = 1, seed = 1\nimpute m")
	if text := out.text(); !strings.Contains(text, "each from 1 draw") || strings.Contains(text, "1 draws") {
		t.Errorf("impute after a fit of one draw:\n%s", text)
	}
}

// TestImputeCaptionCountsColumnsInModelOrder: the caption's count of each
// column's missing cells, and its list of the continuous columns whose mode
// is NA, follow the model's columns, Y1, Y2, …, Y12; they were sorted as
// text, Y10, Y11, Y12, Y1, Y2, … (found by the big-data review, where 40
// columns were listed so).
func TestImputeCaptionCountsColumnsInModelOrder(t *testing.T) {
	want := []string{"Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "Y10", "Y11", "Y12"}
	for _, tc := range []struct {
		levels int
		list   *regexp.Regexp // the list of columns; a column is a name before ':' or ','
	}{
		{3, regexp.MustCompile(`in all; ((?:Y\d+: \d+, )*Y\d+: \d+)`)},
		{100, regexp.MustCompile(`mode and p_mode are NA for ((?:Y\d+, )*Y\d+)`)},
	} {
		s := newTestSession(t)
		out := mustRun(t, s, fmt.Sprintf(`data d = simulate(FactorCopula(p = 12, k = 1), n = 100, levels = %d, seed = 2, missing = 0.1)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit m, iter = 20, warmup = 10, chains = 1
impute m`, tc.levels))
		m := tc.list.FindStringSubmatch(out.text())
		if m == nil {
			t.Fatalf("levels = %d: no list of columns in the caption:\n%s", tc.levels, out.text())
		}
		var order []string
		for _, part := range strings.Split(m[1], ", ") {
			order = append(order, strings.SplitN(part, ":", 2)[0])
		}
		if !slices.Equal(order, want) {
			t.Errorf("levels = %d: columns listed in the order %v, want %v", tc.levels, order, want)
		}
	}
}

// TestAppendJSONFloatIsJSONs: the probabilities of impute's file are
// written by appendJSONFloat, byte for byte as json.Marshal wrote them.
func TestAppendJSONFloatIsJSONs(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, 0.5, 0.005, 1e-6, 9.99999e-7, 1e-7, 1.5e-9, 0.333333, 0.999999,
		123456.789, 1e20, 1e21, 2.5e22, -1e-7, -0.25, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat([]byte("x"), v); string(got) != "x"+string(want) {
			t.Errorf("appendJSONFloat(%v) = %q, json.Marshal %q", v, got[1:], want)
		}
	}
}
