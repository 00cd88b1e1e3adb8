package session

// This file shapes a posterior summary's table for a paper: the
// statistics a table shows (summary ..., columns = [...], and the set a
// .tex or .md file holds by default), a whole correlation matrix laid out
// as its lower triangle (layout = matrix), and the width of a LaTeX
// table, which must fit an article's text.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
	"golang.org/x/text/unicode/norm"
)

// statisticColumns returns the columns of a posterior table (as
// posteriorTable makes it, with P(>0) last for a difference) that the
// statistics stats name, in their order, after the label's: interval is
// its two bounds. A statistic the table lacks (p_positive of a summary
// that is not a difference) is left out.
func statisticColumns(stats []string, width int) []int {
	index := map[string][]int{
		"mean": {1}, "sd": {2}, "interval": {3, 5}, "q50": {4}, "ess_bulk": {6}, "ess_tail": {7},
		"rhat": {8}, "mcse_mean": {9}, "mcse_sd": {10}, "p_positive": {11},
	}
	cols := []int{0}
	for _, s := range stats {
		for _, j := range index[s] {
			if j < width {
				cols = append(cols, j)
			}
		}
	}
	return cols
}

// selectColumns returns t with only the columns cols (its caption
// kept).
func selectColumns(t *Table, cols []int) *Table {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for k, j := range cols {
			if j < len(r) {
				out[k] = r[j]
			}
		}
		return out
	}
	u := &Table{Header: pick(t.Header), Caption: t.Caption, Rows: make([][]string, len(t.Rows))}
	for i, r := range t.Rows {
		u.Rows[i] = pick(r)
	}
	return u
}

// shapePosterior applies summary's columns = to the posterior table t
// (the table shown), and returns the table a .tex or .md file writes: t
// itself when columns = was given, else t cut to the statistics a paper
// prints (compiler.PaperStatistics).
func shapePosterior(t *Table, x *compiler.Summary) (shown, paper *Table) {
	if x.Statistics != nil {
		t = selectColumns(t, statisticColumns(x.Statistics, len(t.Header)))
		t.Caption = captionOfStatistics(t.Caption, x.Statistics)
		return t, t
	}
	return t, selectColumns(t, statisticColumns(compiler.PaperStatistics(), len(t.Header)))
}

// captionOfStatistics is the caption of a posterior table without the
// clauses (separated by "; ") that say what columns it lacks mean: the
// interval's bounds unless stats holds interval, P(>0) unless it holds
// p_positive. A table of columns = [ess_bulk, rhat] said "q5 and q95
// bound the central 90% interval".
func captionOfStatistics(caption string, stats []string) string {
	clauses := strings.Split(caption, "; ")
	kept := clauses[:1]
	for _, c := range clauses[1:] {
		switch {
		case strings.Contains(c, "bound the central") && !slices.Contains(stats, "interval"):
		case strings.HasPrefix(c, "P(>0)") && !slices.Contains(stats, "p_positive"):
		default:
			kept = append(kept, c)
		}
	}
	return strings.Join(kept, "; ")
}

// textWidthPt is the text width of LaTeX's article class at 10pt (345pt),
// the narrowest of its sizes, which a table written as .tex fits unless
// summary's width = sets another.
const textWidthPt = compiler.DefaultTeXWidth

// orDefaultWidth is the text width textWidth (width = N), or, 0 (not
// given), an article's at 10pt.
func orDefaultWidth(textWidth float64) float64 {
	if textWidth <= 0 {
		return textWidthPt
	}
	return textWidth
}

// textWidthWords names the text width textWidth in a note: an article's
// text, or the width = N given.
func textWidthWords(textWidth float64) string {
	if textWidth = orDefaultWidth(textWidth); textWidth == textWidthPt {
		return fmt.Sprintf("an article's text (%.0f pt at 10pt)", textWidthPt)
	}
	return fmt.Sprintf("the text width of %s pt (width = %s)", fullNum(textWidth), fullNum(textWidth))
}

// tabcolsepPt is LaTeX's \tabcolsep: the space each side of a column.
const tabcolsepPt = 6.0

// cmr10Widths are the widths in pt of the printable ASCII characters in
// Computer Modern Roman at 10pt (LaTeX's default font), from char 32 (a
// space) to 126, as TeX measures them (\setbox0\hbox{\char N}\the\wd0).
var cmr10Widths = [...]float64{
	2.78, 2.78, 5.00, 8.33, 5.00, 8.33, 7.78, 2.78, 3.89, 3.89, 5.00, 7.78, 2.78, 3.33, 2.78, 5.00, // space to /
	5.00, 5.00, 5.00, 5.00, 5.00, 5.00, 5.00, 5.00, 5.00, 5.00, 2.78, 2.78, 2.78, 7.78, 4.72, 4.72, // 0 to ?
	7.78, 7.50, 7.08, 7.22, 7.64, 6.81, 6.53, 7.85, 7.50, 3.61, 5.14, 7.78, 6.25, 9.17, 7.50, 7.78, // @ to O
	6.81, 7.78, 7.36, 5.56, 7.22, 7.50, 7.50, 10.28, 7.50, 7.50, 6.11, 2.78, 5.00, 2.78, 5.00, 2.78, // P to _
	2.78, 5.00, 5.56, 4.44, 5.56, 4.44, 3.06, 5.00, 5.56, 2.78, 3.06, 5.28, 2.78, 8.33, 5.56, 5.00, // ` to o
	5.56, 5.28, 3.92, 3.94, 3.89, 5.56, 5.28, 7.22, 5.28, 5.28, 4.44, 5.00, 10.00, 5.00, 5.00, // p to ~
}

// texTextWidth estimates the width in pt of text (a cell before it is
// escaped) as a LaTeX table in the article class at 10pt prints it: each
// character by its width in Computer Modern Roman, with the characters
// texEscape replaces by what they become (a minus sign, a straight quote
// in typewriter type, \_ and \textbar{}), a character outside ASCII that
// pdflatex sets by its width there (texCharWidths: an accented letter as
// its letter, a lone Greek letter and a mathematical symbol as the math
// texText writes), and 10pt, more than any letter but a few, for one it
// does not (Cyrillic, a Greek word, CJK), whose width is the font's.
func texTextWidth(text string) float64 {
	w := 0.0
	runes := []rune(norm.NFC.String(text))
	for i, r := range runes {
		switch {
		case r == ' ':
			w += 3.33 // the interword space; char 32 of cmr10 is 2.78, a glyph TeX sets no space with
		case r == '-' || r == '−' || r == '<' || r == '>':
			w += 7.78 // a minus as $-$; < and > as \textless{} and \textgreater{}
		case r == '"':
			w += 5.25 // \texttt{"}
		case r == '_':
			w += 3.6 // \_
		case r == '|':
			w += 2.78 // \textbar{}
		case r >= 32 && r <= 126:
			w += cmr10Widths[r-32]
		case texCharWidths[r] > 0 && (!unicode.Is(unicode.Greek, r) || loneGreekLetter(runes, i)):
			w += texCharWidths[r]
		default:
			w += 10
		}
	}
	return w
}

// texTableWidth estimates the width in pt of the tabular writeTableTeX
// writes of header and rows: each column as wide as its widest cell, with
// \tabcolsep each side but the outer sides (@{}, as booktabs advises, so
// that the rules end where the text does).
func texTableWidth(header []string, rows [][]string) float64 {
	total := 0.0
	for _, w := range texColumnWidths(header, rows) {
		total += w + 2*tabcolsepPt
	}
	return total - 2*tabcolsepPt
}

// texColumnWidths estimates the width in pt of each column of the tabular
// of header and rows: its widest cell.
func texColumnWidths(header []string, rows [][]string) []float64 {
	widths := make([]float64, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for j, cell := range r {
			if j < len(widths) {
				widths[j] = max(widths[j], texTextWidth(cell))
			}
		}
	}
	return widths
}

// minRaggedNamesPt is the narrowest column of names raggedNames sets as
// paragraphs: narrower, most names would take three lines or more.
const minRaggedNamesPt = 90.0

// raggedNames returns the width in pt of a ragged-right paragraph column
// (\raggedright p{...}, from the array package) for the names, the first
// column, that makes the tabular of header and rows fit the text width
// textWidth, or 0 when it fits as it is or such a column would not make it
// fit (raggedWidth).
func raggedNames(header []string, rows [][]string, textWidth float64) float64 {
	if len(header) < 2 || texTableWidth(header, rows) <= orDefaultWidth(textWidth) {
		return 0
	}
	others := 0.0
	for _, w := range texColumnWidths(header, rows)[1:] {
		others += w + 2*tabcolsepPt
	}
	names := []string{header[0]}
	for _, r := range rows {
		if len(r) > 0 {
			names = append(names, r[0])
		}
	}
	return raggedWidth(names, others, textWidth)
}

// raggedWidth returns the width in pt of a column of names set as
// ragged-right paragraphs beside other columns others pt wide (each
// with its \tabcolsep both sides), the names' column first (@{} before
// it) and the last column last (@{} after it), so that the tabular is the
// text width textWidth wide; 0 when that leaves it less than
// minRaggedNamesPt, or a word of a name (a run without spaces, which LaTeX
// breaks only by hyphenation) is wider than it.
func raggedWidth(names []string, others, textWidth float64) float64 {
	// A point to spare for the estimate's rounding.
	width := math.Floor(orDefaultWidth(textWidth) - others - 1)
	if width < minRaggedNamesPt {
		return 0
	}
	for _, name := range names {
		for _, word := range strings.Fields(name) {
			if texTextWidth(word) > width {
				return 0
			}
		}
	}
	return width
}

// raggedBlockNames returns the width in pt of a column of names set as
// ragged-right paragraphs beside blocks of n columns, each at most widest
// pt wide (with its \tabcolsep each side), in tabulars the text width
// textWidth wide, when that takes fewer tabulars than the names on one
// line: groups(label) is how many blocks of columns fit beside names label
// pt wide (with the \tabcolsep after them), oneLine the names' width on
// one line. The paragraphs are as wide as leaves room for as many columns
// as fit beside the narrowest (minRaggedNamesPt). It is 0 when they take
// as many tabulars and a block of one column fits beside the names on one
// line, or a word of a name is too wide for such paragraphs (raggedWidth).
func raggedBlockNames(names []string, widest, oneLine float64, n int, groups func(label float64) int, textWidth float64) float64 {
	columns := min(n, int((orDefaultWidth(textWidth)-1-minRaggedNamesPt)/widest))
	if columns < 1 {
		return 0
	}
	w := raggedWidth(names, float64(columns)*widest, textWidth)
	overflows := oneLine+widest > orDefaultWidth(textWidth)
	if w == 0 || !overflows && groups(w+tabcolsepPt) >= groups(oneLine+tabcolsepPt) {
		return 0
	}
	return w
}

// wrappedLines estimates how many lines text takes set as a ragged-right
// paragraph width pt wide: its words (runs without spaces) filled
// greedily, as TeX's ragged-right setting nearly does, an interword space
// of 3.33 pt between them.
func wrappedLines(text string, width float64) int {
	lines, line := 1, 0.0
	for _, word := range strings.Fields(text) {
		w := texTextWidth(word)
		switch {
		case line == 0:
			line = w
		case line+3.33+w <= width:
			line += 3.33 + w
		default:
			lines++
			line = w
		}
	}
	return lines
}

// chunksOfLines splits rows of the given numbers of lines into the fewest
// runs of at most max lines each (a row of more is a run of its own),
// filled in order up to the fewest lines that still give that few runs:
// each run's first row and the row after its last. Rows of one line each
// are split as chunks splits them.
func chunksOfLines(lines []int, max int) [][2]int {
	total := 0
	for _, n := range lines {
		total += n
	}
	if total == len(lines) {
		return chunks(len(lines), max)
	}
	greedy := func(limit int) [][2]int {
		var out [][2]int
		start, sum := 0, 0
		for i, n := range lines {
			if sum > 0 && sum+n > limit {
				out = append(out, [2]int{start, i})
				start, sum = i, 0
			}
			sum += n
		}
		return append(out, [2]int{start, len(lines)})
	}
	fewest := len(greedy(max))
	for limit := (total + fewest - 1) / fewest; limit < max; limit++ {
		if c := greedy(limit); len(c) <= fewest {
			return c
		}
	}
	return greedy(max)
}

// raggedNamesNote is the line of a .tex file's comment, and the note of
// the statement's output, that says its names are set as paragraphs of
// width pt, so that it fits the text width textWidth, which needs the
// array package.
func raggedNamesNote(width, textWidth float64) string {
	return fmt.Sprintf("the names are set as ragged-right paragraphs %.0f pt wide, so that the table fits %s: the column >{\\raggedright\\arraybackslash}p{%.0fpt} needs \\usepackage{array}", width, textWidthWords(textWidth), width)
}

// widthNote says, when the tabular of header and rows would be wider than
// the text width textWidth, by how much and what narrows it, or, when
// setting its names as paragraphs makes it fit (raggedNames), that it
// needs the array package; "" when it fits.
func widthNote(header []string, rows [][]string, textWidth float64) string {
	if w := raggedNames(header, rows, textWidth); w > 0 {
		return raggedNamesNote(w, textWidth)
	}
	w := texTableWidth(header, rows)
	if w <= orDefaultWidth(textWidth) {
		return ""
	}
	return fmt.Sprintf("the table is about %.0f pt wide, wider than %s: columns = [...] keeps fewer columns (as columns = [mean, interval]), or \\resizebox{\\linewidth}{!}{...} (graphicx) shrinks it", w, textWidthWords(textWidth))
}

// matrixTable is a whole correlation or partial correlation matrix (or a
// difference of two) laid out as a paper prints it (layout = matrix): its
// lower triangle, a point estimate in each cell with, perhaps, the
// interval beneath it.
type matrixTable struct {
	// names are the matrix's columns, in the model's order.
	names []string
	// point, lo and hi are the point estimates and the interval's bounds,
	// by row and column (both ways: the matrix is symmetric); NaN where
	// unknown.
	point, lo, hi [][]float64
	// interval says whether the cells show the interval.
	interval bool
	// diagonal is the value on the diagonal: 1 for a correlation matrix,
	// 0 for a difference of two.
	diagonal float64
	// pointName names the point estimate: "mean" or "median".
	pointName string
	// textWidth is the text width in pt that a .tex file's tabulars fit
	// (width = N); 0: an article's at 10pt.
	textWidth float64
}

// matrixDecimals is the decimals of a matrix layout's numbers: two, as
// papers print correlations, where a Monte Carlo error of a few
// thousandths makes a third noise.
const matrixDecimals = "%.2f"

// newMatrixTable lays out the scalars ps (each of two model columns, its
// row and column) with their summaries sums as a matrix; stats are
// summary's columns = (nil: mean and interval). It fails when a scalar is
// not an entry between two columns (a difference of two different
// entries).
func newMatrixTable(ps []param, sums []inference.Summary, stats []string, difference bool) (*matrixTable, error) {
	m := &matrixTable{interval: true, diagonal: 1, pointName: "mean"}
	if stats != nil {
		m.interval = slices.Contains(stats, "interval")
		if slices.Contains(stats, "q50") {
			m.pointName = "median"
		}
	}
	if difference {
		m.diagonal = 0
	}
	at := map[string]int{}
	for _, p := range ps {
		if p.row == "" || p.column == "" {
			return nil, fmt.Errorf("layout = matrix puts each entry at its row and column; %s is not the same entry of both sides", p.label)
		}
		for _, name := range []string{p.row, p.column} {
			if _, ok := at[name]; !ok {
				at[name] = len(m.names)
				m.names = append(m.names, name)
			}
		}
	}
	p := len(m.names)
	grid := func() [][]float64 {
		g := make([][]float64, p)
		for i := range g {
			g[i] = make([]float64, p)
			for j := range g[i] {
				g[i][j] = math.NaN()
			}
		}
		return g
	}
	m.point, m.lo, m.hi = grid(), grid(), grid()
	for k, q := range ps {
		i, j := at[q.row], at[q.column]
		s := sums[k]
		v := s.Mean
		if m.pointName == "median" {
			v = s.Q50
		}
		for _, ij := range [][2]int{{i, j}, {j, i}} {
			m.point[ij[0]][ij[1]], m.lo[ij[0]][ij[1]], m.hi[ij[0]][ij[1]] = v, s.Q5, s.Q95
		}
	}
	return m, nil
}

// cell is the entry of row i and column j as the table shown and the
// Markdown file write it: the point estimate, then the interval in
// brackets; "" where unknown.
func (m *matrixTable) cell(i, j int) string {
	if math.IsNaN(m.point[i][j]) {
		return ""
	}
	s := tableNum(matrixDecimals, m.point[i][j])
	if m.interval {
		s += " " + m.intervalText(i, j)
	}
	return s
}

// intervalText is the interval of row i and column j: [lo, hi].
func (m *matrixTable) intervalText(i, j int) string {
	return "[" + tableNum(matrixDecimals, m.lo[i][j]) + ", " + tableNum(matrixDecimals, m.hi[i][j]) + "]"
}

// table is the matrix as a Table: a row per column but the first, a
// column per column but the last, each cell below the diagonal.
func (m *matrixTable) table() *Table {
	p := len(m.names)
	t := &Table{Header: []string{""}}
	for j := 0; j < p-1; j++ {
		t.Header = append(t.Header, m.names[j])
	}
	for i := 1; i < p; i++ {
		row := []string{m.names[i]}
		for j := 0; j < p-1; j++ {
			if j < i {
				row = append(row, m.cell(i, j))
			} else {
				row = append(row, "")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// csv returns the matrix of point estimates as a CSV writes it: a header
// of "" and the column names, then a row per column, its name first, every
// number in full, the diagonal included, as R's write.csv writes a
// matrix with row names.
func (m *matrixTable) csv() ([]string, [][]string) {
	header := append([]string{""}, m.names...)
	rows := make([][]string, len(m.names))
	for i, name := range m.names {
		rows[i] = []string{name}
		for j := range m.names {
			v := m.point[i][j]
			if i == j {
				v = m.diagonal
			}
			rows[i] = append(rows[i], fullNum(v))
		}
	}
	return header, rows
}

// texBlock is a part of the matrix that one tabular holds: the columns
// from and up to (not including) to, the rows from firstRow up to lastRow
// (not including).
type texBlock struct {
	from, to, firstRow, lastRow int
}

// maxBlockLines is the most lines of entries a tabular holds: 36 lines of
// 12pt, with its header and rules within the text height of an article
// at 10pt (about 550pt), so that each tabular fits a page.
const maxBlockLines = 36

// chunks splits n rows into the fewest runs of at most max, as even as
// they can be (a tabular of 36 rows and one of 1 would be 19 and 18):
// each run's first row and the row after its last.
func chunks(n, max int) [][2]int {
	if n <= 0 {
		return [][2]int{{0, 0}}
	}
	k := (n + max - 1) / max
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return out
}

// numbered reports whether a .tex file numbers the matrix's columns
// across the top (1, 2, ...) and its rows (1. income), as papers do when
// the names are wider than the entries: a name as a column's header would
// make its column as wide, and leave fewer columns to a block.
func (m *matrixTable) numbered() bool {
	name, cell := 0.0, 0.0
	for i, n := range m.names {
		name = max(name, texTextWidth(n))
		for j := range i {
			cell = max(cell, texTextWidth(tableNum(matrixDecimals, m.point[i][j])))
			if m.interval {
				cell = max(cell, texTextWidth(m.intervalText(i, j)))
			}
		}
	}
	return name > cell
}

// rowLabel and columnLabel are the text of row i's name and column j's
// header in a .tex file: the names, or, numbered, "1. income" and "1".
func (m *matrixTable) rowLabel(i int, numbered bool) string {
	if numbered {
		return strconv.Itoa(i+1) + ". " + m.names[i]
	}
	return m.names[i]
}

func (m *matrixTable) columnLabel(j int, numbered bool) string {
	if numbered {
		return strconv.Itoa(j + 1)
	}
	return m.names[j]
}

// firstRow is the first row of the blocks of columns from from on: the
// row below the diagonal, or, numbered, the diagonal's, so that every
// number across the top has its row.
func firstRow(from int, numbered bool) int {
	if numbered {
		return from
	}
	return from + 1
}

// diagonalMark is the cell of the diagonal of a numbered matrix, an em
// dash, as papers print it.
const diagonalMark = "---"

// texColumnWidth is the width in pt of column j in a .tex file (numbered
// or not), with its \tabcolsep each side: its header or its widest entry.
func (m *matrixTable) texColumnWidth(j int, numbered bool) float64 {
	w := texTextWidth(m.columnLabel(j, numbered))
	if numbered {
		w = max(w, 10) // the em dash of the diagonal
	}
	for i := j + 1; i < len(m.names); i++ {
		w = max(w, texTextWidth(tableNum(matrixDecimals, m.point[i][j])))
		if m.interval {
			w = max(w, texTextWidth(m.intervalText(i, j)))
		}
	}
	return w + 2*tabcolsepPt
}

// rowLabels are the names down the side of a .tex file (numbered or not):
// every row of some block.
func (m *matrixTable) rowLabels(numbered bool) []string {
	var out []string
	for i := firstRow(0, numbered); i < len(m.names); i++ {
		out = append(out, m.rowLabel(i, numbered))
	}
	return out
}

// columnGroups splits the matrix's columns into runs that each fit the
// text width beside a column of names label pt wide (with its \tabcolsep
// after it): as many as fit (at least one), each run's first column and
// the column after its last.
func (m *matrixTable) columnGroups(label float64, numbered bool) [][2]int {
	p := len(m.names)
	var out [][2]int
	for from := 0; from < p-1; {
		// The last column has no \tabcolsep after it (@{}).
		to, width := from+1, label+m.texColumnWidth(from, numbered)-tabcolsepPt
		for to < p-1 && width+m.texColumnWidth(to, numbered) <= orDefaultWidth(m.textWidth) {
			width += m.texColumnWidth(to, numbered)
			to++
		}
		out = append(out, [2]int{from, to})
		from = to
	}
	return out
}

// raggedLabels is the width in pt of the column of row names of a
// numbered matrix set as ragged-right paragraphs (>{\raggedright}p{...},
// the array package), as a long table's and the loadings' are, when its
// names on one line leave room for fewer columns beside them than names
// of minRaggedNamesPt would, so that it takes more tabulars, or for none
// within the text: then as wide as leaves room for that many
// (raggedBlockNames; seven names of some 280 pt made six tabulars of one
// column each); 0 when the names stay on one line (not numbered, as few
// tabulars beside them, or a word of a name too wide for the paragraphs).
func (m *matrixTable) raggedLabels(numbered bool) float64 {
	p := len(m.names)
	if !numbered || p < 3 {
		return 0
	}
	labels := m.rowLabels(numbered)
	label := 0.0
	for _, l := range labels {
		label = max(label, texTextWidth(l))
	}
	widest := 0.0
	for j := range p - 1 {
		widest = max(widest, m.texColumnWidth(j, numbered))
	}
	groups := func(label float64) int { return len(m.columnGroups(label, numbered)) }
	return raggedBlockNames(labels, widest, label, p-1, groups, m.textWidth)
}

// blocks splits the matrix into tabulars that each fit the text width
// (m.textWidth) and an article's page height: as many columns as fit
// beside the widest row name, on one line or as a paragraph
// (raggedLabels), at least one, then as many rows as fit the page (two
// lines a row with intervals, and more for a name set in several).
func (m *matrixTable) blocks(numbered bool) []texBlock {
	p := len(m.names)
	label, ragged := 0.0, m.raggedLabels(numbered)
	for _, l := range m.rowLabels(numbered) {
		label = max(label, texTextWidth(l))
	}
	if ragged > 0 {
		label = ragged
	}
	lines := 1
	if m.interval {
		lines = 2
	}
	var out []texBlock
	for _, g := range m.columnGroups(label+tabcolsepPt, numbered) {
		first := firstRow(g[0], numbered)
		runs := chunks(p-first, maxBlockLines/lines)
		if ragged > 0 {
			rowLines := make([]int, p-first)
			for k := range rowLines {
				i := first + k
				rowLines[k] = wrappedLines(m.rowLabel(i, numbered), ragged)
				if m.interval && i > g[0] { // none under a diagonal alone
					rowLines[k]++
				}
			}
			runs = chunksOfLines(rowLines, maxBlockLines)
		}
		for _, c := range runs {
			out = append(out, texBlock{from: g[0], to: g[1], firstRow: first + c[0], lastRow: first + c[1]})
		}
	}
	return out
}

// writeTabularStart begins the k-th of n tabulars that a .tex file sets
// one above the other: after the first, a little space and a paragraph of
// its own; when there are several, each unindented (\noindent), since such
// a file is \input outside a float, where a paragraph is indented by
// \parindent (15 pt in an article at 10pt), so that a tabular as wide as
// the text was wider than it (Overfull \hbox).
func writeTabularStart(b *strings.Builder, k, n int) {
	if k > 0 {
		b.WriteString("\n\\medskip\n\n") // a paragraph each, one above the other
	}
	if n > 1 {
		b.WriteString("\\noindent\n")
	}
}

// endTabulars ends a file of n tabulars: when there are several, with
// the paragraph of the last (\par), so that the space of the line's end
// after \input{FILE} is not set beside it, where it made a tabular as
// wide as the text wider than it.
func endTabulars(b *strings.Builder, n int) {
	if n > 1 {
		b.WriteString("\\par\n")
	}
}

// writeTeX writes the matrix as booktabs tabulars, one per block (see
// blocks), one after another with a little space between them: each row
// a column's name and its point estimates, the next line the intervals;
// numbered when the names are wider than the entries. It returns how many
// tabulars it wrote.
func (m *matrixTable) writeTeX(b *strings.Builder) int {
	numbered := m.numbered()
	num := func(v float64) string { return texCell(tableNum(matrixDecimals, v), true) }
	blocks := m.blocks(numbered)
	names := "l"
	if ragged := m.raggedLabels(numbered); ragged > 0 {
		names = fmt.Sprintf(`>{\raggedright\arraybackslash}p{%.0fpt}`, ragged)
	}
	for k, bl := range blocks {
		writeTabularStart(b, k, len(blocks))
		n := bl.to - bl.from
		b.WriteString(`\begin{tabular}{@{}` + names + strings.Repeat("c", n) + "@{}}\n\\toprule\n")
		head := []string{""}
		for j := bl.from; j < bl.to; j++ {
			head = append(head, texLabel(m.columnLabel(j, numbered)))
		}
		b.WriteString(strings.Join(head, " & ") + " \\\\\n\\midrule\n")
		for i := bl.firstRow; i < bl.lastRow; i++ {
			means := []string{texLabel(m.rowLabel(i, numbered))}
			intervals := []string{""}
			for j := bl.from; j < bl.to; j++ {
				switch {
				case j == i && numbered:
					means, intervals = append(means, diagonalMark), append(intervals, "")
				case j >= i || math.IsNaN(m.point[i][j]):
					means, intervals = append(means, ""), append(intervals, "")
				default:
					means = append(means, num(m.point[i][j]))
					intervals = append(intervals, "["+num(m.lo[i][j])+", "+num(m.hi[i][j])+"]")
				}
			}
			b.WriteString(strings.Join(means, " & ") + " \\\\\n")
			if m.interval && strings.Join(intervals, "") != "" { // not under a diagonal alone
				b.WriteString(strings.Join(intervals, " & ") + " \\\\\n")
			}
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
	}
	endTabulars(b, len(blocks))
	return len(blocks)
}

// tabulars is how many tabulars writeTeX writes.
func (m *matrixTable) tabulars() int { return len(m.blocks(m.numbered())) }

// csvWhat says what the matrix's CSV holds, for the line that says it
// was written: the whole p × p matrix, not the triangle shown.
func (m *matrixTable) csvWhat() string {
	return fmt.Sprintf("the %d × %d matrix of posterior %ss", len(m.names), len(m.names), m.pointName)
}

// widthNote says, when the row names are set as paragraphs
// (raggedLabels), that the file needs the array package, or, when a block
// of one column is still wider than the text (names too long to set
// beside one column, with a word too long for a paragraph), by how much
// and what narrows it; "" when every block fits as it is (numbered when
// the names are wide).
func (m *matrixTable) widthNote() string {
	numbered := m.numbered()
	if ragged := m.raggedLabels(numbered); ragged > 0 {
		return raggedNamesNote(ragged, m.textWidth)
	}
	label := 0.0
	for _, l := range m.rowLabels(numbered) {
		label = max(label, texTextWidth(l))
	}
	w := 0.0
	for j := range len(m.names) - 1 {
		w = max(w, label+m.texColumnWidth(j, numbered))
	}
	if w <= orDefaultWidth(m.textWidth) {
		return ""
	}
	return fmt.Sprintf("a tabular of the names and one column is about %.0f pt wide, wider than %s: shorter column names in the data, or \\resizebox{\\linewidth}{!}{...} (graphicx) narrow it", w, textWidthWords(m.textWidth))
}
