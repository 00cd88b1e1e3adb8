package compiler

// Bindings: looking names up, and saying what is wrong with a name.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// lookup finds a binding, earlier statements of the file first.
func (c *checker) lookup(name string) (b Binding, pending, fitted, found bool) {
	if l, ok := c.local[name]; ok {
		return l.b, l.pending, l.fitted, true
	}
	if c.env != nil {
		if b, ok := c.env.Lookup(name); ok && b != nil {
			m, isModel := b.(*ModelInfo)
			return b, false, isModel && m.Fitted, true
		}
	}
	return nil, false, false, false
}

// names returns the bound names of a kind ("" for all), sorted.
func (c *checker) names(kind string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		if b, _, _, ok := c.lookup(n); ok && (kind == "" || b.Kind() == kind) {
			out = append(out, n)
		}
	}
	if c.env != nil {
		for _, n := range c.env.Names() {
			add(n)
		}
	}
	for n := range c.local {
		add(n)
	}
	sort.Strings(out)
	return out
}

// suggest is the hint for an unknown name: "did you mean NEAR?" for the
// candidate nearest to name, otherwise.
func suggest(name string, candidates []string, otherwise string) string {
	if h := literalHint(name); h != "" && !slices.Contains(candidates, name) {
		return h
	}
	if near := dsl.Nearest(name, candidates); near != "" {
		if !dsl.IsName(near) {
			// A column named "3" or "Income level" is written as a string.
			near = strconv.Quote(near)
		}
		return "did you mean " + near + "?"
	}
	return otherwise
}

// unknownName reports an unknown name with the nearest bound name of the
// wanted kind as a hint.
func (c *checker) unknownName(id *dsl.Ident, kind string) {
	what := "name"
	if kind != "" {
		what = kind
	}
	for _, b := range c.bindings[id.Name] {
		if (kind == "" || b.kind == kind) && b.at.Offset > id.Pos.Offset {
			// fit m on line 1, model m { ... } on line 3.
			c.errorf(id.Pos, fmt.Sprintf("%s %s is bound at line %d, below its use here: statements run from the top, so move it above this line", b.kind, id.Name, b.at.Line),
				"unknown %s %s", what, id.Name)
			return
		}
	}
	names := c.names(kind)
	otherwise := ""
	switch {
	case len(names) > 0 && len(names) <= 8:
		otherwise = "defined: " + strings.Join(names, ", ")
	case kind == "data":
		otherwise = `bind one first: data ` + id.Name + ` = load("FILE.csv")`
	case kind == "model":
		otherwise = "declare one first: model " + id.Name + " { ... }"
	case id.Name == "exit" || id.Name == "quit":
		otherwise = id.Name + " alone in a cell ends jupyter console; a script ends at its last line"
	}
	c.errorf(id.Pos, suggest(id.Name, names, otherwise), "unknown %s %s", what, id.Name)
}

// dataBinding resolves a name that must be a data set.
func (c *checker) dataBinding(id *dsl.Ident) (*DataInfo, bool, bool) {
	b, pending, _, ok := c.lookup(id.Name)
	if !ok {
		c.unknownName(id, "data")
		return nil, false, false
	}
	d, isData := b.(*DataInfo)
	if !isData {
		c.errorf(id.Pos, "", "%s is a %s, not a data set", id.Name, kindName(b))
		return nil, false, false
	}
	return d, pending, true
}

// modelBinding resolves a name that must be a model; needFit also requires
// that it has been fitted.
func (c *checker) modelBinding(id *dsl.Ident, needFit bool, verb string) (*ModelInfo, bool, bool) {
	b, pending, fitted, ok := c.lookup(id.Name)
	if !ok {
		c.unknownName(id, "model")
		return nil, false, false
	}
	m, isModel := b.(*ModelInfo)
	if !isModel {
		c.errorf(id.Pos, "", "%s is a %s, not a model; %s needs a model", id.Name, kindName(b), verb)
		return nil, false, false
	}
	if needFit && !fitted {
		c.errorf(id.Pos, "run fit "+id.Name+" first", "model %s is not fitted yet; %s needs its draws", id.Name, verb)
		return nil, false, false
	}
	return m, pending, true
}

// kindName names a binding's kind in a sentence.
func kindName(b Binding) string {
	if b.Kind() == "data" {
		return "data set"
	}
	return b.Kind()
}

// numberNamedHint is the hint for a column position out of range when a
// column is named by that number, as a survey's years are ("2019"): a
// number in an index is a position, and the name is written as a string.
func numberNamedHint(n int, columns []string) string {
	name := strconv.Itoa(n)
	if slices.Contains(columns, name) {
		return fmt.Sprintf("a number in brackets is a column's position; the column named %s is written as a string: [\"%s\"]", name, name)
	}
	return ""
}

// ambiguousPosition reports (with an error at at) a position n among
// columns (those of owner) when another column is named by that number: in
// a file whose columns are "3", "1" and "2" (item numbers, years), [1] is
// column "3" by position while its reader may well mean the column named 1.
// Written as a string the name says which; where the column named n is
// column n, both readings agree and nothing is said.
func (c *checker) ambiguousPosition(at dsl.Position, n int, columns []string, owner string) bool {
	name := strconv.Itoa(n)
	j := indexOf(columns, name)
	if j < 0 || j == n-1 || n < 1 || n > len(columns) {
		return false
	}
	c.errorf(at, fmt.Sprintf("write %q for the column named %s, or %s for column %d: a number is a position, and a name is written as a string", name, name, indexList(columns[n-1:n]), n),
		"index %d is ambiguous: column %d of %s is %s, and column %d is named %q", n, n, owner, indexList(columns[n-1:n]), j+1, name)
	return true
}
