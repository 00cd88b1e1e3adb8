package session

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// This file holds the posterior summary: its table (names, the interval of
// summary ..., prob =, Monte Carlo standard errors) and the convergence
// diagnostics a fit reports (C and, aligned, Lambda).

// summary shows the posterior summary table of a fitted model's parameters,
// or a description of a data set's columns.
func (s *Session) summary(ctx context.Context, x *compiler.Summary, out Output) error {
	if d, ok := s.data[x.Target.Name]; ok && x.Target.Member == "" {
		t := dataSummaryTable(d)
		if x.Columns != nil {
			t = levelCountsTable(d, x.Columns)
			out.Display(t.Bundle(), "")
		} else {
			out.Display(s.tableBundle(t, "copulang run prints every column", false), "")
		}
		if x.Path == "" {
			return nil
		}
		f := &tableFile{table: t, statement: summaryStatement(x), textWidth: x.Width,
			made: []madeOf{{title: "data " + d.Name, rows: s.dataProvenance(d)}}}
		return s.writeTable(ctx, f, x.Path, out)
	}
	if x.Minus != nil {
		return s.summaryContrast(ctx, x, out)
	}
	get := s.params
	if x.Prob == compiler.DefaultProb {
		get = s.summaryParams
	}
	m, ps, err := get(&x.Target)
	if err != nil {
		return err
	}
	names := make([]string, len(ps))
	for k, p := range ps {
		names[k] = p.key
	}
	sums := paramSummaries(m, ps, x.Prob)
	if x.Sort != "" {
		names, sums = sortSummaries(names, sums, x.Sort)
	}
	t := posteriorTable(names, sums, x.Prob)
	what := partLabel(m, &x.Target)
	if x.Target.Regress != nil {
		what += " (the latent regression implied by C)"
	}
	lo, hi := intervalColumns(x.Prob)
	t.Caption = fmt.Sprintf("posterior of %s: %s in %s; %s and %s bound the central %s%% interval",
		what, plural(m.Fit.KeptDraws(), "draw"), plural(chainsWithDraws(m.Fit), "chain"), lo, hi, percent(x.Prob))
	if x.Sort != "" {
		t.Caption += "; rows ordered by " + x.Sort + ", worst first"
	}
	if x.Target.Member == "Lambda" {
		t.Caption += "; " + loadingsNote(m)
	}
	f := &tableFile{statement: summaryStatement(x), textWidth: x.Width}
	if x.Layout == "matrix" && x.Target.Member == "Lambda" {
		err = f.shapeLoadings(t, x, m, sums)
	} else {
		err = f.shape(t, x, ps, sums)
	}
	if err != nil {
		return err
	}
	out.Display(s.tableBundle(f.table, wholeSummary(&x.Target, m), x.Sort != ""), "")
	if x.Path == "" {
		return nil
	}
	f.made = []madeOf{{title: "fit of model " + x.Target.Name, rows: s.provenance(x.Target.Name, m)}}
	f.csvHeader, f.csvRows = posteriorCSV(names, sums, ps, x.Prob, nil)
	return s.writeTable(ctx, f, x.Path, out)
}

// shape makes f's tables of the posterior table t of the scalars ps, with
// their summaries sums, as summary x lays them out: the table shown, the
// table of a .tex or .md file (the statistics a paper prints, unless
// columns = names them) and, with layout = matrix, the matrix, whose
// table the caption of t heads.
func (f *tableFile) shape(t *Table, x *compiler.Summary, ps []param, sums []inference.Summary) error {
	if x.Layout != "matrix" {
		f.table, f.paper = shapePosterior(t, x)
		if x.Statistics == nil {
			f.notes = append(f.notes, "columns: "+strings.Join(f.paper.Header[1:], ", ")+" (the table shown and a .csv file have every column; columns = [...] chooses them)")
		}
		return nil
	}
	mt, err := newMatrixTable(ps, sums, x.Statistics, x.Minus != nil)
	if err != nil {
		return err
	}
	mt.textWidth = x.Width
	f.matrix, f.table = mt, mt.table()
	lo, hi := intervalColumns(x.Prob)
	layout := "lower triangle: the posterior " + mt.pointName + " of each entry (two decimals)"
	if mt.interval {
		layout += fmt.Sprintf(" and its [%s, %s]", lo, hi)
	}
	caption, _, _ := strings.Cut(t.Caption, ";") // what and its draws
	f.table.Caption = caption + "; " + layout
	if mt.interval {
		f.table.Caption += fmt.Sprintf(", the central %s%% interval", percent(x.Prob))
	}
	for _, c := range strings.Split(t.Caption, "; ")[1:] {
		if !strings.Contains(c, "bound the central") && !strings.HasPrefix(c, "P(>0)") { // the matrix shows neither
			f.table.Caption += "; " + c
		}
	}
	return nil
}

// shapeLoadings makes f's tables of the posterior table t of a whole
// m.Lambda, with its summaries sums (row by row), laid out as
// factor-analysis papers print loadings (layout = matrix): a row per
// column, a column per factor, then the communality (and uniqueness) as
// columns = asks; the caption of t, but for the interval's columns,
// heads it, saying how the loadings were aligned.
func (f *tableFile) shapeLoadings(t *Table, x *compiler.Summary, m *Model, sums []inference.Summary) error {
	cps, err := derivedParams(m, &compiler.Ref{Name: x.Target.Name, Member: "communality"})
	if err != nil {
		return err
	}
	lt, err := newLoadingsTable(m.Names(), m.Fit.K, sums, paramSummaries(m, cps, x.Prob), x.Statistics)
	if err != nil {
		return err
	}
	lt.textWidth = x.Width
	f.matrix, f.table = lt, lt.table()
	lo, hi := intervalColumns(x.Prob)
	layout := fmt.Sprintf("a row per column, a column per factor: the posterior %s of each loading (two decimals)", lt.pointName)
	if lt.interval {
		layout += fmt.Sprintf(" and its [%s, %s], the central %s%% interval", lo, hi, percent(x.Prob))
	}
	if lt.has("communality") {
		layout += fmt.Sprintf("; communality: the posterior %s of %s.communality, Σ_h Lambda[j,h]² draw by draw", lt.pointName, x.Target.Name)
		if lt.pointName == "mean" {
			layout += " (its mean exceeds the sum of the squared mean loadings by their variances)"
		}
	}
	if lt.has("uniqueness") {
		layout += "; uniqueness: 1 − communality"
	}
	caption, _, _ := strings.Cut(t.Caption, ";") // what and its draws
	f.table.Caption = caption + "; " + layout
	for _, c := range strings.Split(t.Caption, "; ")[1:] {
		if !strings.Contains(c, "bound the central") {
			f.table.Caption += "; " + c
		}
	}
	return nil
}

// summaryStatement writes summary x as a file's comment names it:
// summary m.C, prob = 0.8 to "C.tex" (its settings as checked).
func summaryStatement(x *compiler.Summary) string {
	written := x.Written
	if written == "" { // a statement not made by the checker
		written = refText(&x.Target)
		if x.Minus != nil {
			written += " - " + refText(x.Minus)
		}
	}
	st := "summary " + written
	st += " to " + strconv.Quote(x.Path)
	if x.Prob != compiler.DefaultProb {
		st += ", prob = " + strconv.FormatFloat(x.Prob, 'g', -1, 64)
	}
	if x.Sort != "" {
		st += ", sort = " + x.Sort
	}
	if x.Statistics != nil {
		st += ", columns = [" + strings.Join(x.Statistics, ", ") + "]"
	}
	if x.Layout != "" {
		st += ", layout = " + x.Layout
	}
	if x.Width != 0 {
		st += ", width = " + strconv.FormatFloat(x.Width, 'g', -1, 64)
	}
	return st
}

// sortSummaries orders the rows of a posterior summary by the column
// column (one of compiler.SummarySorts), worst first: the largest R-hat or
// Monte Carlo standard error, the least ESS. Ties keep their order, and
// rows whose value is not a number come last.
func sortSummaries(names []string, sums []inference.Summary, column string) ([]string, []inference.Summary) {
	var key func(s inference.Summary) float64 // smaller is worse
	switch column {
	case "rhat":
		key = func(s inference.Summary) float64 { return -s.RHat }
	case "ess_bulk":
		key = func(s inference.Summary) float64 { return s.ESSBulk }
	case "ess_tail":
		key = func(s inference.Summary) float64 { return s.ESSTail }
	case "mcse_mean":
		key = func(s inference.Summary) float64 { return -s.MCSEMean }
	default:
		panic("session: no summary sort " + column)
	}
	order := make([]int, len(sums))
	for i := range order {
		order[i] = i
	}
	keys := make([]float64, len(sums))
	for i, s := range sums {
		if keys[i] = key(s); math.IsNaN(keys[i]) {
			keys[i] = math.Inf(1) // last
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	outNames := make([]string, len(order))
	outSums := make([]inference.Summary, len(order))
	for k, i := range order {
		outNames[k], outSums[k] = names[i], sums[i]
	}
	return outNames, outSums
}

// wholeSummary says where to find every row of a summary too long for a
// notebook: one column's entries, or every draw in a file.
func wholeSummary(ref *compiler.Ref, m *Model) string {
	var ways []string
	member := ref.Part()
	if len(ref.Index) == 0 && (member == "C" || member == "partial" || member == "Lambda") {
		ways = append(ways, fmt.Sprintf("summary %s.%s[%s] shows one column's", ref.Name, member, m.Names()[0]))
	}
	switch member {
	case "C", "Lambda":
		ways = append(ways, fmt.Sprintf("export %s to \"draws.csv\" writes every draw", ref.Name))
	case "partial", "communality":
		ways = append(ways, fmt.Sprintf("export %s.%s to \"%s.csv\" writes every draw", ref.Name, member, member))
	}
	if len(ways) == 0 {
		return "copulang run prints every row"
	}
	return strings.Join(ways, "; ")
}

// chainsWithDraws counts the chains of a fit that kept draws.
func chainsWithDraws(r *inference.Result) int {
	n := 0
	for _, ch := range r.C {
		if len(ch) > 0 {
			n++
		}
	}
	return n
}

// paramSummaries returns the posterior summaries of ps with the interval
// bounds Q5 and Q95 replaced by the quantiles (1 ∓ prob)/2 when prob is not
// the default. Entries of C and loadings come from the fit's
// EntrySummaries, computed once (the fit's report does): at p = 100 they
// took 3 s a time. Derived quantities are summarised here. ps needs draws
// (params) unless prob is the default and every one is an entry of C or a
// loading (summaryParams).
func paramSummaries(m *Model, ps []param, prob float64) []inference.Summary {
	entries, drawn := true, true
	for _, p := range ps {
		entries = entries && p.entry >= 1
		drawn = drawn && p.draws != nil
	}
	var all []inference.Summary
	if entries && (!drawn || len(ps) > fewEntries || m.Fit.EntrySummariesDone()) {
		all = m.Fit.EntrySummaries()
	}
	sums := make([]inference.Summary, len(ps))
	for k, p := range ps {
		if p.entry < 1 || p.entry > len(all) {
			chains := make([][][]float64, len(ps))
			for k, p := range ps {
				chains[k] = inference.NonEmptyShortest(p.draws)
			}
			sums = inference.SummarizeAll(chains)
			break
		}
		sums[k] = all[p.entry-1]
	}
	if prob == compiler.DefaultProb {
		return sums
	}
	chains := make([][][]float64, len(ps))
	for k, p := range ps {
		chains[k] = inference.NonEmptyShortest(p.draws)
	}
	for k, q := range inference.QuantilesAll(chains, (1-prob)/2, (1+prob)/2) {
		sums[k].Q5, sums[k].Q95 = q[0], q[1]
		if math.IsNaN(sums[k].Mean) {
			sums[k].Q5, sums[k].Q95 = math.NaN(), math.NaN()
		}
	}
	return sums
}

// posteriorTable is the summary table of named scalars whose Q5 and Q95
// hold the bounds of the central prob interval:
//
//	param mean sd qLO q50 qHI ess_bulk ess_tail rhat mcse_mean mcse_sd
//
// with qLO and qHI named by their percentages (q5 and q95 for prob 0.9, the
// stable header of language.md). mean to qHI and rhat are formatted %.3f,
// the ESS %.0f, the Monte Carlo standard errors %.4f, NaN as "NA", and
// negative values that round to zero without their sign. It panics if names
// and sums differ in length.
func posteriorTable(names []string, sums []inference.Summary, prob float64) *Table {
	if len(names) != len(sums) {
		panic(fmt.Sprintf("session: SummaryTable: %d names for %d summaries", len(names), len(sums)))
	}
	lo, hi := intervalColumns(prob)
	t := &Table{
		Header: []string{"param", "mean", "sd", lo, "q50", hi,
			"ess_bulk", "ess_tail", "rhat", "mcse_mean", "mcse_sd"},
		Rows: make([][]string, len(sums)),
	}
	for i, s := range sums {
		t.Rows[i] = []string{
			names[i],
			tableNum("%.3f", s.Mean), tableNum("%.3f", s.SD),
			tableNum("%.3f", s.Q5), tableNum("%.3f", s.Q50), tableNum("%.3f", s.Q95),
			tableNum("%.0f", s.ESSBulk), tableNum("%.0f", s.ESSTail),
			tableNum("%.3f", s.RHat),
			tableNum("%.4f", s.MCSEMean), tableNum("%.4f", s.MCSESD),
		}
	}
	return t
}

// intervalColumns names the columns of the lower and upper quantiles of
// a central interval of probability prob by their percentages, without
// trailing zeros: prob 0.9 → "q5", "q95"; 0.95 → "q2.5", "q97.5".
//
// Four decimals of a percent, or as many more as it takes (the same for
// both) to tell the quantiles from the median and from the extremes:
// prob = 1e-9 names q49.99999995 and q50.00000005, not two more q50s, and
// prob = 0.9999999 q0.000005 and q99.999995, not q0 and q100.
func intervalColumns(prob float64) (lo, hi string) {
	format := func(p float64, d int) string {
		s := strconv.FormatFloat(p*100, 'f', d, 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	// More digits until the names differ from each other, from the median's
	// and from the extremes', and the lower one is its quantile to 0.5%
	// (prob = 0.999999 would otherwise call its 0.00005 quantile q0.0001).
	x := (1 - prob) / 2 * 100
	d := 4
	for ; d < 15; d++ {
		lo, hi = format((1-prob)/2, d), format((1+prob)/2, d)
		v, _ := strconv.ParseFloat(lo, 64)
		if lo != "50" && lo != "0" && hi != "50" && hi != "100" && lo != hi && math.Abs(v-x) <= 0.005*x {
			break
		}
	}
	return "q" + format((1-prob)/2, d), "q" + format((1+prob)/2, d)
}

// percent writes prob as a percentage to 10 significant digits, without an
// exponent (1e-9 is 0.0000001, not 1e-07).
func percent(prob float64) string {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(prob*100, 'g', 10, 64), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// refLabel prints a reference with column names for its indices, as in
// m.C[income,degree] (positions when names is nil).
func refLabel(ref *compiler.Ref, names []string) string {
	var b strings.Builder
	b.WriteString(ref.Name)
	if ref.Member != "" {
		b.WriteString("." + ref.Member)
	}
	if len(ref.Index) > 0 {
		parts := make([]string, len(ref.Index))
		for k, v := range ref.Index {
			if ref.Member == "Lambda" && k == 1 || v < 0 || v >= len(names) {
				parts[k] = strconv.Itoa(v + 1)
			} else {
				parts[k] = names[v]
			}
		}
		b.WriteString("[" + strings.Join(parts, ",") + "]")
	}
	return b.String()
}

// loadingsAlignment is how a factor model's loadings are aligned: by
// rotation when their prior is rotation-invariant (normal), by signed
// permutations of the factors for GDP.
func loadingsAlignment(m inference.Model) inference.Alignment {
	if fm, ok := m.(inference.FactorModel); ok {
		if _, gdp := fm.Loadings.(inference.GDPLoadings); gdp {
			return inference.SignedPermutation
		}
	}
	return inference.Rotation
}

// loadingsNote says what the loadings of a factor model mean after
// alignment.
func loadingsNote(m *Model) string {
	return loadingsScale + "; " + loadingsAlignmentNote(m)
}

// loadingsScale says on which scale m.Lambda shows the loadings: the
// model's Λ of C = D^(−1/2)(ΛΛᵀ + I)D^(−1/2) scaled row by row as C is.
const loadingsScale = "loadings on the correlation scale, λ_j/√(1 + ‖λ_j‖²): C[i,j] = Σ_h Lambda[i,h]·Lambda[j,h] and communality[j] = Σ_h Lambda[j,h]²"

// loadingsAlignmentNote says how the loadings were aligned across draws.
func loadingsAlignmentNote(m *Model) string {
	if loadingsAlignment(m.Decl.Model) == inference.Rotation {
		const aligned = "loadings are identified only up to rotation and sign: every draw is rotated to a common reference (Procrustes), "
		fm, _ := m.Decl.Model.(inference.FactorModel)
		names := columnTexts(m.Names())
		k := fm.K
		if k < 1 || k > len(names) {
			return aligned + "then turned so that the posterior mean loadings of the first k columns are lower triangular with a positive diagonal"
		}
		if k == 1 {
			return aligned + "with the sign that makes the posterior mean loading of " + names[0] + ", the first column, positive"
		}
		zeros, adds := "loading on factor 2 is", "factor 2 is what "+names[1]+" adds"
		if k > 2 {
			zeros, adds = fmt.Sprintf("loadings on factors 2 to %d are", k), "factor h is what the h-th of them adds"
			if k == 3 {
				zeros = "loadings on factors 2 and 3 are" // not "2 to 3"
			}
		}
		// The canonical orientation of inference.AlignLoadings.
		return fmt.Sprintf("%sthen turned so that the posterior mean loadings of the first k = %d columns, %s, are lower triangular with a positive diagonal: %s loads on factor 1 alone (its mean %s 0 by construction), and %s",
			aligned, k, strings.Join(names[:k], ", "), names[0], zeros, adds)
	}
	note := "loadings are identified only up to the order and signs of the factors: every draw's factors are matched to a common reference, ordered by decreasing sum of squares, largest loading positive"
	if median, q90, ok := m.residualTurns(); ok {
		note += fmt.Sprintf("; the prior pins their rotation only as firmly as the data let it: the matched draws still turn about their mean by %.0f° (median; 90%% within %.0f°, and past 45° the matching is arbitrary)", median, q90)
		if q90 > looseTurn {
			note += fmt.Sprintf(", so a single loading's summary blurs factors that turn into each other: read C and the communalities, which no rotation changes, and `plot pairs %s.Lambda` shows the turns as arcs", m.Decl.Name)
		}
	}
	return note
}

// looseTurn is the 90% quantile of the residual turns of a signed
// permutation's matched loadings (degrees) past which the loadings'
// summary warns that they blur factors into each other. On the GSS
// with GDP loadings and k = 2 it was 32°, and the pairs plot of the
// loadings showed arcs; on 1,000 rows simulated from two factors, 18°.
const looseTurn = 15

// residualTurns returns the median and the 90% quantile of the angles by
// which the draws of m's aligned loadings turn about their mean
// (inference.ResidualTurns), computed once per fit; ok is false when
// there are none (k < 2, no draws).
func (m *Model) residualTurns() (median, q90 float64, ok bool) {
	r := m.Fit
	if r == nil || r.K < 2 || len(r.Lambda) == 0 {
		return 0, 0, false
	}
	if m.turns.of != r {
		turns := inference.ResidualTurns(r.Lambda, r.P, r.K)
		turns = slices.DeleteFunc(turns, math.IsNaN)
		m.turns.of, m.turns.ok = r, len(turns) > 0
		if m.turns.ok {
			slices.Sort(turns)
			m.turns.median = turns[len(turns)/2]
			m.turns.q90 = turns[min(len(turns)*9/10, len(turns)-1)]
		}
	}
	return m.turns.median, m.turns.q90, m.turns.ok
}

// diagStats is the worst R-hat and the least bulk and tail ESS over a set
// of parameters.
type diagStats struct {
	maxRHat, minBulk, minTail float64
	nans                      int // R-hats and ESSs that were not numbers (left out of the above)
	worst                     int // the entry with the worst R-hat, as diagnostics.entry counts; -1 for none
	least                     int // the entry with the least ESS, bulk or tail; -1 for none
	leastESS                  float64
	// noESS counts the entries whose bulk or tail ESS could not be
	// computed (too few draws, or draws that do not vary), and firstNoESS
	// is the first of them (-1 for none).
	noESS, firstNoESS int
}

func newDiagStats() diagStats {
	return diagStats{maxRHat: math.Inf(-1), minBulk: math.Inf(1), minTail: math.Inf(1), worst: -1, least: -1, leastESS: math.Inf(1), firstNoESS: -1}
}

// add takes in the diagnostics s of entry i.
func (d *diagStats) add(i int, s inference.Diagnostics) {
	if !math.IsNaN(s.RHat) {
		if s.RHat > d.maxRHat {
			d.maxRHat, d.worst = s.RHat, i
		}
	} else {
		d.nans++
	}
	if !math.IsNaN(s.ESSBulk) {
		d.minBulk = math.Min(d.minBulk, s.ESSBulk)
	} else {
		d.nans++
	}
	if !math.IsNaN(s.ESSTail) {
		d.minTail = math.Min(d.minTail, s.ESSTail)
	} else {
		d.nans++
	}
	if e := math.Min(s.ESSBulk, s.ESSTail); e < d.leastESS {
		d.least, d.leastESS = i, e
	}
	if math.IsNaN(s.ESSBulk) || math.IsNaN(s.ESSTail) {
		if d.noESS == 0 {
			d.firstNoESS = i
		}
		d.noESS++
	}
}

func (d diagStats) rhatWarns() bool { return d.maxRHat > 1.01 }

// essWarns: an ESS below 100 per chain, or one that could not be computed,
// which is no better.
func (d diagStats) essWarns(chains int) bool {
	return d.minBulk < 100*float64(chains) || d.minTail < 100*float64(chains) || d.noESS > 0
}

// farApart is the R-hat of C above which the R-hat warning may say that the
// chains sit in different modes: Gelman et al.'s old threshold for chains
// that have plainly not mixed.
const farApart = 1.1

// settledESS is the bulk ESS that each chain on its own must reach on C's
// worst entry before the R-hat warning says its chains may sit in different
// modes: the 100 per chain the ESS warning asks for. Short chains that have
// not yet explored the posterior disagree too, and running them longer
// settles that (a 50-iteration fit of the GSS data had R-hat 1.25, its
// extension by 450 1.011); chains that have each mixed well enough to pin
// their own mean, yet still disagree, cannot blame their length.
const settledESS = 100

// modesNote is what the R-hat warning of a fit of chains chains adds when
// they disagree on C by more than farApart although each has mixed on its
// own (chainESS at least settledESS): chains this far apart after a
// warm-up have then likely settled in different modes, which running the
// same chains on seldom settles, so the iterations the hint asks for may
// not help; for a factor model of two factors or more, too many factors is
// a common cause ("" otherwise). One chain has no other to sit apart from:
// its R-hat compares its halves.
func (d diagnostics) modesNote(chains int) string {
	if chains < 2 || !(d.c.maxRHat > farApart) || !(d.chainESS >= settledESS) {
		return ""
	}
	note := fmt.Sprintf(" (C's R-hat of %.2f is far above 1 although every chain alone has a bulk ESS of %.0f or more on it: chains this far apart after a warm-up may sit in different modes, which running them longer seldom settles", d.c.maxRHat, math.Floor(d.chainESS))
	if d.factors > 1 {
		note += "; with a factor model, that is often a sign of more factors than the data support: `compare` scores fewer"
	}
	return note + ")"
}

// statText prints a diagnostic of the report, "NA" for none (every entry's
// could not be computed).
func statText(format string, v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "NA"
	}
	return fmt.Sprintf(format, v)
}

// diagnostics holds R-hat and ESS over the entries of C (c) and, for a
// factor model, the aligned loadings (lambda), and over both (all).
type diagnostics struct {
	all, c, lambda         diagStats
	correlations, loadings int
	// factors is a factor model's k (0 for the full model).
	factors int
	// noOrder are the columns without order information
	// (Result.NoOrderColumns): their entries, leftC of C's and leftLambda
	// loadings, follow the prior, mix as slowly as the prior alone lets
	// them, and are left out of the statistics above and the warnings.
	noOrder           []int
	leftC, leftLambda int
	noOrderNames      []string
	// chainESS is the least over the chains of the bulk ESS of C's entry
	// of worst R-hat, each chain on its own, computed only when there are
	// several chains and that R-hat is above 1.01 (0 otherwise).
	chainESS float64
	// entry names entry i as an expression (m.C[Y1, Y2], m.Lambda[Y1, 2]):
	// C's entries i < j row by row, then the loadings row by row, as
	// Result.EntrySummaries counts them. Nil: the report names none.
	entry func(i int) string
	// seconds is the wall time of the fit (with its extensions), over
	// which the report gives C's least bulk ESS per second; 0: it gives none.
	seconds float64
	// communality is a factor model's posterior mean communality per
	// column, and column names the columns; with both, a warning that
	// names an entry of a column whose communality is near 1 may say why
	// it mixes slowly (communalityNote). Nil: it says nothing of the kind.
	communality []float64
	column      func(j int) string
	// communalityDiag is the R-hat and ESS of each column's communality
	// (a factor model's fit report; nil otherwise): a warning on the
	// aligned loadings alone says when the named loading's communality,
	// which no rotation changes, mixes slowly too (communalityMixingNote).
	communalityDiag []inference.Diagnostics
	// cSpread is where the chains sit on C's entry of worst R-hat, computed
	// when that R-hat is above 1.01 and there are several chains (empty
	// otherwise), and communalitySpread where they sit on each column's
	// communality (a factor model's fit report; nil otherwise): the R-hat
	// warning on C gives them (chainsNote, communalitySpreadNote).
	cSpread           chainSpread
	communalitySpread []chainSpread
	// model is the model's name, for the statements a warning suggests.
	model string
	// rareBinary is the plan's RareBinary (per column, the cells of a rare
	// binary column's rarer level, 0 for the others) and rareNames the
	// columns' names as an index writes them: a warning that names an
	// entry of such a column says why it mixes slowly. Nil: none.
	rareBinary []int
	rareNames  []string
}

// nearHeywood is the posterior mean communality h from which a warning on
// a column's loadings explains their slow mixing: the column's unique
// variance 1 − h is small (near a Heywood case), and, by the likely
// mechanism of sampling.md §9.6, the posterior of log‖λ_j‖ widens like
// 1/(h(1 − h)) while px moves it in steps of about 1/√(2n) (measured there:
// communality 0.94 at n = 5000 had a bulk ESS
// of 20 of 8,000 draws where every other column's was at least 486; the
// joint exact-HMC step of interweave raised it only to 36 of 4,000).
const nearHeywood = 0.9

// communalityNote is the clause a warning that names entry i adds when the
// entry belongs to a column whose communality is at least nearHeywood,
// else "": a loading of that column, or an entry C[a, b] of it when that
// column also holds the loading of least ESS and that loading's ESS is
// below C's least (its slow loadings then likely slow C).
func (d diagnostics) communalityNote(i int) string {
	p := len(d.communality)
	if p == 0 || d.column == nil || d.loadings == 0 || i < 0 || i >= d.correlations+d.loadings {
		return ""
	}
	k := d.loadings / p
	if k == 0 {
		return ""
	}
	j := -1
	if i >= d.correlations {
		j = (i - d.correlations) / k
	} else if d.lambda.least >= d.correlations && d.lambda.leastESS < d.c.leastESS {
		a, b := pairOf(i, p)
		if l := (d.lambda.least - d.correlations) / k; l == a || l == b {
			j = l
		}
	}
	if j < 0 || j >= p || !(d.communality[j] >= nearHeywood) {
		return ""
	}
	h := fmt.Sprintf("%.2f", d.communality[j])
	if h == "1.00" { // a communality is below 1: do not print it as 1
		h = "above 0.99"
	}
	return fmt.Sprintf(": %s's communality is %s, and near 1, where the factors leave a column little unique variance, the scale of its loadings mixes slowly (sampling.md §9.6)", d.column(j), h)
}

// whySlow is what a warning naming entry i adds to say why it mixes
// slowly: the near-Heywood note, or, on a warning the aligned loadings
// alone earn (loadingsOnly), that the loading's communality mixes slowly
// as well; "" if neither applies.
func (d diagnostics) whySlow(i int, loadingsOnly bool, chains int) string {
	if note := d.rareBinaryNote(i); note != "" {
		return note
	}
	if note := d.communalityNote(i); note != "" || !loadingsOnly {
		return note
	}
	return d.communalityMixingNote(i, chains)
}

// rareColumn returns the rare binary column (d.rareBinary) of C's entry i,
// or -1 when neither of its columns is one or i is not an entry of C.
func (d diagnostics) rareColumn(i int) int {
	p := len(d.rareBinary)
	if p == 0 || i < 0 || i >= d.correlations || d.correlations != p*(p-1)/2 {
		return -1
	}
	a, b := pairOf(i, p)
	switch {
	case a >= 0 && d.rareBinary[a] > 0:
		return a
	case b >= 0 && d.rareBinary[b] > 0:
		return b
	}
	return -1
}

// rareBinaryNote is the clause a warning that names entry i adds when one
// of the entry's columns is a binary column with few cells in its rarer
// level, else "": its correlations rest on those cells, so their posterior
// stays close to the prior and mixes slowly, whatever the sampler.
func (d diagnostics) rareBinaryNote(i int) string {
	j := d.rareColumn(i)
	if j < 0 {
		return ""
	}
	return fmt.Sprintf(": %s is binary with %s in its rarer level, on which its correlations rest, so they stay wide, close to the prior, and mix slowly (the plan's note); leave it out of Y if it is not needed",
		d.rareNames[j], plural(d.rareBinary[j], "observed cell"))
}

// rareWorst reports whether the entries of C that the warnings name (the
// worst R-hat, the least ESS) are all of rare binary columns: the advice
// for slow Gibbs mixing in general does not apply to them.
func (d diagnostics) rareWorst() bool {
	named := 0
	for _, i := range []int{d.c.worst, d.c.least} {
		if i < 0 {
			continue
		}
		if d.rareColumn(i) < 0 {
			return false
		}
		named++
	}
	return named > 0
}

// communalityMixingNote says, for a loading i, that its column's
// communality mixes slowly too (R-hat above 1.01 or an ESS below 100 per
// chain, the report's limits), "" otherwise. A loading's slow mixing may
// be its alignment's; its communality's cannot be, so the note tells a
// slow scale of the loadings from a slow rotation.
func (d diagnostics) communalityMixingNote(i int, chains int) string {
	p := len(d.communalityDiag)
	if p == 0 || d.column == nil || i < d.correlations || i >= d.correlations+d.loadings || d.loadings%p != 0 {
		return ""
	}
	j := (i - d.correlations) / (d.loadings / p)
	s := d.communalityDiag[j]
	ess := math.Min(s.ESSBulk, s.ESSTail) / float64(max(chains, 1))
	if !(s.RHat > 1.01 || ess < 100) {
		return ""
	}
	return fmt.Sprintf(": %s's communality, which the alignment does not change, mixes slowly too (R-hat %s, ESS %s per chain): the scale of its loadings mixes slowly, not only their rotation",
		d.column(j), statText("%.3f", s.RHat), statText("%.0f", ess))
}

// pairOf returns the columns a < b of entry i of C's entries i < j, row
// by row, of a p×p matrix: 0 is C[0, 1], p − 2 is C[0, p−1], p − 1 is
// C[1, 2].
func pairOf(i, p int) (a, b int) {
	for a = 0; a < p; a++ {
		row := p - 1 - a // entries C[a, a+1..p−1]
		if i < row {
			return a, a + 1 + i
		}
		i -= row
	}
	return -1, -1
}

// fitDiagnostics summarises every C_ij, i < j, and every aligned loading.
func fitDiagnostics(r *inference.Result) diagnostics { return diagnose(r, true) }

// diagnose summarises every C_ij, i < j, and, if loadings, every aligned
// loading (an ESS target, which is on C, leaves them out). With loadings —
// a fit's report — it reads the fit's EntrySummaries, which later
// summaries of C and the loadings then share.
func diagnose(r *inference.Result, loadings bool) diagnostics {
	d := diagnostics{all: newDiagStats(), c: newDiagStats(), lambda: newDiagStats()}
	d.correlations = r.P * (r.P - 1) / 2
	var diags []inference.Diagnostics
	if loadings {
		if r.K > 0 && len(r.Lambda) > 0 {
			d.loadings = r.P * r.K
		}
		for _, s := range r.EntrySummaries() {
			diags = append(diags, inference.Diagnostics{RHat: s.RHat, ESSBulk: s.ESSBulk, ESSTail: s.ESSTail})
		}
	} else {
		var chains [][][]float64
		for i := 0; i < r.P; i++ {
			for j := i + 1; j < r.P; j++ {
				chains = append(chains, inference.NonEmptyShortest(r.Draws(i, j)))
			}
		}
		if len(chains) == 0 || len(chains[0]) == 0 {
			return d
		}
		diags = inference.DiagnoseAll(chains)
	}
	d.noOrder = r.NoOrderColumns()
	for _, j := range d.noOrder {
		name, ok := columnName(r, j)
		if !ok {
			name = fmt.Sprintf("column %d", j+1)
		}
		d.noOrderNames = append(d.noOrderNames, name)
	}
	for i, s := range diags {
		if d.priorOnly(i, r.P) {
			if i < d.correlations {
				d.leftC++
			} else {
				d.leftLambda++
			}
			continue
		}
		d.all.add(i, s)
		if i < d.correlations {
			d.c.add(i, s)
		} else {
			d.lambda.add(i, s)
		}
	}
	d.factors = r.K
	if a, b := pairOf(d.c.worst, r.P); len(r.C) > 1 && d.c.rhatWarns() && a >= 0 {
		draws := r.Draws(a, b)
		d.cSpread = spreadOf(draws)
		d.chainESS = math.Inf(1)
		for _, chain := range draws {
			d.chainESS = math.Min(d.chainESS, inference.ESSBulk([][]float64{chain}))
		}
		if math.IsNaN(d.chainESS) || math.IsInf(d.chainESS, 0) {
			d.chainESS = 0
		}
	}
	return d
}

// priorOnly reports whether entry i (as entry counts them) of a fit of p
// columns belongs to a column in d.noOrder.
func (d diagnostics) priorOnly(i, p int) bool {
	if len(d.noOrder) == 0 {
		return false
	}
	a, b := -1, -1
	switch {
	case i < d.correlations:
		a, b = pairOf(i, p)
	case d.loadings > 0 && p > 0:
		a = (i - d.correlations) / (d.loadings / p)
	}
	return slices.Contains(d.noOrder, a) || slices.Contains(d.noOrder, b)
}

// entryNamer names the entries of r's diagnostics (see diagnostics.entry)
// for the model called model: by column name (quoted where it is not an
// identifier, columnText), by position for a column without one.
func entryNamer(model string, r *inference.Result) func(i int) string {
	col := func(j int) string {
		if name, ok := columnName(r, j); ok {
			return name
		}
		return strconv.Itoa(j + 1)
	}
	return func(i int) string {
		if pairs := r.P * (r.P - 1) / 2; i >= pairs {
			if r.K == 0 || i >= pairs+r.P*r.K {
				return ""
			}
			i -= pairs
			return fmt.Sprintf("%s.Lambda[%s, %d]", model, col(i/r.K), i%r.K+1)
		}
		if a, b := pairOf(i, r.P); a >= 0 {
			return fmt.Sprintf("%s.C[%s, %s]", model, col(a), col(b))
		}
		return ""
	}
}

// columnName returns the name of column j of r and true when it can index a
// matrix, quoted unless it can be written as it is (columnText), else ""
// and false. Quoted, a name with a space or a comma is no puzzle
// (C["Income level","a,b"], not C[Income level,a,b]) and the expression a
// warning gives parses.
func columnName(r *inference.Result, j int) (string, bool) {
	if j < len(r.Names) && r.Names[j] != "" {
		return columnText(r.Names[j]), true
	}
	return "", false
}

// name is entry i's expression, or "" when there is none to give.
func (d diagnostics) name(i int) string {
	if d.entry == nil || i < 0 {
		return ""
	}
	return d.entry(i)
}

// report writes the diagnostics and their warnings for a fit of chains
// chains. For a factor model it gives C's entries on their own as well, and
// a warning that only the aligned loadings earn says so: they often mix
// more slowly than C, which does not depend on how the factors are rotated.
func (d diagnostics) report(b *strings.Builder, chains int) (warnings []string) {
	if math.IsInf(d.all.maxRHat, 0) && d.all.nans == 0 {
		if d.leftC+d.leftLambda > 0 {
			b.WriteString("\nno convergence diagnostics: " + d.leftOutText())
		}
		return nil // no entries
	}
	over := plural(d.correlations-d.leftC, "correlation")
	if d.loadings > 0 {
		over += fmt.Sprintf(" and %d loadings (aligned)", d.loadings-d.leftLambda)
	}
	fmt.Fprintf(b, "\nmax R-hat %s, min bulk ESS %s, min tail ESS %s over %s",
		statText("%.3f", d.all.maxRHat), statText("%.0f", d.all.minBulk), statText("%.0f", d.all.minTail), over)
	onlyLoadings := ""
	if d.loadings > 0 {
		fmt.Fprintf(b, "; C alone: max R-hat %s, min bulk ESS %s, min tail ESS %s",
			statText("%.3f", d.c.maxRHat), statText("%.0f", d.c.minBulk), statText("%.0f", d.c.minTail))
		onlyLoadings = " on the aligned loadings only (C's entries are within the limits)"
	}
	if d.seconds > 0 && !math.IsInf(d.c.minBulk, 0) {
		fmt.Fprintf(b, "; C's min bulk ESS per second of the fit %s", fmtRate(d.c.minBulk/d.seconds))
	}
	if d.leftC+d.leftLambda > 0 {
		b.WriteString("; left out: " + d.leftOutText())
	}
	if d.all.rhatWarns() {
		where := ""
		if !d.c.rhatWarns() {
			where = onlyLoadings
		}
		// Name the worst of C's entries when C warns (C is identified;
		// the loadings depend on their alignment), else the worst loading.
		// One chain's R-hat compares its two halves.
		what, them := "the chains disagree", "the chains"
		if chains == 1 {
			what, them = "the two halves of the chain disagree", "them"
		}
		w, worst, rhat := "R-hat above 1.01"+where+": "+what, d.c.worst, d.c.maxRHat
		if where != "" {
			worst, rhat = d.all.worst, d.all.maxRHat
		}
		if name := d.name(worst); name != "" {
			why := d.whySlow(worst, where != "", chains)
			if where == "" {
				why += d.chainsNote() + d.communalitySpreadNote()
			}
			w += fmt.Sprintf(", most on %s (%.3f)%s; run longer, or compare %s with `plot rank %s` or `plot trace %s`", name, rhat, why, them, name, name)
		} else {
			w += fmt.Sprintf("; run longer, or compare %s with `plot rank` or `plot trace`", them)
		}
		w += d.modesNote(chains)
		warnings = append(warnings, w)
	}
	if d.all.essWarns(chains) {
		where := ""
		if !d.c.essWarns(chains) {
			where = onlyLoadings
		}
		w, least, ess, st := "ESS below 100 per chain"+where+": quantiles and R-hat are unreliable", d.c.least, d.c.leastESS, d.c
		if where != "" {
			least, ess, st = d.all.least, d.all.leastESS, d.all
		}
		if none := st.firstNoESS; st.noESS > 0 {
			// An ESS that could not be computed is the least of all.
			w = "ESS below 100 per chain or not computable" + where + ": quantiles and R-hat are unreliable"
			if name := d.name(none); name != "" {
				others := ""
				switch st.noESS {
				case 1:
				case 2:
					others = " and 1 other entry"
				default:
					others = fmt.Sprintf(" and %d other entries", st.noESS-1)
				}
				w += fmt.Sprintf(", ESS not computable on %s%s (too few draws, or draws that do not vary)", name, others)
			}
		} else if name := d.name(least); name != "" {
			w += fmt.Sprintf(", least on %s (%.0f per chain)%s", name, ess/float64(max(chains, 1)), d.whySlow(least, where != "", chains))
		}
		warnings = append(warnings, w+"; run more iterations")
	}
	return warnings
}

// leftOutText says which entries the diagnostics leave out and why: those
// of the columns without order information.
func (d diagnostics) leftOutText() string {
	what := plural(d.leftC, "correlation")
	if d.leftLambda > 0 {
		what += fmt.Sprintf(" and %d loadings", d.leftLambda)
	}
	cols, has := strings.Join(d.noOrderNames, ", "), "has"
	if len(d.noOrderNames) > 1 {
		has = "have"
	}
	return fmt.Sprintf("the %s of %s, which %s at most one distinct value: with no order information they follow the prior, which the sampler explores slowly, so their R-hat and ESS say nothing of the rest (leave such columns out of the model)",
		what, cols, has)
}

// fmtRate writes a rate with three significant digits, whole numbers from
// 100 up: 0.0123, 4.56, 78.9, 1234.
func fmtRate(x float64) string {
	decimals := func(v float64) int { return max(0, 2-int(math.Floor(math.Log10(v)))) }
	if x == 0 {
		return "0"
	}
	// The decimals of x rounded to three digits: 99.96 is 100, not 100.0.
	d := decimals(x)
	scale := math.Pow(10, float64(d))
	return strconv.FormatFloat(x, 'f', decimals(math.Round(x*scale)/scale), 64)
}
