package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// What the checks of calls and words share: matching arguments to
// parameters, checking a word against its list, and evaluating the
// arguments that must be positive numbers.

// param describes an argument of a call.
type param struct {
	name       string
	positional bool // may be given without its name, in this order
	required   bool
}

// bindArgs matches a call's arguments to its parameters, reporting unknown,
// repeated, surplus and missing arguments. example shows a correct call.
//
// A call with unknown or surplus arguments reports those, not the
// parameters left missing as well: FactorModel(nfactors = 2) lacks k only
// because nfactors stands for it, and FactorCopula(8, 2), as R and Python
// allow, lacks p and k only because its values have no names. The hint
// says which parameter is missing, or writes the call with the names.
func (c *checker) bindArgs(fn *dsl.Ident, args []*dsl.Arg, params []param, example string) (map[string]*dsl.Arg, bool) {
	out := map[string]*dsl.Arg{}
	ok := true
	var names, positional []string
	for _, p := range params {
		names = append(names, p.name)
		if p.positional {
			positional = append(positional, p.name)
		}
	}
	var unknown, surplus []*dsl.Arg
	next := 0
	for _, a := range args {
		if !c.noFormula(a) {
			ok = false
			continue
		}
		var name string
		at := a.Pos
		if a.Name == nil {
			if next >= len(positional) {
				surplus = append(surplus, a)
				ok = false
				continue
			}
			name = positional[next]
			next++
		} else {
			name = a.Name.Name
			at = a.Name.Pos
			if !slices.Contains(names, name) {
				unknown = append(unknown, a)
				ok = false
				continue
			}
		}
		if _, dup := out[name]; dup {
			c.errorf(at, "", "%s: argument %s given twice", fn.Name, name)
			ok = false
			continue
		}
		out[name] = a
	}
	var missing []string
	for _, p := range params {
		if _, given := out[p.name]; p.required && !given {
			missing = append(missing, p.name)
		}
	}
	for _, a := range unknown {
		name := a.Name.Name
		otherwise := ""
		switch {
		case len(missing) == 1 && len(unknown) == 1:
			otherwise = fmt.Sprintf("%s needs %s, as in %s", fn.Name, missing[0], example)
		case len(names) > 0:
			otherwise = fmt.Sprintf("%s takes %s", fn.Name, strings.Join(names, ", "))
		}
		c.errorf(a.Name.Pos, suggestWord(name, names, otherwise), "%s has no argument %s", fn.Name, name)
	}
	if len(surplus) > 0 {
		msg := fmt.Sprintf("%s takes only named arguments", fn.Name)
		if len(positional) > 0 {
			msg = fmt.Sprintf("%s takes %s; name the others", fn.Name, plural(len(positional), "1 positional argument", fmt.Sprintf("%d positional arguments", len(positional))))
		}
		c.errorf(surplus[0].Pos, namedCall(fn, args, out, surplus, params, example), "%s", msg)
	}
	if len(unknown) == 0 && len(surplus) == 0 {
		for _, name := range missing {
			c.errorf(fn.Pos, "as in "+example, "%s needs %s", fn.Name, name)
			ok = false
		}
	}
	return out, ok
}

// namedCall is the hint for a call with more positional arguments than it
// takes: the call written with the surplus values named by the parameters
// not given, in order (required ones first), as in FactorCopula(p = 8,
// k = 2) for FactorCopula(8, 2); or example when they do not match up.
func namedCall(fn *dsl.Ident, args []*dsl.Arg, bound map[string]*dsl.Arg, surplus []*dsl.Arg, params []param, example string) string {
	var free []string
	for _, required := range []bool{true, false} {
		for _, p := range params {
			if _, given := bound[p.name]; !given && p.required == required {
				free = append(free, p.name)
			}
		}
	}
	if len(surplus) > len(free) {
		return "as in " + example
	}
	name := map[*dsl.Arg]string{}
	for i, a := range surplus {
		name[a] = free[i]
	}
	var parts []string
	for _, a := range args {
		text := strings.TrimSpace(a.Value.String())
		switch {
		case a.Name != nil:
			text = a.Name.Name + " = " + text
		case name[a] != "":
			text = name[a] + " = " + text
		}
		parts = append(parts, text)
	}
	return "write " + fn.Name + "(" + strings.Join(parts, ", ") + ")"
}

// setting checks a setting NAME = VALUE of statement stmt: NAME must be
// one of settings (otherwise is the hint when it is not and no name is
// near; "" lists the settings) and not given before; seen records it.
func (c *checker) setting(stmt string, a *dsl.NamedArg, settings []string, seen map[string]bool, otherwise string) bool {
	name := a.Name.Name
	if !slices.Contains(settings, name) {
		if otherwise == "" {
			otherwise = stmt + " settings: " + strings.Join(settings, ", ")
		}
		c.errorf(a.Name.Pos, suggestWord(name, settings, otherwise), "%s has no setting %s", stmt, name)
		return false
	}
	if seen[name] {
		c.errorf(a.Name.Pos, "", "%s: %s given twice", stmt, name)
		return false
	}
	seen[name] = true
	return true
}

// callOf returns the call an expression is, accepting a bare name as a
// call without arguments when bare is true.
func callOf(e *dsl.Expr, bare bool) (*dsl.Ident, []*dsl.Arg, bool) {
	if call, ok := e.AsCall(); ok {
		return call.Func, call.Args, true
	}
	if id, ok := e.AsName(); ok && bare {
		return id, nil, true
	}
	return nil, nil, false
}

// oneOf checks that id is one of words; otherwise it reports "unknown WHAT
// NAME" with the nearest word as a hint, or the list of them all.
func (c *checker) oneOf(id *dsl.Ident, what string, words []string) bool {
	if slices.Contains(words, id.Name) {
		return true
	}
	c.errorf(id.Pos, suggestWord(id.Name, words, what+"s: "+strings.Join(words, ", ")), "unknown %s %s", what, id.Name)
	return false
}

// positiveArg evaluates an optional argument that must be a positive
// number, reporting "NAME must be positive" with hint otherwise. It returns
// def when the argument is absent or its value depends on p or n of data
// whose shape is not known yet.
func (c *checker) positiveArg(a *dsl.Arg, name string, sc numScope, def float64, hint string) (float64, bool) {
	if a == nil {
		return def, true
	}
	v, known, ok := c.number(a.Value, sc)
	if !ok || !known {
		return def, ok
	}
	if v <= 0 {
		c.errorf(a.Value.Pos, hint, "%s must be positive, got %s", name, fmtNum(v))
		return def, false
	}
	return v, true
}
