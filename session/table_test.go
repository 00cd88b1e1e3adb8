package session

import (
	"flag"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

var updateTableGolden = flag.Bool("update-tables", false, "rewrite the table golden files in testdata/")

// goldenSummaries covers typical values, NaN (posterior's NA), infinities,
// negative numbers, rounding to zero and wide ESS.
func goldenSummaries() ([]string, []inference.Summary) {
	nan := math.NaN()
	names := []string{"C.1.2", "C.1.3", "C.2.3", "Lambda.1.1", "const"}
	sums := []inference.Summary{
		{Mean: 0.31234, SD: 0.05321, Q5: 0.22449, Q50: 0.31251, Q95: 0.39875, ESSBulk: 1523.4, ESSTail: 1788.6, RHat: 1.0012, MCSEMean: 0.001363, MCSESD: 0.000962},
		{Mean: -0.4, SD: 0.1, Q5: -0.5645, Q50: -0.40049, Q95: -0.2355, ESSBulk: 312.5, ESSTail: 98.49, RHat: 1.0234, MCSEMean: 0.00566, MCSESD: 0.00401},
		{Mean: -0.0001, SD: 0.0004, Q5: -0.0008, Q50: 0, Q95: 0.0006, ESSBulk: 12345.6, ESSTail: 9999.5, RHat: 0.9995, MCSEMean: 0.0000036, MCSESD: -0.00000002},
		{Mean: 1.5, SD: math.Inf(1), Q5: math.Inf(-1), Q50: 1.5, Q95: 2, ESSBulk: 3, ESSTail: 4, RHat: 1.5, MCSEMean: math.Inf(1), MCSESD: nan},
		{Mean: 0.5, SD: 0, Q5: 0.5, Q50: 0.5, Q95: 0.5, ESSBulk: nan, ESSTail: nan, RHat: nan, MCSEMean: nan, MCSESD: nan},
	}
	return names, sums
}

func TestSummaryTableGolden(t *testing.T) {
	names, sums := goldenSummaries()
	tab := SummaryTable(names, sums)
	tab.Caption = "posterior of m.C <fit 1>"
	for _, g := range []struct{ file, got string }{
		{"summary_table.txt", tab.Text()},
		{"summary_table.html", tab.HTML()},
	} {
		path := filepath.Join("testdata", g.file)
		if *updateTableGolden {
			if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestSummaryTableGolden -update-tables to create it)", err)
		}
		if g.got != string(want) {
			t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", g.file, path, g.got, want)
		}
	}
}

func TestSummaryTableFormat(t *testing.T) {
	names, sums := goldenSummaries()
	tab := SummaryTable(names, sums)
	lines := strings.Split(strings.TrimSuffix(tab.Text(), "\n"), "\n")
	if got := strings.Join(strings.Fields(lines[0]), " "); got != "param mean sd q5 q50 q95 ess_bulk ess_tail rhat mcse_mean mcse_sd" {
		t.Errorf("header %q", got)
	}
	if len(lines) != 1+len(names) {
		t.Fatalf("%d lines, want %d", len(lines), 1+len(names))
	}
	tests := []struct {
		row  int
		want string
	}{
		{0, "C.1.2 0.312 0.053 0.224 0.313 0.399 1523 1789 1.001 0.0014 0.0010"},
		{2, "C.2.3 0.000 0.000 -0.001 0.000 0.001 12346 10000 1.000 0.0000 0.0000"},
		{3, "Lambda.1.1 1.500 +Inf -Inf 1.500 2.000 3 4 1.500 +Inf NA"},
		{4, "const 0.500 0.000 0.500 0.500 0.500 NA NA NA NA NA"},
	}
	for _, tc := range tests {
		if got := strings.Join(strings.Fields(lines[1+tc.row]), " "); got != tc.want {
			t.Errorf("row %d = %q, want %q", tc.row, got, tc.want)
		}
		if got := strings.Join(tab.Rows[tc.row], " "); got != tc.want {
			t.Errorf("cells of row %d = %q, want %q", tc.row, got, tc.want)
		}
	}
}

// TestSummaryTableInterval: summary m.C, prob = P names the interval's
// columns by their percentages and keeps the rest of the stable header.
func TestSummaryTableInterval(t *testing.T) {
	names, sums := goldenSummaries()
	for _, c := range []struct {
		prob float64
		want string
	}{
		{0.9, "param mean sd q5 q50 q95 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.8, "param mean sd q10 q50 q90 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.95, "param mean sd q2.5 q50 q97.5 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.5, "param mean sd q25 q50 q75 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.999, "param mean sd q0.05 q50 q99.95 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		// A narrow or a very wide interval still names three quantiles
		// apart, and none of them the minimum or the maximum.
		{1e-9, "param mean sd q49.99999995 q50 q50.00000005 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{1e-6, "param mean sd q49.99995 q50 q50.00005 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.999999, "param mean sd q0.00005 q50 q99.99995 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
		{0.9999999, "param mean sd q0.000005 q50 q99.999995 ess_bulk ess_tail rhat mcse_mean mcse_sd"},
	} {
		if got := strings.Join(posteriorTable(names, sums, c.prob).Header, " "); got != c.want {
			t.Errorf("prob %v: header %q, want %q", c.prob, got, c.want)
		}
	}
}

func TestSummaryTableMismatchPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "2 names for 1 summaries") {
			t.Errorf("recovered %v, want a panic about 2 names for 1 summaries", r)
		}
	}()
	SummaryTable([]string{"a", "b"}, make([]inference.Summary, 1))
}

func TestTableText(t *testing.T) {
	tests := []struct {
		name  string
		table Table
		want  string
	}{
		{"empty", Table{}, ""},
		{"header only", Table{Header: []string{"a", "bb"}}, "a  bb\n"},
		{"aligned", Table{Header: []string{"name", "x"}, Rows: [][]string{{"alpha", "1"}, {"b", "-22.5"}}},
			"name       x\nalpha      1\nb      -22.5\n"},
		{"ragged rows padded", Table{Header: []string{"k"}, Rows: [][]string{{"a", "1", "2"}, {}}},
			"k\na  1  2\n\n"},
		{"runes counted, not bytes", Table{Header: []string{"μ", "σ"}, Rows: [][]string{{"αβγ", "1"}}},
			"μ    σ\nαβγ  1\n"},
		{"caption left out", Table{Header: []string{"a"}, Rows: [][]string{{"1"}}, Caption: "cap"}, "a\n1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.table.Text(); got != tc.want {
				t.Errorf("Text() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTableHTML: a caption is a paragraph before the table, both in one
// <div>, since a <caption> is as wide as its table: the long caption of
// summary gss or impute m wrapped into four or five centred lines over
// a narrow table in nbconvert's HTML and Notebook 6.
func TestTableHTML(t *testing.T) {
	tests := []struct {
		name  string
		table Table
		want  string
	}{
		{"empty", Table{}, "<table>\n<tbody>\n</tbody>\n</table>\n"},
		{"escaped", Table{Header: []string{"<a>"}, Rows: [][]string{{`"x" & 'y'`}}, Caption: "1 < 2"},
			"<div>\n<p>1 &lt; 2</p>\n<table>\n<thead>\n<tr><th>&lt;a&gt;</th></tr>\n</thead>\n" +
				"<tbody>\n<tr><td>&#34;x&#34; &amp; &#39;y&#39;</td></tr>\n</tbody>\n</table>\n</div>\n"},
		// The caption stays in view over a table that scrolls (impute m).
		{"scrolling", Table{Header: []string{"a"}, Rows: [][]string{{"1"}}, Caption: "c", maxHeight: "32em"},
			"<div>\n<p>c</p>\n<div style=\"max-height: 32em; overflow-y: auto\">\n<table>\n<thead>\n<tr><th>a</th></tr>\n</thead>\n" +
				"<tbody>\n<tr><td>1</td></tr>\n</tbody>\n</table>\n</div>\n</div>\n"},
		{"ragged", Table{Header: []string{"a", "b"}, Rows: [][]string{{"1"}}},
			"<table>\n<thead>\n<tr><th>a</th><th>b</th></tr>\n</thead>\n<tbody>\n<tr><td>1</td><td></td></tr>\n</tbody>\n</table>\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.table.HTML(); got != tc.want {
				t.Errorf("HTML() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTableBundle(t *testing.T) {
	tab := &Table{Header: []string{"a"}, Rows: [][]string{{"<1>"}}}
	b := tab.Bundle()
	if b["text/html"] != tab.HTML() || b["text/plain"] != tab.Text() || len(b) != 2 {
		t.Errorf("Bundle() = %v", b)
	}
}

// TestTableTextCarriesCaption: the text of a table with a caption (what
// copulang run and jupyter console print) starts with the caption the
// notebook shows over its HTML, as the columns' meaning (q5 and q95) is
// there; an elided table's caption is given once, by the text's last line.
func TestTableTextCarriesCaption(t *testing.T) {
	tab := &Table{Header: []string{"param", "q5"}, Rows: [][]string{{"a", "1"}, {"b", "2"}, {"c", "3"}}, Caption: "q5 is the 5% quantile"}
	if got, want := tab.Bundle()["text/plain"], "q5 is the 5% quantile\nparam  q5\na       1\nb       2\nc       3\n"; got != want {
		t.Errorf("text/plain = %q, want %q", got, want)
	}
	cut := tab.elide(2, "all of them")
	if got, want := cut.Bundle()["text/plain"], "q5 is the 5% quantile\nparam  q5\na       1\n…       …\nc       3\n(2 of 3 rows shown, the first 1 and the last 1: all of them)\n"; got != want {
		t.Errorf("elided text/plain = %q, want %q", got, want)
	}
}

// captionedLines returns the lines of a table's text/plain after its
// caption, checking that the caption is the one its HTML shows.
func captionedLines(t *testing.T, b MimeBundle) []string {
	t.Helper()
	plain, _ := b["text/plain"].(string)
	lines := strings.Split(strings.TrimSpace(plain), "\n")
	h, _ := b["text/html"].(string)
	if rest, ok := strings.CutPrefix(h, "<div>\n<p>"); ok {
		caption, _, _ := strings.Cut(rest, "</p>")
		caption = html.UnescapeString(caption)
		if !strings.HasPrefix(caption, lines[0]) {
			t.Errorf("text/plain starts %q, not with the caption %q", lines[0], caption)
		}
		return lines[1:]
	}
	return lines
}

// FuzzTableText checks that any cells give one text line per row after
// the header and one HTML cell per table cell.
func FuzzTableText(f *testing.F) {
	f.Add("param mean", "a 1\nb <2>&\n")
	f.Add("", "\n\n")
	f.Add("μ σ", "ξ  ψ  ω\n")
	f.Fuzz(func(t *testing.T, header, body string) {
		if strings.ContainsAny(header+body, "\r") {
			return
		}
		tab := &Table{Header: strings.Fields(header)}
		for _, line := range strings.Split(body, "\n") {
			tab.Rows = append(tab.Rows, strings.Fields(line))
		}
		cols := tab.tableColumns()
		text := tab.Text()
		if cols == 0 {
			if text != "" {
				t.Fatalf("no columns but text %q", text)
			}
			return
		}
		want := len(tab.Rows)
		if len(tab.Header) > 0 {
			want++
		}
		if got := strings.Count(text, "\n"); got != want {
			t.Fatalf("%d lines, want %d: %q", got, want, text)
		}
		h := tab.HTML()
		if got := strings.Count(h, "<td>") + strings.Count(h, "<th>"); got != cols*want {
			t.Fatalf("%d cells in HTML, want %d", got, cols*want)
		}
	})
}

// TestTableElide: a table longer than the limit keeps its first max/2 and
// last rows around a row of "…", and its caption and text say how many rows
// are shown and where the rest are; a table within the limit, or no limit,
// leaves it as it is.
func TestTableElide(t *testing.T) {
	tab := &Table{Header: []string{"param", "mean"}, Caption: "posterior"}
	for i := range 7 {
		tab.Rows = append(tab.Rows, []string{fmt.Sprintf("p%d", i), fmt.Sprint(i)})
	}
	for _, max := range []int{0, -1, 7, 8} {
		if got := tab.elide(max, "export it"); got != tab {
			t.Errorf("elide(%d) changed a table of 7 rows", max)
		}
	}
	for _, c := range []struct {
		max  int
		rows []string // first cells
		note string
	}{
		{4, []string{"p0", "p1", "…", "p5", "p6"}, "4 of 7 rows shown, the first 2 and the last 2: export it"},
		{5, []string{"p0", "p1", "…", "p4", "p5", "p6"}, "5 of 7 rows shown, the first 2 and the last 3: export it"},
		{1, []string{"…", "p6"}, "1 of 7 rows shown, the first 0 and the last 1: export it"},
	} {
		got := tab.elide(c.max, "export it")
		var first []string
		for _, r := range got.Rows {
			first = append(first, r[0])
			if r[0] == "…" && r[1] != "…" {
				t.Errorf("max %d: gap row %q", c.max, r)
			}
		}
		if strings.Join(first, " ") != strings.Join(c.rows, " ") {
			t.Errorf("max %d: rows %q, want %q", c.max, first, c.rows)
		}
		if got.Caption != "posterior; "+c.note {
			t.Errorf("max %d: caption %q", c.max, got.Caption)
		}
		text := strings.Split(strings.TrimSpace(got.Text()), "\n")
		if last := text[len(text)-1]; last != "("+c.note+")" {
			t.Errorf("max %d: the text ends %q", c.max, last)
		}
		if !strings.Contains(got.HTML(), "<p>posterior; "+c.note+"</p>") {
			t.Errorf("max %d: HTML caption missing the note", c.max)
		}
	}
	if len(tab.Rows) != 7 || tab.Caption != "posterior" || strings.Contains(tab.Text(), "shown") {
		t.Errorf("elide changed the table it was given: %d rows, caption %q", len(tab.Rows), tab.Caption)
	}
}

// TestTableRowsShown: a table whose rows outside tableRowsShown's first
// and last are left nil displays exactly as the whole table does, for the
// kernel's and the CLI's options and others, tables shorter and longer
// than the limits, and both text cuts.
func TestTableRowsShown(t *testing.T) {
	for _, opts := range []Options{
		{TableRows: KernelTableRows, TextRows: 20},
		{TableRows: 0, TextRows: 0},
		{TableRows: 10, TextRows: 0},
		{TableRows: 10, TextRows: 30},
		{TableRows: 7, TextRows: 4},
	} {
		s := New(opts)
		for _, n := range []int{0, 3, 9, 10, 11, 25, 31, 2000} {
			for _, firstOnly := range []bool{false, true} {
				whole := &Table{Header: []string{"row", "value"}, Caption: "cells"}
				for i := range n {
					whole.Rows = append(whole.Rows, []string{fmt.Sprint(i + 1), fmt.Sprint(i * i)})
				}
				head, tail := s.tableRowsShown(n, firstOnly)
				part := &Table{Header: whole.Header, Caption: whole.Caption, Rows: make([][]string, n)}
				for i := range n {
					if i < head || i >= n-tail {
						part.Rows[i] = whole.Rows[i]
					}
				}
				got, want := s.tableBundle(part, "all", firstOnly), s.tableBundle(whole, "all", firstOnly)
				for mime, w := range want {
					if got[mime] != w {
						t.Fatalf("%+v, %d rows, firstOnly %v: %s differs:\n%v\nwant\n%v", opts, n, firstOnly, mime, got[mime], w)
					}
				}
			}
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		prob float64
		want string
	}{{0.9, "90"}, {0.95, "95"}, {1e-9, "0.0000001"}, {1.0 / 3, "33.33333333"}, {0.999999, "99.9999"}} {
		if got := percent(c.prob); got != c.want {
			t.Errorf("percent(%v) = %s, want %s", c.prob, got, c.want)
		}
	}
}

// TestTableNarrow: a table whose text is wider than the limit keeps its
// lead columns, as many more as fit and its last ones around a column of
// "…", and its text says how many of the columns after the lead it shows;
// a table within the limit is left as it is, and a lead wider than the
// limit is kept with one column more.
func TestTableNarrow(t *testing.T) {
	tab := &Table{Header: []string{"row", "a", "b", "c", "d", "e"}, Rows: [][]string{{"1", "10", "20", "30", "40", "50"}}}
	// "1    10  20  30  40  50" is 23 runes.
	for _, c := range []struct {
		width, lead, last int
		header, note      string
	}{
		{23, 1, 2, "row a b c d e", ""},
		{22, 1, 2, "row a b … d e", "(4 of 5 columns shown, the first 2 and the last 2: all)"},
		{21, 1, 2, "row a … d e", "(3 of 5 columns shown, the first 1 and the last 2: all)"},
		{17, 1, 1, "row a … e", "(2 of 5 columns shown, the first 1 and the last 1: all)"},
		{25, 0, 1, "row a b c d e", ""},
		{18, 0, 1, "row a b … e", "(4 of 6 columns shown, the first 3 and the last 1: all)"},
		{3, 1, 1, "row a … e", "(2 of 5 columns shown, the first 1 and the last 1: all)"},
	} {
		got := tab.narrow(c.width, c.lead, c.last, "all")
		lines := strings.Split(strings.TrimSpace(got.Text()), "\n")
		if h := strings.Join(strings.Fields(lines[0]), " "); h != c.header {
			t.Errorf("narrow(%d, %d, %d): header %q, want %q", c.width, c.lead, c.last, h, c.header)
		}
		note := ""
		if len(lines) > 2 {
			note = lines[len(lines)-1]
		}
		if note != c.note {
			t.Errorf("narrow(%d, %d, %d): note %q, want %q", c.width, c.lead, c.last, note, c.note)
		}
		if c.note == "" && got != tab {
			t.Errorf("narrow(%d, %d, %d) changed a table that fits", c.width, c.lead, c.last)
		}
	}
	if len(tab.Header) != 6 || len(tab.Rows[0]) != 6 || tab.Caption != "" {
		t.Errorf("narrow changed the table it was given: %v", tab)
	}
}
