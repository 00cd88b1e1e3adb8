package session

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

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
	// Truth is the simulation that produced the data, nil for loaded data.
	Truth *inference.Simulated
	// TruthK is the number of factors of the simulated copula (0: full).
	TruthK int
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

// DataError is a problem with a data file at a given line (1-based, the
// header is line 1) and column name; Line 0 means the file as a whole.
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
		fmt.Fprintf(&b, "column %s: ", e.Column)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// isMissing reports whether a CSV cell denotes a missing value: empty, NA or
// NaN (surrounding spaces ignored).
func isMissing(cell string) bool {
	switch strings.TrimSpace(cell) {
	case "", "NA", "NaN", "nan", "na":
		return true
	}
	return false
}

// LoadCSV reads a data set from CSV with a header row. Numeric columns are
// ordered by value. A column holding text needs an explicit order of its
// labels in order[name]; its cells then take the values 1, 2, ... of their
// label's position. Empty cells, NA and NaN are missing. It returns warnings
// for constant and all-missing columns, which carry no information about the
// copula.
func LoadCSV(r io.Reader, order map[string][]string) (*Dataset, []string, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3) // a byte order mark, as spreadsheet programs write
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // ragged rows get our own message
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, &DataError{Msg: "the file is empty; a header row naming the columns is required"}
	}
	if err != nil {
		return nil, nil, csvError(err)
	}
	p := len(header)
	names := make([]string, p)
	seen := map[string]int{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, nil, &DataError{Line: 1, Msg: fmt.Sprintf("column %d has an empty name", j+1)}
		}
		if k, dup := seen[h]; dup {
			return nil, nil, &DataError{Line: 1, Column: h, Msg: fmt.Sprintf("the name is used twice (columns %d and %d)", k+1, j+1)}
		}
		seen[h] = j
		names[j] = h
	}
	for name := range order {
		if _, ok := seen[name]; !ok {
			msg := fmt.Sprintf("order names column %q, which the file does not have", name)
			if s := dsl.Nearest(name, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			return nil, nil, &DataError{Msg: msg}
		}
	}
	rank := make([]map[string]int, p)
	for j, name := range names {
		if labels, ok := order[name]; ok {
			rank[j] = make(map[string]int, len(labels))
			for k, l := range labels {
				if _, dup := rank[j][l]; dup {
					return nil, nil, &DataError{Column: name, Msg: fmt.Sprintf("label %q appears twice in its order", l)}
				}
				rank[j][l] = k + 1
			}
		}
	}
	cols := make([][]float64, p)
	for line := 2; ; line++ {
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
		if len(rec) != p {
			return nil, nil, &DataError{Line: line, Msg: fmt.Sprintf("the row has %d cells but the header names %d columns", len(rec), p)}
		}
		for j, cell := range rec {
			v, err := parseCell(cell, rank[j])
			if err != nil {
				return nil, nil, &DataError{Line: line, Column: names[j], Msg: err.Error()}
			}
			cols[j] = append(cols[j], v)
		}
	}
	d := &Dataset{Names: names, Columns: cols, Labels: make([][]string, p)}
	for j, name := range names {
		if labels, ok := order[name]; ok {
			d.Labels[j] = append([]string(nil), labels...)
		}
	}
	return d, columnWarnings(d), nil
}

// parseCell turns one cell into a number: NaN when missing, the label's
// position when the column has an order, else the cell's numeric value.
func parseCell(cell string, rank map[string]int) (float64, error) {
	if isMissing(cell) {
		return math.NaN(), nil
	}
	s := strings.TrimSpace(cell)
	if rank != nil {
		if v, ok := rank[s]; ok {
			return float64(v), nil
		}
		labels := make([]string, 0, len(rank))
		for l := range rank {
			labels = append(labels, l)
		}
		sort.Slice(labels, func(a, b int) bool { return rank[labels[a]] < rank[labels[b]] })
		msg := fmt.Sprintf("value %q is not in the column's order [%s]", s, strings.Join(quoteAll(labels), ", "))
		if near := dsl.Nearest(s, labels); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return 0, errors.New(msg)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("cannot read %q as a number; a column of text needs an explicit order, e.g. load(\"file.csv\", order = {COLUMN: [\"low\", \"high\"]})", s)
	}
	return v, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// columnWarnings lists the columns that are constant or entirely missing.
func columnWarnings(d *Dataset) []string {
	var w []string
	for j, col := range d.Columns {
		switch countLevels(col) {
		case 0:
			w = append(w, fmt.Sprintf("column %s is entirely missing: it tells nothing about the copula", d.Names[j]))
		case 1:
			w = append(w, fmt.Sprintf("column %s is constant: it tells nothing about the copula", d.Names[j]))
		}
	}
	return w
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

// countLevels is the number of distinct observed values of a column.
func countLevels(col []float64) int {
	distinct := make(map[float64]struct{})
	for _, v := range col {
		if !math.IsNaN(v) {
			distinct[v] = struct{}{}
		}
	}
	return len(distinct)
}
