package compiler

// The members of a fitted model computed from its draws: partial
// correlations (m.partial, indexed like C), communalities of a factor
// model (m.communality, indexed by column) and regressions
// (m.regress(Y ~ X1 + X2), indexed by predictor or R2).

import (
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// regressExample is how a regression is written.
const regressExample = "as in m.regress(INC ~ DEG + AGE)"

// memberCall checks the arguments of a called member: regress must be
// called with a formula, the other members are not called.
func (c *checker) memberCall(t *target, m *ModelInfo, mem *dsl.Ident, call *dsl.MemberCall) bool {
	if mem.Name != "regress" {
		if call != nil {
			c.errorf(call.Pos, "write "+t.ref.Name+"."+mem.Name, "%s is not a function: it takes no arguments", mem.Name)
			return false
		}
		return true
	}
	if call == nil || len(call.Args) != 1 || call.Args[0].Name != nil || call.Args[0].Rhs == nil {
		at := mem.EndPos
		if call != nil {
			at = call.Pos
		}
		c.errorf(at, regressExample, "regress takes one formula: the response column, ~, and the predictor columns joined by +")
		return false
	}
	f := call.Args[0]
	if m.Columns == nil {
		t.ref.Unresolved = true
		return true
	}
	response, ok := c.formulaColumn(f.Value, t, m)
	if !ok {
		return false
	}
	reg := &Regression{Response: response}
	for _, term := range formulaTerms(f.Rhs) {
		if term.op == "-" {
			c.errorf(term.pos, regressExample, "a formula adds its predictors with +; there is no -")
			return false
		}
		j, ok := c.formulaColumn(term.expr, t, m)
		if !ok {
			return false
		}
		switch {
		case j == response:
			c.errorf(term.expr.Pos, "", "%s is the response; it cannot predict itself", m.Columns[j])
			return false
		case slices.Contains(reg.Predictors, j):
			c.errorf(term.expr.Pos, "", "predictor %s is given twice", m.Columns[j])
			return false
		}
		reg.Predictors = append(reg.Predictors, j)
	}
	t.ref.Regress = reg
	return true
}

// formulaTerm is one predictor of a formula's right-hand side with the
// operator before it ("+" for the first).
type formulaTerm struct {
	op   string
	pos  dsl.Position
	expr *dsl.Expr
}

// formulaTerms splits A + B - C into its terms.
func formulaTerms(e *dsl.Expr) []formulaTerm {
	single := func(t *dsl.Term) *dsl.Expr { return &dsl.Expr{Pos: t.Pos, EndPos: t.EndPos, Head: t} }
	out := []formulaTerm{{op: "+", pos: e.Pos, expr: single(e.Head)}}
	for _, ot := range e.Tail {
		out = append(out, formulaTerm{op: ot.Op, pos: ot.Pos, expr: single(ot.Term)})
	}
	return out
}

// formulaColumn resolves one column of a formula: a column name, bare or
// quoted (a name with a space or a comma: "Income level"), or a 1-based
// position among the model's columns.
func (c *checker) formulaColumn(e *dsl.Expr, t *target, m *ModelInfo) (int, bool) {
	if _, isName := e.AsName(); !isName {
		if p, ok := e.AsPrimary(); !ok || p.Number == nil && p.Str == nil {
			c.errorf(e.Pos, regressExample, "a formula names columns, got %s", describeExpr(e))
			return 0, false
		}
	}
	name, n, isPos := c.indexItem(e)
	switch {
	case name == "" && n == 0:
		return 0, false
	case isPos && n > len(m.Columns):
		c.errorf(e.Pos, numberNamedHint(n, m.Columns), "column %d is out of range: %s has %d columns", n, t.ref.Name, len(m.Columns))
		return 0, false
	case isPos && c.ambiguousPosition(e.Pos, n, m.Columns, t.ref.Name):
		return 0, false
	case isPos:
		return n - 1, true
	}
	j := indexOf(m.Columns, name)
	if j < 0 {
		c.errorf(e.Pos, suggest(name, m.Columns, "columns of "+t.ref.Name+": "+shortList(m.Columns)), "model %s has no column %s", t.ref.Name, name)
		return 0, false
	}
	return j, true
}

// r2Name is the index of m.regress(...) that selects R².
const r2Name = "R2"

// regressIndex resolves the index of m.regress(Y ~ X...)[ITEM]: a
// predictor (by name or position among the model's columns) or R2.
func (c *checker) regressIndex(t *target, items []*dsl.Expr, m *ModelInfo) bool {
	reg := t.ref.Regress
	if len(items) > 1 {
		c.errorf(items[1].Pos, "pick one predictor, or R2", "a regression takes one index, got %d", len(items))
		return false
	}
	if reg == nil { // columns unknown: resolved when the statement is checked again
		return true
	}
	k := len(reg.Predictors)
	if len(items) == 0 {
		t.count = k + 1
		return true
	}
	it := items[0]
	name, n, isPos := c.indexItem(it)
	if name == "" && n == 0 {
		return false
	}
	t.ref.Items = append(t.ref.Items, IndexItem{At: it.Pos, Column: name, Position: n})
	t.count = 1
	j := -1
	switch {
	case isPos && c.ambiguousPosition(it.Pos, n, m.Columns, t.ref.Name):
		return false
	case isPos && n <= len(m.Columns):
		j = n - 1
	case !isPos:
		j = indexOf(m.Columns, name)
	}
	if a := slices.Index(reg.Predictors, j); j >= 0 && a >= 0 {
		t.ref.Index = []int{a}
		return true
	}
	if name == r2Name {
		t.ref.Index = []int{k}
		return true
	}
	preds := make([]string, k)
	for a, p := range reg.Predictors {
		preds[a] = m.Columns[p]
	}
	c.errorf(it.Pos, suggest(name, append(preds, r2Name), "the index is a predictor ("+strings.Join(preds, ", ")+") or R2"),
		"%s is not a predictor of this regression", itemText(t.ref.Items[0]))
	return false
}

// noFormula reports a formula where none is understood.
func (c *checker) noFormula(a *dsl.Arg) bool {
	if a.Rhs == nil {
		return true
	}
	c.errorf(a.Rhs.Pos, "formulas are for regressions, "+strings.TrimPrefix(regressExample, "as in "), "unexpected ~ in an argument")
	return false
}
