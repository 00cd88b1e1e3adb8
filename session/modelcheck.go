package session

// check (posterior predictive checks) and compare (held-out predictive
// scores) of fitted models.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
	"github.com/copulang/copulang/inference"
)

// checkAlpha is the level at which check flags a model or a pair.
const checkAlpha = 0.05

// pText formats a calibrated p-value to 3 decimals, with more where
// rounding would carry a p below checkAlpha up to it: the p-values are
// ranks k/(reps + 1), and with the default 200 replications 10/201 =
// 0.04975 printed as 0.050 beside "< 0.05" and a flag.
func pText(p float64) string {
	s := tableNum("%.3f", p)
	for digits := 4; p < checkAlpha && digits <= 8; digits++ {
		if v, err := strconv.ParseFloat(s, 64); err != nil || v < checkAlpha {
			break
		}
		s = tableNum(fmt.Sprintf("%%.%df", digits), p)
	}
	return s
}

// statLabel names a rank statistic in prose and on axes.
func statLabel(s inference.RankStat) string {
	if s == inference.Kendall {
		return "Kendall's τ_b"
	}
	return "Spearman's ρ"
}

// check runs a posterior predictive check and shows its table, plot and
// verdict.
func (s *Session) check(ctx context.Context, x *compiler.CheckStmt, out Output) error {
	m, err := s.fitted(x.Model)
	if err != nil {
		return err
	}
	r := m.Fit
	if kept := r.KeptDraws(); kept < inference.MinCheckDraws {
		return fmt.Errorf("check %s: the fit has %s, and check replicates data from at least %d for its intervals and classical ppp: run `extend %s, iter = %d` first",
			x.Model, plural(kept, "kept draw"), inference.MinCheckDraws, x.Model, extendForDraws(r, inference.MinCheckDraws-kept))
	}
	seed := x.Seed
	if !x.SeedGiven {
		seed = r.Seed
	}
	opt := inference.CheckOptions{Draws: x.Draws, Reps: x.Reps, Stat: x.Stat, Seed: seed}
	if x.Pair != nil {
		opt.Tables = [][2]int{{x.Pair[0], x.Pair[1]}}
	}
	names := columnTexts(m.Names())
	// A check of this fit with the same settings kept every pair's
	// statistics: only the table's columns are replicated again. Without
	// one, check m[A, B] replicates every column, as p_adj and the verdict
	// are over every pair: the progress says which.
	scope := ""
	reused := r.CheckReuses(opt)
	switch {
	case reused && x.Pair != nil:
		scope = fmt.Sprintf(", only %s and %s (the pairs' statistics kept from an earlier check)", names[x.Pair[0]], names[x.Pair[1]])
	case x.Pair != nil:
		scope = fmt.Sprintf(", every column (p_adj and the verdict are over all %d pairs)", r.P*(r.P-1)/2)
	}
	var mu sync.Mutex
	done, total := 0, min(x.Draws, r.KeptDraws())+x.Reps
	opt.Progress = func(d, t int) {
		mu.Lock()
		done, total = d, t
		mu.Unlock()
	}
	start := time.Now()
	var base etaBase
	status := func(state string) MimeBundle {
		mu.Lock()
		defer mu.Unlock()
		if reused && x.Pair == nil {
			if state == "" {
				state = "starting"
			}
			return barBundle(fmt.Sprintf("check %s: nothing to replicate, every pair's statistics kept from an earlier check of this fit, %s", x.Model, state), total, total)
		}
		if state == "" {
			state = "replicating"
			p := inference.Progress{AllDone: done, AllTotal: total, Elapsed: time.Since(start)}
			base.observe(p)
			if left, ok := timeLeft(p, base); ok {
				state += fmt.Sprintf(", about %s left", roundDuration(left))
			}
		}
		return barBundle(fmt.Sprintf("check %s: %d/%d replicated data sets%s, %s", x.Model, done, total, scope, state), done, total)
	}
	show := &jobProgress{out: out, id: s.progressID("check")}
	var res *inference.CheckResult
	err = inBackground(show, func() MimeBundle { return status("") }, func() error {
		var err error
		res, err = r.Check(ctx, opt)
		return err
	})
	if errors.Is(err, context.Canceled) {
		show.show(status("interrupted"), "interrupted")
		return interrupted("check " + x.Model + " before its replications were done")
	}
	if err != nil {
		show.show(status("failed"), "failed")
		return err
	}
	show.show(status("done"), "done")

	pairName := func(pc inference.PairCheck) string { return names[pc.I] + "–" + names[pc.J] }
	pairs := res.Pairs
	if x.Pair != nil {
		for _, pc := range res.Pairs {
			if pc.I == min(x.Pair[0], x.Pair[1]) && pc.J == max(x.Pair[0], x.Pair[1]) {
				pairs = []inference.PairCheck{pc}
			}
		}
	}
	shown := pairsToShow(pairs)
	t := &Table{Header: []string{"pair", "observed", "rep_mean", "rep_q5", "rep_q95", "ppp", "p", "p_adj", "flag"}}
	for _, pc := range shown {
		flag := ""
		if pc.PAdjusted < checkAlpha {
			flag = "*"
		}
		t.Rows = append(t.Rows, []string{pairName(pc), tableNum("%.3f", pc.Observed), tableNum("%.3f", pc.Mean),
			tableNum("%.3f", pc.Q5), tableNum("%.3f", pc.Q95), tableNum("%.3f", pc.PPP), pText(pc.P),
			pText(pc.PAdjusted), flag})
	}
	// check m[A, B] shows the row of A and B, but the check, its max-T
	// adjustment and its verdict are over every pair: say so.
	of, adjusted := plural(len(pairs), "pair"), "max-T adjusted p_adj"
	if x.Pair != nil {
		of = fmt.Sprintf("%s, one of %d pairs (`check %s` shows them all)", pairName(pairs[0]), len(res.Pairs), x.Model)
		adjusted = fmt.Sprintf("p_adj, max-T adjusted over all %d pairs,", len(res.Pairs))
	}
	t.Caption = fmt.Sprintf("posterior predictive check of %s: %s of %s; mean, 90%% interval and classical ppp from %d data sets replicated from %d posterior draws; "+
		"calibrated p and %s from %d data sets replicated from draw %d of chain %d; flag: p_adj < %g",
		x.Model, statLabel(res.Stat), of, res.Draws, res.Draws, adjusted, res.Reps, res.SampledDraw+1, res.SampledChain+1, checkAlpha)
	if len(shown) < len(pairs) {
		t.Caption += fmt.Sprintf("; the %d pairs with the smallest p-values of %d shown", len(shown), len(pairs))
	}
	if res.Reused {
		t.Caption += "; every pair's statistics kept from an earlier check of this fit with the same settings (draws, reps, stat, seed)"
		if x.Pair != nil {
			t.Caption += fmt.Sprintf(", and only %s and %s replicated again for their table, from the same data sets' random streams", names[x.Pair[0]], names[x.Pair[1]])
		}
	}
	out.Display(t.Bundle(), "") // its text/plain starts with the caption
	for _, tc := range res.Tables {
		s.showTwoWay(m, x, tc, out)
	}
	if x.Pair == nil {
		sorted := slices.Clone(res.Pairs)
		sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Observed < sorted[b].Observed })
		n := len(sorted)
		labels, obs, mean, lo, hi, flagged := make([]string, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]bool, n)
		for k, pc := range sorted {
			labels[k], obs[k], mean[k], lo[k], hi[k], flagged[k] = pairName(pc), pc.Observed, pc.Mean, pc.Q5, pc.Q95, pc.PAdjusted < checkAlpha
		}
		f, err := figure.Intervals(fmt.Sprintf("check %s: %s of each pair", x.Model, statLabel(res.Stat)),
			"pair, from the smallest observed "+statLabel(res.Stat), statLabel(res.Stat), labels, obs, mean, lo, hi, flagged)
		if err != nil {
			return err
		}
		if err := s.emit(figureName("check", x.Model), f, out); err != nil {
			return err
		}
	}
	out.Stream("stdout", checkVerdict(x.Model, names, res, x.Pair != nil)+"\n")
	if why := unconverged(r); why != "" {
		out.Stream("stderr", fmt.Sprintf("warning: check %s: the fit does not show convergence on C (%s), and the calibrated p-values are uniform only for a draw θ̃ of the posterior: "+
			"on data drawn from the prior fitted, full-correlation fits of 50 columns with 100 warm-up and 100 kept iterations (max R-hat about 1.16) gave an omnibus p below 0.05 for 7.5%% of 200 data sets and flagged a pair for 9.3%%, "+
			"and fits four times as long (max R-hat about 1.07) for 4.9%% and 4.2%%; "+
			"extend %s or fit it longer, then check again\n", x.Model, why, x.Model))
	}
	return nil
}

// plural is "1 pair" or "n pairs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// maxTableRows caps the pairs a check table shows; a longer table says how
// many pairs were left out.
const maxTableRows = 60

// pairsToShow is every pair when they fit in a table, otherwise the
// maxTableRows with the smallest adjusted and then unadjusted p-values,
// in their original order.
func pairsToShow(pairs []inference.PairCheck) []inference.PairCheck {
	if len(pairs) <= maxTableRows {
		return pairs
	}
	idx := make([]int, len(pairs))
	for k := range idx {
		idx[k] = k
	}
	key := func(v float64) float64 {
		if math.IsNaN(v) {
			return 2
		}
		return v
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := pairs[idx[a]], pairs[idx[b]]
		if key(pa.PAdjusted) != key(pb.PAdjusted) {
			return key(pa.PAdjusted) < key(pb.PAdjusted)
		}
		return key(pa.P) < key(pb.P)
	})
	idx = idx[:maxTableRows]
	slices.Sort(idx)
	out := make([]inference.PairCheck, len(idx))
	for k, i := range idx {
		out[k] = pairs[i]
	}
	return out
}

// checkVerdict is the one-line verdict of a check, resting on the
// calibrated omnibus p-value of the pairs' rank correlations, and on the
// calibrated p-value of a two-way table checked with them (names are the
// model's columns): a table can show what the rank correlations miss (a
// dependence that is not monotone), and then the verdict does not say that
// nothing was missed. With onePair (check m[A, B], whose table shows one
// pair) it says that the omnibus p-value and the flags are over every pair.
func checkVerdict(model string, names []string, res *inference.CheckResult, onePair bool) string {
	flagged := 0
	for _, pc := range res.Pairs {
		if pc.PAdjusted < checkAlpha {
			flagged++
		}
	}
	var missed []string
	for _, tc := range res.Tables {
		if tc.P < checkAlpha {
			missed = append(missed, fmt.Sprintf("the two-way table of %s and %s (calibrated p = %s < %g)", names[tc.I], names[tc.J], pText(tc.P), checkAlpha))
		}
	}
	over, pairs := "", plural(len(res.Pairs), "pair")
	if onePair {
		over = fmt.Sprintf(" over all %s", pairs)
		pairs = fmt.Sprintf("all %s (`check %s` shows them)", pairs, model)
	}
	var b strings.Builder
	if res.P < checkAlpha {
		fmt.Fprintf(&b, "check %s: the model does NOT reproduce the observed dependence: calibrated omnibus p = %s < %g%s", model, pText(res.P), checkAlpha, over)
	} else if len(missed) > 0 {
		fmt.Fprintf(&b, "check %s: the model does NOT reproduce %s, though the rank correlations give no evidence against it: calibrated omnibus p = %s%s", model, strings.Join(missed, " or "), pText(res.P), over)
	} else {
		fmt.Fprintf(&b, "check %s: no evidence that the model misses the observed dependence: calibrated omnibus p = %s%s", model, pText(res.P), over)
	}
	fmt.Fprintf(&b, " (classical ppp %.3f, conservative); %d of %s flagged (max-T adjusted p < %g)", res.PPP, flagged, pairs, checkAlpha)
	if !math.IsNaN(res.Reproduced) {
		fmt.Fprintf(&b, "; the replications reproduce %.1f%% of the observed %s sum of squares", 100*res.Reproduced, statLabel(res.Stat))
	}
	if res.P < checkAlpha && len(missed) > 0 {
		fmt.Fprintf(&b, "; nor does it reproduce %s", strings.Join(missed, " or "))
	}
	return b.String()
}

// showTwoWay shows the two-way table of a checked pair: a table of its
// cells and a plot of observed counts against their replications.
func (s *Session) showTwoWay(m *Model, x *compiler.CheckStmt, tc inference.TwoWayCheck, out Output) {
	raw := m.Names()
	names := columnTexts(raw)
	groupName := func(col int, g inference.LevelGroup) string {
		vals := m.Fit.LevelValues(col)
		j := m.Cols[col]
		if g.First == g.Last {
			return formatValue(m.Data, j, vals[g.First])
		}
		return formatValue(m.Data, j, vals[g.First]) + "–" + formatValue(m.Data, j, vals[g.Last])
	}
	t := &Table{Header: []string{names[tc.I], names[tc.J], "observed", "rep_mean", "rep_q5", "rep_q95", "outside"}}
	var labels []string
	w := len(tc.ColGroups)
	for a, ga := range tc.RowGroups {
		for b, gb := range tc.ColGroups {
			c := a*w + b
			outside := tc.Observed[c] < tc.Q5[c] || tc.Observed[c] > tc.Q95[c]
			mark := ""
			if outside {
				mark = "*"
			}
			ra, rb := groupName(tc.I, ga), groupName(tc.J, gb)
			t.Rows = append(t.Rows, []string{ra, rb, strconv.FormatFloat(tc.Observed[c], 'f', 0, 64),
				tableNum("%.1f", tc.Mean[c]), tableNum("%.0f", tc.Q5[c]), tableNum("%.0f", tc.Q95[c]), mark})
			labels = append(labels, ra+", "+rb)
		}
	}
	t.Caption = fmt.Sprintf("two-way table of %s and %s in %s: observed counts against replicated counts (mean, 90%% interval); outside: observed outside its interval",
		names[tc.I], names[tc.J], x.Model)
	out.Display(t.Bundle(), "")
	if f, err := figure.Intervals(fmt.Sprintf("check %s: counts of %s × %s", x.Model, names[tc.I], names[tc.J]),
		fmt.Sprintf("cell (%s, %s), row by row as in the table", names[tc.I], names[tc.J]), "count", labels, tc.Observed, tc.Mean, tc.Q5, tc.Q95, make([]bool, len(labels))); err == nil {
		if err := s.emit(figureName("check", x.Model+"-"+raw[tc.I]+"-"+raw[tc.J]), f, out); err != nil {
			out.Stream("stderr", "warning: "+err.Error()+"\n")
		}
	}
	if tc.P < checkAlpha {
		out.Stream("stdout", fmt.Sprintf("two-way table of %s and %s: Pearson discrepancy X2 = %.1f, calibrated p = %s < %g (classical ppp %.3f): the model does NOT reproduce this table\n",
			names[tc.I], names[tc.J], tc.X2, pText(tc.P), checkAlpha, tc.PPP))
		return
	}
	out.Stream("stdout", fmt.Sprintf("two-way table of %s and %s: Pearson discrepancy X2 = %.1f, calibrated p = %s (classical ppp %.3f)\n",
		names[tc.I], names[tc.J], tc.X2, pText(tc.P), tc.PPP))
}

// compareModels refits each model with held-out cells and shows their
// predictive scores side by side.
func (s *Session) compareModels(ctx context.Context, x *compiler.Compare, out Output) error {
	models := make([]*Model, len(x.Models))
	for k, name := range x.Models {
		m, err := s.fitted(name)
		if err != nil {
			return err
		}
		if m.FitStmt == nil || m.Plan == nil {
			return fmt.Errorf("model %s has no fit settings to refit with: run `fit %s` first", name, name)
		}
		if k > 0 {
			if !sameColumnNames(m, models[0]) {
				return fmt.Errorf("%s and %s use different columns: compare scores models on the same cells", name, x.Models[0])
			}
			if m.Data != models[0].Data && !sameModelColumns(models[0], m.Data) {
				return s.differentData(x.Models[0], models[0], name, m)
			}
		}
		models[k] = m
	}
	base := models[0]
	folds, err := inference.HoldOut(base.columns(), x.Folds, x.Holdout, x.Seed)
	if err != nil {
		return err
	}
	cells := 0
	for _, f := range folds {
		cells += len(f)
	}
	// A model's scores kept from an earlier compare of the same cells and
	// settings are what its refits would give again: only the others are
	// refitted.
	c := &comparison{names: x.Models, models: models, folds: len(folds),
		cells: make([][][]inference.HeldOutCell, len(models)), keys: make([]string, len(models)), scores: make([][]float64, len(models)),
		chainTotals: make([][][]float64, len(models))}
	var noMCError []string
	var reused []string
	for k, m := range models {
		c.cells[k] = remapCells(folds, base, m)
		c.keys[k] = scoreKey(compareSpec(m), c.cells[k])
		if ks, ok := s.scores.get(c.keys[k]); ok {
			c.scores[k], c.chainTotals[k] = ks.lp, ks.chainTotals
			if ks.chainTotals == nil {
				noMCError = append(noMCError, fmt.Sprintf("%s (read from %s)", x.Models[k], ks.from))
			}
			if ks.from != "" {
				reused = append(reused, fmt.Sprintf("%s (read from %s)", x.Models[k], ks.from))
			} else {
				reused = append(reused, x.Models[k])
			}
			continue
		}
		c.refit = append(c.refit, k)
	}
	if len(reused) > 0 {
		c.reused = "scores kept from an earlier compare of the same cells and settings: " + strings.Join(reused, ", ")
	}
	if len(c.refit) > 0 {
		if err := s.refitForScores(ctx, c, out); err != nil {
			return err
		}
	}
	sums, best, err := inference.CompareScores(c.scores)
	if err != nil {
		return err
	}
	order := make([]int, len(models))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return sums[order[a]].ELPD > sums[order[b]].ELPD })
	mcse := diffMCSE(c.chainTotals, best)
	t := &Table{Header: []string{"model", "structure", "method", "elpd", "se", "elpd_diff", "se_diff", "mcse_diff", "mean_lpd"}}
	for _, k := range order {
		sm := sums[k]
		t.Rows = append(t.Rows, []string{x.Models[k], structure(models[k]), ranMethod(models[k].Fit),
			tableNum("%.1f", sm.ELPD), tableNum("%.1f", sm.SE), tableNum("%.1f", sm.Diff), tableNum("%.1f", sm.SEDiff),
			tableNum("%.2f", mcse[k]), tableNum("%.3f", sm.ELPD/float64(cells))})
	}
	how := fmt.Sprintf("%d held-out cells (%g%% of the observed cells whose value recurs in their column, seed %d)", cells, 100*x.Holdout, x.Seed)
	if len(folds) > 1 {
		how = fmt.Sprintf("%d cells held out in %d folds (every observed cell whose value recurs in its column, seed %d)", cells, len(folds), x.Seed)
	}
	if c.reused != "" {
		how += " (" + c.reused + ")"
	}
	t.Caption = "held-out predictive scores: " + how + "; each model refitted on the rest with its fit's settings; " +
		"elpd = Σ log Pr(held-out value | the rest of the data), elpd_diff against the best with the standard error of the paired differences, " +
		"mcse_diff its Monte Carlo error, from the chains of the refits (NA with a single chain, or scores kept without it)"
	out.Display(t.Bundle(), "")
	out.Stream("stdout", compareVerdict(x.Models, sums, best, len(folds), mcse)+"\n")
	if len(noMCError) > 0 {
		out.Stream("stdout", fmt.Sprintf("note: the scores of %s were kept by a copulang that did not keep what their Monte Carlo error needs, so mcse_diff is NA where they enter; removing the fit file (or fitting with other settings) and comparing again gives it\n", andList(noMCError)))
	}
	if w := unconvergedWarning(x.Models, models); w != "" {
		out.Stream("stderr", "warning: "+w+"\n")
	}
	return nil
}

// diffMCSE is the Monte Carlo error of each model's elpd difference from
// the best's (mcse_diff), from each model's refits' chain totals
// (chainTotals[k], per fold): the models' refits are independent, so
// their variances add. 0 for the best; NaN where a model's is unknown.
func diffMCSE(chainTotals [][][]float64, best int) []float64 {
	out := make([]float64, len(chainTotals))
	for k := range chainTotals {
		if k != best {
			out[k] = math.Sqrt(inference.ELPDMCVar(chainTotals[k]) + inference.ELPDMCVar(chainTotals[best]))
		}
	}
	return out
}

// unconvergedWarning names the models whose fit does not show that it
// converged on C, as the fit's report warns: chains that disagree (R-hat
// above 1.01), or an R-hat or ESS that could not be computed or an ESS below
// 100 per chain, with which R-hat cannot vouch for anything (a fit of a few
// draws says nothing of its convergence). compare refits them with the same
// settings, so their refits may not have converged either, and their scores
// say little ("" when none).
func unconvergedWarning(names []string, models []*Model) string {
	var bad []string
	for k, m := range models {
		if why := unconverged(m.Fit); why != "" {
			bad = append(bad, fmt.Sprintf("%s (%s)", names[k], why))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	fit, does, its, it, score := "fit", "does", "its", "it", "its score"
	if len(bad) > 1 {
		fit, does, its, it, score = "fits", "do", "their", "them", "their scores"
	}
	return fmt.Sprintf("the %s of %s %s not show convergence on C, and compare refits with the same settings: %s refits may not have converged either, so %s and %s place in this ranking are unreliable; fit %s longer (more iter and warmup) and compare again",
		fit, strings.Join(bad, ", "), does, its, score, its, it)
}

// unconverged says why fit r does not show convergence on C ("" when it
// does): R-hat first, as the chains' disagreement is the plainest sign.
func unconverged(r *inference.Result) string {
	d, chains := fitDiagnostics(r).c, max(len(r.C), 1)
	switch {
	case d.rhatWarns():
		return fmt.Sprintf("max R-hat of C %.3f", d.maxRHat)
	case d.noESS > 0 || math.IsInf(d.maxRHat, 0) || d.nans > 0:
		return "R-hat or ESS of C not computable: too few draws, or draws that do not vary"
	case d.essWarns(chains):
		return fmt.Sprintf("least ESS of C %s over %s, below 100 per chain", statText("%.0f", math.Min(d.minBulk, d.minTail)), plural(chains, "chain"))
	}
	return ""
}

// comparison is a compare under way: per model (in the statement's
// order), its name, binding, held-out cells by fold, score key and
// pointwise scores (nil until known); the models to refit; and what was
// kept from earlier, in words ("" if nothing).
type comparison struct {
	names  []string
	models []*Model
	cells  [][][]inference.HeldOutCell
	keys   []string
	scores [][]float64
	// chainTotals are each model's refits' chain totals, per fold (nil
	// when kept without them).
	chainTotals [][][]float64
	folds       int
	refit       []int
	reused      string
}

// refitWork measures how far compare's refits are: refit at (of
// len(weights), each of folds folds) is at fold fold with progress p, and a
// refit of model at costs weights[at] (its fit's time). It returns the work
// done and in all, in those units.
func refitWork(weights []float64, folds, at, fold int, p inference.Progress) (done, total float64) {
	for i, w := range weights {
		total += w * float64(folds)
		switch {
		case i < at:
			done += w * float64(folds)
		case i == at && p.AllTotal > 0:
			done += w * (float64(fold) + float64(p.AllDone)/float64(p.AllTotal))
		}
	}
	return done, total
}

// refitForScores refits the models c.refit with each fold of their cells
// held out in turn, with live progress, and sets their scores; it keeps
// the scores of every model it finished, in the session and in the model's
// fit file if it has one, even when interrupted.
func (s *Session) refitForScores(ctx context.Context, c *comparison, out Output) error {
	refit, folds := c.refit, c.folds
	var mu sync.Mutex
	current, fold := 0, 0
	var latest inference.Progress
	// Each refit of a fold is taken to cost what the model's fit took.
	weights := make([]float64, len(refit))
	for at, k := range refit {
		weights[at] = max(c.models[k].Fit.Elapsed.Seconds(), 1e-3)
	}
	start := time.Now()
	var base etaBase
	status := func(state string) MimeBundle {
		mu.Lock()
		defer mu.Unlock()
		if state == "" {
			iters := "starting" // before the refit's first report
			if latest.AllTotal > 0 {
				iters = fmt.Sprintf("%d/%d iterations", latest.AllDone, latest.AllTotal)
				done, total := refitWork(weights, folds, current, fold, latest)
				el := time.Since(start)
				base.observeWork(done, el)
				if left, ok := workLeft(base, done, total, el); ok {
					iters += fmt.Sprintf(", about %s left", roundDuration(left))
				}
			}
			state = fmt.Sprintf("refitting %s (%d of %d), fold %d of %d: %s", c.names[refit[current]], current+1, len(refit), fold+1, folds, iters)
		}
		doneIters := (current*folds+fold)*max(latest.AllTotal, 1) + latest.AllDone
		return barBundle("compare: "+state, doneIters, len(refit)*folds*max(latest.AllTotal, 1))
	}
	show := &jobProgress{out: out, id: s.progressID("compare")}
	finished := 0
	err := inBackground(show, func() MimeBundle { return status("") }, func() error {
		for at, k := range refit {
			mu.Lock()
			current, fold, latest = at, 0, inference.Progress{}
			mu.Unlock()
			m := c.models[k]
			cv, err := inference.CrossValidate(ctx, compareSpec(m), c.cells[k], func(f int, p inference.Progress) {
				mu.Lock()
				fold, latest = f, p
				mu.Unlock()
			})
			if err != nil {
				return fmt.Errorf("refitting %s: %w", m.Decl.Name, err)
			}
			c.scores[k], c.chainTotals[k] = cv.LogProb, cv.ChainTotals
			finished = at + 1
		}
		return nil
	})
	// The scores are kept even after an interrupt: the wait for another
	// process's write to the file is bounded instead.
	keepCtx, cancelKeep := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancelKeep()
	for _, k := range refit[:finished] {
		s.scores.put(c.keys[k], keptScore{lp: c.scores[k], chainTotals: c.chainTotals[k]})
		kf, after := c.models[k].kept, ""
		if kf != nil && len(kf.extensions) > 0 {
			after = ", after the same extension,"
		}
		if kf == nil && c.models[k].extendedFrom != nil {
			kf, after = c.models[k].extendedFrom, ", after the same extension,"
		}
		if kf != nil {
			if err := keepScores(keepCtx, kf, c.keys[k], c.scores[k], c.chainTotals[k]); err != nil {
				out.Stream("stdout", fmt.Sprintf("note: the scores of %s are not kept in %s: %v\n", c.names[k], kf.shown, err))
			} else {
				out.Stream("stdout", fmt.Sprintf("note: kept the scores of %s in %s, where a later compare of the same cells%s reads them\n", c.names[k], kf.shown, after))
			}
		}
	}
	if errors.Is(err, context.Canceled) {
		show.show(status("interrupted"), "interrupted")
		return interrupted("compare while refitting the models with held-out cells")
	}
	if err != nil {
		show.show(status("failed"), "failed")
		return err
	}
	done := fmt.Sprintf("done: %s refitted %s each in %s", plural(len(refit), "model"), plural(folds, "time"), roundDuration(time.Since(start)))
	if c.reused != "" {
		done += "; " + c.reused
	}
	show.show(status(done), "done")
	return nil
}

// sameColumnNames reports whether models a and b hold the same columns,
// by name, in any order.
func sameColumnNames(a, b *Model) bool {
	return slices.Equal(slices.Sorted(slices.Values(a.Names())), slices.Sorted(slices.Values(b.Names())))
}

// differentData is compare's error for models a and b, of the same
// columns, declared on data of one name bound to different values (a
// load cell run again on an edited file between their declarations): it
// says which data each has, what differs, and which to declare again.
// Models on data of the same values are compared, whichever binding holds
// them.
func (s *Session) differentData(aName string, a *Model, bName string, b *Model) error {
	name := a.Data.Name
	which := func(model string, m *Model) string {
		if s.data[name] == m.Data {
			return fmt.Sprintf("%s on the data %s names now", model, name)
		}
		return fmt.Sprintf("%s on %s as it was when %s was declared", model, name, model)
	}
	var stale []string
	for _, m := range []struct {
		name  string
		model *Model
	}{{aName, a}, {bName, b}} {
		if s.data[name] != m.model.Data {
			stale = append(stale, m.name)
		}
	}
	return fmt.Errorf("%s and %s are on different data: %s (%d rows, from %s), %s (%d rows, from %s%s): compare scores models on the same cells; declare %s again on the data %s names now, and fit %s",
		aName, bName, which(aName, a), a.Data.N(), a.Data.origin(), which(bName, b), b.Data.N(), b.Data.origin(), dataChange(a, b.Data),
		andList(stale), name, pronoun(len(stale)))
}

// pronoun is "it" for one, "them" for more.
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// remapCells translates held-out cells from base's column order to m's,
// by the columns' names (the two may be on different bindings of data of
// the same values, whose columns are numbered differently).
func remapCells(folds [][]inference.HeldOutCell, base, m *Model) [][]inference.HeldOutCell {
	names, baseNames := m.Names(), base.Names()
	out := make([][]inference.HeldOutCell, len(folds))
	for f, cells := range folds {
		out[f] = make([]inference.HeldOutCell, len(cells))
		for i, c := range cells {
			c.Col = slices.Index(names, baseNames[c.Col])
			out[f][i] = c
		}
	}
	return out
}

// structure names a model's correlation structure briefly, for tables.
// The priors a model does not take by default (GDP loadings, LKJ) are
// named, so that a comparison of priors tells its rows apart.
func structure(m *Model) string {
	switch model := m.Decl.Model.(type) {
	case inference.FactorModel:
		if _, gdp := model.Loadings.(inference.GDPLoadings); gdp {
			return fmt.Sprintf("factor(k=%d,GDP)", model.K)
		}
		return fmt.Sprintf("factor(k=%d)", model.K)
	case inference.FullCorrelation:
		if _, lkj := model.Prior.(inference.LKJ); lkj {
			return "full(LKJ)"
		}
	}
	return "full"
}

// compareVerdict says which model scored best, which others are clearly
// worse (by more than 2 standard errors of the difference) and which the
// held-out cells cannot tell from it. mcse is the Monte Carlo error of each
// model's difference from the best (mcse_diff; NaN when unknown): a
// difference within about 2 of them of zero is one that refits of other
// seeds could reverse, whatever its standard error, and the verdict says
// that the fits are too short to tell, and to extend them (the refits run
// the fits' iterations): it ranked such a model by its standard error
// alone, as clearly worse when that was small.
func compareVerdict(names []string, sums []inference.ScoreSummary, best int, folds int, mcse []float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "compare: %s scores best", names[best])
	var clear, close, unsure []string
	extend := []string{"`extend " + names[best] + "`"}
	for k, sm := range sums {
		if k == best {
			continue
		}
		switch {
		case mcse[k] > 0 && -sm.Diff <= 2*mcse[k]:
			unsure = append(unsure, fmt.Sprintf("%s by %.1f (mcse_diff %.2f)", names[k], -sm.Diff, mcse[k]))
			extend = append(extend, "`extend "+names[k]+"`")
		case -sm.Diff > 2*sm.SEDiff:
			clear = append(clear, fmt.Sprintf("%s by %.1f ± %.1f", names[k], -sm.Diff, sm.SEDiff))
		default:
			close = append(close, fmt.Sprintf("%s by %.1f ± %.1f", names[k], -sm.Diff, sm.SEDiff))
		}
	}
	if len(clear) > 0 {
		fmt.Fprintf(&b, "; clearly worse (by more than 2 standard errors): %s", strings.Join(clear, ", "))
	}
	if len(close) > 0 {
		fmt.Fprintf(&b, "; worse by less than 2 standard errors, which these cells cannot tell apart from it: %s", strings.Join(close, ", "))
		if folds == 1 {
			b.WriteString(" (folds = 5 scores every cell once and narrows the standard errors)")
		}
	}
	if len(unsure) > 0 {
		fmt.Fprintf(&b, "; behind by no more than about 2 Monte Carlo errors of the difference, so the fits are too short to tell which scores better (refits with other seeds could reverse the order): %s; %s and compare again, as the refits run as many iterations as the fits (doubling them divides mcse_diff by about 1.4)",
			strings.Join(unsure, ", "), andList(extend))
	}
	return b.String()
}

// extendForDraws is the iterations per chain that `extend` runs for r to
// keep at least more draws in all.
func extendForDraws(r *inference.Result, more int) int {
	chains := max(len(r.C), 1)
	return (more + chains - 1) / chains * max(r.Thin, 1)
}
