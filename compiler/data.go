package compiler

// The data statements: data NAME = load(...) and data NAME = simulate(...).

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// data checks data NAME = load(...) and data NAME = simulate(...).
func (c *checker) data(s *dsl.DataStmt) Stmt {
	if !c.bindable(s.Name, "data set") {
		return nil
	}
	if pf, isPostfix := s.Value.AsPostfix(); isPostfix && pf.Primary.Name != nil && (len(pf.Suffixes) == 0 || len(pf.Suffixes) == 1 && pf.Suffixes[0].Index != nil) {
		// data older = gss[income, degree] where age >= 50
		var index *dsl.Index
		if len(pf.Suffixes) == 1 {
			index = pf.Suffixes[0].Index
		}
		return c.derive(s, pf.Primary.Name, index)
	}
	fn, args, ok := callOf(s.Value, false)
	if ok && s.Where != nil && slices.Contains(dataSources(), fn.Name) {
		c.errorf(s.Where.Pos, fmt.Sprintf("bind the data first, then derive the rows: data %s_all = %s(...), then data %s = %s_all where %s", s.Name.Name, fn.Name, s.Name.Name, s.Name.Name, s.Where),
			"where keeps some rows of a data set bound by name, not of %s(...)", fn.Name)
		ok = false
		c.local[s.Name.Name] = &local{b: &DataInfo{Name: s.Name.Name}, pending: true}
		return nil
	}
	if !ok || !slices.Contains(dataSources(), fn.Name) {
		hint := `as in data gss = load("gss.csv"), data sim = simulate(FullCopula(p = 4), n = 500, levels = 3), or data older = gss[income, degree] where age >= 50`
		if ok {
			c.errorf(fn.Pos, suggest(fn.Name, dataSources(), hint), "data comes from load(...), simulate(...) or another data set, not %s(...)", fn.Name)
		} else {
			c.errorf(s.Value.Pos, hint, "data comes from load(...), simulate(...) or another data set, not %s", describeExpr(s.Value))
		}
		return nil
	}
	if fn.Name == "load" {
		return c.load(s, fn, args)
	}
	return c.simulate(s, fn, args)
}

// bindable reports (with an error) a name that a data set or model cannot
// take: pi, which every expression reads as the number π, so that the
// binding could never be shown or printed; and the words of the grammar
// (the statement keywords, with, to and vs), since a line that starts with
// a keyword is that statement (data alone, or print data in a message,
// reads as something else than the data set) and fit with with hmc or
// export to to "x.csv" read as nonsense.
func (c *checker) bindable(id *dsl.Ident, what string) bool {
	if id.Name == "pi" {
		c.errorf(id.Pos, "choose another name", "pi is the number π: a %s named pi would be read as it", what)
		return false
	}
	if kind, isWord := grammarWord(id.Name); isWord {
		c.errorf(id.Pos, fmt.Sprintf("choose another name, as in %s", bindExample(what)),
			"%s is %s: it cannot name a %s", id.Name, kind, what)
		// Bind it, of unknown shape, as a statement that fails does, so
		// that its uses are not reported as unknown names too.
		var b Binding = &DataInfo{Name: id.Name}
		if what == "model" {
			b = &ModelInfo{Name: id.Name}
		}
		c.local[id.Name] = &local{b: b, pending: true}
		return false
	}
	return true
}

// grammarWord says what name is when it is a word of the grammar (a
// statement keyword, with, to or vs), for a message: "a statement keyword"
// or "a word of the language (fit m with hmc)".
func grammarWord(name string) (kind string, isWord bool) {
	if !slices.Contains(dsl.GrammarWords(), name) {
		return "", false
	}
	if slices.Contains(dsl.StatementKeywords(), name) {
		return "a statement keyword", true
	}
	kind = "a word of the language"
	if ex, ok := connectiveExamples[name]; ok {
		kind += " (" + ex + ")"
	}
	return kind, true
}

// connectiveExamples show the grammar's words that are not statement
// keywords where a statement uses them.
var connectiveExamples = map[string]string{
	"with":  "fit m with hmc",
	"to":    `export m to "draws.csv"`,
	"vs":    "plot rmse m vs sim",
	"where": "data older = gss where age >= 50",
	"and":   "data d = gss where age >= 50 and degree != 0",
	"or":    "data d = gss where degree == 0 or degree == 4",
	"not":   "data d = gss where not (age < 30)",
	"in":    "data d = gss where degree in [1, 2]",
	"given": "predict m[degree] given income = 5",
}

// bindExample is a statement that binds a name of the kind what ("data
// set" or "model"), for a hint.
func bindExample(what string) string {
	if what == "model" {
		return "model m { ... }"
	}
	return `data d = load("FILE.csv")`
}

// load checks load("PATH", sep = ",", na = [...], order = {...}). When the
// env can read files, the file is read now, so that its problems and the
// columns later statements use are checked before anything runs.
func (c *checker) load(s *dsl.DataStmt, fn *dsl.Ident, args []*dsl.Arg) Stmt {
	bound, ok := c.bindArgs(fn, args, parameters("load"), `load("gss.csv", order = {sex: ["m", "f"]})`)
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
			c.loads[c.resolve(x.Path)] = loaded{data: x.Name, at: a.Value.Pos}
		}
	}
	if a := bound["sep"]; a != nil {
		sep, good := c.separator(a.Value)
		ok = ok && good
		x.Sep = sep
	}
	if a := bound["na"]; a != nil {
		na, good := c.naMarkers(a.Value)
		ok = ok && good
		x.NA = na
	}
	if a := bound["order"]; a != nil {
		good := c.order(a.Value, x)
		ok = ok && good
	}
	if a := bound["drop"]; a != nil {
		good := c.dropColumns(a.Value, x)
		ok = ok && good
	}
	info := &DataInfo{Name: x.Name}
	pending := true
	if files, canRead := c.env.(Files); ok && canRead && !c.writes[x.Path] {
		read, err := files.ReadData(x)
		if err != nil {
			// The columns that cannot be read come joined: one error each.
			errs := []error{err}
			if joined, isJoin := err.(interface{ Unwrap() []error }); isJoin {
				errs = joined.Unwrap()
			}
			for _, err := range errs {
				c.errs = append(c.errs, &dsl.Error{Pos: bound["path"].Value.Pos, Msg: x.Path + ": " + err.Error(), Kind: "DataError"})
			}
			ok = false
		} else {
			read.Name = x.Name
			info, pending = read, false
		}
	}
	// Bind the name even after an error, so that later statements that
	// use it are not reported as well.
	c.local[x.Name] = &local{b: info, pending: pending}
	if !ok {
		return nil
	}
	c.local[x.Name].made = x
	return x
}

// separator checks sep = ";": one character that can separate fields.
func (c *checker) separator(e *dsl.Expr) (rune, bool) {
	const hint = `as in sep = ";" or sep = "\t"`
	p, ok := e.AsPrimary()
	if !ok || p.Str == nil {
		c.errorf(e.Pos, hint, "sep must be a string of one character, got %s", describeExpr(e))
		return 0, false
	}
	r := []rune(p.Str.Value)
	if len(r) != 1 || r[0] == '"' || r[0] == '\r' || r[0] == '\n' || r[0] == 0xFFFD {
		c.errorf(e.Pos, hint, "sep must be one character other than a quote or a line break, got %q", p.Str.Value)
		return 0, false
	}
	return r[0], true
}

// naMarkers checks na = ["-99", "."]: the texts of missing cells.
func (c *checker) naMarkers(e *dsl.Expr) ([]string, bool) {
	items, isList := oneOrList(e)
	var out []string
	ok := true
	for _, item := range items {
		p, isPrim := item.AsPrimary()
		if !isPrim || p.Str == nil {
			hint := `as in na = ["-99", "."]`
			if !isList {
				hint = `give a list of strings, as in na = ["-99", "."]`
			} else if _, _, num := c.quietNumber(item); num {
				hint = fmt.Sprintf("write it as a string, na = [%q]: cells are compared as text", item.String())
			}
			if id, isName := item.AsName(); isName && isNone(id.Name) {
				hint = "leave na out: empty cells, NA and NaN are always missing, and na lists other texts that are"
			}
			c.errorf(item.Pos, hint, "na lists the texts of missing cells as strings, got %s", describeExpr(item))
			ok = false
			continue
		}
		if strings.TrimSpace(p.Str.Value) == "" {
			c.errorf(item.Pos, "", "empty cells are always missing; na lists other texts")
			ok = false
			continue
		}
		out = append(out, strings.TrimSpace(p.Str.Value))
	}
	return out, ok
}

// quietNumber reports whether e is a number, without reporting errors.
func (c *checker) quietNumber(e *dsl.Expr) (float64, bool, bool) {
	saved := len(c.errs)
	v, known, ok := c.number(e, numScope{})
	c.errs = c.errs[:saved]
	return v, known, ok
}

// order checks order = {col: ["a", "b"], [c1, c2]: [...], *: [...]} into
// x.Order and x.OrderAll.
func (c *checker) order(e *dsl.Expr, x *LoadData) bool {
	p, ok := e.AsPrimary()
	if !ok || p.Map == nil {
		c.errorf(e.Pos, `as in order = {sex: ["m", "f"]}`, "order must be a map from column names to lists of labels, got %s", describeExpr(e))
		return false
	}
	out := map[string][]string{}
	good := true
	for _, ent := range p.Map.Entries {
		keys := []string{ent.Key}
		what := ent.Key
		switch {
		case ent.All:
			keys, what = nil, "*"
			if x.OrderAll != nil {
				c.errorf(ent.Pos, "", "order: * given twice")
				good = false
				continue
			}
		case ent.Keys != nil:
			keys, what = ent.Keys, "["+strings.Join(ent.Keys, ", ")+"]"
		}
		dup := false
		for _, k := range keys {
			if _, seen := out[k]; seen {
				c.errorf(ent.Pos, "", "order: column %s given twice", k)
				dup = true
			}
		}
		if dup {
			good = false
			continue
		}
		labels, ok := c.labels(ent.Value, what)
		if !ok {
			good = false
			continue
		}
		for _, k := range keys {
			out[k] = labels
		}
		if ent.All {
			x.OrderAll = labels
		}
	}
	x.Order = out
	return good
}

// dropColumns checks drop = [id, "free text"]: the names of columns to
// leave out, each once, and none of them given an order.
func (c *checker) dropColumns(e *dsl.Expr, x *LoadData) bool {
	items, isList := oneOrList(e)
	good := true
	for _, item := range items {
		p, _ := item.AsPrimary()
		var name string
		switch {
		case p != nil && p.Name != nil && isNone(p.Name.Name) && !isList:
			c.errorf(item.Pos, "leave drop out to keep every column", "drop lists the names of columns, got %s", p.Name.Name)
			good = false
			continue
		case p != nil && p.Name != nil:
			name = p.Name.Name
		case p != nil && p.Str != nil && strings.TrimSpace(p.Str.Value) != "":
			name = strings.TrimSpace(p.Str.Value)
		default:
			hint := `as in drop = [id, "free text"]`
			if !isList {
				hint = `give a list of column names, as in drop = [id, "free text"]`
			}
			c.errorf(item.Pos, hint, "drop lists the names of columns, got %s", describeExpr(item))
			good = false
			continue
		}
		if slices.Contains(x.Drop, name) {
			c.errorf(item.Pos, "", "drop: column %s listed twice", name)
			good = false
			continue
		}
		if _, ordered := x.Order[name]; ordered {
			c.errorf(item.Pos, "leave it out of one of them", "column %s is both given an order and dropped", name)
			good = false
			continue
		}
		x.Drop = append(x.Drop, name)
	}
	return good
}

// labels checks the list of labels of one order entry, lowest first.
func (c *checker) labels(e *dsl.Expr, what string) ([]string, bool) {
	lp, isList := e.AsPrimary()
	if !isList || lp.List == nil {
		c.errorf(e.Pos, `as in sex: ["m", "f"]`, "order of %s must be a list of labels, lowest first", what)
		return nil, false
	}
	var labels []string
	good, dupLabel := true, false
	for _, item := range lp.List.Items {
		ip, _ := item.AsPrimary()
		var label string
		switch {
		case ip != nil && ip.Str != nil:
			// Cells are read trimmed, so a label is too: "no " would match
			// no cell, and the error's "did you mean" would look like it.
			label = strings.TrimSpace(ip.Str.Value)
			if label == "" {
				c.errorf(item.Pos, "empty cells are always missing; na lists other texts of missing cells", "order of %s: a label cannot be empty", what)
				good = false
				continue
			}
		case ip != nil && ip.Number != nil:
			label = ip.Number.Text
		case ip != nil && ip.Name != nil:
			label = ip.Name.Name
		default:
			c.errorf(item.Pos, "", "a label must be a string, got %s", describeExpr(item))
			good = false
			continue
		}
		if slices.Contains(labels, label) {
			c.errorf(item.Pos, "", "order of %s: label %q listed twice", what, label)
			good, dupLabel = false, true
			continue
		}
		labels = append(labels, label)
	}
	if len(labels) < 2 && !dupLabel && good {
		c.errorf(e.Pos, "", "order of %s needs at least 2 labels", what)
		good = false
	}
	return labels, good
}

// simulate checks simulate(SPEC, n = N, levels = L, seed = S, missing = M).
func (c *checker) simulate(s *dsl.DataStmt, fn *dsl.Ident, args []*dsl.Arg) Stmt {
	const example = "simulate(FactorCopula(p = 20, k = 5), n = 1000, levels = 5, seed = 7)"
	bound, ok := c.bindArgs(fn, args, parameters("simulate"), example)
	x := &SimulateData{At: s.Pos, Name: s.Name.Name, Seed: DefaultSeed}
	if a := bound["spec"]; a != nil {
		ok = c.simSpec(a.Value, x) && ok
	}
	if a := bound["n"]; a != nil {
		v, _, good := c.integerAtLeast(a.Value, numScope{}, "n", minimum{value: 2})
		ok = ok && good
		x.N = v
	}
	if a := bound["levels"]; a != nil && isListExpr(a.Value) {
		// levels = [2, 3, 5]: levels per column, or labels.
		c.errorf(a.Value.Pos, `simulate cuts every column into the same number of levels, as in levels = 5; the labels of a loaded text column and their order are load's order = {COLUMN: ["low", "mid", "high"]}`,
			"levels is one number, the levels of every simulated column, got a list")
		ok = false
	} else if a != nil {
		v, _, good := c.integerAtLeast(a.Value, numScope{}, "levels", minimum{value: 2, hint: "levels = 2 gives binary data"})
		if good && x.N >= 2 && v > x.N {
			c.errorf(a.Value.Pos, "", "levels = %d exceeds the n = %d rows", v, x.N)
			good = false
		}
		ok = ok && good
		x.Levels = v
	}
	if a := bound["n"]; a != nil && ok && float64(x.N)*float64(x.P) > inference.MaxSimulatedCells {
		most := inference.MaxSimulatedCells / x.P
		c.errorf(a.Value.Pos, fmt.Sprintf("with p = %d, n = %d rows or fewer", x.P, most),
			"n = %d rows × p = %d columns is %.3g cells; simulate makes at most %d (about 1.6 GB while it works)", x.N, x.P, float64(x.N)*float64(x.P), inference.MaxSimulatedCells)
		ok = false
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
		// As load does: bind the name, of unknown shape, so that the
		// statements that use it are not reported as unknown names too.
		c.local[x.Name] = &local{b: &DataInfo{Name: x.Name, HasTruth: true}, pending: true}
		return nil
	}
	info := &DataInfo{Name: x.Name, N: x.N, HasTruth: true, TruthK: x.K}
	// simulate cuts each column into balanced levels of ⌊n/L⌋ or ⌈n/L⌉
	// rows: past L = n/2, 2L − n of them hold one row. Missing cells
	// change that at random, so only a simulation without them says how
	// many before it runs (compare's check needs it: enoughToHoldOut).
	singletons := 0
	if x.Missing == 0 && 2*x.Levels > x.N {
		singletons = min(2*x.Levels-x.N, x.N)
	}
	// A binary column's rarer level holds about half the rows.
	rarer := 0
	if x.Levels == 2 {
		rarer = int(math.Round((1 - x.Missing) * float64(x.N/2)))
	}
	for j := 1; j <= x.P; j++ {
		info.Columns = append(info.Columns, ColumnInfo{
			Name: fmt.Sprintf("Y%d", j), Levels: x.Levels, Missing: int(math.Round(x.Missing * float64(x.N))),
			Singletons: singletons, Rarer: rarer,
		})
	}
	c.local[x.Name] = &local{b: info, made: x}
	return x
}

// simSpec checks FactorCopula(p =, k =) or FullCopula(p =).
func (c *checker) simSpec(e *dsl.Expr, x *SimulateData) bool {
	specs := simulationSpecs()
	fn, args, ok := callOf(e, false)
	if !ok || !slices.Contains(specs, fn.Name) {
		hint := "as in FactorCopula(p = 20, k = 5) or FullCopula(p = 4)"
		at := e.Pos
		if ok {
			at = fn.Pos
			hint = suggest(fn.Name, specs, hint)
		}
		c.errorf(at, hint, "simulate needs a copula to draw from: FactorCopula(p, k) or FullCopula(p), got %s", describeExpr(e))
		return false
	}
	example := "FullCopula(p = 4)"
	if fn.Name == "FactorCopula" {
		example = "FactorCopula(p = 20, k = 5)"
	}
	bound, good := c.bindArgs(fn, args, parameters(fn.Name), example)
	if a := bound["p"]; a != nil {
		v, _, o := c.integerAtLeast(a.Value, numScope{}, "p", minimum{value: 2, unit: " columns"})
		if o && v > inference.MaxSimulatedColumns {
			c.errorf(a.Value.Pos, "", "p = %d columns is more than simulate makes (at most %d)", v, inference.MaxSimulatedColumns)
			o = false
		}
		good = good && o
		x.P = v
	}
	if a := bound["k"]; a != nil {
		v, _, o := c.integerAtLeast(a.Value, numScope{}, "k", minimum{value: 1, hint: "use FullCopula(p = ...) for an unstructured correlation"})
		if o && x.P >= 2 && v >= x.P {
			c.errorf(a.Value.Pos, "", "k = %d factors must be fewer than p = %d columns", v, x.P)
			o = false
		}
		good = good && o
		x.K = v
	}
	return good
}

// isListExpr reports whether e is a list, [a, b].
func isListExpr(e *dsl.Expr) bool {
	p, isPrim := e.AsPrimary()
	return isPrim && p.List != nil
}
