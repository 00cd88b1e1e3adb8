package session

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// dataSummaryTable describes each column of a data set: its levels, its
// missing cells and its smallest and largest values.
func dataSummaryTable(d *Dataset) *Table {
	t := &Table{Header: []string{"column", "levels", "missing", "min", "max"},
		Caption: fmt.Sprintf("columns of %s (%d rows): levels counts a column's distinct observed values, missing its missing cells; summary %s[COLUMN, ...] counts each level", d.Name, d.N(), d.Name)}
	for j, col := range d.Columns {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range col {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		t.Rows = append(t.Rows, []string{d.Names[j], strconv.Itoa(countLevels(col)), strconv.Itoa(countMissing(col)),
			formatValue(d, j, lo), formatValue(d, j, hi)})
		t.exact = append(t.exact, []string{d.Names[j], strconv.Itoa(countLevels(col)), strconv.Itoa(countMissing(col)),
			exactValue(d, j, lo), exactValue(d, j, hi)})
	}
	return t
}

// levelGroups is the number of groups of about equal counts into which
// levelCountsTable puts the levels of a column of more than maxLevelRows.
const (
	maxLevelRows = 20
	levelGroups  = 5
)

// levelCountsTable counts the cells of each observed level of the columns
// cols of d, lowest first, with their percent of the column's observed
// cells, then the missing cells (level NA): what a survey's rare answers
// and almost constant questions are seen by. A column of more than
// maxLevelRows levels (counts, continuous data) is shown in levelGroups
// ranges of about equal counts instead.
func levelCountsTable(d *Dataset, cols []string) *Table {
	t := &Table{Header: []string{"column", "level", "count", "percent"},
		Caption: fmt.Sprintf("levels of %s (%d rows): count of each observed level, lowest first, and its percent of the column's observed cells; NA counts the missing cells; a column of more than %d levels in %d ranges of about equal counts",
			d.Name, d.N(), maxLevelRows, levelGroups)}
	for _, name := range cols {
		j := d.column(name)
		col := d.Columns[j]
		counts := map[float64]int{}
		for _, v := range col {
			if !math.IsNaN(v) {
				counts[v]++
			}
		}
		values := slices.Sorted(maps.Keys(counts))
		observed := len(col) - countMissing(col)
		row := func(level string, n int) {
			share := 100 * float64(n) / float64(observed)
			t.Rows = append(t.Rows, []string{columnText(name), level, strconv.Itoa(n), fmt.Sprintf("%.1f", share)})
			t.exact = append(t.exact, []string{columnText(name), level, strconv.Itoa(n), fullNum(share)})
		}
		if len(values) <= maxLevelRows {
			for _, v := range values {
				row(formatValue(d, j, v), counts[v])
			}
		} else {
			// Ranges of whole levels, each closed once it holds its share
			// of the observed cells.
			g, first, n, done := 0, 0, 0, 0
			for k, v := range values {
				n += counts[v]
				if k == len(values)-1 || done+n >= observed*(g+1)/levelGroups {
					row(formatValue(d, j, values[first])+"–"+formatValue(d, j, v), n)
					g, first, done, n = g+1, k+1, done+n, 0
				}
			}
		}
		t.Rows = append(t.Rows, []string{columnText(name), "NA", strconv.Itoa(len(col) - observed), "NA"})
		t.exact = append(t.exact, t.Rows[len(t.Rows)-1])
	}
	return t
}

// formatValue prints a cell value for a table, as its label for a text
// column and a number to 6 significant digits.
func formatValue(d *Dataset, j int, v float64) string {
	return cellText(d, j, v, 6)
}

// exactValue prints a cell value for a file, as its label for a text
// column and a number in the fewest digits that read back as it: an
// imputed income of 54091.04 is that observed value, not 54091, and two
// observed values that agree in 6 digits stay two.
func exactValue(d *Dataset, j int, v float64) string {
	return cellText(d, j, v, -1)
}

// cellText is formatValue and exactValue with digits significant digits
// (-1: as many as the value needs).
func cellText(d *Dataset, j int, v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "NA"
	}
	if l := d.Labels[j]; l != nil {
		if k := int(v) - 1; k >= 0 && k < len(l) {
			return l[k]
		}
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// figureName turns a plot statement into a file-name-safe figure name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func figureName(kind, target string) string {
	return strings.Trim(unsafeName.ReplaceAllString(kind+"-"+target, "-"), "-")
}

// emit sends a figure to the output: to a file for the CLI, as a display
// otherwise. A file's name is the figure's name, numbered from -2 when the
// session has written a figure of that name already (the same plot drawn
// again after an extension, say), so that no figure of a script replaces
// another.
func (s *Session) emit(name string, f *figure.Figure, out Output) error {
	if to, ok := out.(*figureTo); ok {
		return s.writeFigure(to, f)
	}
	if fw, ok := out.(FigureWriter); ok {
		if s.figureFiles == nil {
			s.figureFiles = map[string]bool{}
		}
		unique := name
		for k := 2; s.figureFiles[unique]; k++ {
			unique = fmt.Sprintf("%s-%d", name, k)
		}
		s.figureFiles[unique] = true
		return fw.WriteFigure(unique, f)
	}
	out.Display(figureBundle(f), "")
	return nil
}

// plot draws one figure.
func (s *Session) plot(x *compiler.PlotStmt, out Output) error {
	ref := &x.Target
	name := figureName(x.Kind, refText(ref))
	if reg := ref.Regress; reg != nil {
		// Named by the regression, so that another's rows do not
		// overwrite its files: hist-m.regress-Y-X1-X2-R2.
		if m, ok := s.models[ref.Name]; ok && m.Fit != nil {
			target := ref.Name + "." + regressText(m, reg)
			if len(ref.Index) == 1 {
				if a := ref.Index[0]; a >= 0 && a < len(reg.Predictors) {
					target += "[beta " + m.Names()[reg.Predictors[a]] + "]"
				} else if a == len(reg.Predictors) {
					target += "[R2]"
				}
			}
			name = figureName(x.Kind, target)
		}
	}
	switch x.Kind {
	case "heatmap":
		return s.plotHeatmap(x, name, out)
	case "rmse":
		// Named by every fit it draws: rmse-a-b is not rmse-a.
		return s.plotRMSE(x, figureName(x.Kind, strings.Join(x.Models(), "-")), out)
	case "latent":
		return s.plotLatent(x, name, out)
	case "graph":
		return s.plotGraph(x, name, out)
	}
	_, ps, what, thin, notes, err := s.plotParams(x)
	if err != nil {
		return err
	}
	if x.Minus != nil {
		name = figureName(x.Kind, refText(ref)+"-"+refText(x.Minus))
	}
	var f *figure.Figure
	switch x.Kind {
	case "trace", "hist", "acf", "rank":
		if len(ps) != 1 {
			return fmt.Errorf("plot %s shows one parameter; %s selects %d: pick one, as in %s.C[1, 2]", x.Kind, refText(ref), len(ps), ref.Name)
		}
		p := ps[0]
		switch x.Kind {
		case "trace":
			f, err = figure.TraceThinned(p.figureTitle(ref.Name), p.draws, 0, thin, p.truth)
		case "hist":
			f, err = figure.Histogram(p.figureTitle(ref.Name), inference.NonEmptyShortest(p.draws), p.truth)
		case "acf":
			f, err = figure.ACF(p.figureTitle(ref.Name), inference.NonEmptyShortest(p.draws), 40)
		case "rank":
			f, err = figure.Rank(p.figureTitle(ref.Name), inference.NonEmptyShortest(p.draws), 0)
		}
	case "intervals":
		labels := make([]string, len(ps))
		draws := make([][][]float64, len(ps))
		truth := make([]float64, len(ps))
		for k, p := range ps {
			labels[k], truth[k] = p.label, p.truth
			draws[k] = inference.NonEmptyShortest(p.draws)
		}
		f, err = figure.PosteriorIntervals(what, intervalItems(x), labels, draws, truth)
	case "pairs":
		const most = 4
		if len(ps) > most {
			ps = ps[:most]
		}
		if len(ps) < 2 {
			return fmt.Errorf("plot pairs needs at least two parameters; %s selects %d", refText(ref), len(ps))
		}
		names := make([]string, len(ps))
		draws := make([][]float64, len(ps))
		for k, p := range ps {
			names[k] = p.label
			for _, c := range inference.NonEmptyShortest(p.draws) {
				draws[k] = append(draws[k], c...)
			}
		}
		f, err = figure.Pairs("pairs of "+what, names, draws)
	default:
		return fmt.Errorf("unknown plot kind %q", x.Kind)
	}
	if err != nil {
		return err
	}
	// A difference's notes, as its summary's caption gives them: the
	// columns its fits are taken to be independent, a scalar 0 in every
	// draw.
	for _, n := range notes {
		out.Stream("stdout", "note: "+n+"\n")
	}
	return s.emit(name, f, out)
}

// intervalItems says what the items of plot intervals are, for its x axis.
func intervalItems(x *compiler.PlotStmt) string {
	what := map[string]string{"": "entry of C", "C": "entry of C", "partial": "partial correlation", "communality": "communality",
		"regress": "coefficient", "Lambda": "loading"}[x.Target.Member]
	if x.Minus != nil {
		what = "difference"
	}
	return what
}

// plotParams returns the scalars a plot of draws shows, with their fit,
// what they are (for a title), the fit's thinning (1 for a difference
// of fits thinned differently, whose draws' iterations are not one
// series) and, for a difference, its notes (contrast.notes).
func (s *Session) plotParams(x *compiler.PlotStmt) (m *Model, ps []param, what string, thin int, notes []string, err error) {
	if x.Minus == nil {
		if m, ps, err = s.params(&x.Target); err != nil {
			return nil, nil, "", 0, nil, err
		}
		return m, ps, partLabel(m, &x.Target), max(m.Fit.Thin, 1), nil, nil
	}
	d, err := s.contrastParams(&x.Target, x.Minus)
	if err != nil {
		return nil, nil, "", 0, nil, err
	}
	thin = 1
	if d.a.Fit.Thin == d.b.Fit.Thin {
		thin = max(d.a.Fit.Thin, 1)
	}
	return d.a, d.ps, d.label, thin, d.notes, nil
}

// plotRMSE draws the RMSE of each draw of C to the simulation's truth,
// iteration by iteration, for one or more models fitted to simulated data.
func (s *Session) plotRMSE(x *compiler.PlotStmt, name string, out Output) error {
	series := map[string][]float64{}
	warmup, thin := 0, 0 // the fits' thinning when they share it, else 1 (x is then the draw)
	for _, mn := range x.Models() {
		m, err := s.fitted(mn)
		if err != nil {
			return err
		}
		if d, ok := s.data[x.Vs]; ok && d != m.Data {
			return fmt.Errorf("model %s was fitted to the data %s held before it was bound again: the truth of the data %s holds now is not the one to compare with (declare and fit %s again on them for that)", mn, x.Vs, x.Vs, mn)
		}
		truth := truthFor(m)
		if truth == nil {
			return fmt.Errorf("model %s was fitted to data %s, which has no known truth; plot rmse needs simulated data", mn, m.Data.Name)
		}
		r := m.Fit
		switch t := max(r.Thin, 1); thin {
		case 0:
			thin = t
		case t:
		default:
			thin = 1
		}
		// The first chain: warm-up draws (kept when the data have a truth)
		// followed by the post-warm-up draws.
		var trace [][]float64
		if len(r.WarmupC) > 0 {
			trace = append(trace, r.WarmupC[0]...)
			warmup = max(warmup, len(r.WarmupC[0]))
		}
		trace = append(trace, r.C[0]...)
		label := fmt.Sprintf("%s (%s)", mn, ranMethod(r))
		if len(r.C) > 1 {
			label = fmt.Sprintf("%s (%s, chain 1 of %d)", mn, ranMethod(r), len(r.C)) // not the chains pooled
		}
		series[label] = inference.RMSETrace(trace, truth)
	}
	f, err := figure.RMSEThinned("RMSE of C to the truth", series, warmup, thin)
	if err != nil {
		return err
	}
	return s.emit(name, f, out)
}

// dataText names the data set model m was declared on: its name, and a
// note when that name has been bound to other data since.
func (s *Session) dataText(m *Model) string { return dataTextIn(m, s.data) }

// dataTextIn is dataText with the data sets bound now given: the session's,
// or a view's (Inspect).
func dataTextIn(m *Model, data map[string]*Dataset) string {
	name := m.Data.Name
	if d, ok := data[name]; ok && d != m.Data {
		return name + " (as bound when " + m.Decl.Name + " was declared; " + name + " names other data now)"
	}
	return name
}

// plotLatent plots the posterior mean of one latent column against the
// observed levels: the latent values respect the observed order.
func (s *Session) plotLatent(x *compiler.PlotStmt, name string, out Output) error {
	ref := &x.Target
	m, err := s.fitted(ref.Name)
	if err != nil {
		return err
	}
	if len(ref.Index) != 1 {
		return fmt.Errorf("plot latent shows one column: write %s.Z[COLUMN]", ref.Name)
	}
	j := ref.Index[0]
	if j < 0 || j >= len(m.Cols) {
		return fmt.Errorf("%s: column index out of range", refText(ref))
	}
	var labels []string // a text column's levels are named by their labels
	if c := m.Cols[j]; c < len(m.Data.Labels) {
		labels = m.Data.Labels[c]
	}
	f, err := figure.LatentLabelled(fmt.Sprintf("posterior mean of %s.Z[%s] against its observed levels", ref.Name, m.Names()[j]),
		m.Data.Columns[m.Cols[j]], m.Fit.ZMean[j], labels)
	if err != nil {
		return err
	}
	return s.emit(name, f, out)
}

// show displays a binding: the head of a data set, a model's declaration
// and fit, or a side-by-side table of several fits.
func (s *Session) show(x *compiler.Show, out Output) error {
	if len(x.Names) > 1 {
		return s.compare(x.Names, out)
	}
	name := x.Names[0]
	if d, ok := s.data[name]; ok {
		// The statement before, binding it, has just described it.
		if s.previous != name {
			out.Stream("stdout", describeData(d)+"\n")
		}
		head := dataHead(d, 6)
		b := head.Bundle()
		if s.opts.TextRows > 0 {
			// The row number and the first columns, then the last: a
			// survey of 40 questions is some 200 characters wide.
			b["text/plain"] = head.narrow(textWidth, 1, 2, fmt.Sprintf("summary %s describes every column, export %s to \"%s.csv\" writes them", name, name, name)).PlainText()
		}
		out.Display(b, "")
		out.Display(s.tableBundle(dataSummaryTable(d), "copulang run prints every column", false), "")
		return nil
	}
	m, err := s.model(name)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model %s: %s\n  data %s: %d rows; columns %s\n", name, modelKind(m.Decl.Model), s.dataText(m), m.Data.N(), strings.Join(m.Names(), ", "))
	if m.Fit == nil {
		fmt.Fprintf(&b, "  not fitted yet: `fit %s`\n", name)
	} else {
		r := m.Fit
		fmt.Fprintf(&b, "  fitted with %s: %s, %d warm-up + %s, thin %d, seed %d, %s",
			fitRan(m.Plan, r), plural(len(r.C), "chain"), r.Warmup, plural(ranIter(r), "iteration"), r.Thin, r.Seed, roundDuration(r.Elapsed))
		if r.Interrupted {
			b.WriteString(" (interrupted: draws so far kept)")
		}
		if m.FitFile != "" {
			fmt.Fprintf(&b, "; read from %s", m.FitFile)
		}
		b.WriteByte('\n')
	}
	out.Stream("stdout", b.String())
	return nil
}

// ranIter is the post-warm-up iterations whose draws every chain of r
// holds: r.Iter, the iterations asked for, unless the run was interrupted.
// Then the chains were cut to the shortest, and after an interrupted
// extension of an interrupted fit a chain that had run further before
// continues from where it stopped while the draws cut from it are gone, so
// what a chain holds can be fewer than the iterations the shortest ran:
// count the kept draws (times the thinning).
func ranIter(r *inference.Result) int {
	if !r.Interrupted || len(r.C) == 0 {
		return r.Iter
	}
	return len(r.C[0]) * r.Thin
}

// dataHead is a table of the first rows of a data set: their numbers, and
// for derived data their source rows (as export writes them), then their
// cells.
func dataHead(d *Dataset, rows int) *Table {
	lead := []string{"row"}
	if d.SourceRows != nil {
		lead = append(lead, SourceRowName(d.Names))
	}
	t := &Table{Header: append(lead, d.Names...), Caption: fmt.Sprintf("first rows of %s", d.Name)}
	for i := 0; i < min(rows, d.N()); i++ {
		row := []string{strconv.Itoa(i + 1)}
		if d.SourceRows != nil {
			row = append(row, strconv.Itoa(d.SourceRows[i]+1))
		}
		for j := range d.Columns {
			row = append(row, formatValue(d, j, d.Columns[j][i]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// compare is the timing and efficiency table of several fitted models.
func (s *Session) compare(names []string, out Output) error {
	t := &Table{Header: []string{"model", "method", "chains", "iterations", "seconds", "ms/iter", "min_ess_bulk", "min_ess/s", "mean_rmse"}}
	for _, n := range names {
		m, err := s.fitted(n)
		if err != nil {
			return err
		}
		r := m.Fit
		iters := 0
		for _, it := range r.Iterations {
			iters += it
		}
		minESS := math.Inf(1)
		for _, ps := range r.Summary() {
			if !math.IsNaN(ps.ESSBulk) {
				minESS = math.Min(minESS, ps.ESSBulk)
			}
		}
		secs := r.Elapsed.Seconds()
		perIter := 1000 * secs / math.Max(float64(iters)/float64(max(len(r.C), 1)), 1)
		// The RMSE of C to the truth, averaged over every kept draw: one
		// draw's varies from draw to draw by more than fits differ.
		rmse := "NA"
		if truth := truthFor(m); truth != nil {
			sum, n := 0.0, 0
			for _, chain := range r.C {
				for _, v := range inference.RMSETrace(chain, truth) {
					sum += v
					n++
				}
			}
			if n > 0 {
				rmse = strconv.FormatFloat(sum/float64(n), 'f', 4, 64)
			}
		}
		essText, essRate := "NA", "NA"
		if !math.IsInf(minESS, 0) {
			essText = strconv.FormatFloat(minESS, 'f', 0, 64)
			essRate = strconv.FormatFloat(minESS/secs, 'f', 1, 64)
		}
		t.Rows = append(t.Rows, []string{n, ranMethod(r), strconv.Itoa(len(r.C)), strconv.Itoa(iters),
			strconv.FormatFloat(secs, 'f', 2, 64), strconv.FormatFloat(perIter, 'f', 2, 64), essText, essRate, rmse})
	}
	t.Caption = "fits side by side (ms/iter is wall-clock per iteration of one chain, chains in parallel; mean_rmse, for simulated data, is the RMSE of C to the truth averaged over the kept draws)"
	out.Display(t.Bundle(), "")
	return nil
}
