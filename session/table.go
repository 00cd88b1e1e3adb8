package session

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// Table is a table of text cells, shown as HTML in a notebook and as
// whitespace-aligned text in the CLI.
type Table struct {
	Header  []string
	Rows    [][]string
	Caption string
	// elided, set by elide, says which rows are left out and where to
	// find them; Text ends with it.
	elided string
	// maxHeight, when set (a CSS length), is the height past which the
	// HTML's <table> scrolls, under its caption, which stays in view.
	maxHeight string
	// exact, when set, are the rows with every number in full, as a CSV
	// file of the table has them (summary ... to "x.csv"); nil: Rows.
	exact [][]string
}

// elide returns t cut to its first max/2 and last max − max/2 rows, with a
// row of "…" between them, when it has more than max rows (max > 0);
// otherwise t.
// The caption, and a last line of the text, say how many rows are shown
// and end with where to find them all (whole, a statement). t is not
// changed. The kernel's tables are elided: a notebook given a table of
// 80,000 imputed cells (12 MB of HTML) stops showing output (Jupyter's
// servers stop forwarding past 1 MB/s) and the file grows by as much.
func (t *Table) elide(max int, whole string) *Table {
	if max <= 0 {
		return t
	}
	return t.cut(max/2, max-max/2, whole)
}

// cut returns t cut to its first head and last tail rows, with a row of
// "…" after the head (and before the tail), when it has more than head +
// tail rows; otherwise t. The caption, and a last line of the text, say
// how many rows are shown and left out, and end with whole, as elide's do.
// t is not changed.
func (t *Table) cut(head, tail int, whole string) *Table {
	if len(t.Rows) <= head+tail {
		return t
	}
	gap := make([]string, t.tableColumns())
	for j := range gap {
		gap[j] = "…"
	}
	u := *t
	u.Rows = make([][]string, 0, head+tail+1)
	u.Rows = append(u.Rows, t.Rows[:head]...)
	u.Rows = append(u.Rows, gap)
	u.Rows = append(u.Rows, t.Rows[len(t.Rows)-tail:]...)
	if tail == 0 {
		u.elided = fmt.Sprintf("the first %d of %d rows shown, %d left out: %s", head, len(t.Rows), len(t.Rows)-head, whole)
	} else {
		u.elided = fmt.Sprintf("%d of %d rows shown, the first %d and the last %d: %s", head+tail, len(t.Rows), head, tail, whole)
	}
	if u.Caption != "" {
		u.Caption += "; "
	}
	u.Caption += u.elided
	return &u
}

// textHead and textTail are the rows the plain text of a table longer than
// Options.TextRows shows, about a screen with its caption, header and the
// line saying what was left out, as pandas shows 10 of a long frame's.
const (
	textHead = 15
	textTail = 5
)

// textWidth is the widest text a table of the first rows of a data set
// shows with Options.TextRows (the kernel's): about a summary table's, as
// pandas cuts a wide frame's columns to fit the terminal.
const textWidth = 100

// tableBundle returns t as display data in this session: its HTML elided
// to Options.TableRows rows, and its text to Options.TextRows rows, with
// whole, the statement that gives every row, on the line saying what was
// left out. firstOnly cuts the text to its first textHead + textTail rows
// instead of its first and last: for a table ordered worst first, and for
// the imputed cells, as copulang run shows them.
func (s *Session) tableBundle(t *Table, whole string, firstOnly bool) MimeBundle {
	b := t.elide(s.opts.TableRows, whole).Bundle()
	if n := s.opts.TextRows; n > 0 && len(t.Rows) > n {
		head, tail := textHead, textTail
		if firstOnly {
			head, tail = textHead+textTail, 0
		}
		b["text/plain"] = t.cut(head, tail, whole).PlainText()
	}
	return b
}

// tableRowsShown returns how many of the first and the last rows of a
// table of n rows tableBundle(t, whole, firstOnly) shows, in its HTML or
// its text (head + tail ≥ n: every row): a table that costs much to make,
// row by row, need only make those.
func (s *Session) tableRowsShown(n int, firstOnly bool) (head, tail int) {
	if s.opts.TableRows <= 0 {
		return n, 0
	}
	head, tail = s.opts.TableRows/2, s.opts.TableRows-s.opts.TableRows/2
	if s.opts.TextRows > 0 && n > s.opts.TextRows {
		if firstOnly {
			head = max(head, textHead+textTail)
		} else {
			head, tail = max(head, textHead), max(tail, textTail)
		}
	}
	return head, tail
}

// tableColumns is the number of columns: the longest of the header and
// the rows (short rows are padded with empty cells).
func (t *Table) tableColumns() int {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	return n
}

// Text returns the table as lines of whitespace-aligned columns, the header
// first: the first column is left-aligned, the others right-aligned (they
// hold numbers), columns separated by at least two spaces, no trailing
// spaces. The caption is not included, so that the text stays a table a
// program can split on whitespace — unless it was elided, when a row of "…"
// and a last line saying what was left out are in it too (only the
// kernel's tables are).
func (t *Table) Text() string {
	cols := t.tableColumns()
	if cols == 0 {
		return ""
	}
	width := t.columnWidths()
	var b strings.Builder
	line := make([]byte, 0, 128)
	write := func(row []string) {
		line = line[:0]
		for j := range cols {
			cell := ""
			if j < len(row) {
				cell = row[j]
			}
			pad := width[j] - utf8.RuneCountInString(cell)
			if j > 0 {
				line = append(line, "  "...)
			}
			if j == 0 {
				line = append(line, cell...)
				line = append(line, strings.Repeat(" ", pad)...)
			} else {
				line = append(line, strings.Repeat(" ", pad)...)
				line = append(line, cell...)
			}
		}
		b.WriteString(strings.TrimRight(string(line), " "))
		b.WriteByte('\n')
	}
	if len(t.Header) > 0 {
		write(t.Header)
	}
	for _, r := range t.Rows {
		write(r)
	}
	if t.elided != "" {
		b.WriteString("(" + t.elided + ")\n")
	}
	return b.String()
}

// columnWidths is the width in runes of each column of the text: its
// widest cell, header included.
func (t *Table) columnWidths() []int {
	width := make([]int, t.tableColumns())
	measure := func(row []string) {
		for j, c := range row {
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
	}
	measure(t.Header)
	for _, r := range t.Rows {
		measure(r)
	}
	return width
}

// narrow returns t cut to its first columns and its last, around a column
// of "…", when its text is wider than width runes: as many first columns
// as fit (its lead columns, which label the rows, and one more at least)
// with the last. The caption, and a last line of the text, say how many of
// the columns after the lead are shown and end with whole, where to find
// them all, as cut's say of rows. t is not changed.
func (t *Table) narrow(width, lead, last int, whole string) *Table {
	widths := t.columnWidths()
	cols := len(widths)
	total := 2 * (cols - 1)
	for _, w := range widths {
		total += w
	}
	if total <= width || cols <= lead+last+1 {
		return t
	}
	room := width - utf8.RuneCountInString("  …")
	for _, w := range widths[cols-last:] {
		room -= 2 + w
	}
	first, used := 0, 0
	for first < cols-last {
		need := widths[first]
		if first > 0 {
			need += 2
		}
		if used+need > room {
			break
		}
		used += need
		first++
	}
	first = max(first, lead+1)
	pick := func(row []string) []string {
		out := make([]string, 0, first+1+last)
		cell := func(j int) string {
			if j < len(row) {
				return row[j]
			}
			return ""
		}
		for j := range first {
			out = append(out, cell(j))
		}
		out = append(out, "…")
		for j := cols - last; j < cols; j++ {
			out = append(out, cell(j))
		}
		return out
	}
	u := *t
	if t.Header != nil {
		u.Header = pick(t.Header)
	}
	u.Rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		u.Rows[i] = pick(r)
	}
	note := fmt.Sprintf("%d of %d columns shown, the first %d and the last %d: %s", first-lead+last, cols-lead, first-lead, last, whole)
	if u.elided != "" {
		u.elided += "; " + note
	} else {
		u.elided = note
	}
	if u.Caption != "" {
		u.Caption += "; "
	}
	u.Caption += note
	return &u
}

// HTML returns the table as an HTML <table> with a header row of <th>
// cells and escaped cell text. A caption is a paragraph before the table,
// both in one <div>: a <caption> is as wide as its table, so that a long
// one over a narrow table (summary gss, impute m) wrapped into a tall
// column of centred lines, where a paragraph reads at the output's width.
func (t *Table) HTML() string {
	cols := t.tableColumns()
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "<div>\n<p>%s</p>\n", html.EscapeString(t.Caption))
	}
	if t.maxHeight != "" {
		fmt.Fprintf(&b, "<div style=\"max-height: %s; overflow-y: auto\">\n", html.EscapeString(t.maxHeight))
	}
	b.WriteString("<table>\n")
	row := func(tag string, cells []string) {
		b.WriteString("<tr>")
		for j := range cols {
			cell := ""
			if j < len(cells) {
				cell = cells[j]
			}
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, html.EscapeString(cell), tag)
		}
		b.WriteString("</tr>\n")
	}
	if len(t.Header) > 0 {
		b.WriteString("<thead>\n")
		row("th", t.Header)
		b.WriteString("</thead>\n")
	}
	b.WriteString("<tbody>\n")
	for _, r := range t.Rows {
		row("td", r)
	}
	b.WriteString("</tbody>\n</table>\n")
	if t.maxHeight != "" {
		b.WriteString("</div>\n")
	}
	if t.Caption != "" {
		b.WriteString("</div>\n")
	}
	return b.String()
}

// Bundle returns the table as Jupyter display data: "text/html" and, as
// the fallback, "text/plain", whose first line is the caption: what the
// notebook shows above the table (the columns' meaning, the draws it
// summarises) is what a plain-text client (copulang run, jupyter console)
// prints above it.
func (t *Table) Bundle() MimeBundle {
	return MimeBundle{
		"text/html":  t.HTML(),
		"text/plain": t.PlainText(),
	}
}

// PlainText is Text with the caption on a line before the header (without
// the part saying which rows an elided table shows, which Text's last line
// says).
func (t *Table) PlainText() string {
	caption := t.Caption
	if t.elided != "" {
		caption = strings.TrimSuffix(strings.TrimSuffix(caption, t.elided), "; ")
	}
	if caption == "" {
		return t.Text()
	}
	return caption + "\n" + t.Text()
}

// SummaryTable returns the posterior summaries of named scalar quantities
// with the stable header of language.md,
//
//	param mean sd q5 q50 q95 ess_bulk ess_tail rhat mcse_mean mcse_sd
//
// (see posteriorTable in summary.go). It panics if names and sums differ in
// length.
func SummaryTable(names []string, sums []inference.Summary) *Table {
	return posteriorTable(names, sums, compiler.DefaultProb)
}

// tableNum formats v, or "NA" for NaN. A negative value that rounds to
// zero prints as zero ("0.000", not "-0.000").
func tableNum(format string, v float64) string {
	if math.IsNaN(v) {
		return "NA"
	}
	s := fmt.Sprintf(format, v)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}
