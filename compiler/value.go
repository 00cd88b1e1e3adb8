package compiler

import (
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// Statements that show values: a bare expression, print, help and clear.

// ValueKind says what a Value holds.
type ValueKind int

// Value kinds.
const (
	NumberValue ValueKind = iota // a number, as in 2 * pi
	StringValue                  // a string literal
	RefValue                     // a binding or a part of a fitted model, as in gss, m, m.C[1, 2]
)

// Value is a checked expression whose value a statement shows.
type Value struct {
	At     dsl.Position
	Kind   ValueKind
	Number float64 // NumberValue
	Text   string  // StringValue
	Ref    Ref     // RefValue
	// Minus is B of a value A - B (Ref is A), a difference of two parts of
	// fitted models; nil otherwise.
	Minus *Ref
}

// Result is a bare expression statement: its value is the cell's result.
type Result struct {
	At    dsl.Position
	Value Value
}

// Print is print EXPR, ...: the values written to standard output.
type Print struct {
	At     dsl.Position
	Values []Value
}

// Help is help [WORD]: Topic is "" for the list of statements.
type Help struct {
	At    dsl.Position
	Topic string
}

// ClearOutput is clear.
type ClearOutput struct {
	At dsl.Position
}

func (x *Result) Pos() dsl.Position      { return x.At }
func (x *Print) Pos() dsl.Position       { return x.At }
func (x *Help) Pos() dsl.Position        { return x.At }
func (x *ClearOutput) Pos() dsl.Position { return x.At }
func (x *Result) Partial() bool          { return x.Value.unresolved() }
func (x *Print) Partial() bool {
	for _, v := range x.Values {
		if v.unresolved() {
			return true
		}
	}
	return false
}

// unresolved says whether v refers to columns not known at check time.
func (v Value) unresolved() bool {
	return v.Kind == RefValue && (v.Ref.Unresolved || v.Minus != nil && v.Minus.Unresolved)
}
func (x *Help) Partial() bool        { return false }
func (x *ClearOutput) Partial() bool { return false }

// valueStmt checks the statements of this file; it returns nil for other
// statements.
func (c *checker) valueStmt(s dsl.Stmt) (st Stmt, handled bool) {
	switch s := s.(type) {
	case *dsl.ExprStmt:
		v, ok := c.value(s.Value)
		if !ok {
			return nil, true
		}
		return &Result{At: s.Pos, Value: v}, true
	case *dsl.PrintStmt:
		x := &Print{At: s.Pos}
		good := true
		for _, e := range s.Values {
			v, ok := c.value(e)
			good = good && ok
			x.Values = append(x.Values, v)
		}
		if !good {
			return nil, true
		}
		return x, true
	case *dsl.HelpStmt:
		x := &Help{At: s.Pos}
		if s.Topic != nil {
			x.Topic = s.Topic.Name
			if _, ok := Doc(x.Topic); !ok {
				hint := "help alone lists the statements"
				if near := dsl.Nearest(x.Topic, helpTopics()); near != "" {
					hint = "did you mean " + near + "?"
				}
				c.errorf(s.Topic.Pos, hint, "no help for %s", x.Topic)
				return nil, true
			}
		}
		return x, true
	case *dsl.ClearStmt:
		return &ClearOutput{At: s.Pos}, true
	}
	return nil, false
}

// helpTopics lists the words that have documentation.
func helpTopics() []string {
	out := make([]string, 0, len(docs))
	for w := range docs {
		out = append(out, w)
	}
	return out
}

// value checks an expression shown by a statement: a string, a number
// (arithmetic on numbers and pi), a binding (a data set or a model, fitted
// or not) or a part of a fitted model (m.C, m.C[1, 2], m.Lambda[INC, 1]).
func (c *checker) value(e *dsl.Expr) (Value, bool) {
	v := Value{At: e.Pos}
	if p, ok := e.AsPrimary(); ok && p.Str != nil {
		v.Kind, v.Text = StringValue, p.Str.Value
		return v, true
	}
	if call, ok := e.AsCall(); ok {
		// library(copulang), sbgcop.mcmc(gss), load("gss.csv"): a call
		// is not a value, and "expected a number" would not say why.
		hint := "a line starts with a statement (" + strings.Join(dsl.StatementKeywords(), ", ") + "); calls go inside one, as load(...) in data gss = load(\"gss.csv\")"
		if slices.Contains(dataSources(), call.Func.Name) {
			hint = "bind the data to a name: data NAME = " + strings.TrimSpace(e.String())
		}
		c.errorf(call.Func.Pos, hint, "%s(...) is not a value: copulang has no functions to call outside a statement", call.Func.Name)
		return v, false
	}
	if a, b, isDiff, ok := c.contrast(e, "showing "+strings.TrimSpace(e.String())); isDiff {
		v.Kind = RefValue
		if ok {
			v.Ref, v.Minus = a.ref, &b.ref
		}
		return v, ok
	}
	pf, isPostfix := e.AsPostfix()
	if !isPostfix || pf.Primary.Name == nil || pf.Primary.Name.Name == "pi" {
		n, _, ok := c.number(e, numScope{})
		v.Kind, v.Number = NumberValue, n
		return v, ok
	}
	v.Kind = RefValue
	if len(pf.Suffixes) == 0 {
		id := pf.Primary.Name
		if _, _, _, found := c.lookup(id.Name); !found {
			c.unknownName(id, "")
			return v, false
		}
		v.Ref = Ref{At: e.Pos, Name: id.Name}
		return v, true
	}
	t, ok := c.reference(e, "showing "+strings.TrimSpace(e.String()), false)
	if !ok {
		return v, false
	}
	if m := t.ref.Member; m != "" && !takesMember("print", m, false) {
		c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "the draws of Z are not kept; only C and Lambda have values to show")
		return v, false
	}
	v.Ref = t.ref
	return v, true
}
