package compiler

// The statements that judge fitted models: check (posterior predictive
// checks) and compare (held-out predictive scores).

import (
	"fmt"
	"slices"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// Default settings of check and compare.
const (
	// DefaultHoldout is the share of cells compare holds out.
	DefaultHoldout = 0.1
	// minReps is the fewest replications at θ̃ for which a p-value can go
	// below 0.05 (its smallest value is 1/(reps+1)).
	minReps = 19
	// maxFolds bounds compare's folds, each a refit of every model.
	maxFolds = 20
)

// Stats returns the rank statistics check may compare (stat = ...).
func Stats() []string {
	var out []string
	for _, s := range inference.RankStats() {
		out = append(out, s.String())
	}
	return out
}

// check checks check NAME[, settings] and check NAME[COL, COL][, settings].
func (c *checker) check(s *dsl.CheckStmt) Stmt {
	const hint = "as in check m or check m[INC, DEG]"
	pf, ok := s.Target.AsPostfix()
	if !ok || pf.Primary.Name == nil || len(pf.Suffixes) > 1 || (len(pf.Suffixes) == 1 && pf.Suffixes[0].Index == nil) {
		c.errorf(s.Target.Pos, hint, "check takes a fitted model, or a model and two of its columns, got %s", describeExpr(s.Target))
		return nil
	}
	m, _, good := c.modelBinding(pf.Primary.Name, true, "check")
	x := &CheckStmt{At: s.Pos, Model: pf.Primary.Name.Name, Draws: inference.DefaultCheckDraws, Reps: inference.DefaultCheckReps}
	if good && len(pf.Suffixes) == 1 {
		good = c.checkPair(pf.Suffixes[0].Index, m, x)
	}
	seen := map[string]bool{}
	for _, a := range s.Settings {
		name := a.Name.Name
		if !c.setting("check", a, settingsOf("check"), seen, "") {
			good = false
			continue
		}
		var ok bool
		switch name {
		case "draws":
			x.Draws, _, ok = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: inference.MinCheckDraws,
				hint: "the 90% intervals and classical ppp rank the data among one replication from each of draws posterior draws; the calibrated p-values and the verdict come from reps replications of one draw"})
		case "reps":
			x.Reps, _, ok = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: minReps,
				hint: "a calibrated p-value is at least 1/(reps + 1): 19 replications are needed to go below 0.05"})
		case "seed":
			x.Seed, ok = c.seed(a.Value)
			x.SeedGiven = true
		case "stat":
			ok = c.stat(a.Value, x)
		}
		good = good && ok
	}
	if good && m != nil && m.Columns != nil {
		good = c.checkSize(s, x, len(m.Columns))
	}
	if !good {
		return nil
	}
	return x
}

// checkSize reports a check of p columns whose replications at θ̃ alone
// would pass inference.MaxCheckValues statistics (one per pair and data
// set; the draws are at most the fit's kept draws, whose C the fit holds
// already).
func (c *checker) checkSize(s *dsl.CheckStmt, x *CheckStmt, p int) bool {
	pairs := p * (p - 1) / 2
	if pairs == 0 || inference.CheckFits(x.Reps, pairs) {
		return true
	}
	at := s.Pos
	for _, a := range s.Settings {
		if a.Name.Name == "reps" {
			at = a.Value.Pos
		}
	}
	hint := fmt.Sprintf("with %d pairs of columns, reps = %d or fewer", pairs, inference.MaxCheckValues/pairs-1)
	if inference.MaxCheckValues/pairs-1 < minReps {
		hint = "a model of fewer columns"
	}
	c.errorf(at, hint, "reps = %d replicated data sets of %d pairs is more than a check keeps (%d statistics)", x.Reps, pairs, inference.MaxCheckValues)
	return false
}

// checkPair resolves the two columns of check m[A, B].
func (c *checker) checkPair(ix *dsl.Index, m *ModelInfo, x *CheckStmt) bool {
	if len(ix.Items) != 2 {
		c.errorf(ix.Pos, "as in check "+x.Model+"[INC, DEG]", "check shows the two-way table of two columns; got %d", len(ix.Items))
		return false
	}
	cols, items, unresolved, ok := c.modelColumns(ix, m, x.Model)
	if !ok {
		return false
	}
	x.Items, x.Unresolved = items, unresolved
	if unresolved {
		return true
	}
	if cols[0] == cols[1] {
		c.errorf(ix.Pos, "pick two different columns", "a two-way table needs two different columns")
		return false
	}
	x.Pair = cols
	return true
}

// modelColumns resolves the items of ix, column names or 1-based
// positions, to model's columns (0-based, model order), and returns them
// with the items as written; unresolved is true, and cols nil, when m's
// columns are not known yet (the statement is then checked again when they
// are). An item that names no column of model is an error.
func (c *checker) modelColumns(ix *dsl.Index, m *ModelInfo, model string) (cols []int, items []IndexItem, unresolved, ok bool) {
	for _, it := range ix.Items {
		name, n, isPos := c.indexItem(it)
		if name == "" && n == 0 {
			return nil, nil, false, false
		}
		items = append(items, IndexItem{At: it.Pos, Column: name, Position: n})
		if m.Columns == nil {
			unresolved = true
			continue
		}
		j := n - 1
		if !isPos {
			j = indexOf(m.Columns, name)
		} else if c.ambiguousPosition(it.Pos, n, m.Columns, model) {
			return nil, nil, false, false
		}
		if j < 0 || j >= len(m.Columns) {
			if isPos {
				c.errorf(it.Pos, numberNamedHint(n, m.Columns), "column %d is out of range: %s has %d columns", n, model, len(m.Columns))
			} else {
				c.errorf(it.Pos, suggest(name, m.Columns, "columns of "+model+": "+shortList(m.Columns)), "model %s has no column %s", model, name)
			}
			return nil, nil, false, false
		}
		cols = append(cols, j)
	}
	if unresolved {
		cols = nil
	}
	return cols, items, unresolved, true
}

// stat checks stat = spearman | kendall.
func (c *checker) stat(e *dsl.Expr, x *CheckStmt) bool {
	name, ok := c.wordSetting(e, "stat", "statistic", Stats(), "kendall")
	if ok {
		x.Stat, _ = inference.ParseRankStat(name)
	}
	return ok
}

// compare checks compare M1, M2, ... [, holdout = H | folds = K, seed = S].
func (c *checker) compare(s *dsl.CompareStmt) Stmt {
	x := &Compare{At: s.Pos, Holdout: DefaultHoldout, Folds: 1, Seed: DefaultSeed}
	good := true
	var models []*ModelInfo
	seen := map[string]bool{}
	settings := settingsOf("compare")
	var holdout, folds *dsl.NamedArg
	settingSeen := false
	for _, it := range s.Items {
		if a := it.Setting; a != nil {
			name := a.Name.Name
			settingSeen = true
			if !c.setting("compare", a, settings, seen, "") {
				good = false
				continue
			}
			var ok bool
			switch name {
			case "holdout":
				holdout = a
				var v float64
				v, _, ok = c.number(a.Value, numScope{})
				if ok && !(v > 0 && v <= 0.5) {
					c.errorf(a.Value.Pos, "holdout is the share of cells held out, as in holdout = 0.1", "holdout must be above 0 and at most 0.5, got %s", fmtNum(v))
					ok = false
				}
				x.Holdout = v
			case "folds":
				folds = a
				x.Folds, _, ok = c.integerAtLeast(a.Value, numScope{}, name, minimum{value: 2, hint: "folds = K holds out each cell once over K refits of every model"})
				if ok && x.Folds > maxFolds {
					c.errorf(a.Value.Pos, "each fold refits every model", "folds must be at most %d, got %d", maxFolds, x.Folds)
					ok = false
				}
			case "seed":
				x.Seed, ok = c.seed(a.Value)
			}
			good = good && ok
			continue
		}
		id := it.Model
		if settingSeen {
			c.errorf(id.Pos, "as in compare m1, m2, folds = 5", "list the models before the settings")
			good = false
			continue
		}
		m, _, ok := c.modelBinding(id, true, "compare")
		if !ok {
			good = false
			continue
		}
		if slices.Contains(x.Models, id.Name) {
			c.errorf(id.Pos, "", "model %s is listed twice", id.Name)
			good = false
			continue
		}
		if len(models) > 0 && !c.sameData(models[0], m, x.Models[0], id) {
			good = false
		}
		x.Models = append(x.Models, id.Name)
		models = append(models, m)
	}
	if holdout != nil && folds != nil {
		c.errorf(holdout.Name.Pos, "with folds = K every eligible cell is held out once; holdout is the share of a single split", "give holdout or folds, not both")
		good = false
	}
	if good && len(x.Models) < 2 {
		c.errorf(s.Pos, "as in compare m1, m2", "compare needs at least two fitted models")
		good = false
	}
	if good && !c.enoughToHoldOut(s, x, models[0]) {
		good = false
	}
	if !good {
		return nil
	}
	return x
}

// enoughToHoldOut reports (with an error at the statement) whether the
// data of m have the cells compare holds out: at least two per fold among
// the observed cells whose value recurs in their column
// (inference.HoldOut). Without this check a script of continuous columns
// ran all its fits before compare failed.
func (c *checker) enoughToHoldOut(s *dsl.CompareStmt, x *Compare, m *ModelInfo) bool {
	b, _, _, ok := c.lookup(m.Data)
	d, isData := b.(*DataInfo)
	if !ok || !isData || m.Columns == nil || d.Columns == nil {
		return true // unknown yet: inference.HoldOut says so when it runs
	}
	eligible := 0
	var distinct []string
	for _, name := range m.Columns {
		for _, col := range d.Columns {
			if col.Name == name {
				n := d.N - col.Missing - col.Singletons
				eligible += n
				if n == 0 {
					distinct = append(distinct, name)
				}
			}
		}
	}
	if eligible >= 2*x.Folds {
		return true
	}
	need := "2"
	if x.Folds > 1 {
		need = fmt.Sprintf("%d, 2 for each of folds = %d", 2*x.Folds, x.Folds)
	}
	why := ""
	if len(distinct) > 0 {
		why = fmt.Sprintf(" (%s: no value occurs twice)", shortList(distinct))
	}
	cut := "cut its columns into levels in the CSV"
	if d.HasTruth {
		// simulate cuts each column into balanced levels: at most n/2 of
		// them leave every level two rows or more.
		cut = fmt.Sprintf("simulate it with at most n/2 levels (levels = %d or fewer for n = %d)", max(d.N/2, 2), d.N)
	}
	c.errorf(s.Pos, "compare scores a cell held out by the probability its refit gives the value it had, and a value seen nowhere else in its column (continuous data, which enters through its ranks) gets none; to compare models of such data, "+cut,
		"compare holds out observed cells whose value recurs in their column: the columns of %s in data %s have %d such cells%s, and it needs %s", x.Models[0], m.Data, eligible, why, need)
	return false
}

// sameData reports (with an error at id) whether model m, named by id, is
// on the data and columns of the first model.
func (c *checker) sameData(first, m *ModelInfo, firstName string, id *dsl.Ident) bool {
	if first.Data != m.Data {
		c.errorf(id.Pos, "compare scores models on the same held-out cells of the same data",
			"%s is on data %s, but %s is on %s", id.Name, m.Data, firstName, first.Data)
		return false
	}
	if first.Columns == nil || m.Columns == nil {
		return true
	}
	a, b := slices.Sorted(slices.Values(first.Columns)), slices.Sorted(slices.Values(m.Columns))
	if !slices.Equal(a, b) {
		c.errorf(id.Pos, "compare scores models on the same held-out cells: declare them on the same columns",
			"%s uses columns %s, but %s uses %s", id.Name, shortList(m.Columns), firstName, shortList(first.Columns))
		return false
	}
	return true
}
