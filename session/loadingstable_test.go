package session

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

// loadingsScript fits a small seeded factor model of two factors, for
// the loadings laid out as a matrix.
const loadingsScript = "data fsim = simulate(FactorCopula(p = 5, k = 2), n = 200, levels = 4, seed = 4)\n" +
	"model f { Y = fsim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n" +
	"fit f with px, iter = 150, warmup = 100, chains = 2, seed = 1\n"

// loadingsSession runs loadingsScript in a session of a new directory.
func loadingsSession(t *testing.T) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	s := New(Options{Dir: dir, Version: "9.9.9"})
	mustRun(t, s, loadingsScript)
	return s, dir
}

// TestLoadingsMatrixFilesGolden writes a factor model's loadings laid out
// as a matrix (summary f.Lambda, layout = matrix) as LaTeX, Markdown and
// CSV, with the default columns (mean, interval, communality), means
// only, and medians with the uniqueness, and compares each with its
// golden file in testdata/report (-update-tables rewrites them).
func TestLoadingsMatrixFilesGolden(t *testing.T) {
	files := []string{"lambda.tex", "lambda.md", "lambda.csv", "lambda-mean.tex", "lambda-q50.md"}
	cell := "summary f.Lambda to \"lambda.tex\", layout = matrix\nsummary f.Lambda to \"lambda.md\", layout = matrix\n" +
		"summary f.Lambda to \"lambda.csv\", layout = matrix\nsummary f.Lambda to \"lambda-mean.tex\", layout = matrix, columns = [mean]\n" +
		"summary f.Lambda to \"lambda-q50.md\", layout = matrix, prob = 0.8, columns = [q50, interval, communality, uniqueness]"
	s, dir := loadingsSession(t)
	out := mustRun(t, s, cell)
	if len(out.displays) != len(files) {
		t.Errorf("%d tables shown, want %d", len(out.displays), len(files))
	}
	shown := out.displays[0]["text/plain"].(string)
	for _, want := range []string{"factor 1", "factor 2", "communality", "the posterior mean of f.communality",
		"every draw is rotated to a common reference (Procrustes)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the table shown lacks %q:\n%s", want, shown)
		}
	}
	s2, dir2 := loadingsSession(t)
	mustRun(t, s2, cell)
	checkTableGoldens(t, dir, dir2, files)
}

// TestLoadingsMatrixHoldsTheLongMeans: the .csv of summary f.Lambda,
// layout = matrix is the p × k matrix of the long table's means, each to
// the last digit (row j, column h is the long CSV's Lambda[j,h]), and its
// communality column the long f.communality's means; with columns =
// [q50] the medians.
func TestLoadingsMatrixHoldsTheLongMeans(t *testing.T) {
	s, dir := loadingsSession(t)
	out := mustRun(t, s, "summary f.Lambda to \"long.csv\"\nsummary f.communality to \"h2.csv\"\n"+
		"summary f.Lambda to \"m.csv\", layout = matrix\nsummary f.Lambda to \"q.csv\", layout = matrix, columns = [q50, communality]")
	for _, want := range []string{"wrote the 5 × 2 matrix of posterior means of the loadings and communality to ",
		"wrote the 5 × 2 matrix of posterior medians of the loadings and communality to "} {
		if !strings.Contains(out.stdout.String(), want) {
			t.Errorf("the output does not say %q:\n%s", want, out.stdout.String())
		}
	}
	long := map[[2]string][2]string{} // (row, column) → mean, median
	for _, r := range readCSV(t, filepath.Join(dir, "long.csv"))[1:] {
		long[[2]string{r[1], r[2]}] = [2]string{r[3], r[6]}
	}
	for _, r := range readCSV(t, filepath.Join(dir, "h2.csv"))[1:] {
		long[[2]string{r[1], "communality"}] = [2]string{r[3], r[6]}
	}
	for stat, file := range []string{"m.csv", "q.csv"} {
		rows := readCSV(t, filepath.Join(dir, file))
		if got := strings.Join(rows[0], ","); got != ",factor 1,factor 2,communality" {
			t.Fatalf("%s: header %q", file, got)
		}
		if len(rows) != 6 {
			t.Fatalf("%s: %d rows, want a header and 5", file, len(rows))
		}
		for i, r := range rows[1:] {
			if want := "Y" + strconv.Itoa(i+1); r[0] != want {
				t.Errorf("%s row %d is named %s, want %s", file, i+1, r[0], want)
			}
			for h, v := range r[1:] {
				column := strconv.Itoa(h + 1)
				if h == 2 {
					column = "communality"
				}
				want, ok := long[[2]string{r[0], column}]
				if !ok || v != want[stat] {
					t.Errorf("%s[%s, %s] = %s, the long table's %s", file, r[0], rows[0][h+1], v, want[stat])
				}
			}
		}
	}
}

// TestLoadingsMatrixBlocksFitThePage: loadings of many factors, or of
// many columns, are written as tabulars that each fit an article's text
// width and a page's height and hold every cell once.
func TestLoadingsMatrixBlocksFitThePage(t *testing.T) {
	for _, tc := range []struct {
		p, k       int
		stats      []string
		prefix     string
		wantBlocks int
	}{
		{8, 3, nil, "Y", 1},
		{40, 3, nil, "Y", 3},              // 18 rows a tabular with intervals
		{40, 3, []string{"mean"}, "Y", 2}, // 36 without
		{10, 8, nil, "item_", 3},          // 9 columns with intervals: 4, 4, 1 beside the names
		{6, 2, []string{"mean", "interval", "communality", "uniqueness"}, "Parents' highest degree ", 2},
	} {
		names := make([]string, tc.p)
		for i := range names {
			names[i] = tc.prefix + strconv.Itoa(i+1)
		}
		sums := make([]inference.Summary, tc.p*tc.k)
		for i := range sums {
			sums[i] = inference.Summary{Mean: -0.55, Q5: -0.66, Q50: -0.55, Q95: -0.44}
		}
		h2 := make([]inference.Summary, tc.p)
		for i := range h2 {
			h2[i] = inference.Summary{Mean: 0.55, Q5: 0.44, Q50: 0.55, Q95: 0.66}
		}
		l, err := newLoadingsTable(names, tc.k, sums, h2, tc.stats)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[[2]int]int{}
		lines := 1
		if l.interval {
			lines = 2
		}
		blocks := l.blocks()
		if len(blocks) != tc.wantBlocks {
			t.Errorf("p = %d, k = %d (%s): %d tabulars, want %d", tc.p, tc.k, tc.prefix, len(blocks), tc.wantBlocks)
		}
		for _, b := range blocks {
			header := []string{""}
			for c := b.from; c < b.to; c++ {
				header = append(header, l.columns[c].header)
			}
			var rows [][]string
			for i := b.firstRow; i < b.lastRow; i++ {
				row := []string{l.names[i]}
				for c := b.from; c < b.to; c++ {
					seen[[2]int{i, c}]++
					row = append(row, tableNum(matrixDecimals, l.columns[c].point[i]))
					if l.interval {
						row[len(row)-1] = l.intervalText(c, i) // the wider
					}
				}
				rows = append(rows, row)
			}
			if w := texTableWidth(header, rows); w > textWidthPt {
				t.Errorf("p = %d, k = %d: the tabular of columns %d to %d is %.0f pt wide", tc.p, tc.k, b.from+1, b.to, w)
			}
			if n := (b.lastRow - b.firstRow) * lines; n > maxBlockLines {
				t.Errorf("p = %d, k = %d: the tabular of rows %d to %d has %d lines", tc.p, tc.k, b.firstRow+1, b.lastRow, n)
			}
		}
		for i := range tc.p {
			for c := range l.columns {
				if seen[[2]int{i, c}] != 1 {
					t.Errorf("p = %d, k = %d: cell [%d, %d] is in %d tabulars", tc.p, tc.k, i+1, c+1, seen[[2]int{i, c}])
				}
			}
		}
		var b strings.Builder
		if n := l.writeTeX(&b); n != len(blocks) || strings.Count(b.String(), `\begin{tabular}`) != n {
			t.Errorf("p = %d, k = %d: writeTeX says %d tabulars and writes %d, of %d blocks", tc.p, tc.k, n, strings.Count(b.String(), `\begin{tabular}`), len(blocks))
		}
	}
}

// TestLoadingsMatrixWidthNote: loadings whose names leave no room for
// every column on one line set the names as paragraphs, in one tabular,
// and say that needs the array package; a name with a word too wide for
// such a paragraph is set as it is, and the note says how wide a tabular
// is; names that fit say nothing.
func TestLoadingsMatrixWidthNote(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		blocks     int
	}{
		{"Y", "", 1},
		{"I am able to do things as well as most other people, item ", "needs \\usepackage{array}", 1},
		{strings.Repeat("x", 80), "wider than an article's text", 3},
	} {
		names := []string{tc.name + "1", tc.name + "2"}
		sums := make([]inference.Summary, 2*2)
		for i := range sums {
			sums[i] = inference.Summary{Mean: -0.55, Q5: -0.66, Q95: -0.44}
		}
		h2 := []inference.Summary{{Mean: 0.5, Q5: 0.4, Q95: 0.6}, {Mean: 0.5, Q5: 0.4, Q95: 0.6}}
		l, err := newLoadingsTable(names, 2, sums, h2, nil)
		if err != nil {
			t.Fatal(err)
		}
		note := l.widthNote()
		if tc.want == "" && note != "" || !strings.Contains(note, tc.want) {
			t.Errorf("names %.20q…: note %q, want %q", tc.name, note, tc.want)
		}
		if n := l.tabulars(); n != tc.blocks {
			t.Errorf("names %.20q…: %d tabulars, want %d", tc.name, n, tc.blocks)
		}
	}
}
