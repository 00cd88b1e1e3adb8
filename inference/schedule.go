package inference

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Schedule is the choice an adaptive run (Spec.Adapt) made between Hoff's
// Gibbs update and exact HMC, with the predictions it rests on
// (sampling.md §9.2). Columns are in Spec order.
type Schedule struct {
	// After is the number of warm-up iterations every column spent on Gibbs
	// before the choice.
	After int
	// R2[j] is the share of latent column j's variance explained by the
	// other columns, 1 − 1/(V_jj·Ω_jj), averaged over the chains at that point.
	R2 []float64
	// HMC[j] is true for the columns given exact HMC for the rest of the run:
	// none, or the eligible columns of largest R² (adaptSchedule).
	HMC []bool
	// BeyondRows is set when the data have more rows than MixingMaxRows:
	// the run kept Gibbs without predicting exact HMC.
	BeyondRows bool
	// Tau and PerIter are the predicted autocorrelation time of C's
	// worst-mixing entry (GibbsTau, HMCTau) and the predicted time per
	// iteration of one chain on one core (IterationCost) of the best
	// schedule with exact HMC on some columns (taken or not); GibbsTau and
	// GibbsPerIter the same with Gibbs on every column.
	Tau, GibbsTau         float64
	PerIter, GibbsPerIter time.Duration
}

// Speedup is the predicted ratio of the bulk ESS per second of C's
// worst-mixing entry with the best schedule using exact HMC to that with
// Gibbs on every column (0 if no column can take exact HMC).
func (s *Schedule) Speedup() float64 {
	if s.Tau == 0 {
		return 0
	}
	return s.GibbsTau * s.GibbsPerIter.Seconds() / (s.Tau * s.PerIter.Seconds())
}

// AdaptAfter is the number of warm-up iterations an adaptive run spends on
// Gibbs before choosing its schedule: half the warm-up, at most 50, which is
// enough for R² to settle (sampling.md §9.2); 0, meaning no adaptation and
// Gibbs throughout, when the warm-up is shorter than 20 iterations.
func AdaptAfter(warmup int) int {
	if warmup < 20 {
		return 0
	}
	return min(50, warmup/2)
}

// adaptAfter is AdaptAfter for sp, 0 if sp does not adapt.
func adaptAfter(sp *Spec) int {
	if !sp.Adapt {
		return 0
	}
	return AdaptAfter(sp.Warmup)
}

// adaptMargin is how much better than Gibbs on every column the schedule
// with exact HMC must be predicted to be before an adaptive run takes it.
// It is 1: GibbsTau and HMCTau are least-squares fits on the log scale,
// unbiased there, and typically within a factor of 1.6 (Gibbs) and 2
// (exact HMC) of a run either way, so a margin would only bias the choice.
const adaptMargin = 1.0

// adaptSchedule chooses, after the first after iterations of every chain,
// which of the columns that can take exact HMC (those with an exact-HMC
// sampler, which an adaptive spec gives to the columns of 3 to 10 levels)
// move to it, and switches every chain to the choice. The candidates are
// Gibbs on every column and exact HMC on the m eligible columns of largest
// R², m = 1 … all: a column's slow mixing under Gibbs grows with its R²
// (GibbsTau), so the strongly correlated columns are the ones worth the
// cost. For each it predicts τ × time per iteration of C's worst entry
// from the chains' R² (HMCTau of the largest R² on exact HMC; GibbsTau of
// the largest left on Gibbs, to which a mixing model may also give the
// number of columns left on it; IterationCost with the bounces the
// columns' R² imply) and takes the smallest, exact HMC only if better than
// Gibbs's by adaptMargin. With the fitted model (sampling.md §9.5) exact
// HMC mixes no better per iteration, so the choice is Gibbs wherever
// measured; the tests reach the other outcome with another model.
func adaptSchedule(d *data, sp *Spec, samplers []chainSampler, after int) *Schedule {
	p := d.p
	s := &Schedule{After: after, R2: make([]float64, p), HMC: make([]bool, p)}
	var fulls []*fullSampler
	for _, cs := range samplers {
		if fs, ok := cs.(*fullSampler); ok {
			fulls = append(fulls, fs)
		}
	}
	if len(fulls) == 0 {
		return nil
	}
	cost := Cost{Method: Gibbs, N: d.n, P: p, Observed: make([]int, p), Levels: make([]int, p), TravelTime: sp.TravelTime}
	if cost.TravelTime == 0 {
		cost.TravelTime = math.Pi / 2
	}
	var eligible []int
	for j, lv := range d.levels {
		for _, fs := range fulls {
			s.R2[j] += fs.r2(j) / float64(len(fulls))
		}
		cost.Observed[j] = d.n - len(lv.Missing)
		cost.Levels[j] = lv.NumLevels()
		if fulls[0].hmc != nil && fulls[0].hmc[j] != nil && cost.Levels[j] >= 3 {
			eligible = append(eligible, j)
		}
	}
	// Columns by decreasing R², ties by index: the eligible ones, and all.
	byR2 := func(cols []int) {
		slices.SortStableFunc(cols, func(a, b int) int { return cmp.Compare(s.R2[b], s.R2[a]) })
	}
	byR2(eligible)
	all := make([]int, p)
	for j := range all {
		all[j] = j
	}
	byR2(all)
	binary := func(j int) bool { return cost.Levels[j] == 2 }
	mm := fittedMixing()
	if sp.mixing != nil {
		mm = *sp.mixing
	}
	s.GibbsTau = mm.gibbs(s.R2[all[0]], p, binary(all[0]))
	s.GibbsPerIter = IterationCost(cost)
	if d.n > MixingMaxRows {
		s.BeyondRows = true
	}
	if len(eligible) == 0 || s.BeyondRows {
		return s
	}
	cost.Method, cost.ColumnHMC, cost.R2 = HMC, make([]bool, p), s.R2
	best := math.Inf(1)
	var bestHMC []bool
	for m := 1; m <= len(eligible); m++ {
		cost.ColumnHMC[eligible[m-1]] = true
		tau := mm.hmc(s.R2[eligible[0]])
		// The column of largest R² left on Gibbs, if any, mixing as Gibbs
		// does among the columns left on it (for a model with a p term; at
		// least 5, the fewest columns measured): its strongly correlated
		// partners now move by exact HMC (sampling.md §9.2, mixed schedules).
		if i := slices.IndexFunc(all, func(j int) bool { return !cost.ColumnHMC[j] }); i >= 0 {
			onGibbs := max(p-m, min(p, 5))
			tau = math.Max(tau, mm.gibbs(s.R2[all[i]], onGibbs, binary(all[i])))
		}
		per := IterationCost(cost)
		if v := tau * per.Seconds(); v < best {
			best, s.Tau, s.PerIter = v, tau, per
			bestHMC = slices.Clone(cost.ColumnHMC)
		}
	}
	if s.Speedup() >= adaptMargin {
		copy(s.HMC, bestHMC)
	}
	for _, fs := range fulls {
		for j := range fs.gibbsOnly {
			fs.gibbsOnly[j] = !s.HMC[j]
		}
	}
	return s
}
