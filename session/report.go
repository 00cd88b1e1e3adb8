package session

// This file writes what a paper takes from an analysis: the table of a
// summary ... to "PATH" (CSV, LaTeX, Markdown) and the figure of a
// plot ... to "PATH" (PDF, SVG, PNG), by the file's extension.

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// tableFile is a table as summary ... to "PATH" writes it: the table
// shown, with its numbers rounded as shown (LaTeX, Markdown), the same
// rows with every number in full (CSV), and what made it, for the
// comment of a LaTeX or Markdown file. Nothing in it depends on when or
// where it was written, so that running the analysis again writes the
// same bytes.
type tableFile struct {
	table *Table
	// csvHeader and csvRows are the CSV's header and rows; nil: the
	// table's own.
	csvHeader []string
	csvRows   [][]string
	// statement is the statement that writes the file, as in summary m.C
	// to "C.tex".
	statement string
	// made says what made the table: for each fit or data set a title
	// (fit of model m) and its provenance, as an export's sidecar has it.
	made []madeOf
	// paper is the table a .tex or .md file writes; nil: table.
	paper *Table
	// matrix, when set (layout = matrix), is what the .tex and .csv files
	// write: tabulars of a correlation matrix's lower triangle or of a
	// factor model's loadings, and the matrix of point estimates.
	matrix laidOut
	// notes are more lines for the comment of a .tex or .md file: which
	// columns it holds, and how a matrix is laid out.
	notes []string
	// textWidth is the text width in pt that a .tex file's tabulars fit
	// (summary's width = N); 0: an article's at 10pt.
	textWidth float64
}

// laidOut is a table laid out as a paper prints it (layout = matrix): a
// correlation matrix (matrixTable) or a factor model's loadings
// (loadingsTable).
type laidOut interface {
	// csv is the header and rows of its .csv file: the point estimates.
	csv() ([]string, [][]string)
	// csvWhat says what the .csv file holds.
	csvWhat() string
	// writeTeX writes its .tex tabulars, returning how many.
	writeTeX(b *strings.Builder) int
	// tabulars is how many tabulars writeTeX writes.
	tabulars() int
	// widthNote says how wide a tabular too wide for the text is; "" when
	// all fit.
	widthNote() string
}

// paperTable is the table a .tex or .md file writes.
func (f *tableFile) paperTable() *Table {
	if f.paper != nil {
		return f.paper
	}
	return f.table
}

// madeOf is the provenance of one fit or data set behind a table.
type madeOf struct {
	title string
	rows  [][2]string
}

// fullNum writes v with every digit it needs to be read back as v, NA for
// NaN (as R and pandas read it), Inf and -Inf as R writes them.
func fullNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NA"
	case math.IsInf(v, 1):
		return "Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// posteriorCSV returns the CSV header and rows of a posterior summary of
// the scalars ps, in the order of names (the table's rows, perhaps
// sorted; each the key of one of ps) with their summaries sums:
//
//	label,row,column,mean,sd,qLO,q50,qHI,ess_bulk,ess_tail,rhat,mcse_mean,mcse_sd
//
// with qLO and qHI the table's, and p_positive after them when positive is
// not nil (a difference's share of draws above 0, by key).
func posteriorCSV(names []string, sums []inference.Summary, ps []param, prob float64, positive map[string]float64) ([]string, [][]string) {
	lo, hi := intervalColumns(prob)
	header := []string{"label", "row", "column", "mean", "sd", lo, "q50", hi, "ess_bulk", "ess_tail", "rhat", "mcse_mean", "mcse_sd"}
	if positive != nil {
		header = append(header, "p_positive")
	}
	byKey := make(map[string]param, len(ps))
	for _, p := range ps {
		byKey[p.key] = p
	}
	rows := make([][]string, len(names))
	for i, name := range names {
		p, s := byKey[name], sums[i]
		rows[i] = []string{name, p.row, p.column,
			fullNum(s.Mean), fullNum(s.SD), fullNum(s.Q5), fullNum(s.Q50), fullNum(s.Q95),
			fullNum(s.ESSBulk), fullNum(s.ESSTail), fullNum(s.RHat), fullNum(s.MCSEMean), fullNum(s.MCSESD)}
		if positive != nil {
			rows[i] = append(rows[i], fullNum(positive[name]))
		}
	}
	return header, rows
}

// writeTable writes f to path (as the statement names it: shown) in the
// format of its extension, into place as export writes (writeInPlace),
// and says so.
func (s *Session) writeTable(ctx context.Context, f *tableFile, shown string, out Output) error {
	if err := s.overwritable(shown); err != nil {
		return fmt.Errorf("cannot write the table: %w", err)
	}
	var write func(io.Writer, *tableFile) error
	ext := strings.ToLower(filepath.Ext(shown))
	if ext == ".tex" {
		if note := f.widthNote(); note != "" {
			f.notes = append(f.notes, note)
			out.Stream("stderr", "note: "+note+"\n")
		}
		for _, note := range texScriptNotes(f.texTabularsText()) {
			f.notes = append(f.notes, note)
			out.Stream("stderr", "note: "+note+"\n")
		}
	}
	switch ext {
	case ".csv":
		write = writeTableCSV
	case ".tex":
		write = writeTableTeX
	case ".md":
		write = writeTableMarkdown
	default:
		return fmt.Errorf("summary writes a table as .csv, .tex or .md, not %s", filepath.Ext(shown))
	}
	path := s.path(shown)
	if err := s.writeFile(ctx, path, func(w io.Writer) error { return write(w, f) }); err != nil {
		return writeError(f.statement, path, "cannot write the table", err)
	}
	what := "the table (" + plural(len(f.table.Rows), "row") + ")"
	if ext == ".csv" && f.matrix != nil { // the whole matrix, not the triangle shown
		what = f.matrix.csvWhat()
	}
	if n := f.texTabulars(); ext == ".tex" && n > 1 {
		what += fmt.Sprintf(" as %d tabulars, one above the other,", n)
	}
	out.Stream("stdout", fmt.Sprintf("wrote %s to %s\n", what, path))
	return nil
}

// texTabularsText is the text of f's .tex file but its % lines: what
// LaTeX sets.
func (f *tableFile) texTabularsText() string {
	var b strings.Builder
	writeTableTeX(&b, f) // a strings.Builder does not fail
	var body strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if !strings.HasPrefix(line, "%") {
			body.WriteString(line)
		}
	}
	return body.String()
}

// writeTableCSV writes the table's CSV: its header and rows with every
// number in full.
func writeTableCSV(w io.Writer, f *tableFile) error {
	header, rows := f.csvHeader, f.csvRows
	if f.matrix != nil {
		header, rows = f.matrix.csv()
	}
	if header == nil {
		header, rows = f.table.Header, f.table.Rows
		if f.table.exact != nil {
			rows = f.table.exact
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(header)
	for _, r := range rows {
		cw.Write(r)
	}
	cw.Flush()
	return cw.Error()
}

// madeLines are the lines that say what made a table: the statement,
// the caption (with caption set), then each fit's or data set's
// provenance, key: value.
func (f *tableFile) madeLines(caption bool) []string {
	lines := []string{"written by " + f.statement}
	if caption && f.table.Caption != "" {
		lines = append(lines, f.table.Caption)
	}
	lines = append(lines, f.notes...)
	for _, m := range f.made {
		lines = append(lines, m.title+":")
		for _, r := range m.rows {
			lines = append(lines, "  "+r[0]+": "+r[1])
		}
	}
	return lines
}

// numericColumns reports which of the table's columns hold only numbers
// (or NA), which are right-aligned.
func numericColumns(t *Table) []bool {
	n := t.tableColumns()
	numeric := make([]bool, n)
	for j := range numeric {
		numeric[j] = j > 0 && len(t.Rows) > 0
	}
	for _, r := range t.Rows {
		for j := range numeric {
			if j >= len(r) {
				continue
			}
			if _, err := strconv.ParseFloat(r[j], 64); err != nil && r[j] != "NA" {
				numeric[j] = false
			}
		}
	}
	return numeric
}

// texEscape escapes the characters LaTeX gives a meaning in text, and
// the characters of the tables' labels that LaTeX's default font
// encoding (OT1) shows as others (| as an em dash, < and > as ¡ and ¿,
// " as a closing curly quote: \textquotedbl is an error in OT1, while
// the typewriter font has a straight quote in every encoding)
// or its default input encoding lacks (− as $-$, – as --, … as
// \ldots{}).
var texEscape = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`|`, `\textbar{}`, `<`, `\textless{}`, `>`, `\textgreater{}`, `"`, `\texttt{"}`,
	"−", "$-$", "–", "--", "…", `\ldots{}`,
)

// texCell is a cell of the LaTeX table: a number with its minus sign as
// a minus ($-$, not a hyphen), else the text escaped.
func texCell(cell string, numeric bool) string {
	if numeric && strings.HasPrefix(cell, "-") {
		return "$-$" + cell[1:]
	}
	return texText(cell)
}

// texLabel is a name or label as a cell of a LaTeX table writes it:
// escaped, and after {} when it starts with [, which LaTeX would read
// after the \\ that ends the row before as that row's optional space.
func texLabel(s string) string {
	s = texText(s)
	if strings.HasPrefix(s, "[") {
		s = "{}" + s
	}
	return s
}

// widthNote says, for a .tex file whose tabular would be wider than an
// article's text, by how much and what narrows it; "" when it fits (a
// correlation matrix's blocks always do; a loadings matrix's unless its names
// are too long to set beside one column).
func (f *tableFile) widthNote() string {
	if f.matrix != nil {
		return f.matrix.widthNote()
	}
	t := f.paperTable()
	return widthNote(t.Header, t.Rows, f.textWidth)
}

// texTabulars is how many tabulars f's .tex file holds: a matrix's
// blocks, or a long table's runs of at most maxBlockLines lines.
func (f *tableFile) texTabulars() int {
	if f.matrix != nil {
		return f.matrix.tabulars()
	}
	_, runs := longTeXRuns(f.paperTable(), f.textWidth)
	return len(runs)
}

// longTeXRuns returns the width of the ragged-right paragraphs a long
// table's names are set as to fit the text width textWidth (raggedNames;
// 0: none) and the runs of its rows that each tabular holds, of at most
// maxBlockLines lines (a name set as a paragraph takes one or more).
func longTeXRuns(t *Table, textWidth float64) (ragged float64, runs [][2]int) {
	lines := make([]int, len(t.Rows))
	for i := range lines {
		lines[i] = 1
	}
	if ragged = raggedNames(t.Header, t.Rows, textWidth); ragged > 0 {
		for i, r := range t.Rows {
			if len(r) > 0 {
				lines[i] = wrappedLines(r[0], ragged)
			}
		}
	}
	return ragged, chunksOfLines(lines, maxBlockLines)
}

// writeTableTeX writes the table as a booktabs tabular that a paper can
// \input (with \usepackage{booktabs}), its numbers as the table shows
// them, after % comments saying what made it; a matrix (layout = matrix)
// as the tabulars of its blocks. The tabular has no space outside its
// first and last columns (@{}), as booktabs advises. A table of more than
// maxBlockLines rows is written as tabulars of at most that many, each
// with the header, one after another, so that each fits a page (a
// tabular does not break across pages).
func writeTableTeX(w io.Writer, f *tableFile) error {
	var b strings.Builder
	for _, line := range f.madeLines(true) {
		b.WriteString("% " + line + "\n")
	}
	if f.matrix != nil {
		f.matrix.writeTeX(&b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	t := f.paperTable()
	numeric := numericColumns(t)
	spec := make([]string, len(numeric))
	for j, num := range numeric {
		spec[j] = "l"
		if num {
			spec[j] = "r"
		}
	}
	ragged, runs := longTeXRuns(t, f.textWidth)
	if ragged > 0 {
		spec[0] = fmt.Sprintf(`>{\raggedright\arraybackslash}p{%.0fpt}`, ragged)
	}
	row := func(cells []string, head bool) {
		out := make([]string, len(numeric))
		for j := range out {
			if j < len(cells) {
				out[j] = texCell(cells[j], numeric[j] && !head)
			}
		}
		if len(cells) > 0 {
			out[0] = texLabel(cells[0])
		}
		b.WriteString(strings.Join(out, " & ") + ` \\` + "\n")
	}
	for k, c := range runs {
		writeTabularStart(&b, k, len(runs))
		b.WriteString(`\begin{tabular}{@{}` + strings.Join(spec, "") + "@{}}\n\\toprule\n")
		row(t.Header, true)
		b.WriteString("\\midrule\n")
		for _, r := range t.Rows[c[0]:c[1]] {
			row(r, false)
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
	}
	endTabulars(&b, len(runs))
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownEscape escapes the characters that would end a cell of a
// GitHub-flavoured Markdown table or start emphasis, code or HTML.
var markdownEscape = strings.NewReplacer(`\`, `\\`, `|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `\<`, `>`, `\>`)

// writeTableMarkdown writes the table as a GitHub-flavoured Markdown
// table, its numbers as the table shows them, after an HTML comment
// (which a Markdown viewer does not show) saying what made it and a
// paragraph of its caption.
func writeTableMarkdown(w io.Writer, f *tableFile) error {
	var b strings.Builder
	b.WriteString("<!--\n")
	for _, line := range f.madeLines(false) {
		// A comment ends at the first -->.
		b.WriteString(strings.ReplaceAll(line, "-->", "-- >") + "\n")
	}
	b.WriteString("-->\n\n")
	t := f.paperTable()
	if t.Caption != "" {
		b.WriteString(markdownEscape.Replace(t.Caption) + "\n\n")
	}
	numeric := numericColumns(t)
	row := func(cells []string) {
		b.WriteString("|")
		for j := range numeric {
			cell := ""
			if j < len(cells) {
				cell = markdownEscape.Replace(cells[j])
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for _, num := range numeric {
		if num {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" :--- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// figureTo is the output of a plot ... to "PATH": emit writes its figure
// to path (and shows it too, unless the output writes figures as files:
// the CLI writes only the file the statement names).
type figureTo struct {
	Output
	ctx       context.Context
	shown     string // the path as the statement writes it
	statement string // plot heatmap m.C
}

// writeFigure writes f to the file of to in the format of its extension,
// shows it unless the output writes figures as files, and says so.
func (s *Session) writeFigure(to *figureTo, f *figure.Figure) error {
	if err := s.overwritable(to.shown); err != nil {
		return fmt.Errorf("cannot write the figure: %w", err)
	}
	var data []byte
	switch strings.ToLower(filepath.Ext(to.shown)) {
	case ".png":
		data = f.PNG
	case ".svg":
		data = f.SVG
	case ".pdf":
		var err error
		if data, err = f.PDF(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("plot writes a figure as .pdf, .svg or .png, not %s", filepath.Ext(to.shown))
	}
	path := s.path(to.shown)
	if err := s.writeFile(to.ctx, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return writeError(to.statement, path, "cannot write the figure", err)
	}
	if _, files := to.Output.(FigureWriter); !files {
		to.Output.Display(figureBundle(f), "")
	}
	to.Output.Stream("stdout", fmt.Sprintf("wrote %s (%s)\n", path, f.Text))
	return nil
}
