package compiler

// predict m[COL, ...] given COL = VALUE, ... [, prob = P, reps = R, seed = S].

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// Predict is predict NAME[COL, ...] given COL = VALUE, ...: the model's
// distribution of each target column, on its observed levels, given
// values of other columns, for a new row.
type Predict struct {
	At    dsl.Position
	Model string
	// Targets are the columns predicted (0-based, model order); nil for
	// every column not given, or while Unresolved. Items are the targets
	// as written (nil when none were).
	Targets []int
	Items   []IndexItem
	// Given are the given values, in the order written.
	Given []GivenValue
	// Prob is the probability of the central interval of each per-draw
	// probability shown (DefaultProb unless given).
	Prob float64
	// Seed seeds the replicates of GHK (two or more given columns);
	// SeedSet is false when the statement gives none, and the fit's seed
	// is used.
	Seed    uint64
	SeedSet bool
	// Reps is the number of GHK replicates per draw (reps =), 0 for
	// inference.DefaultPredictReps.
	Reps int
	// Unresolved is true when the model's columns were unknown at check
	// time (see Stmt.Partial).
	Unresolved bool
}

// GivenValue is one COL = VALUE of predict's given: Col is the column's
// index in the model (-1 while unresolved), Value its number or, for a
// column of text, its label.
type GivenValue struct {
	At     dsl.Position
	Column string
	Col    int
	Value  RowValue
	// Text is COL = VALUE as a statement writes it.
	Text string
}

func (s *Predict) Pos() dsl.Position { return s.At }
func (s *Predict) Partial() bool     { return s.Unresolved }

// predictExample is an example of predict on model m's columns.
func predictExample(model string, m *ModelInfo) string {
	target, given := "degree", "income = 5"
	if m != nil && len(m.Columns) >= 2 {
		target, given = columnName(m.Columns[0]), columnName(m.Columns[1])+" = 1"
	}
	return "predict " + model + "[" + target + "] given " + given
}

// predict checks predict NAME[COL, ...] given COL = VALUE, ... [, SETTINGS].
func (c *checker) predict(s *dsl.PredictStmt) Stmt {
	m, _, ok := c.modelBinding(s.Model, true, "predict")
	x := &Predict{At: s.Pos, Model: s.Model.Name, Prob: DefaultProb}
	if !ok || m == nil {
		return nil
	}
	x.Unresolved = m.Columns == nil
	example := predictExample(x.Model, m)
	if ix := s.Columns; ix != nil {
		if len(ix.Items) == 0 {
			c.errorf(ix.Pos, "as in "+example+", or predict "+x.Model+" given ... for every column not given", "predict %s[] names no column", x.Model)
			return nil
		}
		cols, items, unresolved, good := c.modelColumns(ix, m, x.Model)
		if !good {
			return nil
		}
		x.Items, x.Unresolved = items, x.Unresolved || unresolved
		for k, j := range cols {
			if slices.Contains(cols[:k], j) {
				c.errorf(ix.Items[k].Pos, "as in "+example, "column %s is named twice", m.Columns[j])
				ok = false
			}
		}
		x.Targets = cols
	}
	// Given values that name a setting of predict, and no column of the
	// model, are its settings: given income = 5, prob = 0.8.
	settings := slices.Clone(s.Settings)
	var given []*dsl.GivenValue
	for _, g := range s.Given {
		name := g.ColumnName()
		if g.Column != nil && slices.Contains(settingsOf("predict"), name) && (m.Columns == nil || !slices.Contains(m.Columns, name)) {
			settings = append(settings, &dsl.NamedArg{Pos: g.Pos, EndPos: g.EndPos, Name: g.Column, Value: g.Value})
			continue
		}
		if len(settings) > len(s.Settings) {
			c.errorf(g.Pos, "put the settings after the given values, as in "+example+", prob = 0.8", "given value %s after a setting", g.String())
			ok = false
		}
		given = append(given, g)
	}
	data := c.dataOfModel(m)
	for _, g := range given {
		v, good := c.givenValue(g, m, data, x, example)
		ok = ok && good
		if good {
			x.Given = append(x.Given, v)
		}
	}
	if ok && !x.Unresolved && x.Targets == nil && len(x.Given) == len(m.Columns) {
		c.errorf(s.Model.Pos, "leave a column out of given to predict it", "every column of %s is given: there is no column left to predict", x.Model)
		ok = false
	}
	set, good := c.settings(settings, "predict", settingsOf("predict"))
	ok = ok && good
	if a := set["prob"]; a != nil {
		ok = c.probability(a.Value, &x.Prob) && ok
	}
	if a := set["reps"]; a != nil {
		ok = c.predictReps(a.Value, x) && ok
	}
	if a := set["seed"]; a != nil {
		v, _, good := c.number(a.Value, numScope{})
		if good && (v < 0 || v != math.Trunc(v) || v >= 1<<53) {
			c.errorf(a.Value.Pos, "as in seed = 1", "seed must be a whole number from 0, got %s", fmtNum(v))
			good = false
		}
		ok = ok && good
		x.Seed, x.SeedSet = uint64(v), good
	}
	if !ok {
		return nil
	}
	return x
}

// predictReps checks predict's reps =: a whole number of GHK replicates
// per draw, a multiple of inference.PredictShifts (the random shifts whose
// spread is the error stated, each of reps/PredictShifts lattice points)
// up to inference.MaxPredictReps.
func (c *checker) predictReps(e *dsl.Expr, x *Predict) bool {
	shifts := inference.PredictShifts
	v, known, ok := c.integerAtLeast(e, numScope{}, "reps", minimum{value: shifts,
		hint: fmt.Sprintf("the replicates are %d random shifts of reps/%d lattice points each", shifts, shifts)})
	switch {
	case !ok || !known:
		return ok
	case v > inference.MaxPredictReps:
		c.errorf(e.Pos, fmt.Sprintf("the default, %d, adds an error far under the posterior's own; each replicate costs a Φ per level of the target per draw", inference.DefaultPredictReps),
			"reps must be at most %d, got %d", inference.MaxPredictReps, v)
		return false
	case v%shifts != 0:
		c.errorf(e.Pos, fmt.Sprintf("the replicates are %d random shifts of reps/%d lattice points each: reps = %d or %d", shifts, shifts, v/shifts*shifts, (v/shifts+1)*shifts),
			"reps must be a multiple of %d, got %d", shifts, v)
		return false
	}
	x.Reps = v
	return true
}

// dataOfModel is the description of the data set model m is declared on,
// or nil when it is not known.
func (c *checker) dataOfModel(m *ModelInfo) *DataInfo {
	b, _, _, found := c.lookup(m.Data)
	if !found {
		return nil
	}
	d, _ := b.(*DataInfo)
	return d
}

// givenValue checks one COL = VALUE of predict's given: a column of the
// model, neither a target nor given before, and a value of its kind (a
// number, or one of a text column's labels as a string), a number one of
// the column's observed values where the model knows them (notObserved;
// otherwise the session checks it when the statement runs).
func (c *checker) givenValue(g *dsl.GivenValue, m *ModelInfo, data *DataInfo, x *Predict, example string) (GivenValue, bool) {
	name := g.ColumnName()
	v := GivenValue{At: g.Pos, Column: name, Col: -1, Text: g.String()}
	shown := columnName(name)
	for _, prev := range x.Given {
		if prev.Column == name {
			c.errorf(g.Pos, "give each column one value", "column %s is given twice (%s and %s)", shown, prev.Text, v.Text)
			return v, false
		}
	}
	if m.Columns != nil {
		v.Col = indexOf(m.Columns, name)
		if v.Col < 0 {
			hint := suggest(name, m.Columns, "columns of "+x.Model+": "+shortList(m.Columns))
			if g.Column != nil && isSettingElsewhere(name) {
				hint = "predict's settings: " + strings.Join(settingsOf("predict"), ", ")
			}
			if data != nil && data.column(name) >= 0 {
				hint = fmt.Sprintf("%s is a column of data %s that model %s leaves out; predict conditions only on the columns a model has: %s", shown, data.Name, x.Model, shortList(m.Columns))
			}
			c.errorf(g.Pos, hint, "model %s has no column %s", x.Model, shown)
			return v, false
		}
		if slices.Contains(x.Targets, v.Col) {
			c.errorf(g.Pos, "a column is either predicted or given: leave "+shown+" out of one", "column %s is both predicted and given", shown)
			return v, false
		}
	}
	var info *ColumnInfo
	if data != nil {
		if j := data.column(name); j >= 0 {
			info = &data.Columns[j]
		}
	}
	e := g.Value
	if id, isName := e.AsName(); isName && id.Name != "pi" {
		switch {
		case info != nil && info.Text && slices.Contains(info.Labels, id.Name):
			c.errorf(e.Pos, fmt.Sprintf("write the label as a string: %s = %q", shown, id.Name), "%s is a label of %s, written as a name", id.Name, shown)
			return v, false
		case m.Columns != nil && slices.Contains(m.Columns, id.Name):
			c.errorf(e.Pos, "as in "+example, "a given value is a number or a label, not another column (%s)", columnName(id.Name))
			return v, false
		}
	}
	if p, isPrim := e.AsPrimary(); isPrim && p.Str != nil {
		label := strings.TrimSpace(p.Str.Value)
		switch {
		case info != nil && !info.Text:
			hint := fmt.Sprintf("as in %s = 3", shown)
			if f, err := strconv.ParseFloat(label, 64); err == nil && !math.IsNaN(f) {
				hint = fmt.Sprintf("write it without quotes: %s = %s", shown, strconv.FormatFloat(f, 'g', -1, 64))
			}
			c.errorf(e.Pos, hint, "%s holds numbers: give it a number, not the string %q", shown, p.Str.Value)
			return v, false
		case info != nil && !slices.Contains(info.Labels, label):
			hint := "its labels, lowest first: " + strings.Join(quoted(info.Labels), ", ")
			if near := dsl.Nearest(label, info.Labels); near != "" {
				hint = fmt.Sprintf("did you mean %q? %s", near, hint)
			}
			c.errorf(e.Pos, hint, "%s has no label %q", shown, label)
			return v, false
		}
		v.Value = RowValue{Label: label}
		return v, true
	}
	if info != nil && info.Text {
		hint := fmt.Sprintf("write a label as a string, as in %s = %q", shown, "LABEL")
		if len(info.Labels) > 0 {
			hint = fmt.Sprintf("write a label as a string, as in %s = %q (its labels, lowest first: %s)", shown, info.Labels[len(info.Labels)/2], strings.Join(quoted(info.Labels), ", "))
		}
		c.errorf(e.Pos, hint, "%s holds text labels: give it one of them, not %s", shown, describeExpr(e))
		return v, false
	}
	f, _, ok := c.number(e, numScope{})
	if !ok || c.notObserved(g.Pos, m, v.Col, shown, f) {
		return v, false
	}
	v.Value = RowValue{Number: f}
	return v, true
}

// isSettingElsewhere reports whether name is a setting of another
// statement (reps, draws, iter, ...), which predict's given would read as
// a column.
func isSettingElsewhere(name string) bool {
	for _, names := range Arguments() {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// columnValues are the observed values of data d's columns cols
// (ColumnInfo.Values) and the functions that compute those too many to
// list (ColumnInfo.ValuesOf), nil when d is not known.
func columnValues(d *DataInfo, cols []string) ([][]float64, []func() []float64) {
	if d == nil {
		return nil, nil
	}
	out, of := make([][]float64, len(cols)), make([]func() []float64, len(cols))
	for k, name := range cols {
		if j := d.column(name); j >= 0 {
			out[k], of[k] = d.Columns[j].Values, d.Columns[j].ValuesOf
		}
	}
	return out, of
}

// notObserved reports, as an error at pos (the COL = VALUE, where the
// session reports it too), a given number that column col of model m
// never had, when m's values of it are known or can be computed: the
// statement would fail when it ran, perhaps after a long fit in the same
// script.
func (c *checker) notObserved(pos dsl.Position, m *ModelInfo, col int, shown string, f float64) bool {
	if col < 0 {
		return false
	}
	var values []float64
	switch {
	case col < len(m.Values) && m.Values[col] != nil:
		values = m.Values[col]
	case col < len(m.ValuesOf) && m.ValuesOf[col] != nil:
		values = m.ValuesOf[col]() // a column of many values: sorted now, once per given value
	}
	if values == nil {
		return false
	}
	if _, found := slices.BinarySearch(values, f); found {
		return false
	}
	text := func(vs []float64) string {
		out := make([]string, len(vs))
		for k, v := range vs {
			out[k] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		return strings.Join(out, ", ")
	}
	hint := "its values: " + text(values)
	if len(values) > 12 {
		i, _ := slices.BinarySearch(values, f)
		near := values[max(i-2, 0):min(i+2, len(values))]
		hint = fmt.Sprintf("the nearest: %s (of %d values from %s to %s)", text(near), len(values), text(values[:1]), text(values[len(values)-1:]))
	}
	c.errorf(pos, hint, "%s = %s is not an observed value of %s: predict conditions on observed values only", shown, strconv.FormatFloat(f, 'g', -1, 64), shown)
	return true
}
