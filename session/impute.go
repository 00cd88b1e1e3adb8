package session

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// impute shows or writes the posterior predictive distribution of every
// missing cell of a fitted model's data, on its column's levels: the mode
// and its probability, type-1 quantiles (always observed levels) and, for a
// numeric column, the mean. With a path it writes one row per cell, and
// with draws = PATH every kept draw of every cell.
func (s *Session) impute(ctx context.Context, x *compiler.Impute, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	cells, at := imputedOf(m.Fit.Missing, x.Columns)
	if len(cells) == 0 {
		where := "the columns of " + x.Model
		if x.Columns != nil {
			where = imputedColumnsText(x, m)
		}
		out.Stream("stdout", fmt.Sprintf("data %s has no missing cells in %s\n", s.dataText(m), where))
		return nil
	}
	continuous := continuousColumns(m, cells)
	draws := 0
	for c := range m.Fit.C {
		draws += m.Fit.ImputedDraws(c)
	}
	about := fmt.Sprintf("imputed missing cells of %s (%s), each from %s", s.dataText(m), perColumn(m, cells), plural(draws, "draw"))
	thinned := ""
	if t := m.Fit.ImputeThin; t > 1 {
		thinned = fmt.Sprintf(" (one kept draw in %d: a fit keeps at most %d imputed values)", t, inference.DefaultMaxImputed)
	}
	about += thinned + modeNote(m, continuous)
	for _, p := range []string{x.Path, x.DrawsPath} {
		if p == "" {
			continue
		}
		if notAFile(s.path(p)) != "" {
			continue // no provenance beside it (s.imputeProvenance)
		}
		paths := []string{p, ProvenancePath(p)}
		if p == x.DrawsPath && m.Data.SourceRows != nil {
			paths = append(paths, ColumnsPath(p))
		}
		if err := s.overwritableAll(paths...); err != nil {
			return fmt.Errorf("cannot write the imputed cells of %s: %w", x.Model, err)
		}
	}
	if x.Path == "" && x.DrawsPath == "" {
		// Only the rows the display shows are made: at survey scale
		// (112,458 cells) summarising and formatting every cell to show
		// a thousand took most of a second and 100 MB.
		head, tail := s.tableRowsShown(len(cells), true)
		if n := s.opts.ImputeRows; n > 0 {
			head, tail = n, 0
		}
		t := s.imputeTable(m, cells, at, head, tail, continuous, x.Prob, formatValue)
		target := imputeTarget(x, m)
		t.Caption = about + fmt.Sprintf("; impute %s to \"cells.csv\" writes them to a file", target)
		whole := fmt.Sprintf("impute %s to \"cells.csv\" writes every cell", target)
		t.maxHeight = "32em"
		var b MimeBundle
		if n := s.opts.ImputeRows; n > 0 {
			b = t.cut(n, 0, whole).Bundle()
		} else {
			b = s.tableBundle(t, whole, true)
		}
		out.Display(b, "")
		return nil
	}
	if x.Path != "" {
		path := s.path(x.Path)
		// Written row by row as they are made: a table of every cell first
		// held them all twice (50,000 × 30 with 112,458 missing cells: 195 MB
		// more at its peak than the fit read; sampling.md §8, "At survey scale").
		if err := s.writeFile(ctx, path, func(w io.Writer) error { return writeImputed(w, m, at, continuous, x.Prob) }); err != nil {
			return writeError("impute "+x.Model, path, "cannot write the imputed cells", err)
		}
		made, err := s.imputeProvenance(ctx, x.Model, m, path)
		if err != nil {
			return err
		}
		out.Stream("stdout", fmt.Sprintf("wrote %s to %s, %s\n", about, path, made))
	}
	if x.DrawsPath != "" {
		path := s.path(x.DrawsPath)
		if err := s.writeFile(ctx, path, func(w io.Writer) error { return writeImputedDraws(w, m, cells, at) }); err != nil {
			return writeError("impute "+x.Model, path, "cannot write the imputed draws", err)
		}
		rows := ""
		if m.Data.SourceRows != nil && notAFile(path) == "" {
			sidecar := ColumnsPath(path)
			if err := s.writeFile(ctx, sidecar, func(w io.Writer) error { return writeImputedColumns(w, m, cells) }); err != nil {
				return writeError("impute "+x.Model, sidecar, "cannot write the source rows of the imputed draws", err)
			}
			rows = fmt.Sprintf(", each cell's row and source row to %s", sidecar)
		}
		made, err := s.imputeProvenance(ctx, x.Model, m, path)
		if err != nil {
			return err
		}
		out.Stream("stdout", fmt.Sprintf("wrote every draw of the %d imputed cells of %s%s to %s%s, %s\n", len(cells), s.dataText(m), thinned, path, rows, made))
	}
	return nil
}

// imputeProvenance writes the provenance of model's imputations written
// to path beside it, and says where: "and what made them to PATH"; beside
// a path that is not a file (/dev/stdout, a pipe) it writes none and says
// so.
func (s *Session) imputeProvenance(ctx context.Context, model string, m *Model, path string) (string, error) {
	if stream := notAFile(path); stream != "" {
		return stream + ", so without the sidecar that says what made them", nil
	}
	provenance, err := s.writeProvenance(ctx, model, m, path, "impute "+model)
	if err != nil {
		return "", err
	}
	return "and what made them to " + provenance, nil
}

// imputeTarget is what x imputes as a statement writes it: m, or
// m[income, age] for some of m's columns.
func imputeTarget(x *compiler.Impute, m *Model) string {
	if x.Columns == nil {
		return x.Model
	}
	return x.Model + "[" + imputedColumnsText(x, m) + "]"
}

// imputedColumnsText lists the columns of impute m[COL, ...] as an index
// names them: "income, age".
func imputedColumnsText(x *compiler.Impute, m *Model) string {
	names := columnTexts(m.Names())
	cols := make([]string, len(x.Columns))
	for k, j := range x.Columns {
		cols[k] = names[j]
	}
	return strings.Join(cols, ", ")
}

// imputedOf keeps the missing cells of all (the fit's, in its order) that
// are in the columns cols (0-based, model order; nil for every column), in
// their order, and returns them with their indices in all, which are the
// cells' indices in the fit's imputations.
func imputedOf(all []inference.Cell, cols []int) (cells []inference.Cell, at []int) {
	if cols == nil {
		at = make([]int, len(all))
		for k := range at {
			at[k] = k
		}
		return all, at
	}
	for k, c := range all {
		if cols == nil || slices.Contains(cols, c.Col) {
			cells, at = append(cells, c), append(at, k)
		}
	}
	return cells, at
}

// perColumn counts the missing cells of each column, in the model's order
// of the columns: "income: 12, age: 3".
func perColumn(m *Model, cells []inference.Cell) string {
	names := columnTexts(m.Names())
	count := make([]int, len(names))
	for _, c := range cells {
		count[c.Col]++
	}
	var parts []string
	for j, n := range count {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", names[j], n))
		}
	}
	return fmt.Sprintf("%d in all; %s", len(cells), strings.Join(parts, ", "))
}

// imputeTable is one row per missing cell:
//
//	row column mode p_mode qLO q50 qHI mean
//
// with values printed as their column's labels; mean is NA for a column of
// text, whose levels have no numeric value; prob is the cells' summaries';
// value prints a level (formatValue for a table, exactValue for a file).
// The mode is NA for the columns in continuous (continuousColumns), most of
// whose observed values occur once: an observed value stands for the
// interval of the latent scale up to its neighbours, the highest and lowest
// for unbounded ones, so the most probable value of a continuous column is
// often its largest or smallest, far from the bulk of the cell's
// distribution. For derived data a column source_row follows row: the row
// of the file or simulation the data came from (1-based, as R's read.csv
// numbers them), by which the cells join back to it. cells are the fit's
// missing cells at the indices at of its imputations; only the first head
// and the last tail rows are made (the cells are summarised for them
// alone), the others left nil for a display that cuts them out
// (tableRowsShown).
func (s *Session) imputeTable(m *Model, cells []inference.Cell, at []int, head, tail int, continuous map[int]bool, prob float64, value func(*Dataset, int, float64) string) *Table {
	names := columnTexts(m.Names())
	n := len(cells)
	var shown []int // indices into cells
	for k := range n {
		if k < head || k >= n-tail {
			shown = append(shown, k)
		}
	}
	summarised := make([]int, len(shown))
	for i, k := range shown {
		summarised[i] = at[k]
	}
	t := &Table{Header: imputeHeader(m, prob), Rows: make([][]string, n)}
	for i, c := range m.Fit.ImputeLevelsOf(prob, summarised) {
		t.Rows[shown[i]] = imputeRow(m, names[c.Col], c, continuous, value)
	}
	return t
}

// imputeHeader is the header of the table of imputed cells of m, with
// source_row after row when m's data are derived (imputeTable).
func imputeHeader(m *Model, prob float64) []string {
	lo, hi := intervalColumns(prob)
	if m.Data.SourceRows != nil {
		return []string{"row", "source_row", "column", "mode", "p_mode", lo, "q50", hi, "mean"}
	}
	return []string{"row", "column", "mode", "p_mode", lo, "q50", hi, "mean"}
}

// imputeRow is the row of the table of imputed cells for cell c, whose
// column is named name, with its levels printed by value.
func imputeRow(m *Model, name string, c inference.ImputedLevels, continuous map[int]bool, value func(*Dataset, int, float64) string) []string {
	j := m.Cols[c.Col]
	lv := c.LevelSummary
	mean := tableNum("%.3f", c.Mean)
	if m.Data.Labels[j] != nil {
		mean = "NA"
	}
	mode, pMode := value(m.Data, j, lv.Mode), tableNum("%.3f", lv.PMode)
	if continuous[c.Col] {
		mode, pMode = "NA", "NA"
	}
	row := []string{
		strconv.Itoa(c.Row + 1), name,
		mode, pMode,
		value(m.Data, j, lv.Lo), value(m.Data, j, lv.Median), value(m.Data, j, lv.Hi),
		mean,
	}
	if m.Data.SourceRows != nil {
		row = slices.Insert(row, 1, strconv.Itoa(m.Data.SourceRows[c.Row]+1))
	}
	return row
}

// continuousColumns lists the columns of cells most of whose observed
// values occur once (continuous data, which enters through its ranks):
// imputeTable leaves out their mode.
func continuousColumns(m *Model, cells []inference.Cell) map[int]bool {
	info := m.Data.Info()
	cont := map[int]bool{}
	for _, c := range cells {
		if _, seen := cont[c.Col]; !seen {
			col := info.Columns[m.Cols[c.Col]]
			cont[c.Col] = 2*col.Singletons > info.N-col.Missing
		}
	}
	return cont
}

// modeNote says which columns' modes the table leaves out (continuous, as
// continuousColumns gives them), in the model's order, and why ("" when
// none).
func modeNote(m *Model, continuous map[int]bool) string {
	var cols []string
	for j, name := range columnTexts(m.Names()) { // in the model's order
		if continuous[j] {
			cols = append(cols, name)
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return fmt.Sprintf("; mode and p_mode are NA for %s, most of whose values occur once: the most probable value of a continuous column is often its largest or smallest, which stand for unbounded intervals of the latent scale, so read q50 and mean",
		strings.Join(cols, ", "))
}

// writeImputed writes the table of the imputed cells at the indices at of
// the fit's imputations (its levels as
// exactValue prints them; the column as the data's header names it, which
// CSV quotes where it needs) as CSV with one more column, probs: the
// probability of every level drawn (from the cells' level summaries), as a
// JSON object from level to probability. Each row is written as it is
// made.
func writeImputed(w io.Writer, m *Model, at []int, continuous map[int]bool, prob float64) error {
	cw := csv.NewWriter(w)
	cw.Write(append(imputeHeader(m, prob), "probs"))
	// keys are the levels as JSON strings, by column, made once each.
	keys := make([]map[float64]string, len(m.Cols))
	var js []byte
	// The cells are summarised a block at a time, so that the summaries of
	// a survey's hundred thousand cells are never all held.
	const block = 4096
	for b := 0; b < len(at); b += block {
		for _, c := range m.Fit.ImputeLevelsOf(prob, at[b:min(b+block, len(at))]) {
			j := m.Cols[c.Col]
			if keys[c.Col] == nil {
				keys[c.Col] = map[float64]string{}
			}
			lv := c.LevelSummary
			// The object's keys in the levels' order (a map would sort
			// them as text: "1", "10", "100", "11", …).
			js = append(js[:0], '{')
			for i, v := range lv.Values {
				key, ok := keys[c.Col][v]
				if !ok {
					b, err := json.Marshal(exactValue(m.Data, j, v))
					if err != nil {
						return err
					}
					key = string(b)
					keys[c.Col][v] = key
				}
				if i > 0 {
					js = append(js, ',')
				}
				js = append(js, key...)
				js = append(js, ':')
				js = appendJSONFloat(js, math.Round(lv.Probs[i]*1e6)/1e6)
			}
			js = append(js, '}')
			// The file names the column as its data's header does: CSV
			// quotes it where it needs, not the language.
			row := imputeRow(m, m.Data.Names[j], c, continuous, exactValue)
			if err := cw.Write(append(row, string(js))); err != nil {
				return err // the file cannot be written, or an interrupt (writeFile)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// appendJSONFloat appends v as encoding/json writes a float64 (the
// shortest decimal that reads back as v; an exponent below 1e-6 and from
// 1e21, as ES6 does), without json.Marshal's allocations. v is finite.
func appendJSONFloat(b []byte, v float64) []byte {
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// writeImputedDraws writes every kept draw of the missing cells cells,
// whose indices in the fit's imputations are at, as CSV:
// chain, draw (its number among the chain's kept draws, as in an export of
// the draws; with ImputeThin > 1 only every ImputeThin-th has
// imputations), then one column per cell named COLUMN[ROW] (its data row,
// 1-based), values as the column's labels or its observed numbers,
// exactly.
func writeImputedDraws(w io.Writer, m *Model, cells []inference.Cell, at []int) error {
	names := m.Names()
	cw := csv.NewWriter(w)
	head := []string{"chain", "draw"}
	for _, c := range cells {
		head = append(head, fmt.Sprintf("%s[%d]", names[c.Col], c.Row+1))
	}
	cw.Write(head)
	row := make([]string, len(head))
	vals := make([]float64, len(m.Fit.Missing))
	for ch := range m.Fit.C {
		for d := range m.Fit.ImputedDraws(ch) {
			m.Fit.ImputedTo(vals, ch, d)
			row[0], row[1] = strconv.Itoa(ch+1), strconv.Itoa(d*max(m.Fit.ImputeThin, 1)+1)
			for k, c := range cells {
				row[2+k] = exactValue(m.Data, m.Cols[c.Col], vals[at[k]])
			}
			if err := cw.Write(row); err != nil {
				return err // the file cannot be written, or an interrupt (writeFile)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeImputedColumns writes the sidecar of writeImputedDraws for a model
// of derived data, whose cells the draws file names by the data's rows:
// one CSV row per cell, in the draws file's order, with the header
//
//	param,row,source_row,column
//
// param the draws file's name of the cell (income[5]), row its row in the
// data (1-based), source_row its row in the source file or simulation,
// and column its column as the data's header names it.
func writeImputedColumns(w io.Writer, m *Model, cells []inference.Cell) error {
	names := m.Names()
	cw := csv.NewWriter(w)
	cw.Write([]string{"param", "row", "source_row", "column"})
	for _, c := range cells {
		row := strconv.Itoa(c.Row + 1)
		if err := cw.Write([]string{fmt.Sprintf("%s[%s]", names[c.Col], row), row, strconv.Itoa(m.Data.SourceRows[c.Row] + 1), names[c.Col]}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
