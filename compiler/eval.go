package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// numScope holds the values the names of a numeric expression may take:
// pi always, p and n inside a model (when known).
type numScope struct {
	inModel bool
	p, n    int
	known   bool // p and n are known (the model's data has a known shape)
}

// number evaluates a numeric expression. It returns the value, whether it
// is known (false when it depends on p or n of a data set whose shape is
// not known yet), and false as the last result after reporting an error.
func (c *checker) number(e *dsl.Expr, sc numScope) (v float64, known, ok bool) {
	v, known, ok = c.term(e.Head, sc)
	for _, t := range e.Tail {
		w, k, o := c.term(t.Term, sc)
		ok = ok && o
		known = known && k
		if t.Op == "+" {
			v += w
		} else {
			v -= w
		}
		if ok && math.IsInf(v, 0) {
			c.overflow(e.Pos, v)
			ok = false
		}
	}
	return v, known, ok
}

// overflow reports a sum or product beyond the range of a float64 (the
// literals are each in range): left alone it would go on as +Inf or, as
// in 0 * (1e308 * 10), as NaN, which passes every "must be positive" test.
func (c *checker) overflow(pos dsl.Position, v float64) {
	c.errorf(pos, "", "the value is out of range: it comes to %s, beyond the largest number (about 1.8e308)", fmtNum(v))
}

func (c *checker) term(t *dsl.Term, sc numScope) (float64, bool, bool) {
	v, known, ok := c.unary(t.Head, sc)
	for _, u := range t.Tail {
		w, k, o := c.unary(u.Unary, sc)
		ok = ok && o
		known = known && k
		if u.Op == "*" {
			v *= w
		} else {
			if o && k && w == 0 {
				c.errorf(u.Unary.Pos, "", "division by zero")
				ok = false
				continue
			}
			v /= w
		}
		if ok && math.IsInf(v, 0) {
			c.overflow(t.Pos, v)
			ok = false
		}
	}
	return v, known, ok
}

func (c *checker) unary(u *dsl.Unary, sc numScope) (float64, bool, bool) {
	if u.Neg != nil {
		v, k, ok := c.unary(u.Neg, sc)
		return -v, k, ok
	}
	pf := u.Postfix
	if len(pf.Suffixes) > 0 {
		c.errorf(pf.Pos, "", "expected a number, got %s", pf)
		return 0, true, false
	}
	p := pf.Primary
	switch {
	case p.Number != nil:
		v, err := strconv.ParseFloat(p.Number.Text, 64)
		if err != nil || math.IsInf(v, 0) {
			c.errorf(p.Pos, "", "number %s is out of range", p.Number.Text)
			return 0, true, false
		}
		return v, true, true
	case p.Paren != nil:
		return c.number(p.Paren, sc)
	case p.Name != nil:
		switch name := p.Name.Name; {
		case name == "pi":
			return math.Pi, true, true
		case sc.inModel && name == "p":
			return float64(sc.p), sc.known, true
		case sc.inModel && name == "n":
			return float64(sc.n), sc.known, true
		default:
			known := []string{"pi"}
			hint := "the names allowed in a number are pi, and p and n inside a model"
			if sc.inModel {
				known = append(known, "p", "n")
				hint = "the names allowed in a number are pi, p (columns) and n (rows)"
			} else if name == "p" || name == "n" {
				hint = "p and n are defined inside a model only"
			}
			if b, _, _, ok := c.lookup(name); ok {
				// A binding, not a number: say what it is.
				what := "a model"
				if b.Kind() == "data" {
					what = "a data set"
				}
				c.errorf(p.Pos, hint, "%s is %s, not a number", name, what)
				return 0, true, false
			}
			c.errorf(p.Pos, suggest(name, known, hint), "unknown name %s in a number", name)
			return 0, true, false
		}
	case p.Str != nil:
		hint := ""
		if _, err := strconv.ParseFloat(strings.TrimSpace(p.Str.Value), 64); err == nil {
			hint = "numbers are written without quotes: " + strings.TrimSpace(p.Str.Value)
		}
		c.errorf(p.Pos, hint, "expected a number, got the string %q", p.Str.Value)
	case p.Call != nil:
		c.errorf(p.Pos, callHint(p.Call.Func.Name), "expected a number, got the call %s(...)", p.Call.Func.Name)
	case p.List != nil:
		c.errorf(p.Pos, "", "expected a number, got a list")
	case p.Map != nil:
		c.errorf(p.Pos, "", "expected a number, got a map")
	}
	return 0, true, false
}

// maxInt bounds integer settings so that they fit any int and stay sane.
const maxInt = 1 << 40

// integer evaluates an integer-valued expression; what names it in messages.
func (c *checker) integer(e *dsl.Expr, sc numScope, what string) (int, bool, bool) {
	return c.wholeNumber(e, sc, what, nil)
}

// minimum is the smallest value an integer argument may take, and what to
// say about a smaller one: "WHAT must be at least VALUE[UNIT], got V", with
// hint.
type minimum struct {
	value int
	unit  string // as in " columns"
	hint  string
}

// integerAtLeast is integer for an argument with a smallest value.
func (c *checker) integerAtLeast(e *dsl.Expr, sc numScope, what string, lo minimum) (int, bool, bool) {
	return c.wholeNumber(e, sc, what, &lo)
}

// wholeNumber is integer, with a smallest value if lo is not nil.
func (c *checker) wholeNumber(e *dsl.Expr, sc numScope, what string, lo *minimum) (int, bool, bool) {
	v, known, ok := c.number(e, sc)
	if !ok || !known {
		return 0, known, ok
	}
	switch {
	case v != math.Trunc(v):
		c.errorf(e.Pos, "", "%s must be a whole number, got %s", what, fmtNum(v))
	case lo != nil && v < float64(lo.value):
		if v >= -maxInt {
			c.errorf(e.Pos, lo.hint, "%s must be at least %d%s, got %d", what, lo.value, lo.unit, int(v))
			return int(v), known, false
		}
		c.errorf(e.Pos, lo.hint, "%s must be at least %d%s, got %s", what, lo.value, lo.unit, fmtNum(v))
	case v > maxInt:
		c.errorf(e.Pos, "", "%s must be at most 2^40 (%d), got %s", what, int64(maxInt), fmtNum(v))
	case v < -maxInt:
		c.errorf(e.Pos, "", "%s must be at least -2^40, got %s", what, fmtNum(v))
	default:
		return int(v), true, true
	}
	return 0, true, false
}

// seed evaluates a seed: a whole number in [0, 2^64). A literal is read
// exactly, so every uint64 seed can be written.
func (c *checker) seed(e *dsl.Expr) (uint64, bool) {
	if p, ok := e.AsPrimary(); ok && p.Number != nil {
		if u, err := strconv.ParseUint(p.Number.Text, 10, 64); err == nil {
			return u, true
		}
	}
	v, _, ok := c.number(e, numScope{})
	if !ok {
		return 0, false
	}
	if v != math.Trunc(v) || v < 0 || v >= 1<<64 {
		c.errorf(e.Pos, "", "seed must be a whole number from 0 to 2^64-1, got %s", fmtNum(v))
		return 0, false
	}
	return uint64(v), true
}

// fmtNum prints a number briefly.
func fmtNum(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// describeExpr names an expression's kind for messages.
func describeExpr(e *dsl.Expr) string {
	if p, ok := e.AsPrimary(); ok {
		switch {
		case p.Str != nil:
			return fmt.Sprintf("the string %q", p.Str.Value)
		case p.Number != nil:
			return "the number " + p.Number.Text
		case p.List != nil:
			return "a list"
		case p.Map != nil:
			return "a map"
		case p.Call != nil:
			return "the call " + p.Call.Func.Name + "(...)"
		case p.Name != nil:
			return p.Name.Name
		}
	}
	return e.String()
}

// callHint says what to write instead of a call where a number is
// expected, for the calls students bring from R and Python.
func callHint(name string) string {
	switch name {
	case "library", "require", "import", "source":
		return "copulang needs nothing imported or loaded: its statements are built in (help lists them)"
	case "c", "list", "seq":
		return "columns are listed in brackets, as in gss[income, degree], and lists as [a, b]"
	}
	return ""
}
