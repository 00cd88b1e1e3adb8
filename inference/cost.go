package inference

import (
	"math"
	"time"
)

// Cost describes a fit to IterationCost: the method, the data's shape and,
// per column, its observed rows and distinct values.
type Cost struct {
	Method  Method
	N, P, K int // rows, columns, factors (0 for a full correlation)
	// Observed[j] and Levels[j] are the observed rows and the distinct
	// observed values of column j.
	Observed, Levels []int
	// ColumnHMC marks the columns that HMC or Interweave update by exact
	// HMC (nil: all); the others get Hoff's update or PX's column step.
	ColumnHMC []bool
	// TravelTime is the exact-HMC travel time T.
	TravelTime float64
	// R2, if set, is each column's R² given the others, which sets how
	// often a full-model exact-HMC trajectory bounces (BounceShare); nil
	// means unknown, as before a fit, and the grid's typical share.
	R2 []float64
}

// typicalBounceShare is the mean ratio of measured to expected bounces
// (n_obs·(L − 1)·T/(2π)) over the exact-HMC rows of
// testdata/cost_measured.csv, whose k-factor truths have the columns' R² of
// typical data; costHMCBounce was fitted per expected bounce on that grid.
const typicalBounceShare = 0.79

// BounceShare is the measured number of bounces of a full-model exact-HMC
// trajectory over its expected n_obs·(L − 1)·T/(2π), for a column of L
// levels whose R² given the others is r2: (1 + 0.8/L)·√(1 − R²). Bounces
// come from the rows' motion relative to each other, whose scale is the
// conditional sd √(1 − R²); the factor 1 + 0.8/L is 1.4, 1.16 and 1.08 at
// 2, 5 and 10 levels. Measured on equicorrelated columns (n = 300, 1000,
// 3000; R² 0.14 to 0.89; 2, 5, 10 levels; sampling.md §9.2), it is within 6%
// of every one (TestBounceShare).
func BounceShare(levels int, r2 float64) float64 {
	return (1 + 0.8/float64(levels)) * math.Sqrt(math.Max(0, 1-r2))
}

// The coefficients of IterationCost, in CPU seconds, fitted by weighted
// least squares (relative error) to the CPU time (getrusage) of one chain on
// one core (GOMAXPROCS=1) of the samplers, re-measured on 2026-11-26 after
// issue 14's faster exact-HMC search and interweaved step (the hmc and
// interweave rows changed; the machine itself measured about 25% slower
// than at the first fit, on every method), on simulated data with n = 500,
// 2000, 5000 rows, p = 5 and 20 columns (k = 2 and 4 factors), 2, 5 and 10
// levels (interweave: n ≤ 2000, levels ≤ 5), on the project's shared 2-core
// machine. testdata/cost_measured.csv holds the measurements (cpu: seconds
// per iteration); on that grid every estimate is within these factors of
// the measured time: gibbs 0.75–1.27, hmc 0.57–1.25, px 0.68–1.29,
// interweave 0.84–1.20 (TestIterationCostFitsTheMeasurements). B̂ is the
// expected number of bounces of a column's trajectory, n_obs·(L − 1)·T/(2π)
// (compiler's expectedBounces): hmc makes about 0.8–1.0 B̂ and interweave
// 1.2 B̂, which the coefficients absorb. Interweave's iteration is PX's
// Gibbs sweep and factor scores plus the joint exact-HMC steps, whose cost
// per bounce now grows like log n rather than n.
//
// Measured on 2026-11-28 with n = 10⁴, 3·10⁴ and 10⁵ rows (p = 5, k = 2, 2
// and 5 levels; hmc and interweave, one chain on one core after warm-up
// iterations; the rows of the file with n ≥ 10⁴): interweave's estimates
// stay within 0.84–1.06 of these (after its windows got more tiers for more
// rows); hmc's per bounce cost grows faster than log n once the search's
// memory outgrows the caches, by a factor (n/5000)^0.35 beyond 5,000 rows
// (costCacheRows, costCacheExp: hmc's estimates of these times were
// 0.26–0.70 of them without it and are 0.59–1.08 with it, binary columns at
// 10⁵ rows lowest), which leaves the grid below 5,000 rows, and auto's
// choices there, as they were.
//
// Re-measured later that day on the grid below 5,000 rows, the same way but
// on a quiet machine (load below 0.1), px with its collapsed loadings step
// (sampling.md §4.6): every method ran at 0.57–0.82 of the file's times,
// alike (medians gibbs 0.71, hmc 0.75, px 0.71, interweave 0.78). The
// estimates are thus about 1.4× long on a quiet machine, and right on the
// loaded one they were fitted on; px's did not go stale with its new step
// (its +9–12% is within the spread), and the ratios between methods, which
// auto's choices rest on, stand. The coefficients are kept.
//
// Since then hmc's search for levels of at most 1,024 curves is the walk
// (sampling.md §2.5), about a fifth cheaper per bounce (BenchmarkHMCIteration
// 19.2 → 15.0 ms, −18% to −23% on the hough benchmarks at n = 1000): hmc's
// estimates are that much long for such columns, and auto leans that much
// towards Gibbs. The hmc rows were not re-measured; doing so, and checking
// auto's choices on the efficiency suite after refitting, is left open.
const (
	costCovariance  = 8.03e-10 // × n·p²: ZᵀZ and the correlation's draw
	costGibbsColumn = 4.05e-8  // × n: one column's Gibbs sweep
	costHMCColumn   = 2.52e-7  // × n: one exact-HMC column's set-up and conditional means
	costHMCBounce   = 1.37e-7  // × log₂ n per expected bounce (kinetic collision search)
	costPXCell      = 5.89e-8  // × n·p
	costPXFactor    = 1.55e-9  // × n·p·k
	costIWBounce    = 4.24e-7  // × log₂ n per expected bounce of the joint step
	costCacheRows   = 5000     // hmc's bounces cost more beyond this many rows,
	costCacheExp    = 0.35     // by (n/costCacheRows)^costCacheExp
)

// IterationCost estimates the time one chain takes for one iteration on
// one core. It is a rough guide for explain (issue 14 refines the model);
// the figures it rests on are those of the coefficients above.
func IterationCost(c Cost) time.Duration {
	n, p := float64(c.N), float64(c.P)
	bounces := func(j int) float64 {
		if j >= len(c.Levels) || c.Levels[j] < 2 {
			return 0
		}
		obs := c.N
		if j < len(c.Observed) {
			obs = c.Observed[j]
		}
		return float64(obs) * float64(c.Levels[j]-1) * c.TravelTime / (2 * math.Pi)
	}
	var s float64
	// The exact-HMC search's cost per bounce beyond the caches.
	cache := math.Pow(math.Max(n, costCacheRows)/costCacheRows, costCacheExp)
	switch c.Method {
	case Gibbs:
		s = costCovariance*n*p*p + costGibbsColumn*n*p
	case HMC:
		s = costCovariance * n * p * p
		for j := range c.P {
			if c.ColumnHMC != nil && !c.ColumnHMC[j] {
				s += costGibbsColumn * n
				continue
			}
			share := typicalBounceShare
			if j < len(c.R2) && !math.IsNaN(c.R2[j]) {
				share = BounceShare(c.Levels[j], c.R2[j])
			}
			s += costHMCColumn*n + costHMCBounce/typicalBounceShare*math.Log2(math.Max(n, 2))*bounces(j)*share*cache
		}
	case PX:
		s = costPXCell*n*p + costPXFactor*n*p*float64(c.K)
	case Interweave:
		s = costPXCell*n*p + costPXFactor*n*p*float64(c.K) // the Gibbs sweep and factor scores
		for j := range c.P {
			if c.ColumnHMC != nil && !c.ColumnHMC[j] {
				s += costPXCell*n + costPXFactor*n*float64(c.K) // PX's column step
				continue
			}
			s += costIWBounce * math.Log2(math.Max(n, 2)) * bounces(j)
		}
	}
	return time.Duration(s * float64(time.Second))
}

// FitDuration estimates the wall time of a fit of chains chains of
// iterations iterations each (warm-up included) on cores cores: chains run
// in parallel, so the time is one chain's when they are no more than the
// cores, and grows with their ratio otherwise.
func FitDuration(c Cost, chains, iterations, cores int) time.Duration {
	share := math.Max(1, float64(chains)/float64(max(cores, 1)))
	return time.Duration(float64(IterationCost(c)) * float64(iterations) * share)
}
