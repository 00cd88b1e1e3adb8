package session

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// Dataset is a data binding: ordinal columns, each a slice of numbers in
// which only the order matters and NaN marks a missing cell.
type Dataset struct {
	Name    string
	Names   []string    // column names, in file order
	Columns [][]float64 // Columns[j][i] is row i of column j
	// Labels holds, for a text column, the label of value v at Labels[j][v-1];
	// nil for numeric columns.
	Labels [][]string
	// Source says where the data came from (a path, or the simulation).
	Source string
	// SHA256 is the hex SHA-256 of the file the data were loaded from, as
	// read; "" for data that were not loaded.
	SHA256 string
	// LoadOptions are the options of the load call that read the data,
	// as the call writes them (sep = ";", na = [...], order = {...},
	// drop = [...]; keys sorted): with the file, they fix the values.
	// Empty for data read without options, or not loaded.
	LoadOptions string
	// Derivation lists, for data derived from other data, how each step
	// made them from the one before, as the statement writes it
	// (gss[income, degree] where age >= 50), from the data of Source
	// (whose SHA256 and LoadOptions the derived data keep); nil otherwise.
	Derivation []string
	// SourceRows are, for data derived from other data, the rows of the
	// data of Source (0-based) that they hold, in order; nil otherwise (all
	// of them). Two fits' posteriors are independent when their data share
	// no row.
	SourceRows []int
	// Truth is the simulation that produced the data, nil for loaded data.
	Truth *inference.Simulated
	// TruthK is the number of factors of the simulated copula (0: full).
	TruthK int
	// TruthDropped says why data derived from simulated data by a
	// condition on their rows have no truth (compiler.TruthDropped).
	TruthDropped string

	// columnInfo caches Info's counts per column, which take a pass over
	// every cell (half a second at 10⁵ × 20 continuous cells) and are asked
	// for at every check of a cell naming the data: a data set's columns do
	// not change once it is made.
	columnInfoOnce sync.Once
	columnInfo     []compiler.ColumnInfo
}

// origin says where the data came from: its source, then each step of
// its derivation ("data/gss.csv, then gss where age >= 50").
func (d *Dataset) origin() string {
	if len(d.Derivation) == 0 {
		return d.Source
	}
	return d.Source + ", then " + strings.Join(d.Derivation, ", then ")
}

// N is the number of rows.
func (d *Dataset) N() int {
	if len(d.Columns) == 0 {
		return 0
	}
	return len(d.Columns[0])
}

// column returns the index of the named column, or -1.
func (d *Dataset) column(name string) int {
	for j, n := range d.Names {
		if n == name {
			return j
		}
	}
	return -1
}

// labelsOf returns the labels of column j, lowest first (nil for a
// column of numbers).
func (d *Dataset) labelsOf(j int) []string {
	if j < len(d.Labels) {
		return d.Labels[j]
	}
	return nil
}

// DataError is a problem with a data file at a given line (1-based, the
// header is line 1) and column name; Line 0 means the file as a whole.
// Error quotes a column name that is not an identifier, as describeData.
type DataError struct {
	Line   int
	Column string
	Msg    string
}

func (e *DataError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, "column %s: ", columnText(e.Column))
	}
	b.WriteString(e.Msg)
	return b.String()
}

// CSVOptions are the options of load.
type CSVOptions struct {
	// Sep is the field separator; 0 means ','.
	Sep rune
	// NA lists cell texts that mark a missing value, besides an empty
	// cell, NA and NaN (compared after trimming spaces).
	NA []string
	// Order gives the labels of text columns, lowest first.
	Order map[string][]string
	// OrderAll is the order of every other column that holds text (a cell
	// that is not a number); nil when there is none.
	OrderAll []string
	// Drop names columns to leave out (identifiers, free text): their
	// cells are not read, and the data set has no such column.
	Drop []string
}

// isMissing reports whether a trimmed CSV cell denotes a missing value:
// empty, NA, NaN, or one of the extra markers.
func isMissing(cell string, extra naMarkers) bool {
	switch cell {
	case "", "NA", "NaN", "nan", "na":
		return true
	}
	if slices.Contains(extra.texts, cell) {
		return true
	}
	if len(extra.numbers) > 0 && strings.ContainsAny(cell[:1], "+-.0123456789") {
		if v, err := strconv.ParseFloat(cell, 64); err == nil {
			return slices.Contains(extra.numbers, v)
		}
	}
	return false
}

// naMarkers are the texts of a load's na, and the values of those that are
// numbers: a marker -99 also marks -99.0 and -9.9e1, the same number written
// otherwise, as load's warning of a code (missingCode) writes it from the
// value, not the cell.
type naMarkers struct {
	texts   []string
	numbers []float64
}

func newNAMarkers(na []string) naMarkers {
	m := naMarkers{texts: na}
	for _, t := range na {
		if v, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			m.numbers = append(m.numbers, v)
		}
	}
	return m
}

// maxDistinct is the number of distinct texts a column keeps before it
// stores numbers instead: survey columns hold few distinct texts, each
// parsed once, while a column of measurements holds many.
const maxDistinct = 1 << 12

// columnReader collects the cells of one column while the file is read.
type columnReader struct {
	name  string
	order map[string]int // rank of each label (1-based) when the column has an explicit order
	// Until the column is known to be numeric with many values, cells are
	// interned: codes[i] indexes texts (-1 for a missing cell), and
	// firstLine[k] is the line where texts[k] first appeared.
	codes     []int32
	texts     []string
	firstLine []int
	index     map[string]int32
	// values holds the numbers of a column switched to numeric storage.
	values []float64
	many   bool // switched: values is in use, codes and texts are not
}

// add records one cell of line.
func (c *columnReader) add(cell string, line int, na naMarkers) error {
	cell = strings.TrimSpace(cell)
	missing := isMissing(cell, na)
	if c.order != nil {
		v := math.NaN()
		if !missing {
			r, ok := c.order[cell]
			if !ok {
				return &DataError{Line: line, Column: c.name, Msg: notInOrder(cell, c.order, "the column's order")}
			}
			v = float64(r)
		}
		c.values = append(c.values, v)
		return nil
	}
	if c.many {
		v := math.NaN()
		if !missing {
			var err error
			if v, err = parseNumber(cell); err != nil {
				return &DataError{Line: line, Column: c.name, Msg: err.Error()}
			}
		}
		c.values = append(c.values, v)
		return nil
	}
	if missing {
		c.codes = append(c.codes, -1)
		return nil
	}
	k, seen := c.index[cell]
	if !seen {
		if len(c.texts) == maxDistinct && c.switchToNumbers() == nil {
			return c.add(cell, line, na)
		}
		k = int32(len(c.texts))
		c.texts = append(c.texts, cell)
		c.firstLine = append(c.firstLine, line)
		c.index[cell] = k
	}
	c.codes = append(c.codes, k)
	return nil
}

// switchToNumbers moves a column whose distinct texts are all numbers to
// numeric storage; otherwise it returns the error of the first text that
// is not a number and leaves the column as it is.
func (c *columnReader) switchToNumbers() error {
	nums := make([]float64, len(c.texts))
	for k, t := range c.texts {
		v, err := parseNumber(t)
		if err != nil {
			return err
		}
		nums[k] = v
	}
	c.values = make([]float64, len(c.codes), 2*len(c.codes))
	for i, k := range c.codes {
		c.values[i] = math.NaN()
		if k >= 0 {
			c.values[i] = nums[k]
		}
	}
	c.many, c.codes, c.texts, c.firstLine, c.index = true, nil, nil, nil, nil
	return nil
}

// finish returns the column's values and, for a text column, its labels.
// A column whose texts are not all numbers takes the order orderAll; with
// none, the first text that is not a number is an error.
func (c *columnReader) finish(orderAll []string) ([]float64, []string, error) {
	if c.order != nil || c.many {
		return c.values, nil, nil
	}
	nums := make([]float64, len(c.texts))
	var bad error
	badLine := 0
	for k, t := range c.texts {
		v, err := parseNumber(t)
		if err != nil && (bad == nil || c.firstLine[k] < badLine) {
			bad, badLine = err, c.firstLine[k]
		}
		nums[k] = v
	}
	var labels []string
	if bad != nil {
		if orderAll == nil {
			msg := bad.Error()
			var text textCellError
			if errors.As(bad, &text) {
				msg = textColumnMessage(string(text), c.name, c.texts, c.observed())
				if codes, number := c.strayTexts(); codes != nil {
					// A column of numbers with a code or two of missing
					// answers: na, not an order, is what it needs.
					marks, them := "it marks", "it"
					if len(codes) > 1 {
						marks, them = "they mark", "them"
					}
					msg = fmt.Sprintf("%q is not a number, but the column's other cells are, such as %q; if %s missing answers, add %s to na, as na = [%s]",
						string(text), number, marks, them, strings.Join(quoteAll(codes), ", "))
				}
			}
			return nil, nil, &DataError{Line: badLine, Column: c.name, Msg: msg}
		}
		rank := ranks(orderAll)
		// A column of numbers but for a text or two that the order does
		// not list either: the text is the likely mistake, not the numbers.
		// (A text column whose labels are all in the order, with a stray
		// number, gets the number's own error below.)
		strayLine, stray := 0, ""
		for k, t := range c.texts {
			if _, err := parseNumber(t); err != nil {
				if _, ok := rank[t]; !ok && (stray == "" || c.firstLine[k] < strayLine) {
					strayLine, stray = c.firstLine[k], t
				}
			}
		}
		for k, t := range c.texts {
			r, ok := rank[t]
			if !ok {
				if _, err := parseNumber(t); err == nil && stray != "" {
					return nil, nil, &DataError{Line: strayLine, Column: c.name, Msg: fmt.Sprintf(
						"%q is not a number, but the column's other cells are, such as %q, which the order * for text columns does not list; if %q marks a missing cell, add it to na",
						stray, t, stray)}
				}
				return nil, nil, &DataError{Line: c.firstLine[k], Column: c.name, Msg: c.notInOrderAll(t, rank)}
			}
			nums[k] = float64(r)
		}
		labels = orderAll
	}
	values := make([]float64, len(c.codes))
	for i, k := range c.codes {
		values[i] = math.NaN()
		if k >= 0 {
			values[i] = nums[k]
		}
	}
	return values, labels, nil
}

// strayTexts returns, for an interned column most of whose distinct texts
// are numbers, the few that are not (at most 3, in the order they first
// appear) and its first number; nil for other columns.
func (c *columnReader) strayTexts() (codes []string, number string) {
	numbers := 0
	for _, t := range c.texts {
		if _, err := parseNumber(t); err == nil {
			numbers++
			if number == "" {
				number = t
			}
		} else {
			codes = append(codes, t)
		}
	}
	if len(codes) > 3 || numbers <= len(codes) {
		return nil, ""
	}
	return codes, number
}

// observed is the number of the interned column's observed cells.
func (c *columnReader) observed() int {
	n := 0
	for _, k := range c.codes {
		if k >= 0 {
			n++
		}
	}
	return n
}

// notInOrderAll is the message for the label t of the interned column that
// the order * (rank) does not list. The order * reaches every text column,
// those not meant to be modelled too: the message says how to leave the
// column out, and for a column of many distinct texts (an identifier, free
// text) says that alone, not that its first text might mark missing cells.
func (c *columnReader) notInOrderAll(t string, rank map[string]int) string {
	col := columnText(c.name)
	if distinct, observed := len(c.texts), c.observed(); manyTexts(distinct, observed) {
		return fmt.Sprintf("value %q is not in the order * gives every text column: the column's %d distinct texts in %d cells look like identifiers or free text, which drop = [%s] leaves out",
			t, distinct, observed, col)
	}
	return notInOrder(t, rank, "the order * gives every text column") + fmt.Sprintf("; if column %s is not to be modelled, drop = [%s] leaves it out", col, col)
}

// manyTexts reports whether a column of distinct texts in observed cells
// looks like identifiers or free text rather than an ordinal scale: more
// than 20 texts, most cells their own.
func manyTexts(distinct, observed int) bool {
	return distinct > 20 && 2*distinct > observed
}

// ranks maps each label to its 1-based position.
func ranks(labels []string) map[string]int {
	out := make(map[string]int, len(labels))
	for k, l := range labels {
		out[l] = k + 1
	}
	return out
}

// LoadCSV reads a data set from CSV with a header row. Numeric columns are
// ordered by value. A column holding text needs an order of its labels
// (opts.Order[name], or opts.OrderAll for every text column without one);
// its cells then take the values 1, 2, ... of their label's position. Empty
// cells, NA, NaN and the texts of opts.NA are missing. A file whose header
// is one column holding ';', tab or '|' is refused with the separator to
// give, and so is a file with no data rows. Lines may end with "\n",
// "\r\n" or, in a file whose header ends so, a lone '\r'. Columns
// named in opts.Drop are left out unread. The columns that cannot be read
// once the file is (text without an order, a stray text among numbers) are
// reported together, as an errors.Join of their DataErrors. It returns
// warnings for constant and all-missing columns, which carry no
// information about the copula, and for numbers that look like codes of
// missing answers.
func LoadCSV(r io.Reader, opts CSVOptions) (*Dataset, []string, error) {
	sep := opts.Sep
	if sep == 0 {
		sep = ','
	}
	cr, firstLine, err := csvReader(r, sep)
	if err != nil {
		return nil, nil, err
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, &DataError{Msg: "the file is empty; a header row naming the columns is required"}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) && pe.Line == 1 && (errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote)) {
		// "income","degree" read with sep = "\t": the quoted names run
		// into the commas, and encoding/csv says only that a quote is
		// extraneous.
		if other := likelySeparator(firstLine, sep); other != 0 && strings.Count(firstLine, string(other)) > 0 && !strings.ContainsRune(firstLine, sep) {
			return nil, nil, &DataError{Line: 1, Msg: fmt.Sprintf("the header does not read as columns separated by %s: the file looks separated by %s; load it with sep = %s",
				sepName(sep), sepName(other), sepLiteral(other))}
		}
	}
	if err != nil {
		return nil, nil, csvError(err)
	}
	if len(header) == 1 {
		if other := likelySeparator(header[0], sep); other != 0 {
			return nil, nil, &DataError{Line: 1, Msg: fmt.Sprintf("the header is one column, %q: the file looks separated by %s, not %s; load it with sep = %s",
				shorten(header[0], 40), sepName(other), sepName(sep), sepLiteral(other))}
		}
	}
	p := len(header)
	names := make([]string, p)
	seen := map[string]int{}
	// A column with no name is left out if it holds no value either, as
	// the empty columns a spreadsheet saves after the last one.
	unnamed := make([]bool, p)
	for j, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			unnamed[j] = true
			continue
		}
		if k, dup := seen[h]; dup {
			return nil, nil, &DataError{Line: 1, Column: h, Msg: fmt.Sprintf("the name is used twice (columns %d and %d)", k+1, j+1)}
		}
		seen[h] = j
		names[j] = h
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Order)) {
		if _, ok := seen[name]; !ok {
			msg := fmt.Sprintf("order names column %q, which the file does not have", name)
			if s := dsl.Nearest(name, named(names)); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			return nil, nil, &DataError{Msg: msg}
		}
	}
	dropped := slices.Clone(unnamed)
	for _, name := range opts.Drop {
		j, ok := seen[name]
		if !ok {
			msg := fmt.Sprintf("drop names column %q, which the file does not have", name)
			if s := dsl.Nearest(name, named(names)); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			return nil, nil, &DataError{Msg: msg}
		}
		if _, ordered := opts.Order[name]; ordered {
			return nil, nil, &DataError{Column: name, Msg: "the column is both given an order and dropped"}
		}
		dropped[j] = true
	}
	if !slices.Contains(unnamed, false) {
		return nil, nil, &DataError{Line: 1, Msg: "the header row names no column"}
	}
	if !slices.Contains(dropped, false) {
		return nil, nil, &DataError{Msg: "drop leaves out every column of the file"}
	}
	cols := make([]*columnReader, p)
	for j, name := range names {
		if dropped[j] {
			continue
		}
		cols[j] = &columnReader{name: name, index: map[string]int32{}}
		if labels, ok := opts.Order[name]; ok {
			cols[j].order = ranks(labels)
			if len(cols[j].order) != len(labels) {
				return nil, nil, &DataError{Column: name, Msg: "a label appears twice in its order"}
			}
		}
	}
	na := newNAMarkers(opts.NA)
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, csvError(err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" && p > 1 {
			continue // blank line
		}
		// The line of the file, not the count of rows: blank lines and
		// quoted cells that span lines are in it too.
		line, _ := cr.FieldPos(0)
		if len(rec) != p {
			return nil, nil, &DataError{Line: line, Msg: fmt.Sprintf("the row has %d cells but the header names %d columns", len(rec), p)}
		}
		for j, cell := range rec {
			if unnamed[j] && strings.TrimSpace(cell) != "" {
				line, _ := cr.FieldPos(j)
				return nil, nil, &DataError{Line: line, Msg: fmt.Sprintf("column %d has no name in the header row but holds %q; name it there", j+1, shorten(strings.TrimSpace(cell), 40))}
			}
			if dropped[j] {
				continue
			}
			line, _ := cr.FieldPos(j)
			if err := cols[j].add(cell, line, na); err != nil {
				return nil, nil, err
			}
		}
		rows++
	}
	if rows == 0 {
		// Its columns would all be "entirely missing", and the model
		// statement would be the first to fail.
		return nil, nil, &DataError{Msg: "the file has a header row but no rows of data"}
	}
	d := &Dataset{}
	var unread []error // a survey's text columns without an order, all at once
	for j, c := range cols {
		if dropped[j] {
			continue
		}
		values, labels, err := c.finish(opts.OrderAll)
		if err != nil {
			unread = append(unread, err)
			continue
		}
		if l, ok := opts.Order[names[j]]; ok {
			labels = l
		}
		d.Names = append(d.Names, names[j])
		d.Columns = append(d.Columns, values)
		d.Labels = append(d.Labels, slices.Clone(labels))
	}
	switch len(unread) {
	case 0:
	case 1:
		return nil, nil, unread[0]
	default:
		return nil, nil, errors.Join(unread...)
	}
	warnings := columnWarnings(d)
	if len(d.Names) > 0 && d.Names[0] == "source_row" {
		// An export of derived data (WriteData), read back whole.
		warnings = append(warnings, "column source_row is, as the export of derived data writes it first, each row's row in the data it was derived from: a model of every column would take those numbers as data; drop = [source_row] leaves it out")
	}
	var empty []string
	for j, u := range unnamed {
		if u {
			empty = append(empty, strconv.Itoa(j+1))
		}
	}
	switch len(empty) {
	case 0:
	case 1:
		warnings = append(warnings, "column "+empty[0]+" of the file has no name and no value (as a spreadsheet saves empty columns): left out")
	default:
		warnings = append(warnings, "columns "+strings.Join(empty, ", ")+" of the file have no name and no value (as a spreadsheet saves empty columns): left out")
	}
	return d, warnings, nil
}

// csvReader reads the CSV text r separated by sep as LoadCSV does: past a
// byte order mark, with lines ended by a lone '\r' where the header's is,
// and refusing UTF-16. It returns the text's first line (up to 4 KB) as
// well, for the message of a header that does not read.
func csvReader(r io.Reader, sep rune) (*csv.Reader, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3) // a byte order mark, as spreadsheet programs write
	}
	if b, err := br.Peek(2); err == nil && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		// UTF-16's byte order mark: every other byte would be a NUL in
		// the column names and cells.
		return nil, "", &DataError{Msg: "the file is UTF-16 text (as Excel's \"Unicode Text\" writes); save it as CSV UTF-8"}
	}
	first, _ := br.Peek(4 << 10) // an error: the text is shorter
	if i := bytes.IndexAny(first, "\r\n"); i >= 0 {
		first = first[:i]
	}
	var text io.Reader = br
	if loneCRLines(br) {
		text = loneCRReader{br}
	}
	cr := csv.NewReader(text)
	cr.Comma = sep
	cr.FieldsPerRecord = -1 // ragged rows get our own message
	cr.TrimLeadingSpace = sep != ' ' && sep != '\t'
	cr.ReuseRecord = true
	return cr, string(first), nil
}

// csvHeader returns the column names of the CSV text r separated by sep,
// trimmed as LoadCSV trims them, reading its header row alone.
func csvHeader(r io.Reader, sep rune) ([]string, error) {
	cr, _, err := csvReader(r, sep)
	if err != nil {
		return nil, err
	}
	header, err := cr.Read()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(header))
	for _, h := range header {
		if h = strings.TrimSpace(h); h != "" {
			names = append(names, h)
		}
	}
	return names, nil
}

// named is names without the empty names of unnamed columns.
func named(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "" })
}

// loneCRLines reports whether the header row of the text br holds ends
// with a carriage return alone, as "CSV (Macintosh)" and other old Mac
// programs end every line. encoding/csv ends lines only at '\n' (taking
// "\r\n" as one), so such a file would read as one row with '\r' in its
// cells. A '\r' inside a quoted header name is not a line end.
func loneCRLines(br *bufio.Reader) bool {
	for n := 256; ; n *= 2 {
		n = min(n, br.Size())
		b, err := br.Peek(n) // err: the text is shorter than n
		quoted := false
		for i, c := range b {
			switch {
			case c == '"':
				quoted = !quoted
			case quoted:
			case c == '\n':
				return false
			case c == '\r' && i+1 < len(b):
				return b[i+1] != '\n'
			case c == '\r' && err != nil:
				return true // the text ends with it
			}
		}
		if err != nil || n == br.Size() {
			return false // one line without a line end, or a header longer than the buffer
		}
	}
}

// loneCRReader reads a text whose lines end with '\r' (see loneCRLines)
// as one whose lines end with '\n': a '\r' not followed by '\n' becomes
// '\n', and "\r\n", should the file have some, stays as it is.
type loneCRReader struct{ r *bufio.Reader }

func (c loneCRReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b != '\r' {
			continue
		}
		if i+1 < n {
			if p[i+1] != '\n' {
				p[i] = '\n'
			}
			continue
		}
		if next, perr := c.r.Peek(1); perr != nil || next[0] != '\n' {
			p[i] = '\n'
		}
	}
	return n, err
}

// likelySeparator returns the separator that a one-column header holds
// most often among ';', tab, '|' and ',' (other than sep), or 0.
func likelySeparator(header string, sep rune) rune {
	best, count := rune(0), 0
	for _, r := range []rune{';', '\t', '|', ','} {
		if r == sep {
			continue
		}
		if n := strings.Count(header, string(r)); n > count {
			best, count = r, n
		}
	}
	return best
}

// sepName names a separator in a sentence; sepLiteral writes it as load's
// sep = takes it.
func sepName(r rune) string {
	switch r {
	case '\t':
		return "tabs"
	case ' ':
		return "spaces"
	}
	return fmt.Sprintf("%q", string(r))
}

func sepLiteral(r rune) string { return strconv.Quote(string(r)) }

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// parseNumber reads a numeric cell. A text that is not a finite number is
// an error that says what it looks like: a number with a comma (decimal or
// of thousands), a number beyond float64's range, an infinity, or else
// text, which needs an order.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err == nil && !math.IsInf(v, 0) && !math.IsNaN(v):
		return v, nil
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("cannot read %q as a number: it is outside the range of numbers copulang reads (about ±1.8e308)", s)
	case math.IsInf(v, 0):
		return 0, fmt.Errorf("cannot read %q as a number: it is infinite, and copulang reads finite numbers (if it marks a missing cell, add it to na)", s)
	case decimalComma(s):
		return 0, fmt.Errorf("cannot read %q as a number: it has a comma, and copulang reads numbers written with a decimal point and no thousands separator (1.5, 1500); save the file so (a spreadsheet does with an English number format), or replace the commas", s)
	}
	return 0, textCellError(s)
}

// textCellError is parseNumber's error for a cell of text (not a number
// written otherwise): its column needs an order, or to be left out.
type textCellError string

func (e textCellError) Error() string {
	return fmt.Sprintf("cannot read %q as a number; a column of text needs an explicit order, e.g. load(\"file.csv\", order = {COLUMN: [\"low\", \"high\"]})", string(e))
}

// textColumnMessage is the message for the text cell of column name that
// is not a number, when the column has no order: the order to give, or
// drop to leave the column out; a column of many distinct texts (most
// cells their own) is more likely an identifier or free text than an
// ordinal scale, and the message says so.
func textColumnMessage(cell, name string, texts []string, observed int) string {
	col := columnText(name)
	msg := fmt.Sprintf("cannot read %q as a number; a column of text needs an explicit order, e.g. order = {%s: [\"low\", \"high\"]}, or drop = [%s] to leave it out", cell, col, col)
	switch distinct := len(texts); {
	case manyTexts(distinct, observed):
		msg += fmt.Sprintf(" (its %d distinct texts in %d cells look like identifiers or free text, which drop leaves out)", distinct, observed)
	case distinct <= maxListedLabels:
		// The labels to put in order, sorted as text: their order is
		// the user's to give, not the alphabet's.
		msg += fmt.Sprintf(" (its labels, sorted as text: %s)", strings.Join(quoteAll(slices.Sorted(slices.Values(texts))), ", "))
	}
	return msg
}

// maxListedLabels is the most labels an error lists for a text column that
// needs an order.
const maxListedLabels = 12

// decimalComma reports whether s is a number written with one comma, as
// "1,5", "-0,25" or "1,500".
func decimalComma(s string) bool {
	whole, frac, ok := strings.Cut(s, ",")
	if !ok || frac == "" || strings.ContainsAny(frac, "+-") {
		return false
	}
	_, err := strconv.ParseFloat(whole+"."+frac, 64)
	return err == nil && strings.Trim(whole, "+-0123456789") == ""
}

// notInOrder is the message for a label that the order rank lacks; where
// says which order it is.
func notInOrder(s string, rank map[string]int, where string) string {
	labels := make([]string, 0, len(rank))
	for l := range rank {
		labels = append(labels, l)
	}
	sort.Slice(labels, func(a, b int) bool { return rank[labels[a]] < rank[labels[b]] })
	msg := fmt.Sprintf("value %q is not in %s [%s]", s, where, strings.Join(quoteAll(labels), ", "))
	numeric := func(t string) bool { _, err := strconv.ParseFloat(t, 64); return err == nil }
	if numeric(s) && len(labels) > 0 && !slices.ContainsFunc(labels, func(l string) bool { return !numeric(l) }) {
		// order = {degree: [0, 1, 2]} on a column holding 3: a number is
		// one edit from every other digit, and "did you mean "0"?" misled.
		msg += "; add it to the order (the order lists every value of the column), or to na if it marks a missing cell"
	} else if near := dsl.Nearest(s, labels); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	} else {
		// A survey's codes of a missing answer ("-99", "refused", "DK")
		// are the usual labels that no order lists.
		msg += fmt.Sprintf("; if %q marks a missing cell, add it to na", s)
	}
	return msg
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// columnWarnings lists the columns that are constant or entirely missing,
// and the numeric columns that seem to hold a code of missing answers
// (missingCode), named as describeData names them (a name that is not an
// identifier quoted, so that a control character in it prints escaped).
func columnWarnings(d *Dataset) []string {
	var w []string
	for j, col := range d.Columns {
		switch countLevels(col) {
		case 0:
			w = append(w, fmt.Sprintf("column %s is entirely missing: it tells nothing about the copula", columnText(d.Names[j])))
		case 1:
			w = append(w, fmt.Sprintf("column %s is constant: it tells nothing about the copula", columnText(d.Names[j])))
		default:
			if d.Labels[j] == nil {
				if msg := missingCode(col); msg != "" {
					w = append(w, fmt.Sprintf("column %s: %s", columnText(d.Names[j]), msg))
				}
			}
		}
	}
	return w
}

// missingCodeDigits are the digits of the usual codes of a missing answer:
// nines ending in 7, 8 or 9 (9, 98, 99, 997, 999, ...), sevens or eights
// (7, 77, 88, ...); not 89, the age the GSS top-codes.
var missingCodeDigits = regexp.MustCompile(`^(9*[789]|7+|8+)$`)

// missingCode says (or returns "") when a numeric column seems to hold a
// survey's code of a missing answer as a number: the rank likelihood would
// take it as the lowest or highest answer, silently. A code is a whole
// number with missingCodeDigits (-9, -99, -98, 99, 999, ...): the
// column's only negative value, the others being at least 0; or its
// largest value, 2 or more above the next one (99 after ages up to 85, 9
// after a scale of 1 to 5).
func missingCode(col []float64) string {
	lo, hi, below := math.Inf(1), math.Inf(-1), math.Inf(-1)
	negatives, otherNegative, atHi := 0, false, 0
	for _, v := range col {
		switch {
		case v != v:
			continue
		case v > hi:
			below, hi, atHi = hi, v, 1
		case v == hi:
			atHi++
		case v > below:
			below = v
		}
		if v < 0 {
			negatives++
			if lo < 0 && v != lo {
				otherNegative = true
			}
		}
		lo = min(lo, v)
	}
	code := func(v float64) bool {
		if v != math.Trunc(v) || v == 0 || math.Abs(v) > 1e9 {
			return false
		}
		return missingCodeDigits.MatchString(strconv.FormatFloat(math.Abs(v), 'f', 0, 64))
	}
	switch {
	case negatives > 0 && !otherNegative && code(lo) && hi >= 0:
		text := strconv.FormatFloat(lo, 'f', -1, 64)
		return fmt.Sprintf("%s (%s) is its only negative value, which the model takes as the lowest answer; if it marks missing answers, add it to na, as na = [%q]",
			text, plural(negatives, "cell"), text)
	case code(hi) && hi > 0 && below >= 0 && below <= hi-2:
		text := strconv.FormatFloat(hi, 'f', -1, 64)
		return fmt.Sprintf("its largest value, %s (%s), lies apart from the others (the next is %s), and the model takes it as the highest answer; if it marks missing answers, add it to na, as na = [%q]",
			text, plural(atHi, "cell"), strconv.FormatFloat(below, 'g', 6, 64), text)
	}
	return ""
}

// csvError turns an encoding/csv parse error into a DataError with its line.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &DataError{Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &DataError{Msg: err.Error()}
}

// countMissing is the number of NaN cells of a column.
func countMissing(col []float64) int {
	k := 0
	for _, v := range col {
		if math.IsNaN(v) {
			k++
		}
	}
	return k
}

// countLevels is the number of distinct observed values of a column. A
// survey's columns hold small whole numbers, counted in a bit set; others
// go to countLevelsAny. (A map for every column was half the time a load
// of 20,000 × 1,000 five-level cells took, and most of its summary's.)
func countLevels(col []float64) int {
	var seen uint64
	for _, v := range col {
		if v != v {
			continue
		}
		if u := uint64(v); v >= 0 && v < 64 && float64(u) == v {
			seen |= 1 << u
			continue
		}
		return countLevelsAny(col)
	}
	return bits.OnesCount64(seen)
}

// rarerLevel is, for a column of two distinct observed values, the number
// of cells of the rarer; 0 for other columns.
func rarerLevel(col []float64) int {
	first, second := math.NaN(), math.NaN()
	n1, n2 := 0, 0
	for _, v := range col {
		switch {
		case v != v:
		case first != first || v == first:
			first, n1 = v, n1+1
		case second != second || v == second:
			second, n2 = v, n2+1
		default:
			return 0 // a third value
		}
	}
	if n2 == 0 {
		return 0
	}
	return min(n1, n2)
}

// countSingletons is the number of observed cells of col whose value
// occurs in no other cell.
func countSingletons(col []float64) int {
	var small [64]int // counts of the values 0..63, the usual levels
	var other map[float64]int
	for _, v := range col {
		switch u := uint64(v); {
		case v != v:
		case v >= 0 && v < 64 && float64(u) == v:
			small[u]++
		default:
			if other == nil {
				other = make(map[float64]int)
			}
			other[v]++
		}
	}
	n := 0
	for _, c := range small {
		if c == 1 {
			n++
		}
	}
	for _, c := range other {
		if c == 1 {
			n++
		}
	}
	return n
}

// countLevelsAny is countLevels for any values: the first few distinct
// values in a list, a map past them.
func countLevelsAny(col []float64) int {
	var few [16]float64
	n := 0
	for _, v := range col {
		if v != v || n > 0 && few[n-1] == v {
			continue
		}
		seen := false
		for _, u := range few[:n] {
			if u == v {
				seen = true
				break
			}
		}
		if seen {
			continue
		}
		if n == len(few) {
			return countLevelsMap(col)
		}
		few[n] = v
		n++
	}
	return n
}

// countLevelsMap is countLevels with a map.
func countLevelsMap(col []float64) int {
	distinct := make(map[float64]struct{})
	for _, v := range col {
		if !math.IsNaN(v) {
			distinct[v] = struct{}{}
		}
	}
	return len(distinct)
}
