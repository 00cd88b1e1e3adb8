package inference

import (
	"math"
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
	// all the columns that can take it, or none.
	HMC []bool
	// Tau and PerIter are the predicted autocorrelation time of C's
	// worst-mixing entry (GibbsTau, HMCTau) and the predicted time per
	// iteration of one chain on one core (IterationCost) of the schedule with
	// exact HMC on the eligible columns; GibbsTau and GibbsPerIter the same
	// with Gibbs on every column.
	Tau, GibbsTau         float64
	PerIter, GibbsPerIter time.Duration
}

// Speedup is the predicted ratio of the bulk ESS per second of C's
// worst-mixing entry with exact HMC on the eligible columns to that with
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
// unbiased there, and typically within a factor of 2 of a run either way,
// so a margin would only bias the choice. (At 1000×20, 5 levels, a 5-factor
// truth, the prediction was 1.3× and the measured ratio about 4×.)
const adaptMargin = 1.0

// adaptSchedule chooses, after the first after iterations of every chain,
// between Gibbs on every column and exact HMC on the columns that can take
// it (those with an exact-HMC sampler, which an adaptive spec gives to the
// columns of 3 to 10 levels), and switches every chain to the choice. It
// predicts τ × time per iteration of C's worst entry for both from the
// chains' R² (GibbsTau, HMCTau, IterationCost) and takes exact HMC if that
// is smaller (adaptMargin).
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
	// The largest R² over all columns, over those exact HMC may take, and
	// over the others, with whether each of the others is binary.
	all, hmcMax, gibbsMax := -1, -1, -1
	for j, lv := range d.levels {
		for _, fs := range fulls {
			s.R2[j] += fs.r2(j) / float64(len(fulls))
		}
		cost.Observed[j] = d.n - len(lv.Missing)
		cost.Levels[j] = lv.NumLevels()
		larger := func(k int) bool { return k < 0 || s.R2[j] > s.R2[k] }
		if larger(all) {
			all = j
		}
		switch {
		case fulls[0].hmc != nil && fulls[0].hmc[j] != nil && cost.Levels[j] >= 3:
			s.HMC[j] = true
			if larger(hmcMax) {
				hmcMax = j
			}
		case larger(gibbsMax):
			gibbsMax = j
		}
	}
	binary := func(j int) bool { return cost.Levels[j] == 2 }
	s.GibbsTau = GibbsTau(s.R2[all], p, binary(all))
	s.GibbsPerIter = IterationCost(cost)
	if hmcMax < 0 {
		clear(s.HMC)
		return s
	}
	s.Tau = HMCTau(s.R2[hmcMax])
	if gibbsMax >= 0 {
		s.Tau = math.Max(s.Tau, GibbsTau(s.R2[gibbsMax], p, binary(gibbsMax)))
	}
	cost.Method, cost.ColumnHMC = HMC, s.HMC
	s.PerIter = IterationCost(cost)
	if s.Speedup() < adaptMargin {
		clear(s.HMC)
	}
	for _, fs := range fulls {
		for j := range fs.gibbsOnly {
			fs.gibbsOnly[j] = !s.HMC[j]
		}
	}
	return s
}
