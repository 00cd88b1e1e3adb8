package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

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
		h := hint
		if a, b, isNames := namesDifference(e); isNames {
			// plot graph older - young: the difference of two models
			// (a difference is of parts, which it does not say).
			h = fmt.Sprintf("a difference is of the same part of each, as in %s.C - %s.C or %s.partial - %s.partial", a, b, a, b)
		}
		c.errorf(e.Pos, h, "%s needs a model or a part of one, got %s", verb, describeExpr(e))
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
		if len(sufs) > 0 && sufs[0].Member != nil && !slices.Contains(members(), sufs[0].Member.Name) {
			// gss.head(), gss.describe(), gss.shape: pandas' habits (sim.C
			// takes a data set for a model, which the error below says).
			mem := sufs[0].Member
			hint := dataMemberHint(id.Name, mem.Name)
			if slices.ContainsFunc(d.Columns, func(col ColumnInfo) bool { return col.Name == mem.Name }) {
				// pandas' gss.income
				hint = fmt.Sprintf("a column is selected in brackets: summary %s[%s]", id.Name, mem.Name)
			}
			c.errorf(mem.Pos, hint, "data set %s has no member %s", id.Name, mem.Name)
			return nil, false
		}
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
		if !slices.Contains(members(), mem.Name) {
			hint := suggest(mem.Name, members(), "a model has C (correlation), Lambda (loadings of a factor model), Z (latent columns), partial, communality and regress(Y ~ X)")
			c.errorf(mem.Pos, hint, "model %s has no member %s", id.Name, mem.Name)
			return nil, false
		}
		t.ref.Member = mem.Name
		if !c.memberCall(t, m, mem, sufs[0].Call) {
			return nil, false
		}
		sufs = sufs[1:]
	}
	if t.ref.Member == "Lambda" {
		if _, full := m.Model.(inference.FullCorrelation); full {
			c.errorf(pf.Suffixes[0].Pos, "loadings belong to factor models, C ~ FactorModel(k = ...)", "%s is a full-correlation model: it has no loadings Lambda", id.Name)
			return nil, false
		}
	}
	if _, full := m.Model.(inference.FullCorrelation); full && t.ref.Member == "communality" {
		c.errorf(pf.Suffixes[0].Pos, "the share of a column's latent variance the other columns explain is R2 of "+id.Name+".regress(COL ~ ...)",
			"%s is a full-correlation model: communality belongs to factor models", id.Name)
		return nil, false
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
		if s.Call != nil {
			return "." + s.Member.Name + "(...)"
		}
		return "." + s.Member.Name
	}
	parts := make([]string, len(s.Index.Items))
	for i, e := range s.Index.Items {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (t *target) refText() string {
	if t.ref.Member == "regress" {
		return t.regressText()
	}
	s := t.ref.Name
	if t.ref.Member != "" {
		s += "." + t.ref.Member
	}
	return s
}

// regressText is m.regress(Y ~ X1 + X2) with the columns of t's
// regression, or m.regress(...) when they are not resolved yet.
func (t *target) regressText() string {
	reg := t.ref.Regress
	if reg == nil || t.model == nil || t.model.Columns == nil {
		return t.ref.Name + ".regress(...)"
	}
	cols := t.model.Columns
	preds := make([]string, len(reg.Predictors))
	for i, j := range reg.Predictors {
		preds[i] = cols[j]
	}
	return t.ref.Name + ".regress(" + cols[reg.Response] + " ~ " + strings.Join(preds, " + ") + ")"
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
	switch member {
	case "Z", "communality":
		maxItems = 1
	case "regress":
		return c.regressIndex(t, items, m)
	}
	if len(items) > maxItems {
		if maxItems == 1 {
			hint := ""
			if known && p > 0 {
				hint = "as in " + t.refText() + "[" + indexList(cols[:1]) + "]"
			}
			c.errorf(items[maxItems].Pos, hint, "%s takes one index, a column, got %d", t.refText(), len(items))
			return false
		}
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
			c.errorf(it.Pos, numberNamedHint(n, cols), "column %d is out of range: %s has %d columns", n, t.ref.Name, p)
			ok = false
			continue
		case isPos && c.ambiguousPosition(it.Pos, n, cols, t.ref.Name):
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
				hint := suggest(name, cols, "columns of "+t.ref.Name+": "+shortList(cols))
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
	if (member == "C" || member == "" || member == "partial") && len(index) == 2 && index[0] == index[1] {
		c.errorf(t.ref.At, "pick two different columns", "%s[%s, %s] is 1: a correlation matrix has a unit diagonal",
			t.refText(), itemText(t.ref.Items[0]), itemText(t.ref.Items[1]))
		return false
	}
	if !known {
		return true
	}
	switch member {
	case "", "C", "partial":
		t.count = [...]int{p * (p - 1) / 2, p - 1, 1}[len(index)]
	case "Lambda":
		t.count = [...]int{p * k, k, 1}[len(index)]
	case "Z", "communality":
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

// namesDifference returns A and B when e is written A - B with each side a
// bare name, as a difference of two models would be.
func namesDifference(e *dsl.Expr) (a, b string, ok bool) {
	if e == nil || len(e.Tail) != 1 || e.Tail[0].Op != "-" {
		return "", "", false
	}
	name := func(t *dsl.Term) string {
		x := &dsl.Expr{Pos: t.Pos, EndPos: t.EndPos, Head: t}
		pf, ok := x.AsPostfix()
		if !ok || pf.Primary.Name == nil || pf.Primary.Name.Name == "pi" || len(pf.Suffixes) > 0 {
			return ""
		}
		return pf.Primary.Name.Name
	}
	a, b = name(e.Head), name(e.Tail[0].Term)
	return a, b, a != "" && b != ""
}
