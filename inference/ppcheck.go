package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/copulang/copulang/hough"
)

// Defaults of a posterior predictive check.
const (
	// DefaultCheckDraws is the number of posterior draws replicated once
	// each for the posterior predictive intervals and classical p-values.
	DefaultCheckDraws = 200
	// DefaultCheckReps is the number of replications at the one sampled
	// draw behind the calibrated p-values.
	DefaultCheckReps = 200
	// MinCheckDraws is the fewest posterior draws a check replicates: the
	// 90% intervals, the classical ppp (a multiple of 2/Draws, 0 for every
	// pair at one draw) and the reproduced share rank or average the data
	// among them. With one draw every pair's interval was a point and its
	// ppp 0, the classical omnibus ppp 1 (no pair had a spread) and the
	// reproduced share that of one replication. The calibrated p-values
	// do not depend on Draws.
	MinCheckDraws = 20
	// maxTableGroups is the largest number of levels a column shows in a
	// two-way table; a column with more is grouped into tableGroups
	// groups of about equal counts.
	maxTableGroups, tableGroups = 8, 5
	// MaxCheckValues bounds the statistics of the replications at θ̃ a
	// check keeps, one per pair of columns and data set: (Reps + 1)·pairs
	// ≤ 2²⁶, 512 MB, and as much again for their standardised copies in
	// the calibrated p-values, so about 1 GB at the bound. A mistyped reps
	// (10⁹) would otherwise exhaust the memory of the kernel that runs it;
	// at p = 40 the bound still allows about 86,000 replications. (Draws
	// are at most the fit's kept draws, whose p×p matrices the fit holds
	// already.)
	MaxCheckValues = 1 << 26
)

// CheckOptions configures Result.Check. Zero fields take the defaults.
type CheckOptions struct {
	// Draws is the number of kept draws, spread evenly over the chains,
	// from each of which one data set is replicated (default 200, at most
	// the number of kept draws, at least MinCheckDraws).
	Draws int
	// Reps is the number of data sets replicated from the one sampled draw
	// θ̃ (default 200).
	Reps int
	// Stat is the rank correlation compared (default Spearman).
	Stat RankStat
	// Seed seeds the replications and the choice of θ̃.
	Seed uint64
	// Tables lists pairs of columns (0-based) whose two-way tables are
	// compared.
	Tables [][2]int
	// Progress, if not nil, is called after each replication with the
	// number done and the total, from the check's goroutines, serialised.
	Progress func(done, total int)
}

// PairCheck is the check of one pair of columns I < J (0-based).
type PairCheck struct {
	I, J int
	// Observed is the statistic of the data (NaN if undefined, such as
	// for a constant column).
	Observed float64
	// Mean, Q5 and Q95 summarise its posterior predictive distribution:
	// one replication from each of the Draws draws.
	Mean, Q5, Q95 float64
	// PPP is the classical two-sided posterior predictive p-value
	// 2·min(Pr(T_rep ≥ T), Pr(T_rep ≤ T)) over the same replications. It
	// is conservative: concentrated towards 0.5 for a correct model.
	PPP float64
	// Z is the standardised residual (T − m)/s at the sampled draw θ̃, m
	// and s the mean and standard deviation of the statistic over the data
	// and the Reps replications from θ̃.
	Z float64
	// P is the calibrated two-sided p-value: the share of the data and
	// its replications from θ̃ whose |Z| is at least the data's. It is
	// uniform (on the grid k/(Reps+1)) when the model is right.
	P float64
	// PAdjusted is P adjusted for testing every pair (the single-step
	// max-T method of Westfall and Young): the share of the data and its
	// replications whose largest |Z| over all pairs is at least this
	// pair's. Flagging pairs with PAdjusted < α flags any pair of a right
	// model with probability at most α.
	PAdjusted float64
}

// TwoWayCheck compares the two-way table of a pair of columns with its
// replications.
type TwoWayCheck struct {
	I, J int
	// RowGroups and ColGroups are the levels shown as rows and columns:
	// each a range of the column's levels (one level unless the column has
	// more than 8).
	RowGroups, ColGroups []LevelGroup
	// Observed, Mean, Q5 and Q95 are counts per cell, row-major
	// (len(RowGroups) × len(ColGroups)): the data's, and the posterior
	// predictive mean and 90% interval.
	Observed, Mean, Q5, Q95 []float64
	// X2 is Pearson's discrepancy Σ (O − E)²/E of the data against the
	// posterior predictive mean counts; PPP its classical posterior
	// predictive p-value; P its calibrated p-value at θ̃ (with E the mean
	// counts at θ̃).
	X2, PPP, P float64
}

// LevelGroup is a range of levels First..Last (0-based, inclusive) of a
// column, as indices into its distinct observed values.
type LevelGroup struct{ First, Last int }

// CheckResult is a posterior predictive check of the dependence a fit
// reproduces.
type CheckResult struct {
	Stat RankStat
	// Draws and Reps are the replications made.
	Draws, Reps int
	// SampledChain and SampledDraw locate θ̃ among the kept draws
	// (0-based).
	SampledChain, SampledDraw int
	// Pairs holds every pair of columns i < j, in row-major order.
	Pairs []PairCheck
	// Discrepancy is D = Σ_pairs Z², the omnibus discrepancy at θ̃ (Gelman,
	// Meng and Stern 1996), and P its calibrated p-value; PMax is the
	// calibrated p-value of max |Z| (the smallest PAdjusted).
	Discrepancy, P, PMax float64
	// ClassicalDiscrepancy is Σ_pairs (T − mean)²/var with the posterior
	// predictive moments, and PPP its classical posterior predictive
	// p-value (conservative).
	ClassicalDiscrepancy, PPP float64
	// Reproduced is the share of the observed dependence the replications
	// reproduce: 1 − Σ (T − mean)² / Σ T² over the pairs.
	Reproduced float64
	// Tables are the two-way tables asked for, in order.
	Tables []TwoWayCheck
	// Reused is true when every pair's statistics, and the summaries
	// above, were kept from an earlier check of the same Result with the
	// same Draws, Reps, Stat and Seed, and only the tables' columns were
	// replicated again, from the same random streams: the result is the
	// one a check from scratch gives, bit for bit.
	Reused bool
}

// CheckFits reports whether a check with reps replications at θ̃ of a fit
// with pairs pairs of columns keeps at most MaxCheckValues statistics.
func CheckFits(reps, pairs int) bool {
	return reps >= 0 && reps < MaxCheckValues && pairs <= MaxCheckValues/(reps+1)
}

// Check is a posterior predictive check of the dependence between the
// columns (see replicator for how data are replicated):
//
//   - for the posterior predictive intervals and the classical p-values,
//     one data set is replicated from each of Draws kept draws, spread
//     evenly over the chains;
//   - for the calibrated p-values, one kept draw θ̃ is chosen at random
//     and Reps data sets are replicated from it. This is the sampled
//     posterior predictive p-value (Johnson 2007; Gosselin 2011): when the
//     data come from the model and θ̃ is a posterior draw, the data and
//     the replications from θ̃ are exchangeable given θ̃, so the rank of any
//     statistic of the data among them is uniform. Each p-value is that
//     rank, for a statistic computed symmetrically from all Reps+1 data
//     sets, and is therefore uniform on the grid k/(Reps+1), whereas the
//     classical posterior predictive p-values are known to be conservative
//     (Meng 1994; Robins, van der Vaart and Ventura 2000).
//
// The statistic is a rank correlation of each pair of columns on its
// pairwise-complete rows. Replication s uses its own random stream derived
// from Seed, so the result does not depend on the number of cores. Check
// stops when ctx is cancelled and returns ctx.Err().
func (r *Result) Check(ctx context.Context, opt CheckOptions) (*CheckResult, error) {
	opt, err := r.checkSettings(opt)
	if err != nil {
		return nil, err
	}
	tables := make([]tableLayout, len(opt.Tables))
	for k, t := range opt.Tables {
		tables[k] = newTableLayout(t[0], t[1], r.levels)
	}
	if kept := r.checks.get(keyOf(opt)); kept != nil {
		return r.checkTables(ctx, opt, tables, kept)
	}
	sampled, draws := r.checkDraws(opt)
	pairs := allPairs(r.P)
	total := opt.Draws + opt.Reps
	stats := make([][]float64, total+1) // stats[0]: the data; stats[1+s]: replication s
	counts := make([][][]float64, total+1)
	obs := newCheckWorker(r.levels, opt.Stat, pairs, tables)
	if stats[0], counts[0], err = obs.statistics(ctx, observedCodes(r.levels)); err != nil {
		return nil, err
	}
	err = forEachReplica(ctx, total, func() *checkWorker { return newCheckWorker(r.levels, opt.Stat, pairs, tables) },
		func(w *checkWorker, s int) error {
			at := sampled
			if s < opt.Draws {
				at = draws[s]
			}
			if !w.rep.draw(replicaRNG(opt.Seed, s), r.C[at[0]][at[1]]) {
				return fmt.Errorf("inference: check: draw %d of chain %d is not positive definite", at[1]+1, at[0]+1)
			}
			var err error
			stats[1+s], counts[1+s], err = w.statistics(ctx, w.rep.codes)
			return err
		}, opt.Progress)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{
		Stat: opt.Stat, Draws: opt.Draws, Reps: opt.Reps,
		SampledChain: sampled[0], SampledDraw: sampled[1],
	}
	posterior := stats[1 : 1+opt.Draws]
	atSampled := append([][]float64{stats[0]}, stats[1+opt.Draws:]...)
	res.Pairs = make([]PairCheck, len(pairs))
	for k, pr := range pairs {
		res.Pairs[k] = summarisePair(pr, stats[0][k], column(posterior, k))
	}
	res.ClassicalDiscrepancy, res.PPP = classicalDiscrepancy(stats[0], posterior)
	res.Discrepancy, res.P, res.PMax = calibratedPairs(res.Pairs, atSampled)
	res.Reproduced = reproduced(res.Pairs)
	r.checks.put(keyOf(opt), res)
	res.Tables = summariseTables(opt, tables, counts)
	return res, nil
}

// CheckReuses reports whether Check(ctx, opt) would take every pair's
// statistics from an earlier check of r (see checkMemo), replicating only
// the columns of opt.Tables again; false when opt is not a valid check.
func (r *Result) CheckReuses(opt CheckOptions) bool {
	opt, err := r.checkSettings(opt)
	return err == nil && r.checks.get(keyOf(opt)) != nil
}

// checkSettings validates opt for r and fills in its defaults.
func (r *Result) checkSettings(opt CheckOptions) (CheckOptions, error) {
	kept := r.KeptDraws()
	if kept == 0 {
		return opt, errors.New("inference: check: the fit has no kept draws")
	}
	if r.P < 2 {
		return opt, errors.New("inference: check: need at least two columns")
	}
	if opt.Draws < 0 || opt.Reps < 0 {
		return opt, fmt.Errorf("inference: check: draws = %d and reps = %d, want positive", opt.Draws, opt.Reps)
	}
	if opt.Draws == 0 {
		opt.Draws = DefaultCheckDraws
	}
	opt.Draws = min(opt.Draws, kept)
	if opt.Draws < MinCheckDraws {
		if kept < MinCheckDraws {
			return opt, fmt.Errorf("inference: check: the fit has %d kept draws, want at least %d for the intervals and classical p-values", kept, MinCheckDraws)
		}
		return opt, fmt.Errorf("inference: check: draws = %d, want at least %d for the intervals and classical p-values", opt.Draws, MinCheckDraws)
	}
	if opt.Reps == 0 {
		opt.Reps = DefaultCheckReps
	}
	for _, t := range opt.Tables {
		if t[0] < 0 || t[1] < 0 || t[0] >= r.P || t[1] >= r.P || t[0] == t[1] {
			return opt, fmt.Errorf("inference: check: table of columns %d and %d, want two different columns of 1..%d", t[0]+1, t[1]+1, r.P)
		}
	}
	if pairs := r.P * (r.P - 1) / 2; !CheckFits(opt.Reps, pairs) {
		return opt, fmt.Errorf("inference: check: reps = %d replications of %d pairs would keep more than %d statistics", opt.Reps, pairs, MaxCheckValues)
	}
	return opt, nil
}

// checkDraws returns the kept draws a check replicates from: θ̃, chosen at
// random from a stream of its own, and the Draws draws spread evenly over
// the kept ones, each as (chain, draw).
func (r *Result) checkDraws(opt CheckOptions) (sampled [2]int, draws [][2]int) {
	kept := r.keptIndex()
	pick := rand.New(rand.NewPCG(splitMix64(opt.Seed^0xa54ff53a5f1d36f1), splitMix64(opt.Seed^0x510e527fade682d1)))
	sampled = kept[pick.IntN(len(kept))]
	draws = make([][2]int, opt.Draws)
	for s := range draws {
		draws[s] = kept[int((float64(s)+0.5)*float64(len(kept))/float64(opt.Draws))]
	}
	return sampled, draws
}

// checkTables is Check when kept, an earlier check of r with the same
// settings, holds every pair's statistics and their summaries: it
// replicates the same data sets from the same random streams, but makes
// only the columns of the tables (replicator.drawColumns), and counts
// their tables. The result is what Check without kept gives, bit for bit.
func (r *Result) checkTables(ctx context.Context, opt CheckOptions, tables []tableLayout, kept *CheckResult) (*CheckResult, error) {
	res := kept
	res.Reused = true
	if len(tables) == 0 {
		return res, nil
	}
	var cols []int
	for _, t := range tables {
		cols = append(cols, t.i, t.j)
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	sampled, draws := r.checkDraws(opt)
	total := opt.Draws + opt.Reps
	counts := make([][][]float64, total+1)
	counts[0] = tableCounts(tables, observedCodes(r.levels))
	err := forEachReplica(ctx, total, func() *replicator { return newReplicator(r.levels) },
		func(rep *replicator, s int) error {
			at := sampled
			if s < opt.Draws {
				at = draws[s]
			}
			if !rep.drawColumns(replicaRNG(opt.Seed, s), r.C[at[0]][at[1]], cols) {
				return fmt.Errorf("inference: check: draw %d of chain %d is not positive definite", at[1]+1, at[0]+1)
			}
			counts[1+s] = tableCounts(tables, rep.codes)
			return ctx.Err()
		}, opt.Progress)
	if err != nil {
		return nil, err
	}
	res.Tables = summariseTables(opt, tables, counts)
	return res, nil
}

// tableCounts returns the counts of every two-way table of the
// level-coded data set codes.
func tableCounts(tables []tableLayout, codes [][]int32) [][]float64 {
	counts := make([][]float64, len(tables))
	for k, t := range tables {
		counts[k] = t.count(codes[t.i], codes[t.j])
	}
	return counts
}

// summariseTables summarises the tables asked for from their counts in
// the data (counts[0]) and in each replication (counts[1+s]).
func summariseTables(opt CheckOptions, tables []tableLayout, counts [][][]float64) []TwoWayCheck {
	var out []TwoWayCheck
	for k, t := range opt.Tables {
		tc := TwoWayCheck{I: t[0], J: t[1], RowGroups: tables[k].rows, ColGroups: tables[k].cols}
		tc.summarise(k, counts[0], counts[1:1+opt.Draws], append([][][]float64{counts[0]}, counts[1+opt.Draws:]...))
		out = append(out, tc)
	}
	return out
}

// maxKeptChecks is how many checks a Result keeps (the latest ones): each
// holds one PairCheck per pair, about 80 bytes, so at most 4 × 3.6 MB at
// p = 300.
const maxKeptChecks = 4

// checkKey is what a check's pair statistics depend on besides the Result
// (Draws and Reps defaulted): the tables do not enter them.
type checkKey struct {
	draws, reps int
	stat        RankStat
	seed        uint64
}

func keyOf(opt CheckOptions) checkKey {
	return checkKey{draws: opt.Draws, reps: opt.Reps, stat: opt.Stat, seed: opt.Seed}
}

// checkMemo keeps the pair statistics of a Result's latest checks, so that
// a later check of the same settings (check m[A, B] after check m, to see
// a flagged pair's table) replicates only the columns of its tables. A
// Result's draws and data never change once it is made, and Extend, a
// refit and a fit read from a file each make a new Result with a memo of
// its own, so what it keeps is what the check would compute again. Only a
// finished check is kept: an interrupted or failed one keeps nothing.
type checkMemo struct {
	mu   sync.Mutex
	kept []keptCheck // oldest first
}

type keptCheck struct {
	key checkKey
	res CheckResult // without tables
}

// get returns a copy of the check kept under key (nil: none, or no memo).
func (m *checkMemo) get(key checkKey) *CheckResult {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.kept {
		if k.key == key {
			res := k.res
			res.Pairs = slices.Clone(k.res.Pairs)
			return &res
		}
	}
	return nil
}

// put keeps a copy of res, without its tables, under key, forgetting the
// oldest check beyond maxKeptChecks.
func (m *checkMemo) put(key checkKey, res *CheckResult) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kept = slices.DeleteFunc(m.kept, func(k keptCheck) bool { return k.key == key })
	kept := *res
	kept.Pairs, kept.Tables = slices.Clone(res.Pairs), nil
	m.kept = append(m.kept, keptCheck{key, kept})
	if len(m.kept) > maxKeptChecks {
		m.kept = slices.Delete(m.kept, 0, len(m.kept)-maxKeptChecks)
	}
}

// LevelValues returns the distinct observed values of column j, ascending:
// the levels a LevelGroup counts.
func (r *Result) LevelValues(j int) []float64 { return slices.Clone(r.levels[j].Values) }

// keptIndex lists every kept draw as (chain, draw), chains in order.
func (r *Result) keptIndex() [][2]int {
	var out [][2]int
	for c, chain := range r.C {
		for t := range chain {
			out = append(out, [2]int{c, t})
		}
	}
	return out
}

// allPairs lists the pairs i < j of p columns in row-major order.
func allPairs(p int) [][2]int {
	out := make([][2]int, 0, p*(p-1)/2)
	for i := 0; i < p; i++ {
		for j := i + 1; j < p; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// column returns x[s][k] for every s.
func column(x [][]float64, k int) []float64 {
	out := make([]float64, len(x))
	for s, row := range x {
		out[s] = row[k]
	}
	return out
}

// checkWorker computes the statistics of one data set, observed or
// replicated; each goroutine of a check has its own.
type checkWorker struct {
	rep    *replicator
	ps     pairStats
	levels []*hough.Levels
	pairs  [][2]int
	tables []tableLayout
	bits   []levelBits // per column, for pairs with small tables
	built  []bool      // bits[j] holds the current data set's column j
}

func newCheckWorker(levels []*hough.Levels, stat RankStat, pairs [][2]int, tables []tableLayout) *checkWorker {
	return &checkWorker{rep: newReplicator(levels), ps: pairStats{stat: stat}, levels: levels, pairs: pairs, tables: tables,
		bits: make([]levelBits, len(levels)), built: make([]bool, len(levels))}
}

// statistics returns the rank statistic of every pair and the counts of
// every two-way table of the level-coded data set codes. A pair whose table
// has at most maxBitCells cells is counted from its columns' bit sets, made
// once per data set; the table, hence the statistic, is the same. It
// stops with ctx's error when ctx is done: a data set of 50,000 rows and
// 40 columns with continuous ones took seconds (Kendall's τ_b), which an
// interrupt waited for.
func (w *checkWorker) statistics(ctx context.Context, codes [][]int32) ([]float64, [][]float64, error) {
	stats := make([]float64, len(w.pairs))
	clear(w.built)
	for k, pr := range w.pairs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		i, j := pr[0], pr[1]
		li, lj := w.levels[i].NumLevels(), w.levels[j].NumLevels()
		if li*lj <= maxBitCells {
			stats[k] = w.ps.ofBits(w.columnBits(codes, i), w.columnBits(codes, j))
			continue
		}
		stats[k] = w.ps.of(codes[i], codes[j], li, lj)
	}
	counts := make([][]float64, len(w.tables))
	for k, t := range w.tables {
		counts[k] = t.count(codes[t.i], codes[t.j])
	}
	return stats, counts, nil
}

// columnBits returns the bit sets of column j of codes, making them on
// first use for this data set.
func (w *checkWorker) columnBits(codes [][]int32, j int) *levelBits {
	if !w.built[j] {
		w.bits[j].set(codes[j], w.levels[j].NumLevels())
		w.built[j] = true
	}
	return &w.bits[j]
}

// summarisePair summarises the posterior predictive distribution of one
// pair's statistic: mean, 90% interval and classical p-value.
func summarisePair(pr [2]int, observed float64, reps []float64) PairCheck {
	pc := PairCheck{I: pr[0], J: pr[1], Observed: observed,
		Mean: math.NaN(), Q5: math.NaN(), Q95: math.NaN(), PPP: math.NaN(), Z: math.NaN(), P: math.NaN(), PAdjusted: math.NaN()}
	finite := slices.DeleteFunc(slices.Clone(reps), math.IsNaN)
	if len(finite) == 0 || math.IsNaN(observed) {
		return pc
	}
	pc.Mean = mean(finite)
	pc.Q5 = Quantile([][]float64{finite}, 0.05)
	pc.Q95 = Quantile([][]float64{finite}, 0.95)
	pc.PPP = twoSidedPPP(observed, finite)
	return pc
}

// twoSidedPPP is 2·min(Pr(rep ≥ obs), Pr(rep ≤ obs)), at most 1.
func twoSidedPPP(obs float64, reps []float64) float64 {
	ge, le := 0, 0
	for _, v := range reps {
		if v >= obs {
			ge++
		}
		if v <= obs {
			le++
		}
	}
	return math.Min(1, 2*float64(min(ge, le))/float64(len(reps)))
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// classicalDiscrepancy is D(y) = Σ_k (T_k(y) − M_k)²/V_k with M, V the
// posterior predictive mean and variance of each pair's statistic, and the
// classical posterior predictive p-value Pr(D(y_rep) ≥ D(y)) over the
// replications. Pairs whose statistic is undefined or constant are left
// out.
func classicalDiscrepancy(obs []float64, reps [][]float64) (float64, float64) {
	means, sds := moments(reps, len(obs))
	d := func(t []float64) float64 {
		s := 0.0
		for k, v := range t {
			if sds[k] > 0 && !math.IsNaN(v) && !math.IsNaN(obs[k]) {
				z := (v - means[k]) / sds[k]
				s += z * z
			}
		}
		return s
	}
	d0 := d(obs)
	ge := 0
	for _, t := range reps {
		if d(t) >= d0 {
			ge++
		}
	}
	return d0, float64(ge) / float64(len(reps))
}

// moments returns the mean and standard deviation (divisor count − 1) of
// each of the k statistics over the data sets sets, ignoring NaN; the sd
// is 0 when fewer than two values are finite.
func moments(sets [][]float64, k int) (means, sds []float64) {
	means, sds = make([]float64, k), make([]float64, k)
	for j := range k {
		var sum, sq float64
		n := 0
		for _, t := range sets {
			if v := t[j]; !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n == 0 {
			means[j] = math.NaN()
			continue
		}
		means[j] = sum / float64(n)
		for _, t := range sets {
			if v := t[j]; !math.IsNaN(v) {
				sq += (v - means[j]) * (v - means[j])
			}
		}
		if n > 1 {
			sds[j] = math.Sqrt(sq / float64(n-1))
		}
	}
	return means, sds
}

// calibratedPairs computes the calibrated p-values from the statistics of
// the data (sets[0]) and of the replications from θ̃ (sets[1:]). With m_k
// and s_k the mean and sd of pair k's statistic over all the sets (a
// symmetric function of them, which keeps them exchangeable), z_k =
// (T_k − m_k)/s_k for every set; each pair's P is the rank of the data's
// |z_k|, its PAdjusted the rank of the data's |z_k| against max_l |z_l|,
// and the omnibus D = Σ z_k² and max_k |z_k| are ranked the same way.
func calibratedPairs(pcs []PairCheck, sets [][]float64) (d0, pD, pMax float64) {
	k := len(pcs)
	means, sds := moments(sets, k)
	n := len(sets)
	absZ := make([][]float64, n)
	maxZ, sumZ := make([]float64, n), make([]float64, n)
	for r, t := range sets {
		absZ[r] = make([]float64, k)
		for j, v := range t {
			if sds[j] > 0 && !math.IsNaN(v) && !math.IsNaN(sets[0][j]) {
				z := (v - means[j]) / sds[j]
				absZ[r][j] = math.Abs(z)
				if r == 0 {
					pcs[j].Z = z
				}
			}
			maxZ[r] = math.Max(maxZ[r], absZ[r][j])
			sumZ[r] += absZ[r][j] * absZ[r][j]
		}
	}
	rank := func(vals []float64, at float64) float64 {
		ge := 0
		for _, v := range vals {
			if v >= at {
				ge++
			}
		}
		return float64(ge) / float64(len(vals))
	}
	for j := range pcs {
		if math.IsNaN(pcs[j].Observed) {
			continue
		}
		if sds[j] == 0 {
			pcs[j].Z = 0
		}
		pcs[j].P = rank(column(absZ, j), absZ[0][j])
		pcs[j].PAdjusted = rank(maxZ, absZ[0][j])
	}
	return sumZ[0], rank(sumZ, sumZ[0]), rank(maxZ, maxZ[0])
}

// reproduced is 1 − Σ (T − mean)² / Σ T² over the pairs with a defined
// statistic; NaN when the observed statistics are all zero or undefined.
func reproduced(pcs []PairCheck) float64 {
	var res, tot float64
	for _, pc := range pcs {
		if math.IsNaN(pc.Observed) || math.IsNaN(pc.Mean) {
			continue
		}
		res += (pc.Observed - pc.Mean) * (pc.Observed - pc.Mean)
		tot += pc.Observed * pc.Observed
	}
	if !(tot > 0) {
		return math.NaN()
	}
	return 1 - res/tot
}

// tableLayout maps the levels of two columns to the rows and columns of
// their two-way table.
type tableLayout struct {
	i, j         int
	rows, cols   []LevelGroup
	rowOf, colOf []int // level → group
}

func newTableLayout(i, j int, levels []*hough.Levels) tableLayout {
	t := tableLayout{i: i, j: j}
	t.rows, t.rowOf = levelGroups(levels[i])
	t.cols, t.colOf = levelGroups(levels[j])
	return t
}

// levelGroups groups a column's levels for a two-way table: one level per
// group when there are at most 8, otherwise 5 groups of consecutive levels
// with about equal counts (a level is never split).
func levelGroups(lv *hough.Levels) ([]LevelGroup, []int) {
	L := lv.NumLevels()
	of := make([]int, L)
	var groups []LevelGroup
	if L <= maxTableGroups {
		for l := range L {
			of[l] = l
			groups = append(groups, LevelGroup{l, l})
		}
		return groups, of
	}
	nObs := float64(len(lv.Order))
	first := 0
	for l := range L {
		of[l] = len(groups)
		// Close the group once its cumulative share reaches the next
		// multiple of 1/tableGroups.
		share := float64(lv.Start[l+1]) / nObs
		if l == L-1 || share >= float64(len(groups)+1)/tableGroups {
			groups = append(groups, LevelGroup{first, l})
			first = l + 1
		}
	}
	return groups, of
}

// count returns the two-way table (row-major) of the pairwise-complete rows
// of two level-coded columns.
func (t tableLayout) count(a, b []int32) []float64 {
	w := len(t.cols)
	out := make([]float64, len(t.rows)*w)
	for i, x := range a {
		if y := b[i]; x >= 0 && y >= 0 {
			out[t.rowOf[x]*w+t.colOf[y]]++
		}
	}
	return out
}

// summarise fills the table's summaries from the counts of table k in the
// data (obs), the posterior replications and the data followed by the
// replications from θ̃.
func (tc *TwoWayCheck) summarise(k int, obs [][]float64, posterior, atSampled [][][]float64) {
	cells := len(obs[k])
	tc.Observed = slices.Clone(obs[k])
	tc.Mean, tc.Q5, tc.Q95 = make([]float64, cells), make([]float64, cells), make([]float64, cells)
	perCell := make([]float64, len(posterior))
	for c := range cells {
		for s, cs := range posterior {
			perCell[s] = cs[k][c]
		}
		tc.Mean[c] = mean(perCell)
		tc.Q5[c] = Quantile([][]float64{perCell}, 0.05)
		tc.Q95[c] = Quantile([][]float64{perCell}, 0.95)
	}
	pearsonX2 := func(o, e []float64) float64 {
		s := 0.0
		for c, v := range o {
			if e[c] > 0 {
				s += (v - e[c]) * (v - e[c]) / e[c]
			}
		}
		return s
	}
	tc.X2 = pearsonX2(tc.Observed, tc.Mean)
	ge := 0
	for _, cs := range posterior {
		if pearsonX2(cs[k], tc.Mean) >= tc.X2 {
			ge++
		}
	}
	tc.PPP = float64(ge) / float64(len(posterior))
	// At θ̃, E is the mean table over the data and its replications.
	e := make([]float64, cells)
	for _, cs := range atSampled {
		for c, v := range cs[k] {
			e[c] += v / float64(len(atSampled))
		}
	}
	x0 := pearsonX2(atSampled[0][k], e)
	ge = 0
	for _, cs := range atSampled {
		if pearsonX2(cs[k], e) >= x0 {
			ge++
		}
	}
	tc.P = float64(ge) / float64(len(atSampled))
}
