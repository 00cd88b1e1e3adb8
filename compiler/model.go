package compiler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// model checks model NAME { Y = DATA; Z ~ GaussianCopula(C); Y ordinal Z; C ~ PRIOR }.
func (c *checker) model(s *dsl.ModelStmt) Stmt {
	if !c.bindable(s.Name, "model") {
		return nil
	}
	var (
		data   *dsl.Assign
		copula *dsl.Tilde
		link   *dsl.Relation
		prior  *dsl.Tilde
		ok     = true
	)
	// Names already reported as words of the grammar are not reported
	// again as not matching the other parts.
	badNames := c.roleNames(s.Items)
	ok = len(badNames) == 0
	for _, it := range s.Items {
		switch it := it.(type) {
		case *dsl.Assign:
			if fn, _, isCall := callOf(it.Value, false); isCall && slices.Contains(Distributions(), fn.Name) {
				c.errorf(it.Value.Pos, "write "+it.Name.Name+" ~ "+it.Value.String(), "%s is a distribution: use ~, not =", fn.Name)
				ok = false
				continue
			}
			if data != nil {
				c.errorf(it.Pos, "a model takes one data set; list its columns as in Y = gss[INC, DEG]", "the model's data is already given by %s = %s", data.Name.Name, data.Value)
				ok = false
				continue
			}
			data = it
		case *dsl.Tilde:
			fn, _, isCall := callOf(it.Dist, true)
			switch {
			case !isCall:
				if pf, isPf := it.Dist.AsPostfix(); isPf && pf.Primary.Name != nil {
					if b, _, _, found := c.lookup(pf.Primary.Name.Name); found && b.Kind() == "data" {
						// Y ~ gss[INC, DEG]: the data is given with =.
						c.errorf(it.Dist.Pos, "write "+it.Name.Name+" = "+it.Dist.String(), "%s is a data set, not a distribution: the model's data is given with =", pf.Primary.Name.Name)
						ok = false
						continue
					}
				}
				hint := "as in C ~ InverseWishart(df = p + 2)"
				if isFormulaSide(it.Dist) {
					// income ~ degree + age: a regression formula, which a
					// model does not declare; C holds every such regression.
					hint = formulaHint(it)
				}
				c.errorf(it.Dist.Pos, hint, "expected a distribution after ~, got %s", describeExpr(it.Dist))
				ok = false
			case fn.Name == "GaussianCopula":
				if copula != nil {
					c.errorf(it.Pos, "", "the model already has a copula: %s ~ %s", copula.Name.Name, copula.Dist)
					ok = false
					continue
				}
				copula = it
			case slices.Contains(correlationPriors(), fn.Name):
				if prior != nil {
					c.errorf(it.Pos, "keep one of them", "%s has two priors: %s and %s", it.Name.Name, prior.Dist, it.Dist)
					ok = false
					continue
				}
				prior = it
			case slices.Contains(loadingsPriors(), fn.Name):
				c.errorf(fn.Pos, "as in C ~ FactorModel(k = 3, loadings = "+fn.Name+"(...))", "%s is a prior for factor loadings, not for %s", fn.Name, it.Name.Name)
				ok = false
			default:
				if b, _, _, found := c.lookup(fn.Name); found && b.Kind() == "data" && fn.Name == it.Dist.String() {
					// Y ~ gss: the data is given with =.
					c.errorf(fn.Pos, "write "+it.Name.Name+" = "+fn.Name, "%s is a data set, not a distribution: the model's data is given with =", fn.Name)
					ok = false
					continue
				}
				if fn.Name == "ordinal" {
					// Y ~ ordinal(Z), as a family is written in brms.
					latent := "Z"
					if _, args, isCall := callOf(it.Dist, false); isCall && len(args) == 1 && args[0].Name == nil {
						latent = strings.TrimSpace(args[0].Value.String())
					}
					c.errorf(fn.Pos, "write "+it.Name.Name+" ordinal "+latent, "ordinal is the link between data and latent variables, not a distribution")
					ok = false
					continue
				}
				if _, bare := it.Dist.AsName(); bare && dsl.Nearest(fn.Name, Distributions()) == "" {
					// income ~ degree: a regression formula of one predictor.
					c.errorf(fn.Pos, formulaHint(it), "unknown distribution %s", fn.Name)
					ok = false
					continue
				}
				ok = c.oneOf(fn, "distribution", Distributions()) && ok
			}
		case *dsl.Relation:
			if it.Relation.Name != "ordinal" {
				hint := suggest(it.Relation.Name, []string{"ordinal"}, "the link between data and latent variables is ordinal, as in Y ordinal Z")
				c.errorf(it.Relation.Pos, hint, "unknown link %s", it.Relation.Name)
				ok = false
				continue
			}
			if link != nil {
				c.errorf(it.Pos, "", "the model already links its data: %s ordinal %s", link.Left.Name, link.Right.Name)
				ok = false
				continue
			}
			link = it
		}
	}
	// Every part must be present; an item already reported may be the
	// missing part, so say nothing more then.
	itemsOK := ok
	missing := func(msg, hint string) {
		if itemsOK {
			c.errorf(s.Name.Pos, hint, "model %s %s", s.Name.Name, msg)
		}
		ok = false
	}
	if data == nil {
		missing("has no data", "add Y = DATA, as in Y = gss or Y = gss[INC, DEG]")
	}
	if copula == nil {
		missing("has no copula", "add Z ~ GaussianCopula(C)")
	}
	if link == nil {
		missing("does not link its data to the copula", "add Y ordinal Z")
	}
	if prior == nil {
		missing("has no prior for the correlation", "add C ~ InverseWishart(df = p + 2) (Hoff's model) or C ~ FactorModel(k = 3)")
	}
	// The names must connect: Y = DATA, Z ~ GaussianCopula(C), Y ordinal Z,
	// C ~ PRIOR. Check what is there, so that one cell reports every problem.
	corr := ""
	if copula != nil {
		var good bool
		corr, good = c.copulaArg(copula)
		ok = ok && good
	}
	if corr != "" {
		// Three things, three names: a correlation named as the data or
		// as the latent variable would be read as both.
		_, args, _ := callOf(copula.Dist, true)
		dataName := ""
		if data != nil {
			dataName = data.Name.Name
		}
		// The hint's name must be neither of the two taken.
		other := "C"
		for _, n := range []string{"C", "R", "S"} {
			if n != copula.Name.Name && n != dataName {
				other = n
				break
			}
		}
		hint := "as in " + copula.Name.Name + " ~ GaussianCopula(" + other + ")"
		switch {
		case corr == copula.Name.Name:
			c.errorf(args[0].Value.Pos, hint, "%s is the latent variable; its correlation needs its own name", corr)
			ok = false
		case corr == dataName:
			c.errorf(args[0].Value.Pos, hint, "%s is the data; the copula's correlation needs its own name", corr)
			ok = false
		}
	}
	if data != nil && copula != nil && copula.Name.Name == data.Name.Name {
		c.errorf(copula.Name.Pos, "as in Z ~ GaussianCopula(C)", "%s is the data; the copula needs its own latent variable", data.Name.Name)
		ok = false
	}
	if link != nil && data != nil && link.Left.Name != data.Name.Name && !slices.Contains(badNames, link.Left.Name) {
		y := data.Name.Name
		c.errorf(link.Left.Pos, "did you mean "+y+"?", "%s ordinal %s links %s, but the data is %s", link.Left.Name, link.Right.Name, link.Left.Name, y)
		ok = false
	}
	if link != nil && copula != nil && link.Right.Name != copula.Name.Name && !slices.Contains(badNames, link.Right.Name) {
		z := copula.Name.Name
		c.errorf(link.Right.Pos, "did you mean "+z+"?", "%s ordinal %s links to %s, but the latent variable is %s", link.Left.Name, link.Right.Name, link.Right.Name, z)
		ok = false
	}
	if prior != nil && corr != "" && prior.Name.Name != corr && !slices.Contains(badNames, prior.Name.Name) {
		c.errorf(prior.Name.Pos, "did you mean "+corr+"?", "%s has a prior, but the copula's correlation is %s", prior.Name.Name, corr)
		ok = false
	}
	x := &DeclareModel{At: s.Pos, Name: s.Name.Name}
	sc := numScope{inModel: true}
	if data != nil {
		d, pending, good := c.modelData(data.Value, x)
		ok = ok && good
		if good && !pending {
			sc.known = x.Columns != nil
			sc.p, sc.n = len(x.Columns), d.N
			if sc.known && sc.p < 2 {
				c.errorf(data.Value.Pos, "a copula models the dependence between columns", "the model needs at least 2 columns, got %d", sc.p)
				ok = false
			}
			if sc.known && d.N < 2 {
				c.errorf(data.Value.Pos, "after the header row, each row of the file is one observation", "the model needs at least 2 rows of data; %s has %d", x.Data, d.N)
				ok = false
			}
			if sc.known && d.N >= 2 {
				ok = c.observedColumns(data.Value.Pos, d, x) && ok
			}
		}
	}
	// After an error, bind the name to a model of unknown shape, as load
	// binds data it cannot read, so that the statements that use it are
	// not reported as using an unknown model as well.
	declared := func() {
		c.local[x.Name] = &local{b: &ModelInfo{Name: x.Name, Data: x.Data}, pending: true}
	}
	if prior == nil {
		declared()
		return nil
	}
	model, good := c.prior(prior, sc)
	ok = ok && good
	if !ok {
		declared()
		return nil
	}
	x.Model = model
	x.partial = !sc.known
	info := &ModelInfo{Name: x.Name, Data: x.Data, Columns: x.Columns, Model: model}
	if fm, isFactor := model.(inference.FactorModel); isFactor {
		info.K = fm.K
	}
	if sc.known {
		info.Values, info.ValuesOf = columnValues(c.dataOfModel(info), x.Columns)
	}
	c.local[x.Name] = &local{b: info, pending: x.partial}
	return x
}

// roleNames reports, and returns, the names of a model's parts (its data Y, latent
// variable Z and correlation C) that are words of the grammar, each once
// where it first appears: model m { fit = gss; ... } read as a model, but
// the same line is a fit statement wherever it is not inside the braces
// (the { on the next line, a line copied out), and a reader, the
// highlighting and the completion take it for one; the words cannot name a
// data set or a model for the same reason. Columns are another matter: a
// column named fit is the file's, and gss[fit] or gss["fit"] picks it.
func (c *checker) roleNames(items []dsl.ModelItem) (reported []string) {
	type role struct {
		id      *dsl.Ident
		what    string // the part the name names
		example string // the item written with a name of its own
	}
	var roles []role
	for _, it := range items {
		switch it := it.(type) {
		case *dsl.Assign:
			roles = append(roles, role{it.Name, "the model's data", "Y = " + it.Value.String()})
		case *dsl.Tilde:
			fn, args, isCall := callOf(it.Dist, true)
			if !isCall || fn.Name != "GaussianCopula" {
				roles = append(roles, role{it.Name, "the correlation", "C ~ " + it.Dist.String()})
				continue
			}
			roles = append(roles, role{it.Name, "the latent variable", "Z ~ GaussianCopula(C)"})
			if len(args) == 1 && args[0].Name == nil {
				if id, isName := args[0].Value.AsName(); isName {
					roles = append(roles, role{id, "the correlation", "Z ~ GaussianCopula(C)"})
				}
			}
		case *dsl.Relation:
			roles = append(roles,
				role{it.Left, "the model's data", "Y " + it.Relation.Name + " Z"},
				role{it.Right, "the latent variable", "Y " + it.Relation.Name + " Z"})
		}
	}
	for _, r := range roles {
		kind, isWord := grammarWord(r.id.Name)
		if !isWord || slices.Contains(reported, r.id.Name) {
			continue
		}
		reported = append(reported, r.id.Name)
		c.errorf(r.id.Pos, "choose another name, as in "+r.example,
			"%s is %s: it cannot name %s", r.id.Name, kind, r.what)
	}
	return reported
}

// observedColumns reports the model's columns that have no observed cell:
// the sampler cannot place a column with no values (inference refuses it),
// so say so here, where the model is declared, before a fit.
func (c *checker) observedColumns(pos dsl.Position, d *DataInfo, x *DeclareModel) bool {
	// The hint's Y leaves out the constant columns too (load has warned
	// that they tell nothing about the copula), and says so.
	var empty, constant, rest []string
	for _, name := range x.Columns {
		j := d.column(name)
		switch {
		case j >= 0 && d.Columns[j].Levels == 0:
			empty = append(empty, name)
		case j >= 0 && d.Columns[j].Levels == 1:
			constant = append(constant, name)
		default:
			rest = append(rest, name)
		}
	}
	if len(empty) == 0 {
		return true
	}
	what := "column " + empty[0] + " of " + x.Data + " has"
	if len(empty) > 1 {
		what = "columns " + shortList(empty) + " of " + x.Data + " have"
	}
	hint := "a column with no observed value tells nothing about C: leave it out of Y"
	if len(rest) >= 2 && len(rest) <= 8 {
		hint = "leave " + plural(len(empty), "it", "them") + " out, as in Y = " + x.Data + "[" + indexList(rest) + "]"
		if len(constant) > 0 {
			hint += " (" + shortList(constant) + " " + plural(len(constant), "is", "are") + " constant: " + plural(len(constant), "it tells", "they tell") + " nothing about C either)"
		}
	}
	c.errorf(pos, hint, "%s no observed values: every cell is missing", what)
	return false
}

// indexList writes column names as an index list, quoting those that are
// not plain names.
func indexList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if !dsl.IsName(n) {
			out[i] = strconv.Quote(n)
		}
	}
	return strings.Join(out, ", ")
}

// copulaArg checks GaussianCopula(C) and returns the correlation's name.
func (c *checker) copulaArg(t *dsl.Tilde) (string, bool) {
	fn, args, _ := callOf(t.Dist, true)
	if len(args) != 1 || args[0].Name != nil {
		c.errorf(fn.Pos, "as in Z ~ GaussianCopula(C)", "GaussianCopula takes one argument, the name of its correlation matrix")
		return "", false
	}
	id, isName := args[0].Value.AsName()
	if !c.noFormula(args[0]) {
		return "", false
	}
	if !isName {
		c.errorf(args[0].Value.Pos, "as in Z ~ GaussianCopula(C)", "GaussianCopula's argument must be a name for the correlation matrix, got %s", describeExpr(args[0].Value))
		return "", false
	}
	return id.Name, true
}

// modelData resolves Y = DATA or Y = DATA[COL, ...] into x.Data and
// x.Columns (left nil when the data's columns are unknown).
func (c *checker) modelData(e *dsl.Expr, x *DeclareModel) (*DataInfo, bool, bool) {
	const hint = "as in Y = gss or Y = gss[INC, DEG]"
	pf, ok := e.AsPostfix()
	if !ok || pf.Primary.Name == nil || len(pf.Suffixes) > 1 || (len(pf.Suffixes) == 1 && pf.Suffixes[0].Index == nil) {
		c.errorf(e.Pos, hint, "the model's data must be a data set or some of its columns, got %s", describeExpr(e))
		return nil, false, false
	}
	d, pending, ok := c.dataBinding(pf.Primary.Name)
	if !ok {
		return nil, false, false
	}
	x.Data = d.Name
	if x.Data == "" {
		x.Data = pf.Primary.Name.Name
	}
	if len(pf.Suffixes) == 0 {
		if !pending {
			x.Columns = d.columnNames()
		}
		return d, pending, true
	}
	items := pf.Suffixes[0].Index.Items
	if len(items) == 0 {
		c.errorf(pf.Suffixes[0].Pos, hint, "list the columns to use, or write Y = %s for all of them", x.Data)
		return nil, false, false
	}
	cols, unresolved, good := c.indexColumns(d, pending, x.Data, items)
	if unresolved {
		x.Columns = nil
		return d, true, good
	}
	if !good {
		return nil, false, false
	}
	x.Columns = cols
	if pending {
		// Names are known but not yet checked against the file's header.
		return d, true, true
	}
	return d, false, true
}

// indexItem reads an index item: a column name (a name or a string) or a
// 1-based position (a whole number). It reports an error and returns
// ("", 0, false) for anything else.
func (c *checker) indexItem(e *dsl.Expr) (name string, pos int, isPos bool) {
	if p, ok := e.AsPrimary(); ok {
		switch {
		case p.Name != nil:
			return p.Name.Name, 0, false
		case p.Str != nil:
			return p.Str.Value, 0, false
		case p.List != nil:
			// gss[["income"]], m.C[[1, 2]]: R's and Python's nesting.
			c.errorf(e.Pos, "write the columns in one pair of brackets, as in gss[income, degree] or m.C[1, 2]", "an index is a column's name or position, got a list")
			return "", 0, false
		case p.Call != nil && p.Call.Func.Name == "c":
			// gss[c(income, degree)]
			c.errorf(e.Pos, "list the columns in the brackets themselves, as in gss[income, degree]", "an index is a column's name or position, got R's c(...)")
			return "", 0, false
		}
	}
	v, _, ok := c.integer(e, numScope{}, "an index")
	if !ok {
		return "", 0, false
	}
	if v < 1 {
		c.errorf(e.Pos, "indices count from 1", "index %d is out of range", v)
		return "", 0, false
	}
	return "", v, true
}

// shortList prints at most eight names.
func shortList(names []string) string {
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}

// prior checks C ~ InverseWishart(...) | LKJ(...) | FactorModel(...).
func (c *checker) prior(t *dsl.Tilde, sc numScope) (inference.Model, bool) {
	fn, args, _ := callOf(t.Dist, true)
	switch fn.Name {
	case "InverseWishart":
		bound, ok := c.bindArgs(fn, args, parameters(fn.Name), "InverseWishart(df = p + 2)")
		df, good1 := c.degreesOfFreedom(bound["df"], sc)
		scale, good2 := c.positiveArg(bound["scale"], "scale", sc, 0, "")
		return inference.FullCorrelation{Prior: inference.InverseWishart{DF: df, Scale: scale}}, ok && good1 && good2
	case "LKJ":
		bound, ok := c.bindArgs(fn, args, parameters(fn.Name), "LKJ(eta = 2)")
		eta, good := c.positiveArg(bound["eta"], "eta", sc, 1, "eta = 1 is uniform over correlation matrices")
		return inference.FullCorrelation{Prior: inference.LKJ{Eta: eta}}, ok && good
	case "FactorModel":
		bound, ok := c.bindArgs(fn, args, parameters(fn.Name), "FactorModel(k = 3)")
		fm := inference.FactorModel{Loadings: inference.NormalLoadings{Var: 1}}
		if a := bound["k"]; a != nil {
			v, known, good := c.integerAtLeast(a.Value, sc, "k", minimum{value: 1, hint: "for an unstructured correlation use C ~ InverseWishart(df = p + 2)"})
			if good && known && sc.known && v >= sc.p {
				c.errorf(a.Value.Pos, "", "k = %d factors must be fewer than the p = %d columns", v, sc.p)
				good = false
			}
			ok = ok && good
			fm.K = v
		}
		if a := bound["loadings"]; a != nil {
			l, good := c.loadings(a.Value, sc)
			ok = ok && good
			fm.Loadings = l
		}
		return fm, ok
	}
	return nil, false
}

// degreesOfFreedom evaluates the optional df of InverseWishart, which must
// exceed p - 1 (and be positive while p is not known); 0, the default p + 2,
// when it is absent or not known yet.
func (c *checker) degreesOfFreedom(a *dsl.Arg, sc numScope) (float64, bool) {
	const hint = "the default is df = p + 2"
	if a == nil {
		return 0, true
	}
	v, known, ok := c.number(a.Value, sc)
	switch {
	case !ok || !known:
		return 0, ok
	case sc.known && v <= float64(sc.p-1):
		c.errorf(a.Value.Pos, hint, "df must exceed p - 1 = %d, got %s", sc.p-1, fmtNum(v))
		return 0, false
	case v <= 0:
		c.errorf(a.Value.Pos, hint, "df must be positive, got %s", fmtNum(v))
		return 0, false
	}
	return v, true
}

// loadings checks Normal(var = 1) or GDP(alpha = 3, beta = 1).
func (c *checker) loadings(e *dsl.Expr, sc numScope) (inference.LoadingsPrior, bool) {
	fn, args, isCall := callOf(e, true)
	if !isCall || !slices.Contains(loadingsPriors(), fn.Name) {
		hint := "as in loadings = Normal(var = 1) or loadings = GDP(alpha = 3, beta = 1)"
		at := e.Pos
		if isCall {
			at = fn.Pos
			hint = suggest(fn.Name, loadingsPriors(), hint)
		}
		c.errorf(at, hint, "loadings must be Normal(...) or GDP(...), got %s", describeExpr(e))
		return nil, false
	}
	if fn.Name == "Normal" {
		bound, ok := c.bindArgs(fn, args, parameters(fn.Name), "Normal(var = 1)")
		v, good := c.positiveArg(bound["var"], "var", sc, 1, "")
		return inference.NormalLoadings{Var: v}, ok && good
	}
	bound, ok := c.bindArgs(fn, args, parameters(fn.Name), "GDP(alpha = 3, beta = 1)")
	a, good1 := c.positiveArg(bound["alpha"], "alpha", sc, 3, "")
	b, good2 := c.positiveArg(bound["beta"], "beta", sc, 1, "")
	return inference.GDPLoadings{Alpha: a, Beta: b}, ok && good1 && good2
}

// isFormulaSide reports whether e is a sum of names, as the right side of
// a regression formula (degree + age) is.
func isFormulaSide(e *dsl.Expr) bool {
	terms := []*dsl.Term{e.Head}
	for _, t := range e.Tail {
		terms = append(terms, t.Term)
	}
	for _, t := range terms {
		if len(t.Tail) > 0 || t.Head.Postfix == nil || len(t.Head.Postfix.Suffixes) > 0 || t.Head.Postfix.Primary.Name == nil {
			return false
		}
	}
	return true
}

// formulaHint says where the regression a model item Y ~ X1 + X2 asks for
// is read.
func formulaHint(it *dsl.Tilde) string {
	return "a model declares no regressions: C holds them all, and after fit m, summary m.regress(" + it.Name.Name + " ~ " + it.Dist.String() + ") reads one"
}
