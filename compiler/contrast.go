package compiler

import (
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
)

// A difference A − B of two parts of fitted models, as in
// summary older.C[income, degree] - young.C[income, degree]: its draws are
// A's minus B's, paired draw by draw. Summary, plot and a value show it.

// difference returns the two sides of e when e is written A - B with A and
// B each a name with members or indices (m.C, m.C[1, 2], m.partial[INC]),
// parentheses around the whole looked through.
func difference(e *dsl.Expr) (a, b *dsl.Expr, ok bool) {
	for e != nil && len(e.Tail) == 0 && len(e.Head.Tail) == 0 {
		pf := e.Head.Head.Postfix
		if pf == nil || pf.Primary.Paren == nil || len(pf.Suffixes) > 0 {
			return nil, nil, false
		}
		e = pf.Primary.Paren // (A - B) is A - B
	}
	if e == nil || len(e.Tail) != 1 || e.Tail[0].Op != "-" {
		return nil, nil, false
	}
	side := func(t *dsl.Term) *dsl.Expr {
		x := &dsl.Expr{Pos: t.Pos, EndPos: t.EndPos, Head: t}
		pf, ok := x.AsPostfix()
		if !ok || pf.Primary.Name == nil || pf.Primary.Name.Name == "pi" || len(pf.Suffixes) == 0 {
			return nil
		}
		return x
	}
	a, b = side(e.Head), side(e.Tail[0].Term)
	return a, b, a != nil && b != nil
}

// contrast checks A - B for verb: both parts of fitted models, of the same
// member (C, partial, communality or regress), selecting the same number
// of scalars when that is known. isDiff is false when e is not written
// A - B (the caller checks it as before).
func (c *checker) contrast(e *dsl.Expr, verb string) (a, b *target, isDiff, ok bool) {
	ea, eb, isDiff := difference(e)
	if !isDiff {
		return nil, nil, false, false
	}
	a, okA := c.reference(ea, verb, false)
	b, okB := c.reference(eb, verb, false)
	if !okA || !okB {
		return nil, nil, true, false
	}
	for _, t := range []*target{a, b} {
		if slices.Contains(differences(), t.ref.Part()) {
			continue
		}
		switch t.ref.Member {
		case "Z":
			c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "the draws of Z are not kept, so %s has no difference to show", c.refString(t))
			return nil, nil, true, false
		case "Lambda":
			c.errorf(t.ref.At, "compare "+t.ref.Name+".communality or entries of C, which do not depend on the factors' rotation or sign",
				"a difference of loadings means nothing: the factors of two fits, or two factors of one, are not the same factor")
			return nil, nil, true, false
		}
	}
	// plot heatmap and plot graph draw two whole matrices, paired by
	// column name: their own checks say which columns differ, where a
	// count of entries would point at single entries.
	wholeMatrices := (verb == "plot heatmap" || verb == "plot graph") && isWholeMatrix(a) && isWholeMatrix(b)
	if a.ref.Part() != b.ref.Part() {
		example := exampleDifference(a, b)
		if verb == "plot heatmap" || verb == "plot graph" {
			example = verb + " old.C - young.C, two fits' C (or two fits' partial)"
			if a.ref.Name != b.ref.Name {
				example = verb + " " + a.ref.Name + ".C - " + b.ref.Name + ".C"
			}
		}
		c.errorf(b.ref.At, "a difference compares like with like, as in "+example,
			"%s selects %s and %s %s", c.refString(a), memberWhat[a.ref.Part()], c.refString(b), memberWhat[b.ref.Part()])
		return nil, nil, true, false
	}
	if a.count >= 0 && b.count >= 0 && a.count != b.count && !wholeMatrices {
		c.errorf(b.ref.At, "select the same entries of both, as in "+exampleDifference(a, b),
			"%s selects %d and %s %d: a difference pairs them one by one", c.refString(a), a.count, c.refString(b), b.count)
		return nil, nil, true, false
	}
	return a, b, true, true
}

// memberWhat says what the scalars of a member are, for messages.
var memberWhat = map[string]string{
	"C":           "correlations",
	"partial":     "partial correlations",
	"communality": "communalities",
	"regress":     "regression coefficients",
}

// exampleDifference writes a difference of a's and b's models as a user
// would: two fits' same entry, or two entries of one fit.
func exampleDifference(a, b *target) string {
	if a.ref.Name == b.ref.Name {
		return a.ref.Name + ".C[1, 2] - " + a.ref.Name + ".C[1, 3]"
	}
	return a.ref.Name + ".C[1, 2] - " + b.ref.Name + ".C[1, 2]"
}

// wholeDifferenceHint is the hint of plot heatmap or plot graph of a
// difference of two fits whose columns differ: summary shows the
// differences entry by entry when the two select as many, and otherwise
// only fits of the same columns have a difference to draw.
func wholeDifferenceHint(target *dsl.Expr, a, b *target) string {
	if a.count >= 0 && a.count == b.count {
		return "summary " + strings.TrimSpace(target.String()) + " shows the differences entry by entry"
	}
	return "a difference of two whole matrices pairs their entries by column: fit both models to the same columns"
}
