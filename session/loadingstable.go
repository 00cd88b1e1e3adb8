package session

// This file lays out a factor model's loadings as factor-analysis papers
// print them (summary m.Lambda, layout = matrix): a row per column of the
// data, a column per factor, each cell a loading's point estimate and
// perhaps its interval, and the communality (and, asked for, the
// uniqueness) last.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// loadingsTable is a factor model's p × k loadings with, after the
// factors, the columns' communalities or uniquenesses.
type loadingsTable struct {
	// names are the model's columns, the rows.
	names []string
	// columns are the factors' columns, then communality and uniqueness
	// when shown.
	columns []gridColumn
	// factors is how many of columns are factors.
	factors int
	// interval says whether the cells show the interval.
	interval bool
	// pointName names the point estimate: "mean" or "median".
	pointName string
	// textWidth is the text width in pt that a .tex file's tabulars fit
	// (width = N); 0: an article's at 10pt.
	textWidth float64
}

// gridColumn is a column of a loadings table: its header and, by row,
// the point estimate and the interval's bounds.
type gridColumn struct {
	header        string
	point, lo, hi []float64
}

// newLoadingsTable lays out the p × k loadings of ps (row by row, as
// selectParams gives a whole m.Lambda) with their summaries sums, and the
// communalities' summaries communality (one per row), as summary's
// columns = stats asks (nil: compiler.LoadingsMatrixDefault).
func newLoadingsTable(names []string, k int, sums, communality []inference.Summary, stats []string) (*loadingsTable, error) {
	if stats == nil {
		stats = compiler.LoadingsMatrixDefault()
	}
	p := len(names)
	if k < 1 || len(sums) != p*k || len(communality) != p {
		return nil, fmt.Errorf("layout = matrix lays out the whole p × k loadings: %d of %d × %d", len(sums), p, k)
	}
	l := &loadingsTable{names: names, factors: k, interval: slices.Contains(stats, "interval"), pointName: "mean"}
	if slices.Contains(stats, "q50") {
		l.pointName = "median"
	}
	point := func(s inference.Summary) float64 {
		if l.pointName == "median" {
			return s.Q50
		}
		return s.Mean
	}
	column := func(header string) gridColumn {
		return gridColumn{header: header, point: make([]float64, p), lo: make([]float64, p), hi: make([]float64, p)}
	}
	for h := range k {
		c := column("factor " + strconv.Itoa(h+1))
		for i := range p {
			s := sums[i*k+h]
			c.point[i], c.lo[i], c.hi[i] = point(s), s.Q5, s.Q95
		}
		l.columns = append(l.columns, c)
	}
	if slices.Contains(stats, "communality") {
		c := column("communality")
		for i, s := range communality {
			c.point[i], c.lo[i], c.hi[i] = point(s), s.Q5, s.Q95
		}
		l.columns = append(l.columns, c)
	}
	if slices.Contains(stats, "uniqueness") {
		// 1 − h², draw by draw: its mean, median and quantiles are those
		// of h² turned about 1/2, the bounds swapped.
		c := column("uniqueness")
		for i, s := range communality {
			c.point[i], c.lo[i], c.hi[i] = 1-point(s), 1-s.Q95, 1-s.Q5
		}
		l.columns = append(l.columns, c)
	}
	return l, nil
}

// has reports whether the table has a column of that header.
func (l *loadingsTable) has(header string) bool {
	return slices.ContainsFunc(l.columns, func(c gridColumn) bool { return c.header == header })
}

// intervalText is the interval of column c's row i: [lo, hi].
func (l *loadingsTable) intervalText(c, i int) string {
	col := l.columns[c]
	return "[" + tableNum(matrixDecimals, col.lo[i]) + ", " + tableNum(matrixDecimals, col.hi[i]) + "]"
}

// cell is row i of column c as the table shown and a Markdown file write
// it: the point estimate, then the interval in brackets.
func (l *loadingsTable) cell(c, i int) string {
	s := tableNum(matrixDecimals, l.columns[c].point[i])
	if l.interval {
		s += " " + l.intervalText(c, i)
	}
	return s
}

// table is the loadings as a Table: a row per column of the data, a
// column per factor, then communality and uniqueness.
func (l *loadingsTable) table() *Table {
	t := &Table{Header: []string{""}}
	for _, c := range l.columns {
		t.Header = append(t.Header, c.header)
	}
	for i, name := range l.names {
		row := []string{name}
		for c := range l.columns {
			row = append(row, l.cell(c, i))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// csv returns the point estimates as a CSV writes them: a header of ""
// and the columns' headers (factor 1, ..., communality), then a row per
// column of the data, its name first, every number in full, as R's
// write.csv writes a matrix with row names.
func (l *loadingsTable) csv() ([]string, [][]string) {
	header := []string{""}
	for _, c := range l.columns {
		header = append(header, c.header)
	}
	rows := make([][]string, len(l.names))
	for i, name := range l.names {
		rows[i] = []string{name}
		for _, c := range l.columns {
			rows[i] = append(rows[i], fullNum(c.point[i]))
		}
	}
	return header, rows
}

// csvWhat says what the CSV holds, for the line that says it was written.
func (l *loadingsTable) csvWhat() string {
	what := fmt.Sprintf("the %d × %d matrix of posterior %ss of the loadings", len(l.names), l.factors, l.pointName)
	var more []string
	for _, c := range l.columns[l.factors:] {
		more = append(more, c.header)
	}
	if len(more) > 0 {
		what += " and " + strings.Join(more, " and ")
	}
	return what
}

// columnWidth is the width in pt of column c in a .tex file, with its
// \tabcolsep each side.
func (l *loadingsTable) columnWidth(c int) float64 {
	w := texTextWidth(l.columns[c].header)
	for i := range l.names {
		w = max(w, texTextWidth(tableNum(matrixDecimals, l.columns[c].point[i])))
		if l.interval {
			w = max(w, texTextWidth(l.intervalText(c, i)))
		}
	}
	return w + 2*tabcolsepPt
}

// labelWidth is the width in pt of the column of names, with the
// \tabcolsep after it (@{} before).
func (l *loadingsTable) labelWidth() float64 {
	w := 0.0
	for _, n := range l.names {
		w = max(w, texTextWidth(n))
	}
	return w + tabcolsepPt
}

// raggedNames is the width in pt of the column of names set as
// ragged-right paragraphs (raggedWidth) when the names are too wide to
// set every column beside them on one line each: all the columns beside
// them when that makes them fit (one tabular), else as many as fit beside
// the narrowest paragraphs, when that takes fewer tabulars than the names
// on one line or these leave no room for one column (raggedBlockNames, as
// a matrix's row names); 0 otherwise.
func (l *loadingsTable) raggedNames() float64 {
	columns, widest := 0.0, 0.0
	for c := range l.columns {
		columns += l.columnWidth(c)
		widest = max(widest, l.columnWidth(c))
	}
	textWidth := orDefaultWidth(l.textWidth)
	if l.labelWidth()+columns-tabcolsepPt <= textWidth {
		return 0
	}
	if w := raggedWidth(l.names, columns, l.textWidth); w > 0 {
		return w
	}
	groups := func(label float64) int { return len(l.columnGroups(label)) }
	return raggedBlockNames(l.names, widest, l.labelWidth()-tabcolsepPt, len(l.columns), groups, l.textWidth)
}

// columnGroups splits the columns into runs that each fit the text width
// beside a column of names label pt wide (with its \tabcolsep after it):
// as many as fit (at least one), each run's first column and the column
// after its last.
func (l *loadingsTable) columnGroups(label float64) [][2]int {
	var out [][2]int
	for from := 0; from < len(l.columns); {
		// The last column has no \tabcolsep after it (@{}).
		to, width := from+1, label+l.columnWidth(from)-tabcolsepPt
		for to < len(l.columns) && width+l.columnWidth(to) <= orDefaultWidth(l.textWidth) {
			width += l.columnWidth(to)
			to++
		}
		out = append(out, [2]int{from, to})
		from = to
	}
	return out
}

// blocks splits the table into tabulars that each fit the text width
// (l.textWidth) and an article's page height: as many columns as fit
// beside the names, on one line or as paragraphs (raggedNames), at least
// one, then as many rows as fit the page (two lines a row with intervals,
// and more for a name set in several).
func (l *loadingsTable) blocks() []texBlock {
	label := l.labelWidth()
	rowsPerBlock := maxBlockLines
	if l.interval {
		rowsPerBlock /= 2
	}
	runs := chunks(len(l.names), rowsPerBlock)
	if ragged := l.raggedNames(); ragged > 0 {
		label = ragged + tabcolsepPt
		lines := make([]int, len(l.names))
		for i, name := range l.names {
			lines[i] = wrappedLines(name, ragged)
			if l.interval {
				lines[i]++
			}
		}
		runs = chunksOfLines(lines, maxBlockLines)
	}
	var out []texBlock
	for _, g := range l.columnGroups(label) {
		for _, c := range runs {
			out = append(out, texBlock{from: g[0], to: g[1], firstRow: c[0], lastRow: c[1]})
		}
	}
	return out
}

// tabulars is how many tabulars writeTeX writes.
func (l *loadingsTable) tabulars() int { return len(l.blocks()) }

// widthNote says, when the names are set as paragraphs, that the file
// needs the array package, or, when a block of one column is still wider
// than an article's text (names too long to set beside even one column,
// and with a word too long for a paragraph of them), by how much and
// what narrows it; "" when every block fits as it is.
func (l *loadingsTable) widthNote() string {
	if ragged := l.raggedNames(); ragged > 0 {
		return raggedNamesNote(ragged, l.textWidth)
	}
	w := 0.0
	for c := range l.columns {
		w = max(w, l.labelWidth()+l.columnWidth(c)-tabcolsepPt)
	}
	if w <= orDefaultWidth(l.textWidth) {
		return ""
	}
	return fmt.Sprintf("a tabular of the names and one column is about %.0f pt wide, wider than %s: shorter column names in the data, or \\resizebox{\\linewidth}{!}{...} (graphicx) narrow it", w, textWidthWords(l.textWidth))
}

// writeTeX writes the table as booktabs tabulars, one per block, one
// above the other: each row a column's name and its point estimates, the
// next line their intervals. It returns how many tabulars it wrote.
func (l *loadingsTable) writeTeX(b *strings.Builder) int {
	num := func(v float64) string { return texCell(tableNum(matrixDecimals, v), true) }
	blocks := l.blocks()
	names := "l"
	if ragged := l.raggedNames(); ragged > 0 {
		names = fmt.Sprintf(`>{\raggedright\arraybackslash}p{%.0fpt}`, ragged)
	}
	for k, bl := range blocks {
		writeTabularStart(b, k, len(blocks))
		b.WriteString(`\begin{tabular}{@{}` + names + strings.Repeat("c", bl.to-bl.from) + "@{}}\n\\toprule\n")
		head := []string{""}
		for c := bl.from; c < bl.to; c++ {
			head = append(head, texLabel(l.columns[c].header))
		}
		b.WriteString(strings.Join(head, " & ") + " \\\\\n\\midrule\n")
		for i := bl.firstRow; i < bl.lastRow; i++ {
			points := []string{texLabel(l.names[i])}
			intervals := []string{""}
			for c := bl.from; c < bl.to; c++ {
				col := l.columns[c]
				points = append(points, num(col.point[i]))
				intervals = append(intervals, "["+num(col.lo[i])+", "+num(col.hi[i])+"]")
			}
			b.WriteString(strings.Join(points, " & ") + " \\\\\n")
			if l.interval {
				b.WriteString(strings.Join(intervals, " & ") + " \\\\\n")
			}
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
	}
	endTabulars(b, len(blocks))
	return len(blocks)
}
