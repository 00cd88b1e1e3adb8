package session

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMatrixCSVHoldsTheMeans: summary ... to "x.csv", layout = matrix
// writes the p x p matrix of posterior means, named across and down as R's
// write.csv names a matrix, symmetric, with 1 on the diagonal of C and
// partial and 0 on that of a difference, each entry the long CSV's mean
// of that entry to the last digit.
func TestMatrixCSVHoldsTheMeans(t *testing.T) {
	s, dir := reportSession(t)
	mustRun(t, s, "summary a.partial to \"long.csv\"\nsummary a.partial to \"m.csv\", layout = matrix\n"+
		"summary a.C - b.C to \"dlong.csv\"\nsummary a.C - b.C to \"dm.csv\", layout = matrix")
	for _, tc := range []struct {
		long, matrix string
		diagonal     string
	}{{"long.csv", "m.csv", "1"}, {"dlong.csv", "dm.csv", "0"}} {
		means := map[[2]string]string{}
		for _, r := range readCSV(t, filepath.Join(dir, tc.long))[1:] {
			means[[2]string{r[1], r[2]}] = r[3]
		}
		rows := readCSV(t, filepath.Join(dir, tc.matrix))
		if got := strings.Join(rows[0], ","); got != ",Y1,Y2,Y3" {
			t.Fatalf("%s: header %q, want ,Y1,Y2,Y3", tc.matrix, got)
		}
		if len(rows) != 4 {
			t.Fatalf("%s: %d rows, want a header and 3", tc.matrix, len(rows))
		}
		for i, r := range rows[1:] {
			if r[0] != rows[0][i+1] {
				t.Errorf("%s row %d is named %s, column %d %s", tc.matrix, i+1, r[0], i+1, rows[0][i+1])
			}
			for j, v := range r[1:] {
				want := tc.diagonal
				if i != j {
					key := [2]string{rows[0][min(i, j)+1], rows[0][max(i, j)+1]}
					want = means[key]
				}
				if v != want {
					t.Errorf("%s[%d, %d] = %s, want %s", tc.matrix, i+1, j+1, v, want)
				}
			}
		}
	}
}

// TestMatrixBlocksFitThePage: a matrix of 50 columns is written as
// tabulars that each fit an article's text width and a page's height,
// and hold every entry of the lower triangle once, with and without the
// intervals; names wider than the entries are numbered, so that a block
// holds at least 3 columns with intervals (with long names as headers it
// held 2); a long table as tabulars of at most maxBlockLines rows, as
// even as they can be.
func TestMatrixBlocksFitThePage(t *testing.T) {
	for _, tc := range []struct {
		p        int
		interval bool
		prefix   string
	}{{50, true, "Y"}, {50, false, "Y"}, {20, true, "respondent_item_"}, {8, true, "Parents' highest degree "}, {7, true, "pchild"}, {2, true, "x"}} {
		m := &matrixTable{interval: tc.interval, diagonal: 1}
		for i := range tc.p {
			m.names = append(m.names, tc.prefix+strconv.Itoa(i+1))
		}
		grid := func(v float64) [][]float64 {
			g := make([][]float64, tc.p)
			for i := range g {
				g[i] = make([]float64, tc.p)
				for j := range g[i] {
					g[i][j] = v
				}
			}
			return g
		}
		m.point, m.lo, m.hi = grid(-0.55), grid(-0.66), grid(-0.44) // the widest numbers
		seen := map[[2]int]int{}
		lines := 1
		if tc.interval {
			lines = 2
		}
		numbered := m.numbered()
		if want := len(tc.prefix) > 6; numbered != want {
			t.Errorf("p = %d (%s): numbered %v, want %v", tc.p, tc.prefix, numbered, want)
		}
		for _, b := range m.blocks(numbered) {
			var header []string
			rows := [][]string{}
			for j := b.from; j < b.to; j++ {
				header = append(header, m.columnLabel(j, numbered))
			}
			if tc.interval && tc.p > 4 && b.to < tc.p-1 && b.to-b.from < 3 {
				t.Errorf("p = %d (%s): a block of %d columns", tc.p, tc.prefix, b.to-b.from)
			}
			for i := b.firstRow; i < b.lastRow; i++ {
				row := []string{m.rowLabel(i, numbered)}
				for j := b.from; j < b.to; j++ {
					if j < i {
						seen[[2]int{i, j}]++
						cell := tableNum(matrixDecimals, m.point[i][j])
						if tc.interval {
							cell = m.intervalText(i, j) // the wider
						}
						row = append(row, cell)
					}
				}
				rows = append(rows, row)
			}
			w := texTableWidth(append([]string{""}, header...), rows)
			if ragged := m.raggedLabels(numbered); ragged > 0 {
				// The names as paragraphs: their column is as wide as that.
				for _, r := range rows {
					r[0] = ""
				}
				w = ragged + texTableWidth(append([]string{""}, header...), rows)
			}
			if w > textWidthPt {
				t.Errorf("p = %d (%s): the block of columns %d to %d is %.0f pt wide", tc.p, tc.prefix, b.from+1, b.to, w)
			}
			if n := (b.lastRow - b.firstRow) * lines; n > maxBlockLines {
				t.Errorf("p = %d: the block of rows %d to %d has %d lines", tc.p, b.firstRow+1, b.lastRow, n)
			}
		}
		for i := range tc.p {
			for j := range i {
				if seen[[2]int{i, j}] != 1 {
					t.Errorf("p = %d: entry [%d, %d] is in %d blocks", tc.p, i+1, j+1, seen[[2]int{i, j}])
				}
			}
		}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "[[0 0]]"}, {3, "[[0 3]]"}, {36, "[[0 36]]"}, {37, "[[0 18] [18 37]]"}, {190, "[[0 31] [31 63] [63 95] [95 126] [126 158] [158 190]]"}} {
		if got := fmt.Sprint(chunks(tc.n, maxBlockLines)); got != tc.want {
			t.Errorf("chunks(%d, %d) = %s, want %s", tc.n, maxBlockLines, got, tc.want)
		}
	}
}

// TestWideTeXTableSaysSo: a .tex table of more columns than fit an
// article's text says so, in its comment and in the statement's output,
// with what narrows it; one that fits says nothing.
func TestWideTeXTableSaysSo(t *testing.T) {
	s, dir := reportSession(t)
	out := mustRun(t, s, `summary a.C to "wide.tex", columns = [mean, sd, interval, q50, ess_bulk, ess_tail, rhat, mcse_mean, mcse_sd]`)
	const note = "wider than an article's text (345 pt at 10pt): columns = [...] keeps fewer columns"
	if !strings.Contains(out.stderr.String(), "note: the table is about ") || !strings.Contains(out.stderr.String(), note) {
		t.Errorf("the output does not say the table is too wide:\n%s", out.stderr.String())
	}
	wide, _ := os.ReadFile(filepath.Join(dir, "wide.tex"))
	if !strings.Contains(string(wide), "\n% the table is about ") {
		t.Errorf("wide.tex does not say it is too wide:\n%s", wide)
	}
	out = mustRun(t, s, `summary a.C to "narrow.tex"`)
	if strings.Contains(out.stderr.String(), "wide") {
		t.Errorf("a table that fits is said not to:\n%s", out.stderr.String())
	}
}

// TestTeXTablesCompileWithinTheText compiles the .tex tables of the GSS
// (7 columns), of a simulated fit of 20 columns and of survey items with
// long names with pdflatex, each \input in a minimal article with
// booktabs: the default long table, the matrices of C and partial with
// intervals, a difference's, the items' (numbered), a matrix of means,
// and factor models' loadings laid out as a matrix (20 rows: two
// tabulars; the items' long names with communality and uniqueness); and
// the tables of items named by their long wordings, whose names are set
// as ragged-right paragraphs (with the array package). None may give an
// Overfull \hbox (a table wider than the text), an Overfull \vbox (a
// tabular taller than a page) or an error; a file of several tabulars is
// compiled \input outside a float too, where paragraphs are indented. It needs pdflatex (TeX Live);
// not in -short.
func TestTeXTablesCompileWithinTheText(t *testing.T) {
	pdflatex := pdflatexOrSkip(t)
	dir := t.TempDir()
	gss, err := os.ReadFile(filepath.Join("..", "notebooks", "data", "gss_hoff2007.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gss.csv"), gss, 0o644); err != nil {
		t.Fatal(err)
	}
	// Survey items named as a questionnaire names them: wider than the
	// entries, so that a matrix numbers them.
	var long strings.Builder
	long.WriteString("\"Respondent's income\",\"Highest degree\",\"Number of children\",\"Parents' income\",\"Parents' highest degree\",\"Age at interview\"\n")
	for i := range 120 {
		fmt.Fprintf(&long, "%d,%d,%d,%d,%d,%d\n", i%4, (i/2)%4, (i*7)%3, (i/3)%4, (i*5)%4, (i+i/4)%5)
	}
	if err := os.WriteFile(filepath.Join(dir, "items.csv"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Eight items of a questionnaire named by their wordings: the names of
	// a long table's entries are wider than the text (C's by 284 pt), so
	// that they are set as ragged-right paragraphs.
	wordings := []string{"On the whole, I am satisfied with myself", "At times I think I am no good at all",
		"I feel that I have a number of good qualities", "I am able to do things as well as most other people",
		"I feel I do not have much to be proud of", "I certainly feel useless at times",
		"I feel that I am a person of worth", "I wish I could have more respect for myself"}
	var rse strings.Builder
	rse.WriteString("\"" + strings.Join(wordings, "\",\"") + "\"\n")
	for i := range 150 {
		for j := range wordings {
			if j > 0 {
				rse.WriteString(",")
			}
			fmt.Fprintf(&rse, "%d", (i*(j+3)/7+i/5)%4)
		}
		rse.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "rse.csv"), []byte(rse.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Seven longer statements, of some 280 pt numbered: on one line, a
	// matrix of them held one column a tabular (6 tabulars).
	statements := []string{"On the whole, I am satisfied with myself and my life", "At times I think I am no good at all, whatever I do",
		"I feel that I have a number of good qualities as a person", "I am able to do things as well as most other people I know",
		"I feel I do not have much to be proud of in my life so far", "I certainly feel useless at times, at work and at home",
		"I feel that I am a person of worth, at least equal to others"}
	var st strings.Builder
	st.WriteString("\"" + strings.Join(statements, "\",\"") + "\"\n")
	for i := range 200 {
		for j := range statements {
			if j > 0 {
				st.WriteString(",")
			}
			fmt.Fprintf(&st, "%d", min(3, max(0, i%4+(i*(j+2)/5)%3-1)))
		}
		st.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "statements.csv"), []byte(st.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, "data st = load(\"statements.csv\")\n"+
		"model sc { Y = st; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit sc with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1")
	mustRun(t, s, "data rse = load(\"rse.csv\")\n"+
		"model rc { Y = rse; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model rf { Y = rse; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"+
		"fit rc with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\nfit rf with px, iter = 40, warmup = 20, chains = 1, seed = 1")
	mustRun(t, s, "data items = load(\"items.csv\")\nmodel it { Y = items; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit it with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n"+
		"model itf { Y = items; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"+
		"fit itf with px, iter = 40, warmup = 20, chains = 1, seed = 1")
	mustRun(t, s, "data gss = load(\"gss.csv\")\ndata older = gss where age >= 50\n"+
		"data sim = simulate(FactorCopula(p = 20, k = 2), n = 200, levels = 4, seed = 3)\n"+
		"model hoff { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model old { Y = older; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model sm { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"+
		"fit hoff, iter = 40, warmup = 20, chains = 2, seed = 1\nfit old, iter = 40, warmup = 20, chains = 2, seed = 1\n"+
		"fit sm, iter = 40, warmup = 20, chains = 2, seed = 1")
	tables := map[string]string{
		"gss-C":        `summary hoff.C to "gss-C.tex"`,
		"gss-partial":  `summary hoff.partial to "gss-partial.tex"`,
		"gss-diff":     `summary hoff.partial - old.partial to "gss-diff.tex"`,
		"gss-C-m":      `summary hoff.C to "gss-C-m.tex", layout = matrix`,
		"gss-p-m":      `summary hoff.partial to "gss-p-m.tex", layout = matrix, prob = 0.95`,
		"gss-diff-m":   `summary hoff.C - old.C to "gss-diff-m.tex", layout = matrix`,
		"sim-C":        `summary sm.C to "sim-C.tex"`,
		"sim-C-m":      `summary sm.C to "sim-C-m.tex", layout = matrix`,
		"sim-p-mean-m": `summary sm.partial to "sim-p-mean-m.tex", layout = matrix, columns = [mean]`,
		"items-m":      `summary it.C to "items-m.tex", layout = matrix`,
		"sim-L-m":      `summary sm.Lambda to "sim-L-m.tex", layout = matrix`,
		"sim-L-mean-m": `summary sm.Lambda to "sim-L-mean-m.tex", layout = matrix, columns = [mean, communality, uniqueness]`,
		"items-L-m":    `summary itf.Lambda to "items-L-m.tex", layout = matrix, columns = [mean, interval, communality, uniqueness]`,
		// Set as paragraphs: rse-C in 3 tabulars of at most 36 lines.
		"rse-C":   `summary rc.C to "rse-C.tex"`,
		"rse-L":   `summary rf.Lambda to "rse-L.tex"`,
		"rse-h2":  `summary rf.communality to "rse-h2.tex"`,
		"rse-L-m": `summary rf.Lambda to "rse-L-m.tex", layout = matrix`,
		// C's matrix of the items' wordings, numbered, its row names as
		// paragraphs: 3 tabulars of up to 3 columns (7 of one column each
		// with the names on one line).
		"rse-C-m": `summary rc.C to "rse-C-m.tex", layout = matrix`,
		// The seven statements: 2 tabulars of 4 and 2 columns (6 of one).
		"rse-st-C-m": `summary sc.C to "rse-st-C-m.tex", layout = matrix`,
		// width = 240, in a two-column page whose columns are 240 pt wide;
		// width = 550, in a landscape page of a text 550 pt wide.
		"gss-C-240":         `summary hoff.C to "gss-C-240.tex", columns = [mean, interval], width = 240`,
		"gss-C-m-240":       `summary hoff.C to "gss-C-m-240.tex", layout = matrix, width = 240`,
		"sim-C-m-240":       `summary sm.C to "sim-C-m-240.tex", layout = matrix, width = 240`,
		"items-m-240":       `summary it.C to "items-m-240.tex", layout = matrix, width = 240`,
		"sim-L-m-240":       `summary sm.Lambda to "sim-L-m-240.tex", layout = matrix, width = 240`,
		"rse-C-240":         `summary rc.C to "rse-C-240.tex", columns = [mean, interval], width = 240`,
		"rse-C-m-240":       `summary rc.C to "rse-C-m-240.tex", layout = matrix, width = 240`,
		"rse-L-m-240":       `summary rf.Lambda to "rse-L-m-240.tex", layout = matrix, width = 240`,
		"sim-C-m-550":       `summary sm.C to "sim-C-m-550.tex", layout = matrix, width = 550`,
		"items-rse-p-m-550": `summary rc.partial to "items-rse-p-m-550.tex", layout = matrix, width = 550`,
		"rse-st-p-m-550":    `summary sc.partial to "rse-st-p-m-550.tex", layout = matrix, width = 550`,
	}
	// The tabulars of the files whose count the names' paragraphs change.
	// At 550 pt the items' names on one line take 2 tabulars, as paragraphs
	// would (so they stay on one line), the statements' 2, as paragraphs 1.
	tabulars := map[string]int{"rse-C-m": 3, "rse-st-C-m": 2, "items-rse-p-m-550": 2, "rse-st-p-m-550": 1}
	for name, stmt := range tables {
		out := mustRun(t, s, stmt)
		if strings.HasPrefix(name, "rse-") {
			tex, _ := os.ReadFile(filepath.Join(dir, name+".tex"))
			const ragged = `\begin{tabular}{@{}>{\raggedright\arraybackslash}p{`
			if !strings.Contains(string(tex), ragged) || !strings.Contains(string(tex), "% the names are set as ragged-right paragraphs") ||
				!strings.Contains(out.stderr.String(), `needs \usepackage{array}`) {
				t.Errorf("%s: the names are not set as paragraphs, or the file and output do not say it needs the array package:\n%s\n%s", stmt, out.stderr.String(), tex)
			}
		}
		body := map[string]string{"": "\\begin{center}\n\\input{" + name + ".tex}\n\\end{center}"}
		tex, _ := os.ReadFile(filepath.Join(dir, name+".tex"))
		if n, ok := tabulars[name]; ok && strings.Count(string(tex), "\\begin{tabular}") != n {
			t.Errorf("%s: %d tabulars, want %d", stmt, strings.Count(string(tex), "\\begin{tabular}"), n)
		}
		if strings.Count(string(tex), "\\begin{tabular}") > 1 {
			// Several tabulars: \input outside a float, as language.md
			// says, where paragraphs are indented (they were, past the text).
			body["-outside"] = "\\input{" + name + ".tex}"
		}
		for suffix, b := range body {
			class, width := "\\documentclass{article}\n", "345.0pt"
			switch {
			case strings.HasSuffix(name, "-240"):
				class, width = "\\documentclass[twocolumn]{article}\n\\usepackage[textwidth=490pt,columnsep=10pt]{geometry}\n", "240.0pt"
			case strings.HasSuffix(name, "-550"):
				class, width = "\\documentclass{article}\n\\usepackage[landscape,textwidth=550pt]{geometry}\n", "550.0pt"
			}
			doc := class + "\\usepackage{booktabs}\n\\usepackage{array}\n\\begin{document}\n\\typeout{linewidth=\\the\\linewidth}\n" + b + "\n\\end{document}\n"
			base := "doc-" + name + suffix
			if err := os.WriteFile(filepath.Join(dir, base+".tex"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", base+".tex")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s (%s): pdflatex failed: %v\n%s", stmt, base, err, out)
				continue
			}
			log, err := os.ReadFile(filepath.Join(dir, base+".log"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "linewidth="+width) {
				t.Errorf("%s (%s): the document's \\linewidth is not %s", stmt, base, width)
			}
			for _, line := range strings.Split(string(log), "\n") {
				if strings.HasPrefix(line, "Overfull \\hbox") || strings.HasPrefix(line, "Overfull \\vbox") || strings.HasPrefix(line, "!") {
					t.Errorf("%s (%s): %s", stmt, base, line)
				}
			}
		}
	}
}

// TestNumberedMatrixTeX pins the .tex of a matrix whose names are wider
// than its entries: numbered across the top and down the side, each
// block from the row of its first column with an em dash on the
// diagonal, and no line of intervals under a diagonal alone.
func TestNumberedMatrixTeX(t *testing.T) {
	m := &matrixTable{names: []string{"Respondent's income", "Highest degree", "Age at interview"}, interval: true, diagonal: 1, pointName: "mean"}
	nan := math.NaN()
	m.point = [][]float64{{nan, 0.45, -0.1}, {0.45, nan, 0.05}, {-0.1, 0.05, nan}}
	m.lo = [][]float64{{nan, 0.39, -0.17}, {0.39, nan, -0.01}, {-0.17, -0.01, nan}}
	m.hi = [][]float64{{nan, 0.5, -0.04}, {0.5, nan, 0.11}, {-0.04, 0.11, nan}}
	var b strings.Builder
	m.writeTeX(&b)
	want := `\begin{tabular}{@{}lcc@{}}
\toprule
 & 1 & 2 \\
\midrule
1. Respondent's income & --- &  \\
2. Highest degree & 0.45 & --- \\
 & [0.39, 0.50] &  \\
3. Age at interview & $-$0.10 & 0.05 \\
 & [$-$0.17, $-$0.04] & [$-$0.01, 0.11] \\
\bottomrule
\end{tabular}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestCaptionSaysOnlyWhatTheTableHolds: a table of columns = [...] that
// holds no interval does not say what bounds it (the .tex, the .md and
// the table shown said "q5 and q95 bound the central 90% interval" of a
// table of ESS and R-hat), nor what P(>0) is without that column; one
// that holds them still says so.
func TestCaptionSaysOnlyWhatTheTableHolds(t *testing.T) {
	s, dir := reportSession(t)
	for _, tc := range []struct {
		stmt, file string
		want, not  []string
	}{
		{`summary a.C to "diag.tex", columns = [ess_bulk, ess_tail, rhat, mcse_mean]`, "diag.tex", nil, []string{"q5 and q95", "bound the central"}},
		{`summary a.C to "diag.md", columns = [rhat], prob = 0.8`, "diag.md", nil, []string{"q10 and q90", "bound the central"}},
		{`summary a.C - b.C to "dm.tex", columns = [mean, interval]`, "dm.tex", []string{"q5 and q95 bound the central 90% interval"}, []string{"share of the differences above 0"}},
		{`summary a.C - b.C to "dp.md", columns = [mean, p_positive]`, "dp.md", []string{"is the share of the differences above 0"}, []string{"bound the central"}},
		{`summary a.C to "mi.tex", columns = [mean, interval]`, "mi.tex", []string{"q5 and q95 bound the central 90% interval"}, nil},
	} {
		out := mustRun(t, s, tc.stmt)
		file, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		shown := out.displays[0]["text/plain"].(string)
		for _, text := range []string{string(file), shown} {
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s: %q missing from\n%s", tc.stmt, w, text)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("%s: says %q of a table without that column:\n%s", tc.stmt, n, text)
				}
			}
		}
	}
}

// TestChunksOfLines: rows of several lines (names set as paragraphs) are
// split into the fewest tabulars of at most maxBlockLines lines, as even
// as they can be; rows of one line as chunks splits them; and a name
// wraps where its words no longer fit the width.
func TestChunksOfLines(t *testing.T) {
	repeat := func(n, lines int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = lines
		}
		return out
	}
	for _, tc := range []struct {
		lines []int
		want  string
	}{
		{repeat(37, 1), "[[0 18] [18 37]]"},
		{repeat(28, 3), "[[0 10] [10 20] [20 28]]"}, // 84 lines: 30, 30, 24
		{repeat(12, 3), "[[0 12]]"},
		{[]int{40, 1, 1}, "[[0 1] [1 3]]"}, // a row taller than a page is a tabular of its own
		{nil, "[[0 0]]"},
	} {
		got := chunksOfLines(tc.lines, maxBlockLines)
		if fmt.Sprint(got) != tc.want {
			t.Errorf("chunksOfLines(%v) = %v, want %s", tc.lines, got, tc.want)
		}
		for _, c := range got {
			sum := 0
			for _, n := range tc.lines[c[0]:c[1]] {
				sum += n
			}
			if sum > maxBlockLines && c[1]-c[0] > 1 {
				t.Errorf("chunksOfLines(%v): run %v has %d lines", tc.lines, c, sum)
			}
		}
	}
	for _, tc := range []struct {
		text  string
		width float64
		want  int
	}{
		{"I feel that I am a person of worth", 200, 1},
		{"I feel that I am a person of worth", 90, 2},
		{"I feel that I am a person of worth", 40, 5},
		{"unbreakable_name", 10, 1},
	} {
		if got := wrappedLines(tc.text, tc.width); got != tc.want {
			t.Errorf("wrappedLines(%q, %.0f) = %d, want %d", tc.text, tc.width, got, tc.want)
		}
	}
}

// pdflatexOrSkip returns pdflatex's path, or skips the test under -short
// (it runs pdflatex) or where TeX Live is not installed.
func pdflatexOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs pdflatex: not in -short")
	}
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
	}
	return pdflatex
}
