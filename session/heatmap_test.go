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
	"github.com/copulang/copulang/figure"
)

// writeBlockCSV writes n rows of nine ordinal columns in three blocks,
// a1..a3, b1..b3 and c1..c3, each block's latent values sharing a factor
// (correlation 0.64 within a block, 0 between), cut into three levels; the
// file interleaves the blocks (a1, b1, c1, a2, ...), as a questionnaire
// mixes its themes. Fixed seed.
func writeBlockCSV(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(26, 7))
	var b strings.Builder
	var names []string
	for k := 1; k <= 3; k++ {
		for _, block := range "abc" {
			names = append(names, fmt.Sprintf("%c%d", block, k))
		}
	}
	b.WriteString(strings.Join(names, ",") + "\n")
	for range n {
		factor := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		row := make([]string, len(names))
		for j := range names {
			z := 0.8*factor[j%3] + 0.6*rng.NormFloat64()
			level := 1
			switch {
			case z > 0.5:
				level = 3
			case z > -0.5:
				level = 2
			}
			row[j] = fmt.Sprint(level)
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listedColumns is the order a heatmap's text lists its columns in.
func listedColumns(t *testing.T, text string) []string {
	t.Helper()
	m := regexp.MustCompile(`; columns ([^;\n]+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the text lists no columns:\n%s", text)
	}
	return strings.Split(m[1], ", ")
}

// TestPlotHeatmapOrderedByDependence: plot heatmap ..., order =
// dependence draws the posterior mean of C or of the partial correlations
// with columns that depend side by side (three blocks whose columns the
// file interleaves come out as blocks), says so in its title and text,
// and lists the columns in the order; plot heatmap sim, order =
// dependence orders a simulation's truth by the truth; without the
// setting, or with order = columns, the heatmap is in column order and
// says nothing of an order. The within-block correlations are 0.64 on the
// latent scale and 0 between; with 300 rows their posterior means are
// within about 0.05 (a few posterior standard deviations) of that, so the
// blocks cannot be mistaken.
func TestPlotHeatmapOrderedByDependence(t *testing.T) {
	dir := t.TempDir()
	writeBlockCSV(t, filepath.Join(dir, "blocks.csv"), 300)
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("blocks.csv")
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 100, warmup = 50, chains = 2, seed = 1`)
	for _, member := range []string{"C", "partial"} {
		cell := "plot heatmap m." + member + ", order = dependence"
		out := mustRun(t, s, cell)
		if out.images() != 1 {
			t.Fatalf("%s: %d images", cell, out.images())
		}
		text := out.text()
		if want := `"posterior mean of m.` + member + `, ordered by dependence"`; !strings.Contains(text, want) {
			t.Errorf("%s: the text does not name the title %s:\n%s", cell, want, text)
		}
		cols := listedColumns(t, text)
		blocks := ""
		for _, c := range cols {
			if b := c[:1]; !strings.HasSuffix(blocks, b) {
				blocks += b
			}
		}
		if len(cols) != 9 || len(blocks) != 3 {
			t.Errorf("%s: columns %v, want each block of three side by side", cell, cols)
		}
	}
	for _, cell := range []string{"plot heatmap m.C", "plot heatmap m.C, order = columns"} {
		out := mustRun(t, s, cell)
		if text := out.text(); strings.Contains(text, "dependence") || strings.Contains(text, "; columns ") {
			t.Errorf("%s: a heatmap in column order says:\n%s", cell, text)
		}
	}

	mustRun(t, s, "data sim = simulate(FactorCopula(p = 12, k = 3), n = 100, levels = 3, seed = 4)")
	text := mustRun(t, s, "plot heatmap sim, order = dependence").text()
	d := s.data["sim"]
	o := figure.OrderMatrix(len(d.Names), d.Truth.C)
	if !o.Reordered() {
		t.Fatalf("the truth of sim is best in column order: pick another seed")
	}
	var want []string
	for _, c := range o.Order {
		want = append(want, d.Names[c])
	}
	if got := listedColumns(t, text); strings.Join(got, ",") != strings.Join(want, ",") || !strings.Contains(text, `"true C of sim, ordered by dependence"`) {
		t.Errorf("plot heatmap sim, order = dependence lists %v, want the truth's order %v:\n%s", got, want, text)
	}
}

// writeGroupsCSV writes n rows of each of two groups (g = 1, 2) of five
// ordinal columns x1, n1, x2, n2, x3: in group 1 the x columns share a
// factor (latent correlation 0.72), in group 2 a weaker one (0.16); the n
// columns are noise in both. The file interleaves x and n, so that an
// order by dependence moves the x columns together. Fixed seed.
func writeGroupsCSV(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(27, 3))
	var b strings.Builder
	b.WriteString("g,x1,n1,x2,n2,x3\n")
	level := func(z float64) int {
		switch {
		case z > 0.5:
			return 3
		case z > -0.5:
			return 2
		}
		return 1
	}
	for g, loading := range []float64{0.85, 0.4} {
		for range n {
			f := rng.NormFloat64()
			x := func() int { return level(loading*f + math.Sqrt(1-loading*loading)*rng.NormFloat64()) }
			fmt.Fprintf(&b, "%d,%d,%d,%d,%d,%d\n", g+1, x(), level(rng.NormFloat64()), x(), level(rng.NormFloat64()), x())
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// groupsSession fits a model to each group of writeGroupsCSV's file,
// which it writes in dir.
func groupsSession(t *testing.T) (s *Session, dir string) {
	t.Helper()
	dir = t.TempDir()
	writeGroupsCSV(t, filepath.Join(dir, "groups.csv"), 250)
	s = New(Options{Dir: dir})
	mustRun(t, s, `data d = load("groups.csv")
data one = d[x1, n1, x2, n2, x3] where g == 1
data two = d[x1, n1, x2, n2, x3] where g == 2
model a { Y = one; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model b { Y = two; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit a with gibbs, iter = 150, warmup = 50, chains = 2, seed = 1
fit b with gibbs, iter = 150, warmup = 50, chains = 2, seed = 2`)
	return s, dir
}

// TestHeatmapOfADifferenceAgreesWithSummary: the heatmap of a.C - b.C (and
// of a.partial - b.partial) draws, for every pair, the mean that summary
// a.C - b.C writes to its CSV file, to the last digit, and frames exactly
// the pairs whose interval there (at the same prob, 0.9 and 0.5) excludes
// 0. The test needs framed and unframed pairs: with 250 rows a group, the
// differences of the x columns' correlations (about 0.56 on the latent
// scale) are many posterior standard deviations (about 0.05 each) from 0,
// those of the noise columns about one.
func TestHeatmapOfADifferenceAgreesWithSummary(t *testing.T) {
	s, dir := groupsSession(t)
	for _, c := range []struct {
		part string
		prob float64
	}{{"C", 0.9}, {"C", 0.5}, {"partial", 0.9}} {
		a, b := &compiler.Ref{Name: "a", Member: c.part}, &compiler.Ref{Name: "b", Member: c.part}
		h, err := s.heatmapDifference(&compiler.PlotStmt{Kind: "heatmap", Target: *a, Minus: b, Prob: c.prob})
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("d-%s-%g.csv", c.part, c.prob)
		mustRun(t, s, fmt.Sprintf(`summary a.%s - b.%s to %q, prob = %g`, c.part, c.part, path, c.prob))
		rows := readCSV(t, filepath.Join(dir, path))
		col := map[string]int{}
		for k, name := range rows[0] {
			col[name] = k
		}
		lo, hi := intervalColumns(c.prob)
		at := map[string]int{}
		for i, n := range h.names {
			at[n] = i
		}
		p, framed := len(h.names), 0
		for _, r := range rows[1:] {
			i, j := at[r[col["row"]]], at[r[col["column"]]]
			mean, _ := strconv.ParseFloat(r[col["mean"]], 64)
			l, _ := strconv.ParseFloat(r[col[lo]], 64)
			u, _ := strconv.ParseFloat(r[col[hi]], 64)
			for _, cell := range []int{i*p + j, j*p + i} {
				if h.mean[cell] != mean {
					t.Errorf("%s at %g: heatmap [%s, %s] %v, summary's mean %v", c.part, c.prob, h.names[i], h.names[j], h.mean[cell], mean)
				}
				if want := l > 0 || u < 0; h.framed[cell] != want {
					t.Errorf("%s at %g: [%s, %s] framed %v, summary's interval [%v, %v]", c.part, c.prob, h.names[i], h.names[j], h.framed[cell], l, u)
				}
			}
			if l > 0 || u < 0 {
				framed++
			}
		}
		if len(rows)-1 != p*(p-1)/2 || framed == 0 || framed == p*(p-1)/2 {
			t.Errorf("%s at %g: %d rows, %d framed: the test needs some of each", c.part, c.prob, len(rows)-1, framed)
		}
	}
}

// TestPlotHeatmapOfADifference draws a.C - b.C as a figure with the text
// beside it: the difference's notes (the groups share no row), how many
// pairs are framed at which interval, and the colour scale; order =
// dependence orders it by both fits' mean |value| (the x columns
// together), order = a by a's.
func TestPlotHeatmapOfADifference(t *testing.T) {
	s, _ := groupsSession(t)
	out := mustRun(t, s, "plot heatmap a.C - b.C, prob = 0.8")
	if out.images() != 1 {
		t.Fatalf("%d images", out.images())
	}
	text := out.text()
	for _, want := range []string{
		"note: the data of a and b share no row of groups.csv, so their posteriors are independent",
		"heatmap of a.C − b.C: the posterior mean of each paired difference; ",
		"framed, their central 80% interval excluding 0 (",
		"The colour scale runs from -",
		"Were there no difference at all, a central 80% interval would exclude 0 in about 20% of pairs (2 of 10) by chance.",
		`Heatmap of "posterior mean of a.C − b.C": 5×5`,
		"pairs framed (central 80% interval excludes 0)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not say %q:\n%s", want, text)
		}
	}
	// Where chance alone would frame less than half a pair, the text does
	// not round that to 0 pairs.
	if text := mustRun(t, s, "plot heatmap a.C - b.C, prob = 0.99").text(); !strings.Contains(text, "in about 1% of pairs (fewer than 1 of 10) by chance.") {
		t.Errorf("at prob = 0.99 the chance count is not fewer than 1:\n%s", text)
	}
	// The x columns depend in both groups, more in a. Ordered by both
	// fits' dependence, the text gives the mean |value| of neighbouring
	// columns of both fits' |means| (which the order raised), not of the
	// differences.
	text = mustRun(t, s, "plot heatmap a.C - b.C, order = dependence").text()
	ma, mb := s.models["a"].Fit.MeanC(), s.models["b"].Fit.MeanC()
	both := make([]float64, len(ma))
	for k := range both {
		both[k] = (math.Abs(ma[k]) + math.Abs(mb[k])) / 2
	}
	o := figure.OrderMatrix(5, both)
	if want := fmt.Sprintf("ordered by dependence in a.C and b.C: mean |value| of neighbouring columns %.2f, %.2f in column order", o.Neighbours, o.ColumnNeighbours); !strings.Contains(text, want) {
		t.Errorf("the order by both fits' dependence does not say %q:\n%s", want, text)
	}
	for _, cell := range []string{"plot heatmap a.C - b.C, order = dependence", "plot heatmap a.C - b.C, order = a", "plot heatmap b.C, order = a"} {
		text := mustRun(t, s, cell).text()
		cols := strings.Join(listedColumns(t, text), ",")
		if !strings.Contains(cols, "x") || !regexp.MustCompile(`(^|,)x\d,x\d,x\d(,|$)`).MatchString(cols) {
			t.Errorf("%s: columns %s, want x1, x2, x3 side by side:\n%s", cell, cols, text)
		}
	}
}

// TestHeatmapSharesAnotherFitsOrder: plot heatmap b.C, order = a draws b's
// posterior mean in the order plot heatmap a.C, order = dependence picks
// (matched by name, though b's data order their columns otherwise), and
// says whose order it is; so do b.partial with order = a (a's partial)
// and order = a.C, and a simulation's truth with order = a fit of it.
// When the other keeps column order the heatmap takes it and says so.
func TestHeatmapSharesAnotherFitsOrder(t *testing.T) {
	s, _ := groupsSession(t)
	mustRun(t, s, `data three = d[x3, n2, x2, n1, x1] where g == 2
model c { Y = three; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit c with gibbs, iter = 150, warmup = 50, chains = 2, seed = 3`)
	for _, c := range []struct{ cell, own, title string }{
		{"plot heatmap b.C, order = a", "plot heatmap a.C, order = dependence", `"posterior mean of b.C, ordered by dependence in a.C"`},
		{"plot heatmap c.C, order = a", "plot heatmap a.C, order = dependence", `"posterior mean of c.C, ordered by dependence in a.C"`},
		{"plot heatmap c.partial, order = a", "plot heatmap a.partial, order = dependence", `"posterior mean of c.partial, ordered by dependence in a.partial"`},
		{"plot heatmap c.partial, order = a.C", "plot heatmap a.C, order = dependence", `"posterior mean of c.partial, ordered by dependence in a.C"`},
		{"plot heatmap a.C - c.C, order = a", "plot heatmap a.C, order = dependence", `"posterior mean of a.C − c.C, ordered by dependence in a.C"`},
	} {
		own := listedColumns(t, mustRun(t, s, c.own).text())
		text := mustRun(t, s, c.cell).text()
		if got := listedColumns(t, text); strings.Join(got, ",") != strings.Join(own, ",") {
			t.Errorf("%s lists %v, want %s's order %v", c.cell, got, c.own, own)
		}
		if !strings.Contains(text, c.title) {
			t.Errorf("%s: the text does not name the title %s:\n%s", c.cell, c.title, text)
		}
		// The mean |value| of neighbouring columns in the order is the
		// other's, as its own heatmap gives it (of the difference's
		// means it read 0.06 where a.C's own said 0.34 on the GSS).
		if got, want := neighboursInOrder(t, text), neighboursInOrder(t, mustRun(t, s, c.own).text()); got != want {
			t.Errorf("%s: mean |value| of neighbouring columns in the order %s, want %s's %s:\n%s", c.cell, got, c.own, want, text)
		}
	}

	mustRun(t, s, `data sim = simulate(FactorCopula(p = 12, k = 3), n = 100, levels = 3, seed = 4)
model f { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 3) }
fit f, iter = 60, warmup = 30, chains = 2, seed = 1`)
	sim := listedColumns(t, mustRun(t, s, "plot heatmap sim, order = dependence").text())
	if got := listedColumns(t, mustRun(t, s, "plot heatmap f.C, order = sim").text()); strings.Join(got, ",") != strings.Join(sim, ",") {
		t.Errorf("plot heatmap f.C, order = sim lists %v, want the truth's order %v", got, sim)
	}

	// Two columns, whose order is column order (its reverse is as
	// good): a heatmap in its order is in column order, which the note
	// and title say.
	mustRun(t, s, `data e = d[x1, x2] where g == 1
model k { Y = e; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit k with gibbs, iter = 100, warmup = 50, chains = 2, seed = 1`)
	mean := s.models["k"].Fit.MeanC()
	if figure.OrderMatrix(2, mean).Reordered() {
		t.Fatalf("k's mean of two columns is ordered otherwise")
	}
	text := mustRun(t, s, "plot heatmap k.C, order = k").text()
	for _, want := range []string{"note: k.C keeps its column order, which no order by dependence betters", `"posterior mean of k.C, ordered as k.C's columns"`} {
		if !strings.Contains(text, want) {
			t.Errorf("plot heatmap k.C, order = k does not say %q:\n%s", want, text)
		}
	}
}

// TestDifferenceScale: the end of a difference's colour scale is the
// largest |mean difference| rounded up to a short number, at most 2 (the
// widest a difference of correlations runs), and 1 when there is none.
func TestDifferenceScale(t *testing.T) {
	for _, c := range []struct{ largest, want float64 }{
		{0.689, 0.8}, {0.484, 0.5}, {0.5, 0.5}, {0.3, 0.3}, {0.31, 0.4}, {0.07, 0.08}, {0.101, 0.15},
		{1.2, 1.5}, {1.9, 2}, {2, 2}, {3, 2}, {0, 1}, {math.NaN(), 1}, {math.Inf(1), 1},
	} {
		if got := differenceScale(c.largest); got != c.want {
			t.Errorf("differenceScale(%v) = %v, want %v", c.largest, got, c.want)
		}
	}
}

// TestPlotHeatmapRefusals: what a heatmap cannot draw or be ordered by is
// an error at the place that says so, checked before the cell runs (with
// the session's data, whose derived rows the checker knows).
func TestPlotHeatmapRefusals(t *testing.T) {
	s, _ := groupsSession(t)
	mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 1)
data low = sim where Y1 <= 2
data three = d[x1, x2, x3] where g == 1
model e { Y = three; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit e with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1`)
	for _, c := range []struct{ cell, want string }{
		{"plot heatmap a.C, order = low", "1:27: data low has no true C whose order to share: its rows were chosen from sim by their observed values"},
		{"plot heatmap a.C, order = d", "1:27: data d was loaded, not simulated: it has no true C whose order to share"},
		{"plot heatmap a.C, order = e", "1:27: order = e takes the order of e's columns, which are not a's: e has x1, x2, x3 and a has x1, n1, x2, n2, x3"},
		{"plot heatmap a.C - e.C", "1:20: plot heatmap of a difference draws one row and column per column of both models, in any order; a has x1, n1, x2, n2, x3 and e has x1, x2, x3"},
		{"plot heatmap a.C - a.C", "1:20: a.C − a.C is 0 in every entry"},
		{"plot heatmap a.C - b.partial", "1:20: a.C selects correlations and b.partial partial correlations"},
		{"plot heatmap a.C, prob = 0.8", "1:19: plot heatmap takes prob = P only for a difference"},
	} {
		_, err := s.Execute(context.Background(), c.cell, &figureFiles{})
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(strings.Join(se.Traceback, "\n"), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.cell, err, c.want)
		}
	}
}

// neighboursInOrder returns the mean |value| of neighbouring columns in
// a reordered heatmap's order, as its description gives it.
func neighboursInOrder(t *testing.T, text string) string {
	t.Helper()
	m := regexp.MustCompile(`mean \|value\| of neighbouring columns (-?[0-9.]+), `).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no mean |value| of neighbouring columns in:\n%s", text)
	}
	return m[1]
}
