package compiler

import (
	"fmt"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// members are the parts of a fitted model a reference may select.
var members = []string{"C", "Lambda", "Z"}

// target is a resolved reference with what is known about its binding.
type target struct {
	ref   Ref
	data  *DataInfo  // set when the name is a data set
	model *ModelInfo // set when the name is a model
	// count is the number of scalars selected, -1 when unknown.
	count int
}

// reference resolves NAME, NAME.MEMBER or NAME.MEMBER[I, J]. A model must
// have been fitted. allowData permits a bare data set.
func (c *checker) reference(e *dsl.Expr, verb string, allowData bool) (*target, bool) {
	const hint = "as in m.C, m.C[1, 2] or m.C[INC, DEG]"
	pf, ok := e.AsPostfix()
	if !ok || pf.Primary.Name == nil {
		c.errorf(e.Pos, hint, "%s needs a model or a part of one, got %s", verb, describeExpr(e))
		return nil, false
	}
	id := pf.Primary.Name
	t := &target{ref: Ref{At: e.Pos, Name: id.Name}, count: -1}
	b, _, fitted, found := c.lookup(id.Name)
	if !found {
		kind := "model"
		if allowData {
			kind = ""
		}
		c.unknownName(id, kind)
		return nil, false
	}
	sufs := pf.Suffixes
	if d, isData := b.(*DataInfo); isData {
		if !allowData {
			c.errorf(id.Pos, "", "%s is a data set; %s needs a fitted model", id.Name, verb)
			return nil, false
		}
		if len(sufs) > 0 {
			c.errorf(sufs[0].Pos, "", "%s %s takes the whole data set", verb, id.Name)
			return nil, false
		}
		t.data = d
		return t, true
	}
	m := b.(*ModelInfo)
	t.model = m
	if !fitted {
		c.errorf(id.Pos, "run fit "+id.Name+" first", "model %s is not fitted yet; %s needs its draws", id.Name, verb)
		return nil, false
	}
	if len(sufs) > 0 && sufs[0].Member != nil {
		mem := sufs[0].Member
		if !contains(members, mem.Name) {
			hint := "a model has C (correlation), Lambda (loadings of a factor model) and Z (latent columns)"
			if near := dsl.Nearest(mem.Name, members); near != "" {
				hint = "did you mean " + near + "?"
			}
			c.errorf(mem.Pos, hint, "model %s has no member %s", id.Name, mem.Name)
			return nil, false
		}
		t.ref.Member = mem.Name
		sufs = sufs[1:]
	}
	if t.ref.Member == "Lambda" {
		if _, full := m.Model.(inference.FullCorrelation); full {
			c.errorf(pf.Suffixes[0].Pos, "loadings belong to factor models, C ~ FactorModel(k = ...)", "%s is a full-correlation model: it has no loadings Lambda", id.Name)
			return nil, false
		}
	}
	if len(sufs) > 1 || (len(sufs) == 1 && sufs[0].Index == nil) {
		c.errorf(sufs[0].Pos, hint, "unexpected %s after %s", suffixText(sufs[0]), t.refText())
		return nil, false
	}
	if len(sufs) == 1 && t.ref.Member == "" {
		c.errorf(sufs[0].Pos, "write "+id.Name+".C"+suffixText(sufs[0]), "index a member of %s, as in %s.C[1, 2]", id.Name, id.Name)
		return nil, false
	}
	var items []*dsl.Expr
	if len(sufs) == 1 {
		items = sufs[0].Index.Items
	}
	ok = c.resolveIndex(t, items, m)
	return t, ok
}

func suffixText(s *dsl.Suffix) string {
	if s.Member != nil {
		return "." + s.Member.Name
	}
	parts := make([]string, len(s.Index.Items))
	for i, e := range s.Index.Items {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (t *target) refText() string {
	s := t.ref.Name
	if t.ref.Member != "" {
		s += "." + t.ref.Member
	}
	return s
}

// resolveIndex resolves the index items of t against the model's columns
// and counts the scalars selected.
// The columns are known unless the model is on data loaded in the same file
// and uses all its columns.
func (c *checker) resolveIndex(t *target, items []*dsl.Expr, m *ModelInfo) bool {
	cols := m.Columns
	p := len(cols)
	known := cols != nil
	k := m.K
	member := t.ref.Member
	maxItems := 2
	if member == "Z" {
		maxItems = 1
	}
	if len(items) > maxItems {
		c.errorf(items[maxItems].Pos, "", "%s takes at most %d indices, got %d", t.refText(), maxItems, len(items))
		return false
	}
	ok := true
	var index []int
	for pos, it := range items {
		item := IndexItem{At: it.Pos}
		name, n, isPos := c.indexItem(it)
		if name == "" && n == 0 {
			ok = false
			continue
		}
		item.Column, item.Position = name, n
		t.ref.Items = append(t.ref.Items, item)
		if member == "Lambda" && pos == 1 {
			// The second index of Lambda is a factor, 1..k.
			if !isPos {
				c.errorf(it.Pos, "as in "+t.ref.Name+".Lambda[INC, 2]", "the second index of Lambda is a factor number, got %s", name)
				ok = false
				continue
			}
			if k > 0 && n > k {
				c.errorf(it.Pos, "", "factor %d is out of range: %s has k = %d factors", n, t.ref.Name, k)
				ok = false
				continue
			}
			index = append(index, n-1)
			continue
		}
		switch {
		case isPos && !known:
			index = nil
			t.ref.Unresolved = true
			continue
		case isPos && n > p:
			c.errorf(it.Pos, "", "column %d is out of range: %s has %d columns", n, t.ref.Name, p)
			ok = false
			continue
		case isPos:
			index = append(index, n-1)
		default:
			j := indexOf(cols, name)
			if j < 0 {
				if !known {
					t.ref.Unresolved = true
					continue
				}
				hint := "columns of " + t.ref.Name + ": " + shortList(cols)
				if near := dsl.Nearest(name, cols); near != "" {
					hint = "did you mean " + near + "?"
				}
				c.errorf(it.Pos, hint, "model %s has no column %s", t.ref.Name, name)
				ok = false
				continue
			}
			index = append(index, j)
		}
	}
	if !ok {
		return false
	}
	if t.ref.Unresolved {
		t.ref.Index = nil
		return true
	}
	t.ref.Index = index
	if (member == "C" || member == "") && len(index) == 2 && index[0] == index[1] {
		c.errorf(t.ref.At, "pick two different columns", "%s[%s, %s] is 1: a correlation matrix has a unit diagonal",
			t.refText(), itemText(t.ref.Items[0]), itemText(t.ref.Items[1]))
		return false
	}
	if !known {
		return true
	}
	switch member {
	case "", "C":
		t.count = [...]int{p * (p - 1) / 2, p - 1, 1}[len(index)]
	case "Lambda":
		t.count = [...]int{p * k, k, 1}[len(index)]
	case "Z":
		t.count = [...]int{p, 1}[len(index)]
	}
	return true
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func itemText(it IndexItem) string {
	if it.Column != "" {
		return it.Column
	}
	return fmt.Sprint(it.Position)
}

// summary checks summary EXPR: a data set, or C or Lambda of a fitted model.
func (c *checker) summary(s *dsl.SummaryStmt) Stmt {
	t, ok := c.reference(s.Target, "summary", true)
	if !ok {
		return nil
	}
	if t.ref.Member == "Z" {
		c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "summary shows C and Lambda; the draws of Z are not kept")
		return nil
	}
	return &Summary{At: s.Pos, Target: t.ref}
}

// plot checks plot KIND EXPR [vs NAME].
func (c *checker) plot(s *dsl.PlotStmt) Stmt {
	kind := s.Kind.Name
	if !contains(PlotKinds, kind) {
		hint := "plot kinds: " + strings.Join(PlotKinds, ", ")
		if near := dsl.Nearest(kind, PlotKinds); near != "" {
			hint = "did you mean " + near + "?"
		}
		c.errorf(s.Kind.Pos, hint, "unknown plot kind %s", kind)
		return nil
	}
	x := &PlotStmt{At: s.Pos, Kind: kind}
	if s.Vs != nil {
		x.Vs = s.Vs.Name
		if kind != "rmse" {
			c.errorf(s.Vs.Pos, "", "vs belongs to plot rmse, which compares draws with a simulation's truth")
			return nil
		}
	}
	switch kind {
	case "rmse":
		return c.plotRMSE(s, x)
	case "heatmap":
		t, ok := c.reference(s.Target, "plot heatmap", true)
		if !ok {
			return nil
		}
		if t.data != nil && !t.data.HasTruth {
			c.errorf(t.ref.At, "plot heatmap of a fitted model's C instead", "data %s was loaded, not simulated: it has no true C to show", t.ref.Name)
			return nil
		}
		if t.model != nil && (t.ref.Member != "" && t.ref.Member != "C" || len(t.ref.Items) > 0) {
			c.errorf(t.ref.At, "write plot heatmap "+t.ref.Name+".C", "plot heatmap shows the whole correlation matrix")
			return nil
		}
		x.Target = t.ref
		return x
	case "latent":
		t, ok := c.reference(s.Target, "plot latent", false)
		if !ok {
			return nil
		}
		if t.ref.Member != "Z" || len(t.ref.Items) != 1 {
			c.errorf(t.ref.At, "write plot latent "+t.ref.Name+".Z[COLUMN]", "plot latent shows one latent column")
			return nil
		}
		x.Target = t.ref
		return x
	}
	// trace, hist, acf, pairs: scalar draws of C or Lambda.
	t, ok := c.reference(s.Target, "plot "+kind, false)
	if !ok {
		return nil
	}
	if t.ref.Member == "Z" {
		c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "the draws of Z are not kept")
		return nil
	}
	switch {
	case kind == "pairs" && t.count >= 0 && t.count < 2:
		c.errorf(t.ref.At, "as in plot pairs "+t.ref.Name+".C", "plot pairs needs at least two parameters; %s selects %d", c.refString(t), t.count)
		return nil
	case kind != "pairs" && t.count >= 0 && t.count != 1:
		c.errorf(t.ref.At, "pick one, as in "+t.ref.Name+".C[1, 2]", "plot %s shows one parameter; %s selects %d", kind, c.refString(t), t.count)
		return nil
	}
	x.Target = t.ref
	return x
}

func (c *checker) refString(t *target) string {
	s := t.refText()
	if len(t.ref.Items) > 0 {
		parts := make([]string, len(t.ref.Items))
		for i, it := range t.ref.Items {
			parts[i] = itemText(it)
		}
		s += "[" + strings.Join(parts, ", ") + "]"
	}
	return s
}

// plotRMSE checks plot rmse MODEL [vs DATA] and plot rmse [M1, M2] [vs DATA].
func (c *checker) plotRMSE(s *dsl.PlotStmt, x *PlotStmt) Stmt {
	var exprs []*dsl.Expr
	if p, ok := s.Target.AsPrimary(); ok && p.List != nil {
		exprs = p.List.Items
		if len(exprs) == 0 {
			c.errorf(s.Target.Pos, "as in plot rmse [m1, m2] vs sim", "plot rmse needs at least one model")
			return nil
		}
	} else {
		exprs = []*dsl.Expr{s.Target}
	}
	ok := true
	var refs []Ref
	for _, e := range exprs {
		id, isName := e.AsName()
		if !isName {
			c.errorf(e.Pos, "as in plot rmse m vs sim", "plot rmse takes fitted models, got %s", describeExpr(e))
			ok = false
			continue
		}
		m, _, good := c.modelBinding(id, true, "plot rmse")
		if !good {
			ok = false
			continue
		}
		if b, _, _, found := c.lookup(m.Data); found {
			if d, isData := b.(*DataInfo); isData && d.Name != "" && !d.HasTruth && d.Columns != nil {
				c.errorf(id.Pos, "plot rmse needs simulated data, as in data sim = simulate(...)", "model %s is on data %s, which has no known truth", id.Name, m.Data)
				ok = false
				continue
			}
		}
		if s.Vs != nil && m.Data != "" && m.Data != s.Vs.Name {
			c.errorf(s.Vs.Pos, "did you mean "+m.Data+"?", "model %s was declared on %s, not %s", id.Name, m.Data, s.Vs.Name)
			ok = false
			continue
		}
		refs = append(refs, Ref{At: e.Pos, Name: id.Name})
	}
	if s.Vs != nil {
		if d, _, good := c.dataBinding(s.Vs); good && d.Columns != nil && !d.HasTruth {
			c.errorf(s.Vs.Pos, "plot rmse compares with the truth of simulated data", "data %s has no known truth", s.Vs.Name)
			ok = false
		} else if !good {
			ok = false
		}
	}
	if !ok {
		return nil
	}
	x.Target = refs[0]
	if len(refs) > 1 {
		x.Others = refs[1:]
	}
	return x
}
