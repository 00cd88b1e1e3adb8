package session

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

// widestMatrix is a p × p matrix named prefix1, prefix2, ..., every entry
// -0.55 in [-0.66, -0.44], the widest numbers.
func widestMatrix(prefix string, p int, interval bool, textWidth float64) *matrixTable {
	m := &matrixTable{interval: interval, diagonal: 1, pointName: "mean", textWidth: textWidth}
	for i := range p {
		m.names = append(m.names, prefix+strconv.Itoa(i+1))
	}
	grid := func(v float64) [][]float64 {
		g := make([][]float64, p)
		for i := range g {
			g[i] = make([]float64, p)
			for j := range g[i] {
				g[i][j] = v
			}
		}
		return g
	}
	m.point, m.lo, m.hi = grid(-0.55), grid(-0.66), grid(-0.44)
	return m
}

// blockColumns is how many columns each block of columns of m holds, in
// order (each once, however many blocks of rows it is split into).
func blockColumns(m *matrixTable) []int {
	var out []int
	last := -1
	for _, b := range m.blocks(m.numbered()) {
		if b.from != last {
			out = append(out, b.to-b.from)
			last = b.from
		}
	}
	return out
}

// matrixBlockWidth estimates the width in pt of the tabular of block b of
// m: its names (as paragraphs, or the widest of its rows on one line) and
// its columns, as writeTeX sets them.
func matrixBlockWidth(m *matrixTable, b texBlock) float64 {
	numbered := m.numbered()
	label := m.raggedLabels(numbered)
	if label == 0 {
		for i := b.firstRow; i < b.lastRow; i++ {
			label = max(label, texTextWidth(m.rowLabel(i, numbered)))
		}
	}
	w := label
	for j := b.from; j < b.to; j++ {
		w += m.texColumnWidth(j, numbered)
	}
	return w
}

// TestTeXWidthSetsBlocksAndParagraphs: width = N (textWidth) is the text
// width every .tex layout fits: the columns of a matrix's blocks, the
// paragraphs of long row names of a matrix (numbered) and of a loadings
// matrix and a long table, and the notes, which name it. Every block fits
// it.
func TestTeXWidthSetsBlocksAndParagraphs(t *testing.T) {
	wordings := []string{"On the whole, I am satisfied with myself", "At times I think I am no good at all",
		"I feel that I have a number of good qualities", "I am able to do things as well as most other people"}
	for _, tc := range []struct {
		width float64
		// blocks of columns of a 20 × 20 matrix of short names, with
		// intervals, and of 7 long names (numbered), with the width of the
		// long names' paragraphs
		short, long []int
		longRagged  float64
		// the paragraphs of the loadings of 4 long names (mean and
		// communality) and of a long table's names (C[a, b] of 4 long
		// names, with mean and rhat: the width less the 74 pt of its
		// columns, 0 when the names fit), and how many tabulars the
		// loadings take
		loadingsRagged, longTableRagged float64
		loadingsTabulars                int
		note                            string
	}{
		{0, []int{4, 4, 4, 4, 3}, []int{3, 3}, 119, 183, 271, 1, "fits an article's text (345 pt at 10pt)"},
		{240, []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 1}, []int{1, 1, 1, 1, 1, 1}, 164, 101, 166, 2, "fits the text width of 240 pt (width = 240)"},
		{390, []int{4, 4, 4, 4, 3}, []int{3, 3}, 164, 0, 316, 1, "fits the text width of 390 pt (width = 390)"},
		{550, []int{7, 7, 5}, []int{6}, 100, 0, 0, 1, "fits the text width of 550 pt (width = 550)"},
	} {
		short := widestMatrix("Y", 20, true, tc.width)
		long := widestMatrix("I am able to do things as well as most other people, item ", 7, true, tc.width)
		if got := blockColumns(short); fmt.Sprint(got) != fmt.Sprint(tc.short) {
			t.Errorf("width %v: a 20-column matrix's blocks hold %v columns, want %v", tc.width, got, tc.short)
		}
		if got := blockColumns(long); fmt.Sprint(got) != fmt.Sprint(tc.long) {
			t.Errorf("width %v: the long names' blocks hold %v columns, want %v", tc.width, got, tc.long)
		}
		if got := long.raggedLabels(true); got != tc.longRagged {
			t.Errorf("width %v: the long names are paragraphs %v pt wide, want %v", tc.width, got, tc.longRagged)
		}
		if note := long.widthNote(); !strings.Contains(note, tc.note) {
			t.Errorf("width %v: the long names' note %q, want it to say %q", tc.width, note, tc.note)
		}
		for _, m := range []*matrixTable{short, long} {
			for _, b := range m.blocks(m.numbered()) {
				if w := matrixBlockWidth(m, b); w > orDefaultWidth(tc.width) {
					t.Errorf("width %v: the block of columns %d to %d of %s… is %.1f pt wide", tc.width, b.from+1, b.to, m.names[0], w)
				}
			}
		}

		sums := make([]inference.Summary, len(wordings)*2)
		for i := range sums {
			sums[i] = inference.Summary{Mean: -0.55, Q5: -0.66, Q95: -0.44}
		}
		h2 := make([]inference.Summary, len(wordings))
		for i := range h2 {
			h2[i] = inference.Summary{Mean: 0.5, Q5: 0.4, Q95: 0.6}
		}
		l, err := newLoadingsTable(wordings, 2, sums, h2, []string{"mean", "communality"})
		if err != nil {
			t.Fatal(err)
		}
		l.textWidth = tc.width
		if got := l.raggedNames(); got != tc.loadingsRagged {
			t.Errorf("width %v: the loadings' names are paragraphs %v pt wide, want %v", tc.width, got, tc.loadingsRagged)
		}
		if got := l.tabulars(); got != tc.loadingsTabulars {
			t.Errorf("width %v: the loadings take %d tabulars, want %d", tc.width, got, tc.loadingsTabulars)
		}
		if note := l.widthNote(); tc.loadingsRagged > 0 && !strings.Contains(note, tc.note) {
			t.Errorf("width %v: the loadings' note %q, want it to say %q", tc.width, note, tc.note)
		}

		header := []string{"param", "mean", "rhat"}
		var rows [][]string
		for _, n := range wordings {
			rows = append(rows, []string{"C[" + n + ", " + n + "]", "-0.55", "1.002"})
		}
		if got := raggedNames(header, rows, tc.width); got != tc.longTableRagged {
			t.Errorf("width %v: a long table's names are paragraphs %v pt wide, want %v", tc.width, got, tc.longTableRagged)
		}
		if note := widthNote(header, rows, tc.width); tc.longTableRagged > 0 && !strings.Contains(note, tc.note) {
			t.Errorf("width %v: a long table's note %q, want it to say %q", tc.width, note, tc.note)
		}
	}
}

// TestMatrixLongNamesSetAsParagraphs: a matrix of 7 names of some 280 pt
// (numbered, in an article's 345 pt) set the names on one line beside one
// column at a time: 6 tabulars. Its row names are set as ragged-right
// paragraphs, as a long table's are, so that a block holds as many
// columns as beside names of 90 pt: 3, in 2 tabulars; the numbers across
// the top stay numbers, and the file says it needs the array package.
func TestMatrixLongNamesSetAsParagraphs(t *testing.T) {
	m := widestMatrix("I am able to do things as well as most other people, item ", 7, true, 0)
	numbered := m.numbered()
	label := 0.0
	for _, l := range m.rowLabels(numbered) {
		label = max(label, texTextWidth(l))
	}
	if before := len(m.columnGroups(label+tabcolsepPt, numbered)); before != 6 {
		t.Errorf("the names on one line leave room for %d blocks of columns, want 6", before)
	}
	if n := m.tabulars(); n != 2 {
		t.Errorf("%d tabulars, want 2", n)
	}
	var b strings.Builder
	if n := m.writeTeX(&b); n != 2 || strings.Count(b.String(), `\begin{tabular}`) != 2 {
		t.Errorf("writeTeX says %d tabulars and writes %d, want 2", n, strings.Count(b.String(), `\begin{tabular}`))
	}
	tex := b.String()
	for _, want := range []string{
		"\\begin{tabular}{@{}>{\\raggedright\\arraybackslash}p{119pt}ccc@{}}\n\\toprule\n & 1 & 2 & 3 \\\\\n",
		"\\begin{tabular}{@{}>{\\raggedright\\arraybackslash}p{119pt}ccc@{}}\n\\toprule\n & 4 & 5 & 6 \\\\\n",
		"\n4. I am able to do things as well as most other people, item 4 & --- &  &  \\\\\n",
	} {
		if !strings.Contains(tex, want) {
			t.Errorf("the .tex lacks %q:\n%s", want, tex)
		}
	}
	if note := m.widthNote(); !strings.Contains(note, "ragged-right paragraphs 119 pt wide") || !strings.Contains(note, `\usepackage{array}`) {
		t.Errorf("note %q, want it to say the names are paragraphs that need the array package", note)
	}
	// Means of 8 names of some 130 pt: paragraphs would hold 6 columns, then
	// 1, where the names on one line hold 5, then 2: as many tabulars, so
	// the names stay on one line.
	m = widestMatrix("Parents' highest degree ", 8, false, 0)
	if got, ragged := blockColumns(m), m.raggedLabels(true); fmt.Sprint(got) != "[5 2]" || ragged != 0 {
		t.Errorf("8 names of means: blocks of %v columns, paragraphs %v pt wide; want [5 2] on one line", got, ragged)
	}
}
