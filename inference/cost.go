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
// typical data; costHMCBounce and costHMCTreeBounce were fitted per expected
// bounce on that grid.
const typicalBounceShare = 0.86

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
// one core (GOMAXPROCS=1) of the samplers after 5 warm-up iterations, on
// simulated factor-copula data (k = 2 for p = 5, 4 for p = 20): n = 500,
// 2000, 5000 rows, p = 5 and 20 columns, 2, 5 and 10 levels (interweave:
// n ≤ 2000, levels ≤ 5), hmc and interweave with n = 10⁴, 3·10⁴ and 10⁵
// rows (p = 5, 2 and 5 levels), and gibbs and px with those rows at p = 5
// and 20 (2 and 5 levels); and gibbs and px at survey sizes, below.
// testdata/cost_measured.csv holds the measurements (cpu: seconds per
// iteration, bounces: per iteration); on that grid every estimate is within
// these factors of the measured time: gibbs 0.80–1.23, hmc 0.71–1.21, px
// 0.84–1.18, interweave 0.75–1.18 (TestIterationCostFitsTheMeasurements).
// A column of two levels costs gibbs and px about a fifth less than one of
// more (its latent values have one finite bound each). Most of hmc's spread
// is its bounces: a column's count is its expected n_obs·(L − 1)·T/(2π)
// times a share that depends on its R² (BounceShare, 0.57–1.19 on this
// grid), which the model knows only once a fit has run; interweave makes
// about 1.4 times the expected count, which its coefficient absorbs.
//
// Measured on 2026-11-29 on the project's 2-core machine while it was
// quiet (load about 1: the measurement on one core, little else on the
// other), after issue 14's walk (sampling.md §2.5, with its lazy sleep and
// its margin by level size) made hmc's search about a quarter cheaper per
// bounce, and took over from tournament trees every column of two levels
// and the others whose levels hold at most 6,144 curves (hough's
// sideMaxLevel; hmc's rows were measured again after that change). A
// column is taken to have a larger level when its mean level does (n_obs/L
// > 6,144), which is right for balanced levels; only the grid's n = 10⁵,
// 5-level row is such a column, so costHMCTreeBounce rests on that one
// measurement. Both searches' bounces grow costlier beyond the caches, by
// (n/5000)^0.35 beyond 5,000 rows (costCacheRows, costCacheExp). Interweave's
// iteration is PX's Gibbs sweep and factor scores plus the joint exact-HMC
// steps, whose cost per bounce grows like log n.
//
// Survey sizes (the rows with a missing share and ref_ratio): gibbs and px
// (k = 3 at p = 10 and 30, 5 at p = 50, and 5 at 50,000 × 30) at p = 10, 30
// and 50, n = 1,000, 5,000, 20,000 and 50,000, 2, 5 and 10 levels and mixed
// ones (items of 2 to 11 levels with two columns of 78 and 1,169 levels, at
// most n; the csv lists each column's), 0, 7.5 and 10% of cells missing;
// measured later on 2026-11-29 by `copulang bench cost` on the same machine,
// shared with other work at load 8 to 19. Each run's CPU time per iteration
// (3 warm-up iterations, then at least 4 and about 0.25 s) was divided by
// that of a reference run just before it (gibbs at n = 1000, p = 20, 5
// levels); ref_ratio is the median of 3 to 7 runs' ratios, which spread up
// to ±30% about it under that load, and cpu is ref_ratio × 0.831 ms:
// BenchmarkGibbsIteration's quiet 0.86 ms over 1.035, the median of new over
// old of the 10 cells of the older grid measured again (0.92–1.17), so that
// old and new rows share one scale (cpu_measured is the loaded CPU time,
// wall the loaded wall time, load the 1-minute load average, runs the runs).
//
// At p = 30 and 50 the coefficients before gave 0.65–1.05 of gibbs's time
// (0.65–0.79 at 50,000 × 30 and from 20,000 rows at p = 50; 0.65 for
// sampling.md §8's survey shape): Gibbs's conditional means cost n·p a
// column, which the per-column terms fitted at p ≤ 20 had absorbed, and Z
// outgrows the cache. costCovariance now carries them for the full model
// (gibbs and hmc, which compute the same means), growing by
// costCovarianceCache for each doubling of Z beyond 1 MiB (one core's L2),
// and was refitted with gibbs's per-column terms on the whole gibbs grid
// (old rows now 0.86–1.23, new 0.80–1.15). What fits worst: the survey
// shape, 50,000 × 30 with 7.5% missing, at 0.80 (0.92 without the missing
// cells; missing cells are not dearer elsewhere on the grid, so part of that
// is the load), while a fit of a CSV of that shape whose columns are
// independent and uniform measured 1.24: the time depends on the data, not
// only their shape (sampling.md §8); 1000 × 50 at 0.85; the older grid's
// binary rows at p = 5 from 3·10⁴ rows (0.86–0.87) and at p = 20 from 10⁴
// rows (1.14–1.23), the binary discount differing with p; and 10 levels at p
// ≤ 10 (1.12–1.15). Under load the machine's other work shares the caches,
// so the cache term may be steeper than a quiet machine's. hmc's rows fit as
// before (0.71–1.21). px's coefficients fit the new rows within 0.84–1.18
// and were kept (an n·p² term for its collapsed loadings step fitted to
// nothing).
const (
	costCovariance        = 3.87e-10 // × n·p²: the conditional means (n·p a column), ZᵀZ and the correlation's draw
	costCovarianceCache   = 8.21e-11 // × n·p² for each doubling of Z (n·p·8 bytes) beyond costCacheBytes
	costCacheBytes        = 1 << 20  // one core's L2 cache on the machine measured
	costGibbsColumn       = 3.30e-8  // × n: one column's Gibbs sweep, 3 levels or more
	costGibbsBinaryColumn = 2.57e-8  // × n: the same for a column of two levels
	costHMCColumn         = 9.58e-8  // × n: one exact-HMC column's set-up and conditional means
	costHMCBounce         = 7.99e-8  // × log₂ n per expected bounce (the walk)
	costHMCTreeBounce     = 8.79e-8  // × log₂ n per expected bounce (tournament trees: 3+ levels, a level > 6,144)
	costPXCell            = 4.48e-8  // × n per column of 3 levels or more
	costPXBinaryCell      = 3.45e-8  // × n per column of two levels
	costPXFactor          = 1.06e-9  // × n·p·k
	costIWBounce          = 3.75e-7  // × log₂ n per expected bounce of the joint step
	costCacheRows         = 5000     // bounces cost more beyond this many rows,
	costCacheExp          = 0.35     // by (n/costCacheRows)^costCacheExp
	costWalkLevel         = 6144     // hough's largest level for the walk beyond two levels (sideMaxLevel)
)

// IterationCost estimates the time one chain takes for one iteration on
// one core. It is a rough guide for explain (issue 14 refines the model);
// the figures it rests on are those of the coefficients above.
func IterationCost(c Cost) time.Duration {
	n, p := float64(c.N), float64(c.P)
	observed := func(j int) int {
		if j < len(c.Observed) {
			return c.Observed[j]
		}
		return c.N
	}
	bounces := func(j int) float64 {
		if j >= len(c.Levels) || c.Levels[j] < 2 {
			return 0
		}
		return float64(observed(j)) * float64(c.Levels[j]-1) * c.TravelTime / (2 * math.Pi)
	}
	// perColumn is binary for a column of two levels, else other: a
	// binary column's latent values have one finite bound each.
	perColumn := func(binary, other float64, j int) float64 {
		if j < len(c.Levels) && c.Levels[j] == 2 {
			return binary
		}
		return other
	}
	var s float64
	// The full model's conditional means and ZᵀZ, dearer once Z outgrows
	// the cache.
	conditionalMeans := (costCovariance + costCovarianceCache*math.Log2(math.Max(1, n*p*8/costCacheBytes))) * n * p * p
	// The exact-HMC search's cost per bounce beyond the caches.
	cache := math.Pow(math.Max(n, costCacheRows)/costCacheRows, costCacheExp)
	switch c.Method {
	case Gibbs:
		s = conditionalMeans
		for j := range c.P {
			s += perColumn(costGibbsBinaryColumn, costGibbsColumn, j) * n
		}
	case HMC:
		s = conditionalMeans
		for j := range c.P {
			if c.ColumnHMC != nil && !c.ColumnHMC[j] {
				s += perColumn(costGibbsBinaryColumn, costGibbsColumn, j) * n
				continue
			}
			share := typicalBounceShare
			if j < len(c.R2) && !math.IsNaN(c.R2[j]) {
				share = BounceShare(c.Levels[j], c.R2[j])
			}
			perBounce := costHMCBounce
			if c.Levels[j] > 2 && float64(observed(j)) > costWalkLevel*float64(c.Levels[j]) {
				perBounce = costHMCTreeBounce
			}
			s += costHMCColumn*n + perBounce/typicalBounceShare*math.Log2(math.Max(n, 2))*bounces(j)*share*cache
		}
	case PX, Interweave:
		// The Gibbs sweep and factor scores.
		s = costPXFactor * n * p * float64(c.K)
		for j := range c.P {
			s += perColumn(costPXBinaryCell, costPXCell, j) * n
		}
		if c.Method == PX {
			break
		}
		for j := range c.P {
			if c.ColumnHMC != nil && !c.ColumnHMC[j] {
				s += perColumn(costPXBinaryCell, costPXCell, j)*n + costPXFactor*n*float64(c.K) // PX's column step
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
