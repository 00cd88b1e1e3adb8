package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/copulang/copulang/compiler"
)

// predictRows parses the table of one predict: level → its columns (p,
// qLO, qHI, mcse, marginal and, with a crosstab, rows and share).
func predictRows(t *testing.T, b MimeBundle) map[string][]float64 {
	t.Helper()
	text, _ := b["text/plain"].(string)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	out := map[string][]float64{}
	header := -1
	for k, l := range lines {
		if strings.HasPrefix(l, "level ") {
			header = k
		}
	}
	if header < 0 {
		t.Fatalf("no table in %q", text)
	}
	for _, l := range lines[header+1:] {
		f := strings.Fields(l)
		var nums []float64
		for _, x := range f[1:] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatalf("cell %q of %q", x, l)
			}
			nums = append(nums, v)
		}
		out[f[0]] = nums
	}
	return out
}

// correlatedCSV writes n rows of x and y, cut at their quartiles from a
// bivariate normal with correlation rho, and w, independent noise cut
// into 3 levels.
func correlatedCSV(t *testing.T, dir string, n int, rho float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	cut := func(z float64, cuts []float64) int {
		l := 1
		for _, c := range cuts {
			if z > c {
				l++
			}
		}
		return l
	}
	quartiles := []float64{-0.6745, 0, 0.6745}
	var b strings.Builder
	b.WriteString("x,y,w\n")
	for range n {
		x := rng.NormFloat64()
		y := rho*x + math.Sqrt(1-rho*rho)*rng.NormFloat64()
		w := rng.NormFloat64()
		fmt.Fprintf(&b, "%d,%d,%d\n", cut(x, quartiles), cut(y, quartiles), cut(w, []float64{-0.43, 0.43}))
	}
	if err := os.WriteFile(filepath.Join(dir, "xy.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPredictFollowsAStrongCorrelation: on 2,000 rows of two columns with
// latent correlation 0.8, the predicted distribution of y moves up with x:
// P(y = 4 | x = 4) far above P(y = 4 | x = 1), and the predicted mean of y
// rises with x. Given x = 2 (about 500 matching rows), each level's
// predicted probability agrees with its share among those rows within 4
// binomial standard errors of that share (√(share(1 − share)/rows), 0.01
// to 0.02 here): a loose check, since both estimate the same conditional
// probability under a Gaussian copula and the model's own uncertainty is
// smaller than the crosstab's. The same statement gives the same table.
func TestPredictFollowsAStrongCorrelation(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model; skipped under -short")
	}
	dir := t.TempDir()
	correlatedCSV(t, dir, 2000, 0.8)
	s := New(Options{Dir: dir})
	mustRun(t, s, `data xy = load("xy.csv")
model m { Y = xy; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 300, warmup = 150, chains = 2, seed = 3`)
	low := predictRows(t, mustRun(t, s, "predict m[y] given x = 1").displays[0])
	high := predictRows(t, mustRun(t, s, "predict m[y] given x = 4").displays[0])
	if !(high["4"][0] > low["4"][0]+0.4 && low["1"][0] > high["1"][0]+0.4) {
		t.Errorf("P(y = 4 | x) = %v at x = 1, %v at x = 4; P(y = 1 | x) = %v, %v", low["4"][0], high["4"][0], low["1"][0], high["1"][0])
	}
	mean := func(rows map[string][]float64) float64 {
		m := 0.0
		for l := 1; l <= 4; l++ {
			m += float64(l) * rows[strconv.Itoa(l)][0]
		}
		return m
	}
	if !(mean(high) > mean(low)+1.5) {
		t.Errorf("predicted mean of y: %.3f given x = 1, %.3f given x = 4", mean(low), mean(high))
	}
	out := mustRun(t, s, "predict m[y] given x = 2")
	mid := predictRows(t, out.displays[0])
	total := 0.0
	for l := 1; l <= 4; l++ {
		total += mid[strconv.Itoa(l)][5]
	}
	if total < 400 {
		t.Fatalf("only %v rows have x = 2", total)
	}
	sum := 0.0
	for l := 1; l <= 4; l++ {
		row := mid[strconv.Itoa(l)]
		p, share := row[0], row[6]
		sum += p
		se := math.Sqrt(share * (1 - share) / total)
		if math.Abs(p-share) > 4*se {
			t.Errorf("y = %d given x = 2: predicted %.3f, share %.3f of %v rows (se %.3f)", l, p, share, total, se)
		}
		if !(row[1] <= p && p <= row[2]) {
			t.Errorf("y = %d: p %.3f outside its interval [%.3f, %.3f]", l, p, row[1], row[2])
		}
	}
	if math.Abs(sum-1) > 0.003 {
		t.Errorf("the probabilities sum to %.3f", sum)
	}
	if !strings.Contains(out.stdout.String(), "y given x = 2: most likely") {
		t.Errorf("no line under the table: %q", out.stdout.String())
	}
	// The line's comparisons are with all rows, and say so: "in the
	// data" read as the matching rows, whose shares the table gives.
	if line := out.stdout.String(); !regexp.MustCompile(`its median\) = [0-9.]+ \([0-9.]+ over all rows\); predicted mean \S+ \(\S+ over all rows\)`).MatchString(line) {
		t.Errorf("the line does not say its comparisons are over all rows: %q", line)
	}
	// Two given columns: GHK, deterministic, and w (noise) barely matters.
	a := mustRun(t, s, "predict m[y] given x = 4, w = 1")
	b := mustRun(t, s, "predict m[y] given x = 4, w = 1")
	if a.text() != b.text() {
		t.Errorf("the same predict gave two tables:\n%s\n%s", a.text(), b.text())
	}
	if !strings.Contains(a.text(), "GHK with 200 replicates per draw, 10 random shifts of a 20-point lattice (the fit's seed, 3)") {
		t.Errorf("no GHK note: %s", a.text())
	}
	// reps = sets the replicates, and the caption says so.
	if c := mustRun(t, s, "predict m[y] given x = 4, w = 1, reps = 50"); !strings.Contains(c.text(), "GHK with 50 replicates per draw, 10 random shifts of a 5-point lattice") {
		t.Errorf("reps = 50 not used or not said: %s", c.text())
	}
	if ghk := predictRows(t, a.displays[0]); math.Abs(ghk["4"][0]-high["4"][0]) > 0.05 {
		t.Errorf("P(y = 4 | x = 4, w = 1) = %.3f, P(y = 4 | x = 4) = %.3f: w is independent noise", ghk["4"][0], high["4"][0])
	}
	// Nothing given: the marginal shares, exactly.
	none := predictRows(t, mustRun(t, s, "predict m[y]").displays[0])
	for l, row := range none {
		if row[0] != row[4] || row[3] != 0 {
			t.Errorf("nothing given, level %s: p %v, marginal %v, mcse %v", l, row[0], row[4], row[3])
		}
	}
}

// A given value the column never had is an error that names the nearest
// observed values; a text column takes its labels.
func TestPredictGivenValues(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model; skipped under -short")
	}
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir})
	mustRun(t, s, setup+"model m { Y = s; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\nfit m, iter = 40, warmup = 20, chains = 1")
	if got := runErr(t, s, "predict m[degree] given income = 4.5"); !strings.Contains(got, "income = 4.5 is not an observed value of income") || !strings.Contains(got, "its values: 1, 2, 3, 4, 5, 6, 7") {
		t.Errorf("error %q", got)
	}
	// The caret is at the given value that is not observed, not at the
	// statement's start.
	if got := runErr(t, s, "predict m[degree] given sat = \"agree\", income = 4.5"); !strings.Contains(got, "1:40: income = 4.5 is not an observed value") {
		t.Errorf("error not at the value:\n%s", got)
	}
	// One matching row is a row.
	if out := mustRun(t, s, `predict m[degree] given age = 25`); !strings.Contains(out.text(), "rows, share: the 1 row of s with age = 25 and degree observed") {
		t.Errorf("predict given a value of one row:\n%s", out.text())
	}
	out := mustRun(t, s, `predict m[degree] given sat = "agree"`)
	if !strings.Contains(out.text(), `P(degree | sat = "agree")`) || !strings.Contains(out.text(), "rows, share: the 5 rows of s with sat = \"agree\" and degree observed") || !strings.Contains(out.text(), "fewer than 30") {
		t.Errorf("predict given a label:\n%s", out.text())
	}
	// age is continuous (every value once): the line gives its predicted
	// median, not its most probable value, which is often an extreme one.
	if out := mustRun(t, s, `predict m[age] given degree = 1`); !strings.Contains(out.stdout.String(), "age given degree = 1: predicted median ") || strings.Contains(out.stdout.String(), "most likely") {
		t.Errorf("the line of a continuous target: %q", out.stdout.String())
	}
	if out := mustRun(t, s, `predict m given sat = "agree", age = 25`); tablesShown(out) != 2 || out.images() != 2 {
		t.Errorf("predict m given two of four columns shows %d tables and %d figures, want 2 of each", tablesShown(out), out.images())
	}
	// Interrupted after its first table, predict says that one is shown.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{onStream: func(string) { cancel() }}
	_, err := s.Execute(ctx, `predict m given sat = "agree", age = 25`, rec)
	var se *Error
	if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" || !strings.Contains(se.Value, "interrupted predict m after 1 of its 2 tables, while that of income was made") || tablesShown(rec) != 1 {
		t.Errorf("predict interrupted after one table of two: %v, %d tables", err, tablesShown(rec))
	}
}

// tablesShown counts the displays of r that are tables (not figures).
func tablesShown(r *recorder) int {
	n := 0
	for _, d := range r.displays {
		if h, ok := d["text/html"].(string); ok && strings.Contains(h, "<table") {
			n++
		}
	}
	return n
}

// TestPredictDrawsItsFigure: a prediction given values shows, after its
// table, a figure of each level's probability with its interval, its share
// over all rows and, when rows match, among them; nothing given (the
// marginal) or a target of more levels than a figure names, no figure.
func TestPredictDrawsItsFigure(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data d = simulate(FullCopula(p = 3), n = 300, levels = 4, seed = 5)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m with gibbs, iter = 60, warmup = 30, chains = 2, seed = 1`)
	out := &figureFiles{}
	if _, err := s.Execute(context.Background(), "predict m[Y1] given Y2 = 4", out); err != nil {
		t.Fatal(err)
	}
	if len(out.names) != 1 || out.names[0] != "predict-m-Y1" {
		t.Fatalf("figures %v, want predict-m-Y1", out.names)
	}
	if want := `Prediction plot of "P(Y1 | Y2 = 4) under m": 4 levels, most likely `; !strings.HasPrefix(out.titles[0], want) ||
		!strings.Contains(out.titles[0], "crosses: the shares among the rows that have the given values") {
		t.Errorf("the figure's text is %q, want it to start %q and name the crosses", out.titles[0], want)
	}
	out = &figureFiles{}
	if _, err := s.Execute(context.Background(), "predict m[Y1]", out); err != nil {
		t.Fatal(err)
	}
	if len(out.names) != 0 {
		t.Errorf("predict with nothing given draws %v", out.names)
	}
}

func TestCompletePredict(t *testing.T) {
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir})
	mustRun(t, s, setup+"model m { Y = s[age, degree, sat, income]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	checkCompletions(t, s, []completionCase{
		{`predict `, []string{"m"}},
		{`predict m[de`, []string{"degree"}},
		{`predict m[degree] given `, []string{"age", "income", "sat"}},
		{`predict m[degree] given inc`, []string{"income"}},
		{`predict m[degree] given income = 5, `, []string{"age", "prob", "reps", "sat", "seed"}},
		{"predict m[degree] given income = 5,\n  s", []string{"sat", "seed"}},
		{"predict m[degree] given income = 5, r", []string{"reps"}},
		{`predict m[degree] given income = `, []string{"1", "2", "3", "4", "5", "6", "7"}},
		{`predict m[degree] given sat = `, []string{`"disagree"`, `"neutral"`, `"agree"`}},
		{`predict m[degree] given sat = "ne`, []string{"neutral"}},
		{`predict m[degree] given "sat" = "a`, []string{"agree"}},
		{`predict m given degree = 1, `, []string{"age", "income", "prob", "reps", "sat", "seed"}},
		{`predict m[degree] giv`, []string{"given"}},
		// A model declared in the same cell, on data bound before it or
		// loaded in the cell too: its columns after given, and the
		// values of the data's cells where the session holds them.
		{"model m2 { Y = s[age, sat, income]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\npredict m2[income] given ", []string{"age", "sat"}},
		{"model m2 { Y = s[age, sat, income]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\npredict m2[income] given sat = ", []string{`"disagree"`, `"neutral"`, `"agree"`}},
		{"model m2 { Y = s; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\npredict m2[age] given degree = ", []string{"0", "1", "2", "3", "4"}},
		{"data t = load(\"survey.csv\", drop = [sat])\nmodel m3 { Y = t; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\npredict m3[age] given ", []string{"degree", "income"}},
		{"data t = load(\"survey.csv\", drop = [sat])\nmodel m3 { Y = t; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\npredict m3[age] given income = ", nil},
	})
	if st, _ := s.IsComplete("predict m[degree] given"); st != "incomplete" {
		t.Errorf("IsComplete(predict m[degree] given) = %s, want incomplete", st)
	}
}

// TestPredictValueCheckedBeforeTheFit: a given number the column never
// had is a CheckError before anything in the cell runs, so that a script
// does not fail after a long fit; the values are those of the data the
// model was declared on, though its name is bound to other data since.
func TestPredictValueCheckedBeforeTheFit(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data d = simulate(FullCopula(p = 3), n = 200, levels = 4, seed = 5)
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }`)
	_, err := s.Execute(context.Background(), "fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\npredict m[Y1] given Y2 = 7", &recorder{})
	var se *Error
	if !errors.As(err, &se) || se.Name != "CheckError" || !strings.Contains(se.Value, "Y2 = 7 is not an observed value of Y2") {
		t.Fatalf("got %v, want a CheckError for Y2 = 7", err)
	}
	if s.models["m"].Fit != nil {
		t.Error("m was fitted before the error")
	}
	// d bound anew to data whose Y2 has only 1 and 2: m's values stay
	// those of the data it was declared on.
	mustRun(t, s, "fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n"+
		"data d = simulate(FullCopula(p = 3), n = 200, levels = 2, seed = 5)")
	if out := mustRun(t, s, "predict m[Y1] given Y2 = 4"); tablesShown(out) != 1 {
		t.Errorf("predict given an observed value of the model's data shows %d tables", tablesShown(out))
	}
}

// tailsCSV writes n rows of x and y, one latent normal cut into six
// levels (the lowest and highest beyond ∓cut, the middle four at −1, 0
// and 1), the same in both, so that a fit correlates them about 0.99,
// and w, independent, of three levels.
func tailsCSV(t *testing.T, dir, name string, n int, cut float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	var b strings.Builder
	b.WriteString("x,y,w\n")
	for range n {
		z := rng.NormFloat64()
		l := 2
		for _, c := range []float64{-1, 0, 1} {
			if z > c {
				l++
			}
		}
		switch {
		case z < -cut:
			l = 1
		case z > cut:
			l = 6
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", l, l, 1+rng.IntN(3))
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPredictLeavesOutDrawsWhereTheGivenValuesAreImpossible: x and y at
// opposite ends while a fit correlates them about 0.99 have probability
// 0 in floating point under some draws of C (the extreme levels beyond
// ∓2.2) or under all (beyond ∓2.6). Such draws are left out and the
// caption counts them; when every draw is such, the error says why, at
// the statement. Both stopped the statement before.
func TestPredictLeavesOutDrawsWhereTheGivenValuesAreImpossible(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two models; skipped under -short")
	}
	dir := t.TempDir()
	tailsCSV(t, dir, "some.csv", 1000, 2.2)
	tailsCSV(t, dir, "all.csv", 1000, 2.6)
	s := New(Options{Dir: dir})
	mustRun(t, s, `data some = load("some.csv")
data all = load("all.csv")
model a { Y = some; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model b { Y = all; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit a with gibbs, iter = 100, warmup = 400, chains = 2, seed = 1
fit b with gibbs, iter = 100, warmup = 400, chains = 2, seed = 1`)
	out := mustRun(t, s, "predict a[w] given x = 1, y = 6")
	m := regexp.MustCompile(`over (\d+) draws in 2 chains of C \((\d+) of the fit's 200 draws left out: under them the given values have probability 0 in floating point`).FindStringSubmatch(out.text())
	if m == nil {
		t.Fatalf("no draw left out, or not said:\n%s", out.text())
	}
	used, _ := strconv.Atoi(m[1])
	left, _ := strconv.Atoi(m[2])
	if !(left > 0 && left < 200 && used > 0 && used <= 200-left) {
		t.Errorf("%d draws used, %d left out of 200", used, left)
	}
	rows := predictRows(t, out.displays[0])
	sum := 0.0
	for _, row := range rows {
		sum += row[0]
	}
	if math.Abs(sum-1) > 0.003 {
		t.Errorf("the probabilities sum to %.3f", sum)
	}
	_, err := s.Execute(context.Background(), "predict b[w] given x = 1, y = 6", &recorder{})
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(se.Value, "x = 1, y = 6 have probability 0 in floating point under every one of the 200 kept draws of b's fit") ||
		!strings.Contains(strings.Join(se.Traceback, "\n"), "^") {
		t.Errorf("got %v, want the error that says why, with a caret", err)
	}
}

// TestPredictValueOfAManyValuedColumnCheckedBeforeTheFit: a given number
// that a column of more than compiler.MaxKnownValues distinct values never
// had is a CheckError before the cell runs too (it was found only when
// predict ran, after the fit); one it had passes the check.
func TestPredictValueOfAManyValuedColumnCheckedBeforeTheFit(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x,y\n")
	n := compiler.MaxKnownValues + 500
	for i := range n {
		fmt.Fprintf(&b, "%g,%d\n", float64(i)/4, i%3)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("many.csv")
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }`)
	for _, code := range []string{
		// the model declared before the cell, and in it
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\npredict m[y] given x = 0.3",
		"model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }\nfit m2 with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\npredict m2[y] given x = 0.3",
	} {
		_, err := s.Execute(context.Background(), code, &recorder{})
		var se *Error
		if !errors.As(err, &se) || se.Name != "CheckError" || !strings.Contains(se.Value, "x = 0.3 is not an observed value of x") ||
			!strings.Contains(strings.Join(se.Traceback, "\n"), "the nearest: 0, 0.25, 0.5, 0.75 (of 1500 values from 0 to 374.75)") {
			t.Errorf("%s: got %v, want a CheckError for x = 0.3 naming the nearest values", code, err)
		}
	}
	if s.models["m"].Fit != nil {
		t.Error("m was fitted before the error")
	}
	if out := mustRun(t, s, "fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\npredict m[y] given x = 0.25"); tablesShown(out) != 1 {
		t.Errorf("predict given an observed value shows %d tables", tablesShown(out))
	}
}

// TestPredictSaysWhenRepsChangeNothing: reps = and seed = set GHK's
// replicates, which a prediction given fewer than two columns has none
// of (it is exact); they were accepted and silently did nothing, so that
// a user who raised reps to shrink an error took it as done. A note says
// so, once; with two given columns there is no note.
func TestPredictSaysWhenRepsChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model; skipped under -short")
	}
	dir := t.TempDir()
	setup := surveyCSV(t, dir)
	s := New(Options{Dir: dir})
	mustRun(t, s, setup+"model m { Y = s; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\nfit m, iter = 40, warmup = 20, chains = 1")
	cases := []struct{ code, want string }{
		{"predict m[degree] given age = 25, reps = 1000",
			"note: reps = 1000 changes nothing here: with one given column each draw's probabilities are exact bivariate normal ones"},
		{"predict m given age = 25, reps = 1000, seed = 3",
			"note: reps = 1000 and seed = 3 change nothing here: with one given column"},
		{"predict m[degree], seed = 3",
			"note: seed = 3 changes nothing here: with nothing given the prediction is the column's shares, exactly"},
		{`predict m[degree] given age = 25, sat = "agree", reps = 1000`, ""},
		{"predict m[degree] given age = 25", ""},
	}
	for _, c := range cases {
		got := mustRun(t, s, c.code).stdout.String()
		notes := strings.Count(got, "note: ")
		switch {
		case c.want == "" && notes > 0:
			t.Errorf("%s: a note where reps = and seed = matter or are not written:\n%s", c.code, got)
		case c.want != "" && (!strings.Contains(got, c.want) || notes != 1):
			t.Errorf("%s: want the note %q once, got:\n%s", c.code, c.want, got)
		}
	}
}
