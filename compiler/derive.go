package compiler

// Data derived from other data: data NAME = SOURCE[COL, ...] where CONDITION.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// DeriveData is data NAME = SOURCE[COL, ...] where CONDITION: the rows of
// data set Source that meet Where (all of them when Where is nil), in
// their order, and its columns Columns, in the order listed (all of them,
// in theirs, when Columns is nil).
type DeriveData struct {
	At     dsl.Position
	Name   string
	Source string
	// From is the statement of the same file that binds Source, when an
	// earlier statement of the file does (nil when Source is bound in the
	// session): a Deriver makes the source again from it at check time.
	From Stmt
	// Columns are the columns kept, in order; nil keeps them all.
	Columns []string
	// Where is the condition a row must meet to be kept; nil keeps every row.
	Where *RowTest
	// Text is the derivation as a statement writes it, in canonical form:
	// gss[income, degree] where age >= 50. It is the data's provenance.
	Text string
}

// RowTest is a checked where condition. Op is "and" or "or" (of Args),
// "not" (of Args[0]), or a comparison of Column: "==", "!=", "<", "<=",
// ">", ">=" with Values[0] or, when Other is set, with the column Other in
// the same row (Values empty), or "in" with any of Values. A value is a
// number (Label "") or, for a column of text labels, a label, which is
// compared by the order load gave the labels; two columns of text compare
// by their labels' order, which is theirs alike (UnlikeOrders).
type RowTest struct {
	At     dsl.Position
	Op     string
	Args   []*RowTest
	Column string
	Other  string
	Values []RowValue
	// Text is the test as written, in canonical form.
	Text string
}

// RowValue is a value a row's cell is compared with: Label when the column
// holds text labels, Number otherwise.
type RowValue struct {
	Number float64
	Label  string
}

// Columns returns the columns the test reads, each once, in the order
// they first appear.
func (t *RowTest) Columns() []string {
	var out []string
	var walk func(t *RowTest)
	walk = func(t *RowTest) {
		for _, col := range []string{t.Column, t.Other} {
			if col != "" && !slices.Contains(out, col) {
				out = append(out, col)
			}
		}
		for _, a := range t.Args {
			walk(a)
		}
	}
	walk(t)
	return out
}

// Deriver is implemented by an Env that can make a derived data set at
// check time, so that a condition no row meets, or a label no longer in
// the source, is reported before anything runs. It returns nil and no error
// when it cannot make the source (data simulated in the same file, too
// large to simulate twice).
type Deriver interface {
	DeriveData(x *DeriveData) (*DataInfo, error)
}

func (*DeriveData) Partial() bool       { return false }
func (s *DeriveData) Pos() dsl.Position { return s.At }

// derive checks data NAME = SOURCE, data NAME = SOURCE[COL, ...] and
// either with where CONDITION.
func (c *checker) derive(s *dsl.DataStmt, src *dsl.Ident, index *dsl.Index) Stmt {
	x := &DeriveData{At: s.Pos, Name: s.Name.Name, Source: src.Name, Text: s.Value.String()}
	if s.Where != nil {
		x.Text += " where " + s.Where.String()
	}
	fail := func() Stmt {
		// Bind the name, of unknown shape, as a load that fails does.
		c.local[x.Name] = &local{b: &DataInfo{Name: x.Name}, pending: true}
		return nil
	}
	d, pending, ok := c.dataBinding(src)
	if !ok {
		return fail()
	}
	if l, isLocal := c.local[src.Name]; isLocal {
		x.From = l.made
	}
	known := !pending && d.Columns != nil
	if index != nil {
		if len(index.Items) == 0 {
			example := "income, degree"
			if names := d.columnNames(); len(names) >= 2 {
				example = columnName(names[0]) + ", " + columnName(names[1])
			}
			c.errorf(index.Pos, "list the columns to keep, as in "+src.Name+"["+example+"]", "no columns listed: write data %s = %s to keep all of them", x.Name, src.Name)
			return fail()
		}
		cols, unresolved, good := c.indexColumns(d, pending, src.Name, index.Items)
		if !good {
			return fail()
		}
		if unresolved {
			known = false
		}
		x.Columns = cols
	}
	good := true
	if s.Where != nil {
		x.Where, good = c.rowTest(s.Where, d, src.Name, !pending && d.Columns != nil)
	}
	if !good {
		return fail()
	}
	if !known {
		info := &DataInfo{Name: x.Name}
		for _, name := range x.Columns {
			info.Columns = append(info.Columns, ColumnInfo{Name: name})
		}
		c.local[x.Name] = &local{b: info, pending: true, made: x}
		return x
	}
	// The rows kept and the cells' counts are known only once the rows are
	// tested: a Deriver makes the data now; otherwise later statements of
	// the file are checked again when they run.
	if der, canDerive := c.env.(Deriver); canDerive {
		info, err := der.DeriveData(x)
		if err != nil {
			c.errs = append(c.errs, &dsl.Error{Pos: s.Value.Pos, Msg: err.Error(), Kind: "DataError"})
			return fail()
		}
		if info != nil {
			info.Name = x.Name
			c.local[x.Name] = &local{b: info, made: x}
			return x
		}
	}
	// With a condition the rows are not known (pending): whether the truth
	// is kept (every row meets it) is known only when it runs, and the
	// statements after it are checked again then.
	info := &DataInfo{Name: x.Name, N: d.N, HasTruth: d.HasTruth, TruthK: d.TruthK, TruthDropped: d.TruthDropped}
	for _, name := range x.Columns {
		info.Columns = append(info.Columns, d.Columns[d.column(name)])
	}
	if x.Columns == nil {
		info.Columns = slices.Clone(d.Columns)
	}
	c.local[x.Name] = &local{b: info, pending: x.Where != nil, made: x}
	return x
}

// TruthDropped says why data whose rows were chosen from simulated data
// source by condition have no truth.
func TruthDropped(source, condition string) string {
	return fmt.Sprintf("its rows were chosen from %s by their observed values (%s), which are then no sample of the simulated copula: their latent correlations differ from its C", source, condition)
}

// indexColumns resolves the items of an index of data set d (named name):
// column names, quoted names and 1-based positions, each once. unresolved
// is true when a position cannot be resolved yet (the data's columns are
// unknown); cols then lists none.
func (c *checker) indexColumns(d *DataInfo, pending bool, name string, items []*dsl.Expr) (cols []string, unresolved, ok bool) {
	good := true
	for _, it := range items {
		col, pos, isPos := c.indexItem(it)
		switch {
		case col == "" && pos == 0:
			good = false
			continue
		case isPos && pending:
			// A position into columns not yet known: resolved on re-check.
			return nil, true, good
		case isPos:
			if pos < 1 || pos > len(d.Columns) {
				c.errorf(it.Pos, numberNamedHint(pos, d.columnNames()), "column %d is out of range: %s has %d columns", pos, name, len(d.Columns))
				good = false
				continue
			}
			if c.ambiguousPosition(it.Pos, pos, d.columnNames(), name) {
				good = false
				continue
			}
			col = d.Columns[pos-1].Name
		case !pending && d.column(col) < 0:
			hint := suggest(col, d.columnNames(), "columns of "+name+": "+shortList(d.columnNames()))
			c.errorf(it.Pos, hint, "%s has no column %s", name, col)
			good = false
			continue
		}
		if slices.Contains(cols, col) {
			c.errorf(it.Pos, "", "column %s is listed twice", col)
			good = false
			continue
		}
		cols = append(cols, col)
	}
	return cols, false, good
}

// rowTest checks a where condition against the columns of data set d
// (named name); known says that d's columns are known.
func (c *checker) rowTest(cond *dsl.Cond, d *DataInfo, name string, known bool) (*RowTest, bool) {
	var or []*RowTest
	ok := true
	for _, a := range append([]*dsl.CondAnd{cond.Head}, cond.Tail...) {
		var and []*RowTest
		for _, n := range append([]*dsl.CondNot{a.Head}, a.Tail...) {
			t, good := c.rowTestNot(n, d, name, known)
			ok = ok && good
			and = append(and, t)
		}
		if len(and) == 1 {
			or = append(or, and[0])
		} else {
			or = append(or, &RowTest{At: a.Pos, Op: "and", Args: and, Text: a.String()})
		}
	}
	if !ok {
		return nil, false
	}
	if len(or) == 1 {
		return or[0], true
	}
	return &RowTest{At: cond.Pos, Op: "or", Args: or, Text: cond.String()}, true
}

func (c *checker) rowTestNot(n *dsl.CondNot, d *DataInfo, name string, known bool) (*RowTest, bool) {
	switch {
	case n.Not != nil:
		t, ok := c.rowTestNot(n.Not, d, name, known)
		return &RowTest{At: n.Pos, Op: "not", Args: []*RowTest{t}, Text: n.String()}, ok
	case n.Paren != nil:
		return c.rowTest(n.Paren, d, name, known)
	}
	return c.comparison(n.Test, d, name, known)
}

// comparison checks COL OP VALUE and COL in [VALUE, ...]: the column is
// one of d's, and each value a number for a column of numbers or one of
// the labels of a column of text.
func (c *checker) comparison(cmp *dsl.Comparison, d *DataInfo, name string, known bool) (*RowTest, bool) {
	col := cmp.ColumnName()
	t := &RowTest{At: cmp.Pos, Op: cmp.Op, Column: col, Text: cmp.String()}
	var info *ColumnInfo
	if known {
		j := d.column(col)
		if j < 0 {
			hint := suggest(col, d.columnNames(), "columns of "+name+": "+shortList(d.columnNames()))
			c.errorf(cmp.Pos, hint, "%s has no column %s", name, col)
			return t, false
		}
		info = &d.Columns[j]
	}
	if other, isColumn := otherColumn(cmp, info); isColumn {
		return c.columnComparison(t, other, cmp.Value.Pos, info, d, name, known)
	}
	values := []*dsl.Expr{cmp.Value}
	if cmp.In != nil {
		t.Op = "in"
		values = cmp.In.Items
		if len(values) == 0 {
			c.errorf(cmp.In.Pos, "list the values to keep, as in "+columnName(col)+" in [1, 2]", "%s in []: no row is in an empty list", columnName(col))
			return t, false
		}
	}
	ok := true
	for _, v := range values {
		rv, good := c.rowValue(v, col, info, d)
		ok = ok && good
		t.Values = append(t.Values, rv)
	}
	return t, ok
}

// otherColumn returns the name a comparison COL OP NAME compares COL with,
// and true, when NAME is a bare name other than pi and not a label of COL
// (written as a name, which rowValue reports): R's subset(d, income >
// pincome) compares two columns so. A column whose name is not a name (a
// string there is a label) cannot be compared so.
func otherColumn(cmp *dsl.Comparison, info *ColumnInfo) (string, bool) {
	if cmp.In != nil || cmp.Value == nil {
		return "", false
	}
	id, isName := cmp.Value.AsName()
	if !isName || id.Name == "pi" || info != nil && info.Text && slices.Contains(info.Labels, id.Name) {
		return "", false
	}
	return id.Name, true
}

// columnComparison checks t, COL OP OTHER of two columns of d: OTHER is a
// column, and both hold numbers or both text labels in one order
// (UnlikeOrders says why not).
func (c *checker) columnComparison(t *RowTest, other string, pos dsl.Position, info *ColumnInfo, d *DataInfo, name string, known bool) (*RowTest, bool) {
	t.Other = other
	if !known || info == nil {
		return t, true
	}
	k := d.column(other)
	if k < 0 {
		hint := suggest(other, d.columnNames(), fmt.Sprintf("compare %s with a number, as in %s >= 2, or with a column of %s: %s", columnName(t.Column), columnName(t.Column), name, shortList(d.columnNames())))
		c.errorf(pos, hint, "%s has no column %s", name, other)
		return t, false
	}
	o := &d.Columns[k]
	labels, otherLabels := textLabels(info), textLabels(o)
	if why := UnlikeOrders(columnName(t.Column), labels, columnName(other), otherLabels); why != "" {
		hint := ""
		if labels != nil && otherLabels != nil {
			hint = fmt.Sprintf("load both with one order, as order = {[%s, %s]: [...]}", columnName(t.Column), columnName(other))
		}
		c.errorf(t.At, hint, "%s cannot compare %s with %s: %s", name, columnName(t.Column), columnName(other), why)
		return t, false
	}
	return t, true
}

// textLabels are a column's labels, lowest first, non-nil for a column
// of text; nil for one of numbers.
func textLabels(info *ColumnInfo) []string {
	if !info.Text {
		return nil
	}
	if info.Labels == nil {
		return []string{}
	}
	return info.Labels
}

// UnlikeOrders says why a column a of labels la (nil for numbers) cannot
// be compared row by row with a column b of labels lb: one holds numbers
// and the other text, or their labels differ or are ordered otherwise (R
// refuses factors whose level sets differ); "" when they can.
func UnlikeOrders(a string, la []string, b string, lb []string) string {
	switch {
	case la == nil && lb == nil:
		return ""
	case la == nil || lb == nil:
		text, num := a, b
		if la == nil {
			text, num = b, a
		}
		return fmt.Sprintf("%s holds text labels and %s numbers, which have no common order", text, num)
	case slices.Equal(la, lb):
		return ""
	}
	same := len(la) == len(lb)
	for _, l := range la {
		same = same && slices.Contains(lb, l)
	}
	why := "their labels differ"
	if same {
		why = "their labels are ordered otherwise"
	}
	return fmt.Sprintf("%s (%s: %s; %s: %s), and two columns of text compare by one order of the same labels", why, a, strings.Join(quoted(la), ", "), b, strings.Join(quoted(lb), ", "))
}

// rowValue checks one value a column is compared with.
func (c *checker) rowValue(e *dsl.Expr, col string, info *ColumnInfo, d *DataInfo) (RowValue, bool) {
	shown := columnName(col)
	if id, isName := e.AsName(); isName && id.Name != "pi" && info != nil {
		switch {
		case info.Text && slices.Contains(info.Labels, id.Name):
			// sat == agree
			c.errorf(e.Pos, fmt.Sprintf("write the label as a string: %q", id.Name), "%s is a label of %s, written as a name", id.Name, shown)
			return RowValue{}, false
		case d.column(id.Name) >= 0:
			// Only in a list: COL OP COL compares two columns.
			c.errorf(e.Pos, fmt.Sprintf("compare the columns with ==, as in %s == %s or ...", shown, columnName(id.Name)),
				"in lists values, not columns (%s)", columnName(id.Name))
			return RowValue{}, false
		}
	}
	if p, isPrim := e.AsPrimary(); isPrim && p.Str != nil {
		label := strings.TrimSpace(p.Str.Value)
		switch {
		case info != nil && !info.Text:
			hint := fmt.Sprintf("as in %s >= 50", shown)
			if v, err := strconv.ParseFloat(label, 64); err == nil && !math.IsNaN(v) {
				hint = fmt.Sprintf("write it without quotes: %s", strconv.FormatFloat(v, 'g', -1, 64))
			} else if d.column(label) >= 0 {
				hint = columnNotLabelHint(shown, label)
			}
			c.errorf(e.Pos, hint, "%s holds numbers: compare it with a number, not the string %q", shown, p.Str.Value)
			return RowValue{}, false
		case info != nil && !slices.Contains(info.Labels, label):
			hint := "its labels, lowest first: " + strings.Join(quoted(info.Labels), ", ")
			if near := dsl.Nearest(label, info.Labels); near != "" {
				hint = fmt.Sprintf("did you mean %q? %s", near, hint)
			} else if d.column(label) >= 0 {
				hint = columnNotLabelHint(shown, label)
			}
			c.errorf(e.Pos, hint, "%s has no label %q", shown, label)
			return RowValue{}, false
		}
		return RowValue{Label: label}, true
	}
	if info != nil && info.Text {
		hint := fmt.Sprintf("write a label as a string, as in %s >= %q", shown, "LABEL")
		if len(info.Labels) > 1 {
			hint = fmt.Sprintf("write a label as a string, as in %s >= %q (its labels, lowest first: %s)", shown, info.Labels[len(info.Labels)/2], strings.Join(quoted(info.Labels), ", "))
		}
		c.errorf(e.Pos, hint, "%s holds text labels, ordered by load's order: compare it with one of them, not %s", shown, describeExpr(e))
		return RowValue{}, false
	}
	v, _, ok := c.number(e, numScope{})
	if !ok {
		return RowValue{}, false
	}
	return RowValue{Number: v}, true
}

// columnNotLabelHint is the hint for a comparison of column shown with a
// string that names another column: a string is a value, and a column is
// named without quotes (which a name that is not an identifier cannot be).
func columnNotLabelHint(shown, other string) string {
	if dsl.IsName(other) {
		return fmt.Sprintf("a string is a value; to compare with the column %s, name it without quotes: %s > %s", other, shown, other)
	}
	return fmt.Sprintf("a string is a value, and the column %q cannot be named without quotes, so it cannot be compared with (rename it in the file)", other)
}

// columnName writes a column's name as a statement would: quoted when it
// is not a name.
func columnName(name string) string {
	if dsl.IsName(name) {
		return name
	}
	return strconv.Quote(name)
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
