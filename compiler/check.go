package compiler

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// Defaults of fit (sbgcop-like).
const (
	DefaultIter   = 1000
	DefaultChains = 4
	DefaultSeed   = 1
	DefaultThin   = 1
	// DefaultTravelTime is the exact-HMC travel time T = π/2 of K&S and hmc-tmg.
	DefaultTravelTime = math.Pi / 2
)

// DefaultWarmup is the warm-up length when only iter is given: iter/2.
func DefaultWarmup(iter int) int { return iter / 2 }

// maxErrors bounds the errors reported for one file.
const maxErrors = 20

// Check checks a parsed file against the session's bindings (env may be
// nil) and the bindings its own earlier statements make, and returns the
// checked program. On failure the error is a dsl.ErrorList of every problem
// found (up to 20), with positions and hints, and the program is nil.
func Check(file *dsl.File, env Env) (*Program, error) {
	c := &checker{env: env, local: map[string]*local{}}
	prog := &Program{}
	for _, s := range file.Stmts {
		if ir := c.stmt(s); ir != nil {
			prog.Stmts = append(prog.Stmts, ir)
		}
	}
	if len(c.errs) > 0 {
		c.errs.Sort()
		if len(c.errs) > maxErrors {
			c.errs = c.errs[:maxErrors]
		}
		return nil, c.errs
	}
	return prog, nil
}

// checker holds the state of one Check.
type checker struct {
	env   Env
	errs  dsl.ErrorList
	local map[string]*local
}

// local is a binding made by an earlier statement of the file being checked.
type local struct {
	b Binding
	// pending is true when the shape is unknown: data loaded in this file,
	// or a model declared on such data.
	pending bool
	fitted  bool
}

func (c *checker) errorf(pos dsl.Position, hint, format string, args ...any) {
	c.errs = append(c.errs, &dsl.Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

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

// unknownName reports an unknown name with the nearest bound name of the
// wanted kind as a hint.
func (c *checker) unknownName(id *dsl.Ident, kind string) {
	what := "name"
	if kind != "" {
		what = kind
	}
	hint := ""
	if near := dsl.Nearest(id.Name, c.names(kind)); near != "" {
		hint = "did you mean " + near + "?"
	} else if names := c.names(kind); len(names) > 0 && len(names) <= 8 {
		hint = "defined: " + strings.Join(names, ", ")
	} else if kind == "data" {
		hint = `bind one first: data ` + id.Name + ` = load("FILE.csv")`
	} else if kind == "model" {
		hint = "declare one first: model " + id.Name + " { ... }"
	}
	c.errorf(id.Pos, hint, "unknown %s %s", what, id.Name)
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

func (c *checker) stmt(s dsl.Stmt) Stmt {
	switch s := s.(type) {
	case *dsl.DataStmt:
		return c.data(s)
	case *dsl.ModelStmt:
		return c.model(s)
	case *dsl.ExplainStmt:
		if _, _, ok := c.modelBinding(s.Model, false, "explain"); ok {
			return &Explain{At: s.Pos, Model: s.Model.Name}
		}
	case *dsl.FitStmt:
		return c.fit(s)
	case *dsl.SummaryStmt:
		return c.summary(s)
	case *dsl.PlotStmt:
		return c.plot(s)
	case *dsl.ImputeStmt:
		if _, _, ok := c.modelBinding(s.Model, true, "impute"); ok {
			return &Impute{At: s.Pos, Model: s.Model.Name}
		}
	case *dsl.ExportStmt:
		_, _, ok := c.modelBinding(s.Model, true, "export")
		if strings.TrimSpace(s.Path.Value) == "" {
			c.errorf(s.Path.Pos, `as in export m to "draws.csv"`, "export needs a file name")
			ok = false
		}
		if ok {
			return &Export{At: s.Pos, Model: s.Model.Name, Path: s.Path.Value}
		}
	case *dsl.ShowStmt:
		return c.show(s)
	default:
		start, _ := s.Span()
		c.errorf(start, "", "statement %T is not supported yet", s)
	}
	return nil
}

// param describes an argument of a call.
type param struct {
	name       string
	positional bool // may be given without its name, in this order
	required   bool
}

// bindArgs matches a call's arguments to its parameters, reporting unknown,
// repeated, surplus and missing arguments. example shows a correct call.
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
	next := 0
	for _, a := range args {
		var name string
		at := a.Pos
		if a.Name == nil {
			if next >= len(positional) {
				hint := "as in " + example
				if len(positional) == 0 {
					c.errorf(at, hint, "%s takes only named arguments", fn.Name)
				} else {
					c.errorf(at, hint, "%s takes %d positional argument(s); name the others", fn.Name, len(positional))
				}
				ok = false
				continue
			}
			name = positional[next]
			next++
		} else {
			name = a.Name.Name
			at = a.Name.Pos
			if !contains(names, name) {
				hint := ""
				if near := dsl.Nearest(name, names); near != "" {
					hint = "did you mean " + near + "?"
				} else if len(names) > 0 {
					hint = fmt.Sprintf("%s takes %s", fn.Name, strings.Join(names, ", "))
				}
				c.errorf(at, hint, "%s has no argument %s", fn.Name, name)
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
	for _, p := range params {
		if _, given := out[p.name]; p.required && !given {
			c.errorf(fn.Pos, "as in "+example, "%s needs %s", fn.Name, p.name)
			ok = false
		}
	}
	return out, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// ---- data ----

func (c *checker) data(s *dsl.DataStmt) Stmt {
	fn, args, ok := callOf(s.Value, false)
	if !ok || (fn.Name != "load" && fn.Name != "simulate") {
		hint := `as in data gss = load("gss.csv") or data sim = simulate(FullCopula(p = 4), n = 500, levels = 3)`
		if ok {
			if near := dsl.Nearest(fn.Name, []string{"load", "simulate"}); near != "" {
				hint = "did you mean " + near + "?"
			}
			c.errorf(fn.Pos, hint, "data comes from load(...) or simulate(...), not %s(...)", fn.Name)
		} else {
			c.errorf(s.Value.Pos, hint, "data comes from load(...) or simulate(...), not %s", describeExpr(s.Value))
		}
		return nil
	}
	if fn.Name == "load" {
		return c.load(s, fn, args)
	}
	return c.simulate(s, fn, args)
}

func (c *checker) load(s *dsl.DataStmt, fn *dsl.Ident, args []*dsl.Arg) Stmt {
	bound, ok := c.bindArgs(fn, args, []param{{"path", true, true}, {"order", false, false}},
		`load("gss.csv", order = {sex: ["m", "f"]})`)
	x := &LoadData{At: s.Pos, Name: s.Name.Name}
	if a := bound["path"]; a != nil {
		p, isPrim := a.Value.AsPrimary()
		switch {
		case !isPrim || p.Str == nil:
			c.errorf(a.Value.Pos, `as in load("gss.csv")`, "load needs the file name as a string, got %s", describeExpr(a.Value))
			ok = false
		case strings.TrimSpace(p.Str.Value) == "":
			c.errorf(a.Value.Pos, "", "load needs a file name")
			ok = false
		default:
			x.Path = p.Str.Value
		}
	}
	if a := bound["order"]; a != nil {
		order, good := c.order(a.Value)
		ok = ok && good
		x.Order = order
	}
	if !ok {
		return nil
	}
	c.local[x.Name] = &local{b: &DataInfo{Name: x.Name}, pending: true}
	return x
}

// order checks order = {col: ["a", "b"], ...}.
func (c *checker) order(e *dsl.Expr) (map[string][]string, bool) {
	p, ok := e.AsPrimary()
	if !ok || p.Map == nil {
		c.errorf(e.Pos, `as in order = {sex: ["m", "f"]}`, "order must be a map from column names to lists of labels, got %s", describeExpr(e))
		return nil, false
	}
	out := map[string][]string{}
	good := true
	for _, ent := range p.Map.Entries {
		dupLabel := false
		if _, dup := out[ent.Key]; dup {
			c.errorf(ent.Pos, "", "order: column %s given twice", ent.Key)
			good = false
			continue
		}
		lp, isList := ent.Value.AsPrimary()
		if !isList || lp.List == nil {
			c.errorf(ent.Value.Pos, `as in sex: ["m", "f"]`, "order of %s must be a list of labels, lowest first", ent.Key)
			good = false
			continue
		}
		var labels []string
		for _, item := range lp.List.Items {
			ip, _ := item.AsPrimary()
			var label string
			switch {
			case ip != nil && ip.Str != nil:
				label = ip.Str.Value
			case ip != nil && ip.Number != nil:
				label = ip.Number.Text
			case ip != nil && ip.Name != nil:
				label = ip.Name.Name
			default:
				c.errorf(item.Pos, "", "a label must be a string, got %s", describeExpr(item))
				good = false
				continue
			}
			if contains(labels, label) {
				c.errorf(item.Pos, "", "order of %s: label %q listed twice", ent.Key, label)
				good = false
				dupLabel = true
				continue
			}
			labels = append(labels, label)
		}
		if len(labels) < 2 && !dupLabel {
			c.errorf(ent.Value.Pos, "", "order of %s needs at least 2 labels", ent.Key)
			good = false
		}
		out[ent.Key] = labels
	}
	return out, good
}

func (c *checker) simulate(s *dsl.DataStmt, fn *dsl.Ident, args []*dsl.Arg) Stmt {
	const example = "simulate(FactorCopula(p = 20, k = 5), n = 1000, levels = 5, seed = 7)"
	bound, ok := c.bindArgs(fn, args, []param{
		{"spec", true, true}, {"n", false, true}, {"levels", false, true}, {"seed", false, false}, {"missing", false, false},
	}, example)
	x := &SimulateData{At: s.Pos, Name: s.Name.Name, Seed: DefaultSeed}
	if a := bound["spec"]; a != nil {
		ok = c.simSpec(a.Value, x) && ok
	}
	if a := bound["n"]; a != nil {
		v, _, good := c.integer(a.Value, numScope{}, "n")
		if good && v < 2 {
			c.errorf(a.Value.Pos, "", "n must be at least 2, got %d", v)
			good = false
		}
		ok = ok && good
		x.N = v
	}
	if a := bound["levels"]; a != nil {
		v, _, good := c.integer(a.Value, numScope{}, "levels")
		if good && v < 2 {
			c.errorf(a.Value.Pos, "levels = 2 gives binary data", "levels must be at least 2, got %d", v)
			good = false
		}
		if good && x.N >= 2 && v > x.N {
			c.errorf(a.Value.Pos, "", "levels = %d exceeds the n = %d rows", v, x.N)
			good = false
		}
		ok = ok && good
		x.Levels = v
	}
	if a := bound["seed"]; a != nil {
		v, good := c.seed(a.Value)
		ok = ok && good
		x.Seed = v
	}
	if a := bound["missing"]; a != nil {
		v, _, good := c.number(a.Value, numScope{})
		if good && (v < 0 || v >= 1) {
			c.errorf(a.Value.Pos, "missing = 0.1 makes about 10% of the cells missing", "missing must be in [0, 1), got %s", fmtNum(v))
			good = false
		}
		ok = ok && good
		x.Missing = v
	}
	if !ok {
		return nil
	}
	info := &DataInfo{Name: x.Name, N: x.N, HasTruth: true, TruthK: x.K}
	for j := 1; j <= x.P; j++ {
		info.Columns = append(info.Columns, ColumnInfo{
			Name: fmt.Sprintf("Y%d", j), Levels: x.Levels, Missing: int(math.Round(x.Missing * float64(x.N))),
		})
	}
	c.local[x.Name] = &local{b: info}
	return x
}

// simSpec checks FactorCopula(p =, k =) or FullCopula(p =).
func (c *checker) simSpec(e *dsl.Expr, x *SimulateData) bool {
	specs := []string{"FactorCopula", "FullCopula"}
	fn, args, ok := callOf(e, false)
	if !ok || !contains(specs, fn.Name) {
		hint := "as in FactorCopula(p = 20, k = 5) or FullCopula(p = 4)"
		at := e.Pos
		if ok {
			at = fn.Pos
			if near := dsl.Nearest(fn.Name, specs); near != "" {
				hint = "did you mean " + near + "?"
			}
		}
		c.errorf(at, hint, "simulate needs a copula to draw from: FactorCopula(p, k) or FullCopula(p), got %s", describeExpr(e))
		return false
	}
	params := []param{{"p", false, true}}
	example := "FullCopula(p = 4)"
	if fn.Name == "FactorCopula" {
		params = append(params, param{"k", false, true})
		example = "FactorCopula(p = 20, k = 5)"
	}
	bound, good := c.bindArgs(fn, args, params, example)
	if a := bound["p"]; a != nil {
		v, _, o := c.integer(a.Value, numScope{}, "p")
		if o && v < 2 {
			c.errorf(a.Value.Pos, "", "p must be at least 2 columns, got %d", v)
			o = false
		}
		if o && v > 10000 {
			c.errorf(a.Value.Pos, "", "p = %d columns is more than this tool handles (at most 10000)", v)
			o = false
		}
		good = good && o
		x.P = v
	}
	if a := bound["k"]; a != nil {
		v, _, o := c.integer(a.Value, numScope{}, "k")
		if o && v < 1 {
			c.errorf(a.Value.Pos, "use FullCopula(p = ...) for an unstructured correlation", "k must be at least 1, got %d", v)
			o = false
		}
		if o && x.P >= 2 && v >= x.P {
			c.errorf(a.Value.Pos, "", "k = %d factors must be fewer than p = %d columns", v, x.P)
			o = false
		}
		good = good && o
		x.K = v
	}
	return good
}

// show checks show NAME and show [NAME, ...].
func (c *checker) show(s *dsl.ShowStmt) Stmt {
	exprs := []*dsl.Expr{s.Target}
	if p, ok := s.Target.AsPrimary(); ok && p.List != nil {
		exprs = p.List.Items
		if len(exprs) == 0 {
			c.errorf(s.Target.Pos, "as in show [m1, m2]", "show needs at least one name")
			return nil
		}
	}
	x := &Show{At: s.Pos}
	ok := true
	for _, e := range exprs {
		id, isName := e.AsName()
		if !isName {
			c.errorf(e.Pos, "as in show gss or show [m1, m2]", "show takes names of data sets or models, got %s", describeExpr(e))
			ok = false
			continue
		}
		if _, _, _, found := c.lookup(id.Name); !found {
			c.unknownName(id, "")
			ok = false
			continue
		}
		x.Names = append(x.Names, id.Name)
	}
	if !ok {
		return nil
	}
	x.Name = x.Names[0]
	return x
}

// kindName names a binding's kind in a sentence.
func kindName(b Binding) string {
	if b.Kind() == "data" {
		return "data set"
	}
	return b.Kind()
}
