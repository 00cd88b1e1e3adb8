package compiler

// The statements that show or write what a fit found: explain, summary,
// plot, impute, export and show.

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// explain checks explain NAME and explain fit NAME with ... .
func (c *checker) explain(s *dsl.ExplainStmt) Stmt {
	if s.Fit != nil {
		if f, _ := c.fitSettings(s.Fit, "explain"); f != nil {
			return &Explain{At: s.Pos, Model: f.Model, Fit: f}
		}
		return nil
	}
	if _, _, ok := c.modelBinding(s.Model, false, "explain"); ok {
		return &Explain{At: s.Pos, Model: s.Model.Name}
	}
	return nil
}

// summary checks summary EXPR: a data set, or C, Lambda or a derived member
// (partial, communality, regress) of a fitted model.
func (c *checker) summary(s *dsl.SummaryStmt) Stmt {
	if pf, ok := s.Target.AsPostfix(); ok && pf.Primary.Name != nil && len(pf.Suffixes) == 1 && pf.Suffixes[0].Index != nil {
		if b, _, _, found := c.lookup(pf.Primary.Name.Name); found {
			if _, isData := b.(*DataInfo); isData {
				return c.dataLevels(s)
			}
		}
	}
	var minus *Ref
	t, ok := (*target)(nil), false
	var other *target // B of a difference A - B
	if a, b, isDiff, diffOK := c.contrast(s.Target, "summary"); isDiff {
		if !diffOK {
			return nil
		}
		t, ok, minus, other = a, true, &b.ref, b
	} else if t, ok = c.reference(s.Target, "summary", true); !ok {
		return nil
	}
	if m := t.ref.Member; m != "" && !takesMember("summary", m, false) {
		c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "summary shows C, Lambda, partial, communality and regress(...); the draws of Z are not kept")
		return nil
	}
	x := &Summary{At: s.Pos, Target: t.ref, Prob: DefaultProb, Minus: minus, Written: strings.TrimSpace(s.Target.String())}
	set, ok := c.settings(s.Settings, "summary", settingsOf("summary"))
	ok = c.summaryPath(s, &x.Path) && ok
	if a := set["prob"]; a != nil {
		if t.data != nil {
			c.errorf(a.Name.Pos, "", "prob sets the interval of a posterior summary; summary %s describes the data", t.ref.Name)
			ok = false
		}
		ok = c.probability(a.Value, &x.Prob) && ok
	}
	if a := set["sort"]; a != nil {
		if t.data != nil {
			c.errorf(a.Name.Pos, "", "sort orders the rows of a posterior summary; summary %s describes the data", t.ref.Name)
			ok = false
		}
		ok = c.summarySort(a.Value, x) && ok
	}
	for _, name := range []string{"columns", "layout"} {
		if a := set[name]; a != nil && t.data != nil {
			c.errorf(a.Name.Pos, "", "%s sets the table of a posterior summary; summary %s describes the data", name, t.ref.Name)
			ok = false
		}
	}
	if t.data == nil {
		ok = c.summaryLayout(set, t, other, x) && ok
	}
	ok = c.texWidth(set["width"], x) && ok
	if !ok {
		return nil
	}
	return x
}

// DefaultTeXWidth is the text width in pt that a .tex table fits unless
// width = sets another: LaTeX's article class at 10pt (345 pt), the
// narrowest of its sizes.
const DefaultTeXWidth = 345.0

// MinTeXWidth and MaxTeXWidth bound width =: narrower than 100 pt is
// narrower than a column of a three-column page (and than a column of
// names as paragraphs, 90 pt, beside one of numbers), wider than 1,200 pt
// wider than a landscape A3 page (1,191 pt): a number outside is a slip
// (a width in cm or inches, or a paper's size in mm), not a text width.
const (
	MinTeXWidth = 100.0
	MaxTeXWidth = 1200.0
)

// texWidth checks summary's width = N into x: the text width in pt that
// the tabulars of a .tex file fit, which only a .tex file has.
func (c *checker) texWidth(a *dsl.NamedArg, x *Summary) bool {
	if a == nil {
		return true
	}
	if strings.ToLower(filepath.Ext(x.Path)) != ".tex" {
		what := "summary writes no file"
		if x.Path != "" {
			what = x.Path + " is not a .tex file"
		}
		c.errorf(a.Name.Pos, "leave out width, or write a .tex file, as in summary "+x.Written+` to "table.tex", width = 240`,
			"width sets the text width in pt that a .tex file's tabulars fit; %s", what)
		return false
	}
	const hint = `width = 240 for a column of a two-column page, 345 an article's text at 10pt; \the\linewidth in the document prints its own`
	if p, isPrimary := a.Value.AsPrimary(); isPrimary && p.Str != nil {
		c.errorf(a.Value.Pos, hint, "width is the text width in pt, a number, got %s", describeExpr(a.Value))
		return false
	}
	v, _, ok := c.number(a.Value, numScope{})
	if !ok {
		return false
	}
	if !(v >= MinTeXWidth && v <= MaxTeXWidth) {
		c.errorf(a.Value.Pos, hint,
			"width is the text width in pt, from %s to %s, got %s", fmtNum(MinTeXWidth), fmtNum(MaxTeXWidth), fmtNum(v))
		return false
	}
	x.Width = v
	return true
}

// SummaryLayouts returns the layouts of a posterior summary's table
// (layout = ...): one row per scalar (long, the default), or a whole
// correlation matrix as a paper prints it, its lower triangle with the
// columns named across the top (matrix).
func SummaryLayouts() []string { return []string{"long", "matrix"} }

// SummaryStatistics returns the statistics a posterior summary's table
// may show (columns = [...]), in the table's order: interval stands for
// the two bounds of the central interval (q5 and q95, or as prob names
// them), p_positive for a difference's P(>0).
func SummaryStatistics() []string {
	return []string{"mean", "sd", "interval", "q50", "ess_bulk", "ess_tail", "rhat", "mcse_mean", "mcse_sd", "p_positive"}
}

// factorModel reports whether t is of a factor model, which has loadings.
func factorModel(t *target) bool {
	if t.model == nil {
		return false
	}
	_, full := t.model.Model.(inference.FullCorrelation)
	return !full
}

// MatrixColumns are what a correlation matrix laid out as a matrix
// (summary m.C, layout = matrix) may show (columns = [...]): the point
// estimate (mean or q50) of each entry, perhaps with its interval.
func MatrixColumns() []string { return []string{"mean", "q50", "interval"} }

// LoadingsMatrixColumns are what a factor model's loadings laid out as
// a matrix (summary m.Lambda, layout = matrix) may show (columns =
// [...]): the point estimate (mean or q50) of each loading, perhaps with
// its interval, and two more columns after the factors': each column's
// communality h² (m.communality, Σ_h Lambda[j,h]² draw by draw) and its
// uniqueness 1 − h².
func LoadingsMatrixColumns() []string {
	return []string{"mean", "q50", "interval", "communality", "uniqueness"}
}

// LoadingsMatrixDefault is what summary m.Lambda, layout = matrix shows
// without columns =: the mean and interval of each loading, and the
// communality, which every factor analysis reports and which, unlike a
// loading, no rotation of the factors changes.
func LoadingsMatrixDefault() []string { return []string{"mean", "interval", "communality"} }

// PaperStatistics are the statistics of a .tex or .md file of a posterior
// summary in the long layout when columns = does not choose them: those a
// paper's table of estimates prints (and P(>0) for a difference), with
// R-hat to say the chains agree, which fit an article's text width where
// the 11 columns of the table shown do not (the ESS and Monte Carlo
// errors belong to a table of diagnostics: columns = [ess_bulk, ess_tail,
// rhat, mcse_mean]). The .csv file holds every column.
func PaperStatistics() []string { return []string{"mean", "sd", "interval", "rhat", "p_positive"} }

// summaryLayout checks summary's settings layout and columns into x: the
// matrix layout takes a whole C or partial (or a difference of two), and
// shows a point estimate (mean or q50) with, beneath it, the interval;
// columns names statistics of the table, each once, not for a .csv file
// (which holds every column: its format is stable).
func (c *checker) summaryLayout(set map[string]*dsl.NamedArg, t, other *target, x *Summary) bool {
	ok := true
	if a := set["layout"]; a != nil {
		name, good := c.wordSetting(a.Value, "layout", "summary layout", SummaryLayouts(), "matrix")
		ok = good
		if good && name == "matrix" {
			whole := func(t *target, loadings bool) bool {
				m := t.ref.Part()
				return t.model != nil && (m == "C" || m == "partial" || loadings && m == "Lambda") && len(t.ref.Items) == 0 && t.ref.Regress == nil
			}
			switch {
			case !whole(t, other == nil) || other != nil && !whole(other, false):
				what := c.refString(t)
				if other != nil {
					what += " - " + c.refString(other)
				}
				wholes := "write summary " + t.ref.Name + ".C or summary " + t.ref.Name + ".partial, layout = matrix (or a difference of two)"
				if factorModel(t) && other == nil {
					wholes = "write summary " + t.ref.Name + ".C, " + t.ref.Name + ".partial or " + t.ref.Name + ".Lambda, layout = matrix (or a difference of two correlation matrices)"
				}
				c.errorf(a.Value.Pos, wholes, "layout = matrix lays out a whole correlation or partial correlation matrix, or a factor model's loadings; %s is not one", what)
				ok = false
			case other != nil && t.model.Columns != nil && other.model.Columns != nil && !sameColumns(t.model.Columns, other.model.Columns):
				c.errorf(a.Value.Pos, "leave out layout: summary "+c.refString(t)+" - "+c.refString(other)+" pairs their entries one by one, as its labels say",
					"layout = matrix puts each entry of a difference at its row and column, which both fits must have (in any order); %s has %s and %s has %s",
					t.ref.Name, strings.Join(t.model.Columns, ", "), other.ref.Name, strings.Join(other.model.Columns, ", "))
				ok = false
			case x.Sort != "":
				c.errorf(a.Value.Pos, "leave out sort, or layout", "layout = matrix puts each entry at its row and column; sort = %s orders the rows of the long layout", x.Sort)
				ok = false
			default:
				x.Layout = "matrix"
			}
		}
	}
	a := set["columns"]
	if a == nil {
		return ok
	}
	// A long .csv holds every column; a matrix .csv holds the point
	// estimate that columns = chooses (mean or q50), its intervals being
	// in the long .csv.
	if strings.ToLower(filepath.Ext(x.Path)) == ".csv" && x.Layout != "matrix" {
		c.errorf(a.Name.Pos, "leave out columns, or write a .tex or .md file", "a .csv file holds every column of the summary (its format is stable); columns chooses those of the table shown and of a .tex or .md file")
		return false
	}
	items, _ := oneOrList(a.Value)
	if len(items) == 0 {
		c.errorf(a.Value.Pos, "as in columns = [mean, interval, rhat]", "columns names no statistic")
		return false
	}
	allowed := SummaryStatistics()
	example := "mean, interval, rhat"
	loadings := x.Layout == "matrix" && t.ref.Part() == "Lambda"
	switch {
	case loadings:
		allowed, example = LoadingsMatrixColumns(), "mean, interval, communality"
	case x.Layout == "matrix":
		allowed, example = MatrixColumns(), "mean, interval"
	}
	var stats []string
	for _, e := range items {
		id, isName := e.AsName()
		if !isName {
			c.errorf(e.Pos, "as in columns = ["+example+"]", "columns names statistics (%s), got %s", strings.Join(allowed, ", "), describeExpr(e))
			ok = false
			continue
		}
		switch {
		case !slices.Contains(SummaryStatistics(), id.Name) && !slices.Contains(allowed, id.Name):
			if slices.Contains(LoadingsMatrixColumns(), id.Name) {
				model := "m"
				if factorModel(t) {
					model = t.ref.Name
				}
				c.errorf(id.Pos, "as in summary "+model+".Lambda, layout = matrix, columns = [mean, "+id.Name+"]", "columns = [..., %s] is a column of a factor model's loadings laid out as a matrix (summary m.Lambda, layout = matrix)", id.Name)
				ok = false
				continue
			}
			ok = c.oneOf(id, "statistic", allowed) && ok
			continue
		case !slices.Contains(allowed, id.Name):
			what := "a point estimate (mean or q50) and the interval beneath it"
			if loadings {
				what = "a point estimate (mean or q50), perhaps its interval, and the communality and uniqueness"
			}
			c.errorf(id.Pos, "as in columns = ["+example+"]", "layout = matrix shows %s, not %s", what, id.Name)
			ok = false
			continue
		case id.Name == "p_positive" && x.Minus == nil:
			c.errorf(id.Pos, "", "p_positive is the share of a difference's draws above 0; summary %s is not a difference", c.refString(t))
			ok = false
			continue
		case slices.Contains(stats, id.Name):
			c.errorf(id.Pos, "", "columns: %s is named twice", id.Name)
			ok = false
			continue
		}
		stats = append(stats, id.Name)
	}
	if ok && x.Layout == "matrix" && slices.Contains(stats, "mean") && slices.Contains(stats, "q50") {
		c.errorf(a.Value.Pos, "as in columns = [q50, interval]", "layout = matrix shows one point estimate in each cell: mean or q50, not both")
		ok = false
	}
	if ok && x.Layout == "matrix" && !slices.Contains(stats, "mean") && !slices.Contains(stats, "q50") {
		c.errorf(a.Value.Pos, "as in columns = ["+example+"]", "layout = matrix needs a point estimate in each cell: mean or q50")
		ok = false
	}
	x.Statistics = stats
	return ok
}

// dataLevels checks summary DATA[COL, ...]: the counts of each level of
// some columns of a data set, named or numbered as in Y = DATA[COL, ...].
func (c *checker) dataLevels(s *dsl.SummaryStmt) Stmt {
	sel := &DeclareModel{}
	_, pending, ok := c.modelData(s.Target, sel)
	set, good := c.settings(s.Settings, "summary", settingsOf("summary"))
	ok = ok && good
	var path string
	ok = c.summaryPath(s, &path) && ok
	for _, name := range []string{"prob", "sort", "columns", "layout"} {
		if a := set[name]; a != nil {
			c.errorf(a.Name.Pos, "", "%s sets a posterior summary; summary %s counts the levels of data", name, strings.TrimSpace(s.Target.String()))
			ok = false
		}
	}
	x := &Summary{At: s.Pos, Target: Ref{At: s.Target.Pos, Name: sel.Data, Unresolved: pending}, Prob: DefaultProb, Path: path, Written: strings.TrimSpace(s.Target.String())}
	ok = c.texWidth(set["width"], x) && ok
	if !ok {
		return nil
	}
	if !pending {
		x.Columns = sel.Columns
	}
	return x
}

// SummarySorts returns the columns a posterior summary's rows may be
// ordered by (summary m.C, sort = rhat), each worst first: the largest
// R-hat or Monte Carlo standard error, the least ESS.
func SummarySorts() []string { return []string{"rhat", "ess_bulk", "ess_tail", "mcse_mean"} }

// summarySort checks sort = COLUMN into x.
func (c *checker) summarySort(e *dsl.Expr, x *Summary) bool {
	name, ok := c.wordSetting(e, "sort", "sort column", SummarySorts(), "rhat")
	x.Sort = name
	return ok
}

// wordSetting checks the value of a setting that names one of words (as in
// stat = kendall): a bare word, not a string or a number, and one of
// them. what names the words in an error ("unknown statistic"); example is
// the one the hint shows.
func (c *checker) wordSetting(e *dsl.Expr, setting, what string, words []string, example string) (string, bool) {
	id, ok := e.AsName()
	if !ok {
		c.errorf(e.Pos, "as in "+setting+" = "+example, "%s is one of %s, got %s", setting, strings.Join(words, ", "), describeExpr(e))
		return "", false
	}
	if !c.oneOf(id, what, words) {
		return "", false
	}
	return id.Name, true
}

// settings matches NAME = VALUE settings against the names a statement
// takes, reporting unknown and repeated ones.
func (c *checker) settings(args []*dsl.NamedArg, verb string, names []string) (map[string]*dsl.NamedArg, bool) {
	out := map[string]*dsl.NamedArg{}
	ok := true
	for _, a := range args {
		name := a.Name.Name
		switch {
		case !slices.Contains(names, name):
			c.errorf(a.Name.Pos, suggestWord(name, names, verb+" settings: "+strings.Join(names, ", ")), "%s has no setting %s", verb, name)
			ok = false
		case out[name] != nil:
			c.errorf(a.Name.Pos, "", "%s: %s given twice", verb, name)
			ok = false
		default:
			out[name] = a
		}
	}
	return out, ok
}

// probability checks the probability of a central interval, 0 < prob < 1,
// into dst.
func (c *checker) probability(e *dsl.Expr, dst *float64) bool {
	v, _, ok := c.number(e, numScope{})
	if ok && !(v > 0 && v < 1) {
		c.errorf(e.Pos, "prob = 0.9 shows the 5% and 95% quantiles", "prob must be between 0 and 1, got %s", fmtNum(v))
		return false
	}
	if ok {
		*dst = v
	}
	return ok
}

// outputPath checks the path of a file a statement writes: not empty, and
// (when the env can look at files) in a directory that exists and can be
// written. Later loads of the same path in this file are not read at check
// time.
func (c *checker) outputPath(lit *dsl.StringLit, verb, example string) bool {
	if strings.TrimSpace(lit.Value) == "" {
		c.errorf(lit.Pos, "as in "+example, "%s needs a file name", verb)
		return false
	}
	if !c.nameBeforeExtension(lit, verb, example) {
		return false
	}
	if l, ok := c.loads[c.resolve(lit.Value)]; ok {
		c.errorf(lit.Pos, "", "cannot write %s: %s is the file data %s is loaded from (line %d), which this would write over: name another file", lit.Value, lit.Value, l.data, l.at.Line)
		return false
	}
	c.writes[lit.Value] = true
	if files, ok := c.env.(Files); ok {
		if err := files.Writable(lit.Value); err != nil {
			c.errorf(lit.Pos, "", "cannot write %s: %v", lit.Value, err)
			return false
		}
	}
	return true
}

// nameBeforeExtension checks that the path of a file a statement writes
// has a name before its extension: summary m.C to ".csv" wrote a hidden
// file named .csv, and fit m, file = ".fit" kept the fit in one.
func (c *checker) nameBeforeExtension(lit *dsl.StringLit, verb, example string) bool {
	// "." is a directory, which the statement's own checks refuse.
	if base := filepath.Base(lit.Value); base != "." && strings.HasPrefix(base, ".") && filepath.Ext(base) == base {
		c.errorf(lit.Pos, "as in "+example, "%s needs a file name before the extension: %s would be a hidden file named %s", verb, lit.Value, base)
		return false
	}
	return true
}

// SummaryExtensions are the extensions of the files summary ... to
// "PATH" writes, each its format: CSV (every number in full), LaTeX (a
// booktabs tabular) and GitHub-flavoured Markdown.
func SummaryExtensions() []string { return []string{".csv", ".tex", ".md"} }

// PlotExtensions are the extensions of the files plot ... to "PATH"
// writes, each its format.
func PlotExtensions() []string { return []string{".pdf", ".svg", ".png"} }

// summaryPath checks the path of summary ... to "PATH" into dst.
func (c *checker) summaryPath(s *dsl.SummaryStmt, dst *string) bool {
	if s.Path == nil {
		return true
	}
	example := `summary ` + strings.TrimSpace(s.Target.String()) + ` to "table.tex"`
	if !c.outputExtension(s.Path, "summary", "a table", SummaryExtensions(), example) {
		return false
	}
	if !c.outputPath(s.Path, "summary", example) {
		return false
	}
	*dst = s.Path.Value
	return true
}

// outputExtension checks that the file lit names ends with one of exts
// (in any case: .PDF is .pdf), whose format verb writes what.
func (c *checker) outputExtension(lit *dsl.StringLit, verb, what string, exts []string, example string) bool {
	if strings.TrimSpace(lit.Value) == "" {
		c.errorf(lit.Pos, "as in "+example, "%s needs a file name", verb)
		return false
	}
	ext := strings.ToLower(filepath.Ext(lit.Value))
	if slices.Contains(exts, ext) {
		return true
	}
	got := "the file " + lit.Value + " has no extension"
	if ext != "" {
		got = "not " + filepath.Ext(lit.Value)
	}
	c.errorf(lit.Pos, "as in "+example, "%s writes %s as %s, by the file's extension; %s", verb, what, orList(exts), got)
	return false
}

// orList writes words as a, b or c.
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// plot checks plot KIND EXPR [vs NAME] [to "PATH"].
func (c *checker) plot(s *dsl.PlotStmt) Stmt {
	kind := s.Kind.Name
	if !c.oneOf(s.Kind, "plot kind", PlotKinds()) {
		return nil
	}
	x := &PlotStmt{At: s.Pos, Kind: kind, Written: strings.TrimSpace(s.Target.String())}
	if s.Path != nil {
		example := "plot " + kind + " " + strings.TrimSpace(s.Target.String()) + ` to "figure.pdf"`
		if !c.outputExtension(s.Path, "plot", "a figure", PlotExtensions(), example) || !c.outputPath(s.Path, "plot", example) {
			return nil
		}
		x.Path = s.Path.Value
	}
	if s.Vs != nil {
		x.Vs = s.Vs.Name
		if kind != "rmse" {
			c.errorf(s.Vs.Pos, "", "vs belongs to plot rmse, which compares draws with a simulation's truth")
			return nil
		}
	}
	if kind == "graph" {
		return c.plotGraph(s, x)
	}
	if kind == "heatmap" {
		return c.plotHeatmap(s, x)
	}
	if len(s.Settings) > 0 {
		a := s.Settings[0]
		c.errorf(a.Name.Pos, "plot graph takes prob = P, the interval whose exclusion of 0 makes an edge, and edges = N, the most it draws; plot heatmap takes order = dependence (and prob = P for a difference)", "plot %s takes no settings", kind)
		return nil
	}
	if _, _, isDiff := difference(s.Target); isDiff && (kind == "rmse" || kind == "latent") {
		c.errorf(s.Target.Pos, "summary "+strings.TrimSpace(s.Target.String())+" shows the differences, entry by entry; plot trace, hist, acf, rank, pairs and intervals draw them, and plot heatmap and graph those of whole matrices",
			"plot %s does not draw a difference", kind)
		return nil
	}
	switch kind {
	case "rmse":
		return c.plotRMSE(s, x)
	case "latent":
		t, ok := c.reference(s.Target, "plot latent", false)
		if !ok {
			return nil
		}
		if !takesMember("plot latent", t.ref.Member, false) || len(t.ref.Items) != 1 {
			c.errorf(t.ref.At, "write plot latent "+t.ref.Name+".Z[COLUMN]", "plot latent shows one latent column")
			return nil
		}
		x.Target = t.ref
		return x
	}
	// trace, hist, acf, rank, pairs, intervals: scalar draws of C, Lambda
	// or a quantity derived from C, or their differences.
	t, ok := (*target)(nil), false
	if a, b, isDiff, diffOK := c.contrast(s.Target, "plot "+kind); isDiff {
		if !diffOK {
			return nil
		}
		t, ok, x.Minus = a, true, &b.ref
	} else if t, ok = c.reference(s.Target, "plot "+kind, false); !ok {
		return nil
	}
	if m := t.ref.Member; m != "" && !takesMember("plot "+kind, m, false) {
		c.errorf(t.ref.At, "plot latent "+t.ref.Name+".Z[COLUMN] shows a latent column", "the draws of Z are not kept")
		return nil
	}
	switch {
	case kind == "pairs" && t.count >= 0 && t.count < 2:
		hint := "as in plot pairs " + t.ref.Name + ".C"
		if t.count == 1 && t.model != nil && len(t.model.Columns) == 2 {
			// C of two columns has one entry: plot pairs m.C is no remedy.
			hint = "plot hist " + c.refString(t) + " shows its one parameter"
		}
		c.errorf(t.ref.At, hint, "plot pairs needs at least two parameters; %s selects %d", c.refString(t), t.count)
		return nil
	case kind != "pairs" && kind != "intervals" && t.count >= 0 && t.count != 1:
		c.errorf(t.ref.At, "pick one, as in "+oneParameter(t), "plot %s shows one parameter; %s selects %d", kind, c.refString(t), t.count)
		return nil
	}
	x.Target = t.ref
	return x
}

// HeatmapOrders returns the orders of a heatmap's rows and columns
// (order = ...): as the columns are given, the default, or by dependence.
// order = NAME, a fitted model or a simulation, takes NAME's order by
// dependence instead (PlotStmt.OrderOf).
func HeatmapOrders() []string { return []string{"columns", "dependence"} }

// plotHeatmap checks plot heatmap M.C, M.partial or SIM (a simulation's
// true C), or a difference of two fits' C or partial over the same columns
// (in any order), and its settings: order (columns, dependence, or the
// name of a fitted model or simulation whose order by dependence to
// share) and prob (the interval that frames a difference's cells).
func (c *checker) plotHeatmap(s *dsl.PlotStmt, x *PlotStmt) Stmt {
	x.Order = "columns"
	set, ok := c.settings(s.Settings, "plot heatmap", settingsOf("plot heatmap"))
	drawn := c.heatmapTarget(s, x)
	_, _, isDiff := difference(s.Target)
	if a := set["prob"]; a != nil {
		if !isDiff {
			c.errorf(a.Name.Pos, "plot heatmap a.C - b.C, prob = 0.95 frames the differences whose central 95% interval excludes 0",
				"plot heatmap takes prob = P only for a difference, whose cells it frames")
			ok = false
		} else {
			ok = c.probability(a.Value, &x.Prob) && ok
		}
	}
	if a := set["order"]; a != nil {
		ok = c.heatmapOrder(a.Value, x, drawn) && ok
	}
	if !ok || drawn == nil {
		return nil
	}
	return x
}

// heatmapTarget checks what plot heatmap draws into x and returns it
// (for a difference, its first side), or nil after an error.
func (c *checker) heatmapTarget(s *dsl.PlotStmt, x *PlotStmt) *target {
	if a, b, isDiff, diffOK := c.contrast(s.Target, "plot heatmap"); isDiff {
		if !diffOK || !c.heatmapWhole(a) || !c.heatmapWhole(b) {
			return nil
		}
		if a.ref.Name == b.ref.Name {
			c.errorf(b.ref.At, "a heatmap of a difference compares two fits, as in plot heatmap old.C - young.C; summary "+a.ref.Name+".C[x] - "+a.ref.Name+".C[y] compares entries of one",
				"%s − %s is 0 in every entry: both sides are the same matrix of one fit", c.refString(a), c.refString(b))
			return nil
		}
		if a.model.Columns != nil && b.model.Columns != nil && !sameColumns(a.model.Columns, b.model.Columns) {
			c.errorf(b.ref.At, wholeDifferenceHint(s.Target, a, b),
				"plot heatmap of a difference draws one row and column per column of both models, in any order; %s has %s and %s has %s",
				a.ref.Name, strings.Join(a.model.Columns, ", "), b.ref.Name, strings.Join(b.model.Columns, ", "))
			return nil
		}
		x.Target, x.Minus, x.Prob = a.ref, &b.ref, DefaultProb
		return a
	}
	t, good := c.reference(s.Target, "plot heatmap", true)
	if !good {
		return nil
	}
	if t.data != nil && !t.data.HasTruth {
		if t.data.TruthDropped != "" {
			c.errorf(t.ref.At, "plot heatmap of a fitted model's C instead", "data %s has no true C to show: %s", t.ref.Name, t.data.TruthDropped)
			return nil
		}
		c.errorf(t.ref.At, "plot heatmap of a fitted model's C instead", "data %s was loaded, not simulated: it has no true C to show", t.ref.Name)
		return nil
	}
	if t.model != nil && !c.heatmapWhole(t) {
		return nil
	}
	x.Target = t.ref
	return t
}

// heatmapWhole checks that t, a part of a fitted model, is a whole
// correlation matrix a heatmap draws: C or partial.
func (c *checker) heatmapWhole(t *target) bool {
	if !isWholeMatrix(t) {
		c.errorf(t.ref.At, "write plot heatmap "+t.ref.Name+".C or plot heatmap "+t.ref.Name+".partial", "plot heatmap shows a whole correlation matrix")
		return false
	}
	return true
}

// isWholeMatrix reports whether t is a whole C or partial of a model.
func isWholeMatrix(t *target) bool {
	m := t.ref.Part()
	return takesMember("plot heatmap", m, false) && len(t.ref.Items) == 0 && t.ref.Regress == nil
}

// heatmapOrder checks plot heatmap's order = WORD (one of HeatmapOrders)
// or order = NAME, a fitted model (NAME.C or NAME.partial; NAME alone the
// part drawn) or a simulation whose order by dependence the heatmap
// takes, of the same columns as drawn (a target of x), into x.
func (c *checker) heatmapOrder(e *dsl.Expr, x *PlotStmt, drawn *target) bool {
	const hint = "order = dependence, or order = NAME, a fitted model or simulation whose order by dependence to share"
	if id, isName := e.AsName(); isName {
		if slices.Contains(HeatmapOrders(), id.Name) {
			x.Order = id.Name
			return true
		}
		if _, _, _, found := c.lookup(id.Name); !found {
			c.errorf(id.Pos, suggestWord(id.Name, HeatmapOrders(), "heatmap orders: columns, dependence, or the name of a fitted model or simulation whose order by dependence to share"),
				"unknown heatmap order %s", id.Name)
			return false
		}
	} else if pf, isRef := e.AsPostfix(); !isRef || pf.Primary.Name == nil {
		c.errorf(e.Pos, "as in "+hint, "order is columns, dependence or a name, got %s", describeExpr(e))
		return false
	}
	t, ok := c.reference(e, "plot heatmap's order", true)
	if !ok {
		return false
	}
	var cols []string
	switch {
	case t.data != nil && t.data.TruthDropped != "":
		c.errorf(t.ref.At, hint, "data %s has no true C whose order to share: %s", t.ref.Name, t.data.TruthDropped)
		return false
	case t.data != nil && !t.data.HasTruth:
		c.errorf(t.ref.At, hint, "data %s was loaded, not simulated: it has no true C whose order to share", t.ref.Name)
		return false
	case t.data != nil:
		for _, col := range t.data.Columns {
			cols = append(cols, col.Name)
		}
		t.ref.Member = "C"
	case !isWholeMatrix(t):
		c.errorf(t.ref.At, "as in order = "+t.ref.Name+" or order = "+t.ref.Name+".partial",
			"order = NAME shares the order by dependence of a whole correlation matrix; %s is not one", c.refString(t))
		return false
	default:
		cols = t.model.Columns
		if t.ref.Member == "" && drawn != nil && drawn.model != nil {
			t.ref.Member = drawn.ref.Part() // order = old draws young.partial in old.partial's order
		} else if t.ref.Member == "" {
			t.ref.Member = "C" // a simulation's truth, in old.C's order
		}
	}
	var drawnCols []string
	switch {
	case drawn == nil: // an error already said what is wrong with it
	case drawn.model != nil:
		drawnCols = drawn.model.Columns
	default:
		for _, col := range drawn.data.Columns {
			drawnCols = append(drawnCols, col.Name)
		}
	}
	if cols != nil && drawnCols != nil && !sameColumns(cols, drawnCols) {
		c.errorf(t.ref.At, "a heatmap shares the order of another of the same columns, in any order",
			"order = %s takes the order of %s's columns, which are not %s's: %s has %s and %s has %s",
			strings.TrimSpace(e.String()), t.ref.Name, drawn.ref.Name, t.ref.Name, strings.Join(cols, ", "), drawn.ref.Name, strings.Join(drawnCols, ", "))
		return false
	}
	x.OrderOf = &t.ref
	return true
}

// plotGraph checks plot graph M.partial and plot graph M.C (whole, of a
// fitted model), or a difference of two of these over the same columns,
// and its settings prob and edges.
func (c *checker) plotGraph(s *dsl.PlotStmt, x *PlotStmt) Stmt {
	x.Prob = DefaultProb
	set, ok := c.settings(s.Settings, "plot graph", settingsOf("plot graph"))
	if a := set["prob"]; a != nil {
		ok = c.probability(a.Value, &x.Prob) && ok
	}
	if a := set["edges"]; a != nil {
		v, _, good := c.integerAtLeast(a.Value, numScope{}, "edges", minimum{value: 1, hint: "edges = N draws the N strongest edges; a large N draws every one"})
		x.Edges, ok = v, good && ok
	}
	whole := func(t *target) bool {
		if t.data != nil {
			c.errorf(t.ref.At, "plot heatmap "+t.ref.Name+" shows a simulation's true C", "plot graph draws a fitted model's partial correlations or C; %s is a data set", t.ref.Name)
			return false
		}
		if m := t.ref.Part(); !takesMember("plot graph", m, false) || len(t.ref.Items) > 0 || t.ref.Regress != nil {
			c.errorf(t.ref.At, "write plot graph "+t.ref.Name+".partial or plot graph "+t.ref.Name+".C",
				"plot graph draws a whole matrix of partial correlations or correlations, one node per column; %s is not one", c.refString(t))
			return false
		}
		return true
	}
	if a, b, isDiff, diffOK := c.contrast(s.Target, "plot graph"); isDiff {
		if !diffOK || !whole(a) || !whole(b) {
			return nil
		}
		if a.model != nil && b.model != nil && a.model.Columns != nil && b.model.Columns != nil && !sameColumns(a.model.Columns, b.model.Columns) {
			c.errorf(b.ref.At, wholeDifferenceHint(s.Target, a, b),
				"plot graph of a difference draws one node per column of both models, in any order; %s has %s and %s has %s",
				a.ref.Name, strings.Join(a.model.Columns, ", "), b.ref.Name, strings.Join(b.model.Columns, ", "))
			return nil
		}
		x.Target, x.Minus = a.ref, &b.ref
	} else if t, good := c.reference(s.Target, "plot graph", true); !good || !whole(t) {
		return nil
	} else {
		x.Target = t.ref
	}
	if !ok {
		return nil
	}
	return x
}

// sameColumns reports whether a and b hold the same columns, in any order.
func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// plotRMSE checks plot rmse MODEL [vs DATA] and plot rmse [M1, M2] [vs DATA].
func (c *checker) plotRMSE(s *dsl.PlotStmt, x *PlotStmt) Stmt {
	exprs, isList := oneOrList(s.Target)
	if isList && len(exprs) == 0 {
		c.errorf(s.Target.Pos, "as in plot rmse [m1, m2] vs sim", "plot rmse needs at least one model")
		return nil
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
			if d.TruthDropped != "" {
				c.errorf(s.Vs.Pos, "plot rmse compares with the truth of simulated data", "data %s has no known truth: %s", s.Vs.Name, d.TruthDropped)
			} else {
				c.errorf(s.Vs.Pos, "plot rmse compares with the truth of simulated data", "data %s has no known truth", s.Vs.Name)
			}
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

// impute checks impute NAME [to "PATH"] [, draws = "PATH", prob = P].
func (c *checker) impute(s *dsl.ImputeStmt) Stmt {
	m, _, ok := c.modelBinding(s.Model, true, "impute")
	x := &Impute{At: s.Pos, Model: s.Model.Name, Prob: DefaultProb}
	if ix := s.Columns; ix != nil && ok && m != nil {
		ok = c.imputeColumns(ix, m, x)
	}
	if s.Path != nil {
		ok = c.outputPath(s.Path, "impute", `impute m to "cells.csv"`) && ok
		x.Path = s.Path.Value
	}
	set, good := c.settings(s.Settings, "impute", settingsOf("impute"))
	ok = ok && good
	if a := set["draws"]; a != nil {
		p, isPrim := a.Value.AsPrimary()
		if !isPrim || p.Str == nil {
			c.errorf(a.Value.Pos, `as in impute m to "cells.csv", draws = "cell_draws.csv"`, "draws names the file for every draw of the missing cells, got %s", describeExpr(a.Value))
			ok = false
		} else {
			ok = c.outputPath(p.Str, "draws", `draws = "cell_draws.csv"`) && ok
			x.DrawsPath = p.Str.Value
			if x.DrawsPath == x.Path {
				c.errorf(a.Value.Pos, "", "draws and the cells would both be written to %s", x.Path)
				ok = false
			}
		}
	}
	if a := set["prob"]; a != nil {
		ok = c.probability(a.Value, &x.Prob) && ok
	}
	if !ok {
		return nil
	}
	return x
}

// imputeColumns checks the columns of impute m[COL, ...]: at least one,
// each once.
func (c *checker) imputeColumns(ix *dsl.Index, m *ModelInfo, x *Impute) bool {
	one, two := "income", "income, age"
	if len(m.Columns) >= 2 {
		one, two = indexList(m.Columns[:1]), indexList(m.Columns[:2])
	}
	example := "as in impute " + x.Model + "[" + one + "] or impute " + x.Model + "[" + two + "]"
	if len(ix.Items) == 0 {
		c.errorf(ix.Pos, example+", or impute "+x.Model+" for every column", "impute %s[] names no column", x.Model)
		return false
	}
	cols, items, unresolved, ok := c.modelColumns(ix, m, x.Model)
	if !ok {
		return false
	}
	x.Items, x.Unresolved = items, unresolved
	for k, j := range cols {
		if slices.Contains(cols[:k], j) {
			c.errorf(ix.Items[k].Pos, example, "column %s is named twice", m.Columns[j])
			return false
		}
	}
	x.Columns = cols
	return true
}

// export checks export NAME to "PATH" and export REF to "PATH".
func (c *checker) export(s *dsl.ExportStmt) Stmt {
	t, ok := c.reference(s.Target, "export", true)
	if ok && t.data != nil {
		if !c.outputPath(s.Path, "export", `export m to "draws.csv"`) {
			return nil
		}
		return &Export{At: s.Pos, Data: t.ref.Name, Path: s.Path.Value}
	}
	if ok && t.ref.Member != "" && !takesMember("export", t.ref.Member, false) {
		c.errorf(t.ref.At, `impute `+t.ref.Name+` to "cells.csv" writes the missing cells`, "the draws of %s.Z are not kept; export writes the draws of C, Lambda, partial, communality and regress(...)", t.ref.Name)
		ok = false
	}
	ok = c.outputPath(s.Path, "export", `export m to "draws.csv"`) && ok
	if !ok {
		return nil
	}
	x := &Export{At: s.Pos, Model: t.ref.Name, Path: s.Path.Value}
	if t.ref.Member != "" {
		x.Part = &t.ref
	}
	return x
}

// show checks show NAME and show [NAME, ...].
func (c *checker) show(s *dsl.ShowStmt) Stmt {
	exprs, isList := oneOrList(s.Target)
	if isList && len(exprs) == 0 {
		c.errorf(s.Target.Pos, "as in show [m1, m2]", "show needs at least one name")
		return nil
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
		if len(exprs) > 1 {
			// Several names: their fits side by side.
			if _, _, good := c.modelBinding(id, true, "showing fits side by side"); !good {
				ok = false
				continue
			}
			// As compare refuses: two rows of one fit compare nothing.
			if slices.Contains(x.Names, id.Name) {
				c.errorf(id.Pos, "", "model %s is listed twice", id.Name)
				ok = false
				continue
			}
		} else if _, _, _, found := c.lookup(id.Name); !found {
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

// oneOrList returns the items of a list [A, B, ...] (isList true), or e
// alone, for the statements that take one name or several.
func oneOrList(e *dsl.Expr) (items []*dsl.Expr, isList bool) {
	if p, ok := e.AsPrimary(); ok && p.List != nil {
		return p.List.Items, true
	}
	return []*dsl.Expr{e}, false
}

// oneParameter is an example of one parameter of the part t selects, for
// a hint: m.C[1, 2] for C, m.partial[1, 2], m.Lambda[1, 1],
// m.communality[1], and the regression's own formula with [R2].
func oneParameter(t *target) string {
	name := t.ref.Name
	switch t.ref.Member {
	case "partial":
		return name + ".partial[1, 2]"
	case "Lambda":
		return name + ".Lambda[1, 1]"
	case "communality":
		return name + ".communality[1]"
	case "regress":
		return t.regressText() + "[" + r2Name + "]"
	}
	return name + ".C[1, 2]"
}
