package session

// Data derived from other data: data NAME = SOURCE[COL, ...] where CONDITION.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// derivedRows is what a derivation says of the rows it kept.
type derivedRows struct {
	kept, of int
	// unknown counts, for each column the condition tests, the rows left
	// out because the condition could not be decided (R's NA) and that
	// column's cell is missing; unknownRows is the number of such rows.
	unknown     map[string]int
	unknownRows int
}

// row truth of a condition: R's three-valued logic, so that a missing cell
// leaves out the rows whose result it decides, as subset() does.
type truth int8

const (
	isFalse truth = iota
	isTrue
	isUnknown
)

// rowTester tests one row.
type rowTester func(i int) truth

// deriveDataset makes the data set of x from src: the rows that meet
// x.Where, the columns x.Columns. The cells are src's, as they are (a text
// column keeps its labels, and the codes of the labels no row has any
// more). Simulated data keep their truth, the sub-matrix of the kept
// columns, unless rows are chosen by a condition, which changes the
// distribution within them (dropped says why).
func deriveDataset(src *Dataset, x *compiler.DeriveData) (d *Dataset, rows derivedRows, dropped string, err error) {
	cols := make([]int, 0, len(src.Names))
	if x.Columns == nil {
		for j := range src.Names {
			cols = append(cols, j)
		}
	}
	for _, name := range x.Columns {
		j := src.column(name)
		if j < 0 {
			return nil, rows, "", fmt.Errorf("data %s has no column %s", x.Source, columnText(name))
		}
		cols = append(cols, j)
	}
	n := src.N()
	rows.of = n
	keep := make([]int, 0, n)
	if x.Where == nil {
		for i := range n {
			keep = append(keep, i)
		}
	} else {
		test, err := rowTest(src, x.Source, x.Where)
		if err != nil {
			return nil, rows, "", err
		}
		tested := x.Where.Columns()
		rows.unknown = map[string]int{}
		for i := range n {
			switch test(i) {
			case isTrue:
				keep = append(keep, i)
			case isUnknown:
				rows.unknownRows++
				for _, name := range tested {
					if math.IsNaN(src.Columns[src.column(name)][i]) {
						rows.unknown[name]++
					}
				}
			}
		}
	}
	rows.kept = len(keep)
	if rows.kept == 0 {
		return nil, rows, "", fmt.Errorf("no row of %s (%s) meets %s%s: a data set needs rows", x.Source, plural(n, "row"), x.Where.Text, rows.leftOut())
	}
	d = &Dataset{
		Name: x.Name, Source: src.Source, SHA256: src.SHA256, LoadOptions: src.LoadOptions,
		Derivation: append(slices.Clip(src.Derivation), x.Text),
		SourceRows: make([]int, len(keep)),
	}
	for k, i := range keep {
		d.SourceRows[k] = i
		if src.SourceRows != nil {
			d.SourceRows[k] = src.SourceRows[i]
		}
	}
	for _, j := range cols {
		col := make([]float64, len(keep))
		for k, i := range keep {
			col[k] = src.Columns[j][i]
		}
		d.Names = append(d.Names, src.Names[j])
		d.Columns = append(d.Columns, col)
		var labels []string
		if j < len(src.Labels) {
			labels = src.Labels[j]
		}
		d.Labels = append(d.Labels, labels)
	}
	switch {
	case src.Truth == nil:
		d.TruthDropped = src.TruthDropped
	case x.Where != nil && rows.kept < n:
		// (A condition every row meets keeps the simulation's sample,
		// whose truth holds: s where Y1 >= 1.)
		d.TruthDropped = compiler.TruthDropped(x.Source, x.Where.Text)
		dropped = fmt.Sprintf("the true C of %s is not kept for %s: rows chosen by their observed values (%s) are not a sample of the simulated copula, and their latent correlations differ from it", x.Source, x.Name, x.Where.Text)
	default:
		d.Truth, d.TruthK = subTruth(src.Truth, src.TruthK, cols, d), src.TruthK
	}
	return d, rows, dropped, nil
}

// subTruth is the simulation truth t (of k factors) of the columns cols:
// the sub-matrix of C, the rows of the loadings, and d's cells.
func subTruth(t *inference.Simulated, k int, cols []int, d *Dataset) *inference.Simulated {
	P, p := len(t.Names), len(cols)
	out := &inference.Simulated{Names: slices.Clone(d.Names), Columns: d.Columns, C: make([]float64, p*p)}
	for a, i := range cols {
		for b, j := range cols {
			out.C[a*p+b] = t.C[i*P+j]
		}
		if k > 0 && t.Lambda != nil {
			out.Lambda = append(out.Lambda, t.Lambda[i*k:i*k+k]...)
		}
	}
	return out
}

// kleene joins the tests args as R joins logical values with NA: and
// (decides isFalse, otherwise isTrue) or or (decides isTrue, otherwise
// isFalse). A test that decides gives the result at once; otherwise an
// unknown one makes it unknown.
func kleene(args []rowTester, decides, otherwise truth) rowTester {
	return func(i int) truth {
		r := otherwise
		for _, f := range args {
			switch f(i) {
			case decides:
				return decides
			case isUnknown:
				r = isUnknown
			}
		}
		return r
	}
}

// leftOut says, after a semicolon, how many rows a condition left out
// because a cell it tests is missing ("" when none).
func (r derivedRows) leftOut() string {
	if r.unknownRows == 0 {
		return ""
	}
	var why []string
	for _, name := range slices.Sorted(maps.Keys(r.unknown)) {
		why = append(why, columnText(name))
	}
	if len(why) == 1 {
		return fmt.Sprintf("; %s left out because %s is missing", plural(r.unknownRows, "row"), why[0])
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(r.unknown)) {
		parts = append(parts, fmt.Sprintf("%s: %d", columnText(name), r.unknown[name]))
	}
	return fmt.Sprintf("; %s left out because a cell it tests is missing (%s)", plural(r.unknownRows, "row"), strings.Join(parts, ", "))
}

// rowTest turns a checked condition into a test of src's rows.
func rowTest(src *Dataset, name string, t *compiler.RowTest) (rowTester, error) {
	switch t.Op {
	case "and", "or", "not":
		args := make([]rowTester, len(t.Args))
		for k, a := range t.Args {
			f, err := rowTest(src, name, a)
			if err != nil {
				return nil, err
			}
			args[k] = f
		}
		switch t.Op {
		case "not":
			return func(i int) truth {
				switch args[0](i) {
				case isTrue:
					return isFalse
				case isFalse:
					return isTrue
				}
				return isUnknown
			}, nil
		case "and":
			return kleene(args, isFalse, isTrue), nil
		}
		return kleene(args, isTrue, isFalse), nil
	}
	j := src.column(t.Column)
	if j < 0 {
		return nil, fmt.Errorf("data %s has no column %s", name, columnText(t.Column))
	}
	col := src.Columns[j]
	var labels []string
	if j < len(src.Labels) {
		labels = src.Labels[j]
	}
	values := make([]float64, len(t.Values))
	for k, v := range t.Values {
		switch {
		case labels != nil && v.Label == "":
			return nil, fmt.Errorf("column %s of %s holds text labels: compare it with one of them, not a number", columnText(t.Column), name)
		case labels != nil:
			code := slices.Index(labels, v.Label)
			if code < 0 {
				return nil, fmt.Errorf("column %s of %s has no label %q (its labels: %s)", columnText(t.Column), name, v.Label, strings.Join(quoteAll(labels), ", "))
			}
			values[k] = float64(code + 1)
		case v.Label != "":
			return nil, fmt.Errorf("column %s of %s holds numbers: compare it with a number, not %q", columnText(t.Column), name, v.Label)
		default:
			values[k] = v.Number
		}
	}
	if t.Other != "" {
		return columnsTest(src, name, t, j)
	}
	var cmp func(a float64) bool
	switch t.Op {
	case "in":
		cmp = func(a float64) bool { return slices.Contains(values, a) }
	default:
		op, err := comparisonOp(t.Op)
		if err != nil {
			return nil, err
		}
		v := values[0]
		cmp = func(a float64) bool { return op(a, v) }
	}
	return func(i int) truth {
		a := col[i]
		switch {
		case math.IsNaN(a):
			return isUnknown
		case cmp(a):
			return isTrue
		}
		return isFalse
	}, nil
}

// comparisonOp is the comparison op (== != < <= > >=) of two values.
func comparisonOp(op string) (func(a, b float64) bool, error) {
	switch op {
	case "==":
		return func(a, b float64) bool { return a == b }, nil
	case "!=":
		return func(a, b float64) bool { return a != b }, nil
	case "<":
		return func(a, b float64) bool { return a < b }, nil
	case "<=":
		return func(a, b float64) bool { return a <= b }, nil
	case ">":
		return func(a, b float64) bool { return a > b }, nil
	case ">=":
		return func(a, b float64) bool { return a >= b }, nil
	}
	return nil, fmt.Errorf("unknown comparison %s", op)
}

// columnsTest tests t, which compares column j of src with the column
// t.Other, in each row, as R's subset(d, income > pincome) does: unknown
// when either cell is missing. Columns of text compare by their levels,
// which the checker has made sure are the same labels in the same order.
func columnsTest(src *Dataset, name string, t *compiler.RowTest, j int) (rowTester, error) {
	k := src.column(t.Other)
	if k < 0 {
		return nil, fmt.Errorf("data %s has no column %s", name, columnText(t.Other))
	}
	if why := compiler.UnlikeOrders(columnText(t.Column), src.labelsOf(j), columnText(t.Other), src.labelsOf(k)); why != "" {
		return nil, fmt.Errorf("cannot compare columns %s and %s of %s: %s", columnText(t.Column), columnText(t.Other), name, why)
	}
	op, err := comparisonOp(t.Op)
	if err != nil {
		return nil, err
	}
	a, b := src.Columns[j], src.Columns[k]
	return func(i int) truth {
		switch {
		case math.IsNaN(a[i]) || math.IsNaN(b[i]):
			return isUnknown
		case op(a[i], b[i]):
			return isTrue
		}
		return isFalse
	}, nil
}

// derivedKey names a derivation of a data set: the source, as it is, and
// the statement's name and derivation.
type derivedKey struct {
	src        *Dataset
	name, text string
}

// derivedEntry is what deriveDataset made of a derivedKey.
type derivedEntry struct {
	d       *Dataset
	rows    derivedRows
	dropped string
}

// deriveOnce is deriveDataset, made once per cell for a source and a
// statement (its check, the statement's check and its run take the same).
func (s *Session) deriveOnce(src *Dataset, x *compiler.DeriveData) (*derivedEntry, error) {
	key := derivedKey{src: src, name: x.Name, text: x.Text}
	if e, ok := s.derived[key]; ok {
		return e, nil
	}
	d, rows, dropped, err := deriveDataset(src, x)
	if err != nil {
		return nil, err
	}
	e := &derivedEntry{d: d, rows: rows, dropped: dropped}
	s.derived[key] = e
	return e, nil
}

// derive runs data NAME = SOURCE[COL, ...] where CONDITION.
func (s *Session) derive(x *compiler.DeriveData, out Output) error {
	src, ok := s.data[x.Source]
	if !ok {
		return fmt.Errorf("%s is not a data set", x.Source)
	}
	e, err := s.deriveOnce(src, x)
	if err != nil {
		return err
	}
	// The data set is the session's now: a later cell that derives the
	// same from the same source makes its own.
	delete(s.derived, derivedKey{src: src, name: x.Name, text: x.Text})
	d, rows, dropped := e.d, e.rows, e.dropped
	// A source loaded in the same cell was named, and its file recorded,
	// only when its load ran, after the check that derived d.
	d.Source, d.SHA256, d.LoadOptions = src.Source, src.SHA256, src.LoadOptions
	d.Derivation = append(slices.Clip(src.Derivation), x.Text)
	for _, w := range derivedWarnings(src, d) {
		out.Stream("stderr", fmt.Sprintf("warning: %s: %s\n", d.Name, w))
	}
	s.setData(d, x.At, out)
	text := describeData(d)
	if x.Where != nil {
		text += fmt.Sprintf("\n%s: %d of %s of %s (%s)%s", d.Name, rows.kept, plural(rows.of, "row"), x.Source, x.Where.Text, rows.leftOut())
	}
	if d.Truth != nil {
		text += "; the true C of its columns is kept for `plot rmse` and `plot heatmap " + d.Name + "`"
	}
	out.Stream("stdout", text+"\n")
	if dropped != "" {
		out.Stream("stdout", "note: "+dropped+"\n")
	}
	s.described = d.Name
	return nil
}

// derivedWarnings are the warnings load gives of a column constant or
// entirely missing, for the columns of d that were not so in src, and,
// for a text column, the labels no row of d has any more.
func derivedWarnings(src, d *Dataset) []string {
	var w []string
	for k, col := range d.Columns {
		j := src.column(d.Names[k])
		levels, before := countLevels(col), countLevels(src.Columns[j])
		switch {
		case levels == before:
		case levels == 0:
			w = append(w, fmt.Sprintf("column %s is entirely missing: it tells nothing about the copula", columnText(d.Names[k])))
		case levels == 1:
			w = append(w, fmt.Sprintf("column %s is constant: it tells nothing about the copula", columnText(d.Names[k])))
		case d.Labels[k] != nil:
			seen := make([]bool, len(d.Labels[k]))
			for _, v := range col {
				if v == v && v >= 1 && int(v) <= len(seen) {
					seen[int(v)-1] = true
				}
			}
			var gone []string
			for l, label := range d.Labels[k] {
				if !seen[l] {
					gone = append(gone, label)
				}
			}
			w = append(w, fmt.Sprintf("column %s has %d of its %d labels: no row has %s", columnText(d.Names[k]), levels, len(d.Labels[k]), strings.Join(quoteAll(gone), ", ")))
		}
	}
	return w
}

// DeriveData implements compiler.Deriver: the source is made as the
// statements that bind it would make it (data of the session, a file read
// now and kept for the load, a small simulation drawn now), and the
// derived data described. It returns nil when the source cannot be made.
func (e sessionEnv) DeriveData(x *compiler.DeriveData) (*compiler.DataInfo, error) {
	src, err := e.s.derivationSource(e.ctx, x)
	if err != nil || src == nil {
		return nil, err
	}
	e2, err := e.s.deriveOnce(src, x)
	if err != nil {
		return nil, err
	}
	return e2.d.Info(), nil
}

// maxCheckSimulation is the most cells a simulation is drawn at check time
// to check the data derived from it.
const maxCheckSimulation = 1_000_000

// derivationSource makes the source of x at check time, or returns nil.
func (s *Session) derivationSource(ctx context.Context, x *compiler.DeriveData) (*Dataset, error) {
	switch from := x.From.(type) {
	case nil:
		return s.data[x.Source], nil
	case *compiler.LoadData:
		d, _, err := s.readData(ctx, from)
		return d, err
	case *compiler.SimulateData:
		if from.N*from.P > maxCheckSimulation {
			return nil, nil
		}
		sim, err := inference.SimulateContext(ctx, inference.SimSpec{P: from.P, K: from.K, N: from.N, Levels: from.Levels, Seed: from.Seed, Missing: from.Missing})
		if err != nil {
			return nil, nil
		}
		return &Dataset{Name: from.Name, Names: sim.Names, Columns: sim.Columns, Labels: make([][]string, len(sim.Columns)), Truth: sim, TruthK: from.K}, nil
	case *compiler.DeriveData:
		src, err := s.derivationSource(ctx, from)
		if err != nil || src == nil {
			return nil, nil // reported at the statement that derives it
		}
		e, err := s.deriveOnce(src, from)
		if err != nil {
			return nil, nil
		}
		return e.d, nil
	}
	return nil, nil
}
