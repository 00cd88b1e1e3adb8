package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// fewMatchingRows is the number of rows with every given value under which
// predict says that their crosstab is noisy.
const fewMatchingRows = 30

// predict shows, for each target column, the posterior of its distribution
// on its observed levels given the statement's values of other columns,
// for a new row: a table per target and a line a reader can quote.
func (s *Session) predict(ctx context.Context, x *compiler.Predict, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	names := columnTexts(m.Names())
	given := make([]inference.PredictGiven, len(x.Given))
	for k, g := range x.Given {
		j := slices.Index(m.Names(), g.Column)
		if j < 0 {
			return fmt.Errorf("model %s has no column %s", x.Model, columnText(g.Column))
		}
		level, err := givenLevel(m, j, g.Value)
		if err != nil {
			return &errorAt{pos: g.At, err: err}
		}
		given[k] = inference.PredictGiven{Col: j, Level: level}
	}
	targets := x.Targets
	if targets == nil {
		for j := range m.Names() {
			if !slices.ContainsFunc(given, func(g inference.PredictGiven) bool { return g.Col == j }) {
				targets = append(targets, j)
			}
		}
	}
	seed := m.Fit.Seed
	if x.SeedSet {
		seed = x.Seed
	}
	texts := make([]string, len(x.Given))
	for k, g := range x.Given {
		texts[k] = g.Text
	}
	condition := strings.Join(texts, ", ")
	if note := unusedReplicatesNote(x, len(given)); note != "" {
		out.Stream("stdout", "note: "+note+"\n")
	}
	for k, t := range targets {
		pr, err := m.Fit.Predict(ctx, inference.PredictSpec{Target: t, Given: given, Seed: seed, Reps: x.Reps})
		if err != nil {
			if ctx.Err() != nil {
				if k > 0 {
					// The tables shown stay right: say which are there.
					return interrupted(fmt.Sprintf("predict %s after %d of its %d tables, while that of %s was made", x.Model, k, len(targets), names[t]))
				}
				return interrupted("predict " + x.Model + " before its tables were made")
			}
			if errors.Is(err, inference.ErrGivenImpossible) {
				return &errorAt{pos: x.At, err: fmt.Errorf("%s have probability 0 in floating point under every one of the %s of %s's fit: they are too far in the tails together for the model to condition on them (a correlation near ±1 between given columns whose values lie at opposite ends, or many given columns); give fewer columns, or values nearer the middle",
					condition, plural(m.Fit.KeptDraws(), "kept draw"), x.Model)}
			}
			return err
		}
		table, line, f := s.predictionTable(m, pr, names[t], condition, x.Prob, seed, x.SeedSet)
		out.Display(s.tableBundle(table, "copulang run prints every level", false), "")
		out.Stream("stdout", line+"\n")
		if f != nil {
			if err := s.emit(figureName("predict", x.Model+"-"+names[t]), f, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// unusedReplicatesNote says that reps = and seed =, which set GHK's
// replicates, change nothing when fewer than two columns are given: the
// probabilities are then exact, with no replicate to set ("" otherwise,
// or when neither is written). Said once, before the tables.
func unusedReplicatesNote(x *compiler.Predict, given int) string {
	if given >= 2 {
		return ""
	}
	var set []string
	if x.Reps > 0 {
		set = append(set, fmt.Sprintf("reps = %d", x.Reps))
	}
	if x.SeedSet {
		set = append(set, fmt.Sprintf("seed = %d", x.Seed))
	}
	if len(set) == 0 {
		return ""
	}
	verb := "changes"
	if len(set) > 1 {
		verb = "change"
	}
	why := "with one given column each draw's probabilities are exact bivariate normal ones"
	if given == 0 {
		why = "with nothing given the prediction is the column's shares, exactly"
	}
	return fmt.Sprintf("%s %s nothing here: %s, with no replicates to set (they are GHK's, with two or more given columns)", strings.Join(set, " and "), verb, why)
}

// givenLevel is the index of value among column j's observed values
// (ascending), or an error that names the nearest of them: a copula model
// says nothing about a value its data never had.
func givenLevel(m *Model, j int, value compiler.RowValue) (int, error) {
	dj := m.Cols[j]
	name := columnText(m.Names()[j])
	labels := m.Data.Labels[dj]
	values := m.Fit.Levels(j)
	var v float64
	switch {
	case labels != nil && value.Label == "":
		return 0, fmt.Errorf("column %s holds text labels: give it one of them, not a number", name)
	case labels != nil:
		code := slices.Index(labels, value.Label)
		if code < 0 {
			return 0, fmt.Errorf("column %s has no label %q (its labels: %s)", name, value.Label, strings.Join(quoteAll(labels), ", "))
		}
		v = float64(code + 1)
	case value.Label != "":
		return 0, fmt.Errorf("column %s holds numbers: give it a number, not %q", name, value.Label)
	default:
		v = value.Number
	}
	if l := slices.Index(values, v); l >= 0 {
		return l, nil
	}
	shown := func(vs []float64) string {
		out := make([]string, len(vs))
		for k, w := range vs {
			out[k] = formatValue(m.Data, dj, w)
		}
		return strings.Join(out, ", ")
	}
	what := formatValue(m.Data, dj, v)
	if labels != nil {
		what = strconv.Quote(value.Label)
	}
	if len(values) <= 12 {
		return 0, fmt.Errorf("%s = %s is not an observed value of %s, and predict conditions on observed values only (the copula maps a column's latent value to its observed levels); its values: %s",
			name, what, name, shown(values))
	}
	// The nearest: the observed values just below and above v.
	at, _ := slices.BinarySearch(values, v)
	near := values[max(at-2, 0):min(at+2, len(values))]
	return 0, fmt.Errorf("%s = %s is not an observed value of %s, and predict conditions on observed values only (the copula maps a column's latent value to its observed levels); the nearest: %s (of %d values from %s to %s)",
		name, what, name, shown(near), len(values), formatValue(m.Data, dj, values[0]), formatValue(m.Data, dj, values[len(values)-1]))
}

// predictionTable is the table of one target's predicted distribution,
//
//	level p qLO qHI mcse marginal [rows share]
//
// (rows and share when rows of the data have every given value), the
// line under it, and its figure (figure.Predicted) when something is given
// and the target has at most figure.MaxPredictedLevels levels, else nil.
func (s *Session) predictionTable(m *Model, pr *inference.Prediction, target, condition string, prob float64, seed uint64, seedSet bool) (*Table, string, *figure.Figure) {
	dj := m.Cols[pr.Target]
	nl := len(pr.Values)
	lo, hi := intervalColumns(prob)
	header := []string{"level", "p", lo, hi, "mcse", "marginal"}
	crosstab := len(pr.Given) > 0 && pr.Matching > 0
	if crosstab {
		header = append(header, "rows", "share")
	}
	t := &Table{Header: header}
	means := make([]float64, nl)
	exact := pr.Method == inference.PredictMarginal
	var sums []inference.Summary
	var qs [][]float64
	if !exact {
		sums = inference.SummarizeAll(pr.Probs)
		qs = inference.QuantilesAll(pr.Probs, (1-prob)/2, (1+prob)/2)
	}
	for l := range nl {
		p, qlo, qhi, mcse := pr.Marginal[l], pr.Marginal[l], pr.Marginal[l], 0.0
		if !exact {
			p, qlo, qhi, mcse = sums[l].Mean, qs[l][0], qs[l][1], sums[l].MCSEMean
		}
		means[l] = p
		row := []string{formatValue(m.Data, dj, pr.Values[l]), tableNum("%.3f", p), tableNum("%.3f", qlo), tableNum("%.3f", qhi),
			tableNum("%.4f", mcse), tableNum("%.3f", pr.Marginal[l])}
		if crosstab {
			row = append(row, strconv.Itoa(pr.MatchingCounts[l]), tableNum("%.3f", float64(pr.MatchingCounts[l])/float64(pr.Matching)))
		}
		t.Rows = append(t.Rows, row)
	}
	given := ", nothing given"
	if condition != "" {
		given = " given " + condition
	}
	caption := fmt.Sprintf("P(%s | %s) under %s for a new row: p is the posterior mean over %s in %s", target, condition, m.Decl.Name,
		plural(pr.Used, "draw"), plural(len(pr.Probs[0]), "chain"))
	if condition == "" {
		caption = fmt.Sprintf("P(%s) under %s for a new row, nothing given: the column's shares, whatever C is", target, m.Decl.Name)
	} else {
		caption += " of C"
		if pr.Skipped > 0 {
			caption += fmt.Sprintf(" (%d of the fit's %d draws left out: under them the given values have probability 0 in floating point, too far in the tails together", pr.Skipped, pr.Draws)
			if pr.Used < pr.Draws-pr.Skipped {
				caption += "; each chain then cut to the shortest"
			}
			caption += ")"
		}
		caption += fmt.Sprintf(", and %s and %s bound the central %s%% interval of the per-draw probability (the uncertainty about C)", lo, hi, percent(prob))
	}
	caption += fmt.Sprintf("; marginal: the level's share of %s's %d observed cells", target, int(math.Round(float64(m.Data.N()-m.Data.Info().Columns[dj].Missing))))
	switch {
	case len(pr.Given) == 0:
	case pr.Matching == 0:
		caption += fmt.Sprintf("; no row of %s has %s, so there is no crosstab to compare", s.dataText(m), condition)
	default:
		caption += fmt.Sprintf("; rows, share: the %s of %s with %s and %s observed, the raw crosstab the model smooths", plural(pr.Matching, "row"), s.dataText(m), condition, target)
		if pr.Matching < fewMatchingRows {
			caption += fmt.Sprintf(" (fewer than %d: read their shares as noisy)", fewMatchingRows)
		}
	}
	switch pr.Method {
	case inference.PredictBivariate:
		caption += "; exact bivariate normal probabilities per draw"
	case inference.PredictGHK:
		seedText := fmt.Sprintf("the fit's seed, %d", seed)
		if seedSet {
			seedText = fmt.Sprintf("seed %d", seed)
		}
		caption += fmt.Sprintf("; GHK with %d replicates per draw, %d random shifts of a %d-point lattice (%s): they add a Monte Carlo error of at most %s to p, and about %s to each draw's probability (root mean square), from the spread of the shifts",
			pr.Reps, inference.PredictShifts, pr.Reps/inference.PredictShifts, seedText, sigDigits(slices.Max(pr.RepSE)), sigDigits(pr.RepSEDraw))
	}
	t.Caption = caption
	return t, predictionLine(m, pr, target, given, means, qs, prob), predictionFigure(m, pr, target, condition, means, qs, prob)
}

// predictionFigure is the figure of a prediction given condition (see
// predictionTable), nil when nothing is given (the marginal, which the
// table says) or the target has too many levels to name.
func predictionFigure(m *Model, pr *inference.Prediction, target, condition string, means []float64, qs [][]float64, prob float64) *figure.Figure {
	nl := len(pr.Values)
	if qs == nil || nl > figure.MaxPredictedLevels {
		return nil
	}
	dj := m.Cols[pr.Target]
	levels, lo, hi := make([]string, nl), make([]float64, nl), make([]float64, nl)
	var share []float64
	if pr.Matching > 0 {
		share = make([]float64, nl)
	}
	for l := range nl {
		levels[l], lo[l], hi[l] = formatValue(m.Data, dj, pr.Values[l]), qs[l][0], qs[l][1]
		if share != nil {
			share[l] = float64(pr.MatchingCounts[l]) / float64(pr.Matching)
		}
	}
	f, err := figure.Predicted(fmt.Sprintf("P(%s | %s) under %s", target, condition, m.Decl.Name), target, levels, means, lo, hi, pr.Marginal, share, percent(prob)+"%")
	if err != nil {
		return nil // the table says it all
	}
	return f
}

// predictionLine is one sentence a reader can quote: the most probable
// level with its probability, the probability that the target is at or
// above its median level (over all rows) against its share over all rows
// (not among the rows that match, which the table's crosstab gives), and
// for a numeric column the predicted mean against the mean of all rows.
func predictionLine(m *Model, pr *inference.Prediction, target, given string, means []float64, qs [][]float64, prob float64) string {
	dj := m.Cols[pr.Target]
	mode := 0
	for l, p := range means {
		if p > means[mode] {
			mode = l
		}
	}
	value := func(l int) string { return formatValue(m.Data, dj, pr.Values[l]) }
	var line string
	info := m.Data.Info().Columns[dj]
	if 2*info.Singletons > m.Data.N()-info.Missing {
		// Most of a continuous column's values occur once: its most
		// probable value is often an extreme one (as impute's mode), so
		// the line gives the predicted median instead.
		median, cum := 0, 0.0
		for l, p := range means {
			cum += p
			if cum >= 0.5 {
				median = l
				break
			}
		}
		line = fmt.Sprintf("%s%s: predicted median %s", target, given, value(median))
	} else {
		line = fmt.Sprintf("%s%s: most likely %s (p = %.3f", target, given, value(mode), means[mode])
		if qs != nil {
			line += fmt.Sprintf(", %s%% interval %.3f to %.3f", percent(prob), qs[mode][0], qs[mode][1])
		}
		line += ")"
	}
	// The median level of the data: the first whose cumulative share
	// reaches one half.
	median, cum := 0, 0.0
	for l, w := range pr.Marginal {
		cum += w
		if cum >= 0.5 {
			median = l
			break
		}
	}
	if median > 0 {
		above, share := 0.0, 0.0
		for l := median; l < len(means); l++ {
			above += means[l]
			share += pr.Marginal[l]
		}
		line += fmt.Sprintf("; P(%s ≥ %s, its median) = %.3f (%.3f over all rows)", target, value(median), above, share)
	}
	if m.Data.Labels[dj] == nil {
		mean, dataMean := 0.0, 0.0
		for l, v := range pr.Values {
			mean += means[l] * v
			dataMean += pr.Marginal[l] * v
		}
		line += fmt.Sprintf("; predicted mean %s (%s over all rows)", strconv.FormatFloat(mean, 'g', 4, 64), strconv.FormatFloat(dataMean, 'g', 4, 64))
	}
	return line
}

// sigDigits prints a small positive error in two significant digits.
func sigDigits(v float64) string { return strconv.FormatFloat(v, 'g', 2, 64) }
