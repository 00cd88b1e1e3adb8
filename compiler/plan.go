package compiler

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/copulang/copulang/inference"
)

// MaxHMCLevels is the largest number of distinct values a column may have
// for auto to give it the exact-HMC step. Per sampling.md §9, a trajectory
// bounces about n·(L−1) times for L levels and about n²/6 times for a
// total order, while exact HMC's mixing advantage over Gibbs was measured
// for coarse columns (2.2–6.8× ESS per CPU-second at 5 levels, n = 300–3000).
const MaxHMCLevels = 10

// hmcBounceCap is the exact-HMC sampler's cap on the bounces of one
// trajectory of a column with n rows, missing ones included: the default of
// hough.Options.MaxBounces, 1000·n + 1000, beyond which the trajectory, and
// so the fit, fails (TestBounceCapMatchesHough pins the two together).
func hmcBounceCap(n int) float64 { return 1000*float64(n) + 1000 }

// expectedBounces estimates the bounces of one exact-HMC trajectory of travel
// time T for a column with the given observed rows in levels distinct values:
//
//	B̂ = n_obs·(L − 1)·T/(2π).
//
// For a total order (L = n_obs) with independent columns this is exact: a
// bounce swaps the velocities of two adjacent rows, so the trajectory is the
// sorted set of free curves a_i sin t + b_i cos t, and every pair of those
// crosses T/π times in expectation (their difference is a sinusoid with a
// uniform phase); correlated columns give each row its own conditional mean
// and fewer crossings (0.20·n² against 0.25·n² at T = π/2 for a one-factor
// correlation of 0.5, measured). For few levels it is low by up to 1.5×
// (0.36·n per unit of L − 1 at L = 2, measured), which does not matter
// against the cap.
func expectedBounces(observed, levels int, travel float64) float64 {
	return float64(observed) * float64(levels-1) * travel / (2 * math.Pi)
}

// hmcCapMargin is the share of the bounce cap that B̂ may reach before the
// plan gives the column to Gibbs: single trajectories spread a few per cent
// about their mean (the largest of 30 was 3.5% above it at n = 2000), and a
// fit runs thousands of them.
const hmcCapMargin = 0.8

// InferencePlan is how a model will be sampled: the sampler, the per-column
// choice between exact HMC and Gibbs, and the ordered steps of one
// iteration with their reasons and costs.
type InferencePlan struct {
	Model, Data string
	// Method is the sampler passed to inference.Run.
	Method inference.Method
	// ColumnHMC is true for the columns updated by exact HMC: with a
	// full-correlation model and Method HMC the others get Hoff's Gibbs
	// update, with a factor model and Method Interweave PX's column step.
	// Nil when every column gets the method's own step.
	ColumnHMC []bool
	// TravelTime is the exact-HMC travel time T.
	TravelTime float64
	// Adapt is set when auto lets the fit choose per column between Gibbs
	// and exact HMC during warm-up (inference.Spec.Adapt): Method is then
	// HMC and ColumnHMC marks the columns that may take it, but every column
	// starts on Gibbs.
	Adapt bool
	// Asked is the method as written in the fit ("auto" if none).
	Asked string
	Steps []Step
	// Notes explain substitutions and warn about costly choices.
	Notes []string
	// Cores is the number of cores the chains share, for the time estimate
	// (runtime.GOMAXPROCS when planned).
	Cores int
	// Candidates, for auto, are the samplers it weighed, the chosen one
	// first.
	Candidates []Candidate
	// IfPoorMixing is what to try when the fit's diagnostics warn (R-hat
	// or ESS), where the plan knows of a sampler that may mix better; empty
	// otherwise.
	IfPoorMixing string
	// RareBinary holds, per model column, the observed cells of its rarer
	// level when it is a binary column with at most rareBinaryCells of
	// them (the plan's note names it), 0 otherwise: a fit's warning that
	// names an entry of such a column says why it mixes slowly.
	RareBinary []int

	n       int
	columns []string
	// levels and missing per column, for the time estimate.
	levels, missing []int
	fit             *Fit
	// defaultFit is true when Plan had no fit statement and used the defaults.
	defaultFit bool
	kind       string
	k          int // factors of a factor model
}

// Candidate is a sampler auto weighed: its predicted time per iteration
// (inference.IterationCost) and what was measured of its mixing.
type Candidate struct {
	Method    string
	ColumnHMC []bool
	// Measured compares its bulk ESS per second of C's worst-mixing entry
	// with the chosen sampler's, as measured (sampling.md §9.1); empty for
	// the chosen one.
	Measured string
}

// Step is one update of an iteration.
type Step struct {
	Name    string // what the step is
	Updates string // which variables (and which columns) it updates
	Why     string // why it was chosen
	Cost    string // its cost class
}

// Plan chooses how to sample model m on its data d for the fit f (nil f
// means fit m with its defaults). With method auto it decides per model and
// per column; an explicit method is honoured, mapped (gibbs on a factor
// model is px, hmc on a factor model is interweave; both say so in Notes)
// or refused with a reason (px and interweave need a factor model).
func Plan(m *DeclareModel, d *DataInfo, f *Fit) (*InferencePlan, error) {
	if m == nil || d == nil {
		return nil, fmt.Errorf("compiler: Plan needs a model and its data")
	}
	cols := m.Columns
	if cols == nil {
		cols = d.columnNames()
	}
	levels := make([]int, len(cols))
	missing := make([]int, len(cols))
	rarer := make([]int, len(cols))
	for j, name := range cols {
		k := d.column(name)
		if k < 0 {
			return nil, fmt.Errorf("model %s: data %s has no column %s", m.Name, d.Name, name)
		}
		levels[j] = d.Columns[k].Levels
		missing[j] = d.Columns[k].Missing
		rarer[j] = d.Columns[k].Rarer
	}
	p := len(cols)
	if p < 2 {
		return nil, fmt.Errorf("model %s: a copula model needs at least 2 columns, got %d", m.Name, p)
	}
	defaults := f == nil
	if defaults {
		f = &Fit{Model: m.Name, Method: "auto", TravelTime: DefaultTravelTime, Iter: DefaultIter,
			Warmup: DefaultWarmup(DefaultIter), Chains: DefaultChains, Seed: DefaultSeed, Thin: DefaultThin}
	}
	asked := f.Method
	if asked == "" {
		asked = "auto"
	}
	pl := &InferencePlan{
		Model: m.Name, Data: d.Name, Asked: asked, TravelTime: f.TravelTime,
		n: d.N, columns: cols, fit: f, defaultFit: defaults, levels: levels, missing: missing,
		Cores: runtime.GOMAXPROCS(0),
	}
	if pl.TravelTime <= 0 {
		pl.TravelTime = DefaultTravelTime
	}
	switch model := m.Model.(type) {
	case inference.FullCorrelation:
		if err := pl.planFull(model, levels, missing); err != nil {
			return nil, err
		}
	case inference.FactorModel:
		if model.K < 1 || model.K >= p {
			return nil, fmt.Errorf("model %s: k = %d factors must be between 1 and p - 1 = %d", m.Name, model.K, p-1)
		}
		pl.planFactor(model, levels)
	default:
		return nil, fmt.Errorf("model %s: no sampler for %T", m.Name, m.Model)
	}
	if note := constantColumnsNote(cols, levels); note != "" {
		pl.Notes = append(pl.Notes, note)
	}
	if note := rareBinaryNote(m.Name, cols, levels, rarer); note != "" {
		pl.Notes = append(pl.Notes, note)
		pl.RareBinary = make([]int, p)
		for j, l := range levels {
			if l == 2 && rarer[j] <= rareBinaryCells {
				pl.RareBinary[j] = rarer[j]
			}
		}
	}
	if note := keptDrawsNote(f, p, pl.k, d.HasTruth); note != "" {
		pl.Notes = append(pl.Notes, note)
	}
	if b := float64(f.Chains) * float64(d.N) * float64(p) * chainStateBytes; b > chainStateMemory {
		pl.Notes = append(pl.Notes, fmt.Sprintf("its %d chains hold about %.1f GB of latent values while it runs and after (an extension continues them); fewer chains hold less", f.Chains, b/(1<<30)))
	}
	return pl, nil
}

// ledermannBound is the largest number of factors k with (p − k)² ≥ p + k,
// 0 if none: past it a factor model's free loadings, p·k − k(k − 1)/2 once
// rotation is taken out, outnumber the p(p − 1)/2 correlations of C, and
// the loadings (the communalities too) are not identified by C (Anderson
// and Rubin 1956; below it they are in general, not always).
func ledermannBound(p int) int {
	k := 0
	for (p-k-1)*(p-k-1) >= p+k+1 && k+1 < p {
		k++
	}
	return k
}

// constantColumnsNote says which columns have at most one distinct
// observed value, "" if none. The extended rank likelihood constrains
// nothing there, so such a column's latent values follow the model's normal
// conditional alone, and its entries of C (or its loadings) their prior:
// the data say nothing about them, whatever the model.
func constantColumnsNote(cols []string, levels []int) string {
	var names []string
	for j, l := range levels {
		if l <= 1 {
			names = append(names, cols[j])
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s at most one distinct value: no order information, so %s latent values are drawn from the conditional normal alone and %s correlations follow the prior",
		strings.Join(names, ", "), plural(len(names), "has", "have"), plural(len(names), "its", "their"), plural(len(names), "its", "their"))
}

// rareBinaryCells is the most cells a binary column's rarer level may have
// for rareBinaryNote to name the column.
const rareBinaryCells = 10

// rareBinaryNote says which binary columns have at most rareBinaryCells
// observed cells in their rarer level, "" if none. The rank likelihood
// bounds such a column's latent values only at those few cells, so its
// correlations rest on them: their posterior stays wide, close to the
// prior, and Gibbs moves through it slowly. On a survey whose consent
// question 2 of 800 answered no, consent's entries of C had the fit's worst
// R-hat (1.41) and ESS (4), and its warnings hinted at strongly correlated
// binary columns and 33,000 more iterations instead.
func rareBinaryNote(model string, cols []string, levels, rarer []int) string {
	var names, parts []string
	for j, l := range levels {
		if l == 2 && rarer[j] <= rareBinaryCells {
			name := indexList(cols[j : j+1])
			names = append(names, name)
			parts = append(parts, fmt.Sprintf("%s (%s)", name, plural(rarer[j], "1 cell", fmt.Sprintf("%d cells", rarer[j]))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	n := len(parts)
	return fmt.Sprintf("binary %s with few observed cells in %s rarer level: %s; %s correlations rest on those cells alone, so their posterior stays wide, close to the prior, and mixes slowly: the fit's R-hat and ESS may warn on them first (summary %s.C[%s] shows them); leave %s out of Y if %s not needed",
		plural(n, "column", "columns"), plural(n, "its", "their"), strings.Join(parts, ", "), plural(n, "its", "their"),
		model, names[0], plural(n, "it", "them"), plural(n, "it is", "they are"))
}

// Each chain holds its latent values and their running sum, about
// chainStateBytes a cell (measured: 64 chains at 20,000 × 40 peaked at
// 0.9 GB), for as long as the fit is kept; a plan says so past
// chainStateMemory.
const (
	chainStateBytes  = 16
	chainStateMemory = 2 << 30
)

// KeptDrawsMemory is how much memory a fit's kept draws may take before its
// plan (or an extension) says so: a fit holds every kept draw of C (p·p
// values) and Λ (p·k), and of C during warm-up for simulated data, and a
// long fit of many columns can pass the memory of the machine only after
// hours.
const KeptDrawsMemory = 1 << 30

// KeptDrawsBytes is the memory the kept draws of fit f of p columns and k
// factors take (warmupKept: its warm-up draws of C are kept too); 0 for a
// fit the checker would not pass.
func KeptDrawsBytes(f *Fit, p, k int, warmupKept bool) float64 {
	if f.Thin < 1 || f.Iter < 1 {
		return 0
	}
	perChain := float64(f.Iter/f.Thin) * float64(p*p+p*k)
	if warmupKept {
		perChain += float64(f.Warmup/f.Thin) * float64(p*p)
	}
	return 8 * float64(f.Chains) * perChain
}

// keptDrawsNote says how much memory fit f of p columns and k factors
// keeps in draws when that passes KeptDrawsMemory, and which thin keeps it
// under; "" otherwise.
func keptDrawsNote(f *Fit, p, k int, warmupKept bool) string {
	bytes := KeptDrawsBytes(f, p, k, warmupKept)
	if bytes <= KeptDrawsMemory {
		return ""
	}
	thin := f.Thin * int(math.Ceil(bytes/KeptDrawsMemory))
	draws, what := fmt.Sprintf("%d", f.Iter/f.Thin), "C"
	if warmupKept {
		// Simulated data: the warm-up's C draws are kept for plot rmse.
		draws = fmt.Sprintf("(%d + %d warm-up)", f.Iter/f.Thin, f.Warmup/f.Thin)
	}
	if k > 0 {
		what = "C and Λ"
	}
	note := fmt.Sprintf("this fit keeps %d × %s draws of %s in memory: about %.1f GB", f.Chains, draws, what, bytes/(1<<30))
	if f.ESS > 0 {
		note += fmt.Sprintf(", and up to %d times as many if ess needs them", ESSLimit)
	}
	if thin > f.Iter {
		// Even one draw a chain passes the bound.
		return note + "; fewer chains or columns keep less"
	}
	return note + fmt.Sprintf("; thin = %d keeps it under 1 GB", thin)
}

// autoFullWhy is why auto starts a full-correlation model on Hoff's Gibbs
// sampler and may move columns to exact HMC after after warm-up iterations
// (sampling.md §9.2); after 0 means the warm-up is too short to adapt in,
// and more rows than inference.MixingMaxRows that the fit keeps Gibbs.
func autoFullWhy(after, rows int) string {
	const why = "auto's choice for a full correlation matrix: Hoff's Gibbs sampler with the scaling move costs 10× to 40× less per iteration than exact HMC and, on 46 long runs, mixed C's worst entry about as well per iteration (autocorrelation time 1.3 to 21 on columns of 3 to 10 levels, at R² up to 0.89 and p up to 20; sampling.md §9.5); since those runs every column update is also followed by level stretches, which redraw the spacing of a column's thresholds for 4% to 7% more per iteration and made the GSS's age entries mix 2× to 9× better (§9.7)"
	if rows > inference.MixingMaxRows {
		return why + fmt.Sprintf("; with %d rows the data are beyond the %d of the largest runs the mixing model was fitted to, and beyond them Gibbs mixed well where measured while exact HMC grew costlier, so every column keeps Gibbs", rows, inference.MixingMaxRows)
	}
	if after == 0 {
		return why + "; the warm-up is too short (under 20 iterations) to measure the columns' R² and adapt, so every column keeps Gibbs"
	}
	return why + fmt.Sprintf("; after %d warm-up iterations the fit still predicts both from the columns' R² and would move the most strongly correlated of the columns of 3 to 10 levels to exact HMC if that were predicted to give more bulk ESS per second than Gibbs (on every data set measured since the scaling move it keeps Gibbs), and says what it chose", after)
}

// gibbsPoorMixing is the advice after a Gibbs fit of a full correlation
// matrix with coarse columns whose diagnostics warn; %s is the model.
const gibbsPoorMixing = "Hoff's Gibbs sampler mixes slowest where binary columns are strongly correlated (autocorrelation time of C's worst entry 30 to 260 at R² 0.78 to 0.89; at most 21 on columns of 3 to 10 levels at R² up to 0.89), and exact HMC mixed no better per iteration there (sampling.md §9.5); more iterations are the remedy, and `extend %s` adds them to this fit's chains (the next hint says how many)"

// gibbsPoorMixingCoarse is gibbsPoorMixing for data without binary
// columns; %s is the model.
const gibbsPoorMixingCoarse = "on columns of 3 to 10 levels Hoff's Gibbs sampler (with its scaling move) mixed C's worst entry with an autocorrelation time of at most 21 at R² up to 0.89, as well per iteration as exact HMC at a tenth to a fortieth of the cost (sampling.md §9.5); more iterations are the remedy, and `extend %s` adds them to this fit's chains (the next hint says how many)"

// autoFactorWhy is why auto gives a factor model the parameter-expanded
// Gibbs sampler (sampling.md §9.1).
const autoFactorWhy = "auto's choice for a factor model: in Kalaitzis & Silva's setups (n = 1000; p, k = 10, 3 and 20, 5; 2 and 5 levels) px gave 4× to 60× the min bulk ESS per second of C that interweave gave, whose joint exact-HMC step costs 13× to 80× more per iteration (sampling.md §9.6, both samplers with the factor group moves; 11× to 85× without them over 10,000 iterations and 5 seeds: docs/paper-reproduction.md)"

func (pl *InferencePlan) planFull(model inference.FullCorrelation, levels, missing []int) error {
	pl.kind = "full correlation"
	hmcCols := make([]bool, len(levels))
	var fallback []string // columns hmc would send past the bounce cap
	switch pl.Asked {
	case "px", "interweave":
		return fmt.Errorf("model %s: %s samples factor models, and %s has a full correlation matrix; use gibbs, hmc or auto", pl.Model, pl.Asked, pl.Model)
	case "gibbs":
	case "hmc":
		for j, l := range levels {
			hmcCols[j] = l >= 2
			observed := pl.n - missing[j]
			if b, limit := expectedBounces(observed, l, pl.TravelTime), hmcBounceCap(pl.n); l >= 2 && b > hmcCapMargin*limit {
				hmcCols[j] = false
				fallback = append(fallback, pl.columns[j])
				pl.Notes = append(pl.Notes, fmt.Sprintf("column %s has %d distinct values in %d observed rows: an exact-HMC trajectory of T = %s would bounce about %s times (n_obs·(L−1)·T/(2π)), more than %.0f%% of the sampler's cap of 1000·n + 1000 = %s, and a trajectory past the cap fails the fit, so %s gets Hoff's Gibbs update instead",
					pl.columns[j], l, observed, fmtNum(pl.TravelTime), fmtCount(roundSig(b)), 100*hmcCapMargin, fmtCount(limit), pl.columns[j]))
				continue
			}
			if l > MaxHMCLevels {
				pl.Notes = append(pl.Notes, fmt.Sprintf("column %s has %d distinct values: exact HMC bounces about n·(L−1)·T/(2π) times per trajectory there (n²/4 for all-distinct data at T = π/2), so it may be slow; auto would use Gibbs for it", pl.columns[j], l))
			}
		}
	case "auto":
		// Hoff's Gibbs sampler for every column, and, when the warm-up is
		// long enough to adapt in, exact HMC for the columns the mixing
		// model picks after the first warm-up iterations: see autoFullWhy.
		hmc := make([]bool, len(levels))
		some := false
		for j, l := range levels {
			// Binary columns stay on Gibbs: exact HMC mixed them no better
			// per iteration (sampling.md §9.2).
			hmc[j] = l >= 3 && l <= MaxHMCLevels && expectedBounces(pl.n-missing[j], l, pl.TravelTime) <= hmcCapMargin*hmcBounceCap(pl.n)
			some = some || hmc[j]
		}
		if some && pl.fit != nil && inference.AdaptAfter(pl.fit.Warmup) > 0 && pl.n <= inference.MixingMaxRows {
			pl.Adapt = true
			pl.ColumnHMC = hmc
		}
		pl.Candidates = []Candidate{{Method: "gibbs"}, {Method: "hmc", ColumnHMC: hmc,
			Measured: "per iteration it mixed C's worst entry no better than gibbs with the scaling move, at 10× to 40× the cost (sampling.md §9.5)"}}
	default:
		return fmt.Errorf("model %s: unknown method %q", pl.Model, pl.Asked)
	}
	var hmcNames, gibbsNames []string
	constant := 0 // Gibbs columns of at most one distinct value
	for j, name := range pl.columns {
		switch {
		case hmcCols[j]:
			hmcNames = append(hmcNames, name)
		case levels[j] <= 1:
			constant++
			gibbsNames = append(gibbsNames, name)
		default:
			gibbsNames = append(gibbsNames, name)
		}
	}
	if len(hmcNames) > 0 {
		pl.Method = inference.HMC
		pl.ColumnHMC = hmcCols
		why := fmt.Sprintf("you asked for hmc; T = %s", fmtNum(pl.TravelTime))
		pl.Steps = append(pl.Steps, Step{
			Name:    "latent columns by exact HMC (Kalaitzis & Silva 2013)",
			Updates: "z of " + strings.Join(hmcNames, ", ") + missingNote(pl.columns, hmcCols, missing, true),
			Why:     why,
			Cost:    fmt.Sprintf("O(n log² n) per column per iteration with the kinetic collision search; about n·(L−1) bounces per trajectory of travel time T = %s", fmtNum(pl.TravelTime)),
		})
	} else {
		pl.Method = inference.Gibbs
		if pl.Adapt {
			pl.Method = inference.HMC
		}
		// The advice speaks of binary columns only where there are some.
		for _, l := range levels {
			if l == 2 {
				pl.IfPoorMixing = fmt.Sprintf(gibbsPoorMixing, pl.Model)
				break
			}
			if l >= 3 && l <= MaxHMCLevels {
				pl.IfPoorMixing = fmt.Sprintf(gibbsPoorMixingCoarse, pl.Model)
			}
		}
	}
	if len(gibbsNames) > 0 {
		why := "you asked for gibbs"
		switch {
		case pl.Asked == "hmc" && len(fallback) > 0:
			why = fmt.Sprintf("you asked for hmc, but an exact-HMC trajectory on %s would bounce more often than the sampler allows (see the note)", strings.Join(fallback, ", "))
		case pl.Asked != "gibbs" && constant == len(gibbsNames):
			why = "no order constraint to bounce off: the column is drawn from its conditional normal"
		case pl.Asked == "auto":
			why = autoFullWhy(inference.AdaptAfter(pl.fit.Warmup), pl.n)
		}
		name := "latent columns by Hoff's Gibbs update"
		if pl.Adapt {
			name = fmt.Sprintf("latent columns by Hoff's Gibbs update, then (after %d warm-up iterations) by exact HMC on those of the columns of 3 to 10 levels where predicted faster", inference.AdaptAfter(pl.fit.Warmup))
		}
		pl.Steps = append(pl.Steps, Step{
			Name:    name,
			Updates: "z of " + strings.Join(gibbsNames, ", ") + missingNote(pl.columns, hmcCols, missing, false),
			Why:     why,
			Cost:    "O(n·p) per column per iteration: conditional means, then one truncated-normal draw per cell, level by level",
		})
	}
	switch prior := model.Prior.(type) {
	case inference.LKJ:
		pl.kind += fmt.Sprintf(", LKJ(eta = %s) prior", fmtNum(prior.Eta))
		pl.Steps = append(pl.Steps, Step{
			Name:    "correlation by independence Metropolis–Hastings",
			Updates: "V and C = Δ⁻¹VΔ⁻¹ (all columns)",
			Why:     "LKJ is not conjugate: the conjugate inverse-Wishart draw given Z is proposed and accepted with the ratio of LKJ to the IW-induced density of C, which is exact; acceptance tends to 1 as n grows",
			Cost:    "O(n·p² + p³) per iteration",
		})
	default:
		pl.kind += ", inverse-Wishart prior"
		pl.Steps = append(pl.Steps, Step{
			Name:    "covariance by its inverse-Wishart conditional",
			Updates: "V and C = Δ⁻¹VΔ⁻¹ (all columns)",
			Why:     "conjugate given Z: V ~ IW(df + n, scale·I + ZᵀZ), drawn exactly (Bartlett decomposition)",
			Cost:    "O(n·p² + p³) per iteration: ZᵀZ and a p×p factorisation",
		})
	}
	return nil
}

func (pl *InferencePlan) planFactor(model inference.FactorModel, levels []int) {
	pl.kind = fmt.Sprintf("factor model, k = %d", model.K)
	pl.k = model.K
	if p, bound := len(levels), ledermannBound(len(levels)); model.K > bound {
		keeps := fmt.Sprintf("k ≤ %d keeps them identified in general", bound)
		if bound == 0 {
			keeps = fmt.Sprintf("no k does on %d columns", p)
		}
		pl.Notes = append(pl.Notes, fmt.Sprintf("k = %d %s on %d columns is past the Ledermann bound k ≤ %d, where (p − k)² ≥ p + k: the loadings have more free values than C has correlations, so many loadings and communalities give the same C; C is estimated as usual, but %s.Lambda and %s.communality are not identified and may mix slowly (%s)",
			model.K, plural(model.K, "factor", "factors"), p, bound, pl.Model, pl.Model, keeps))
	}
	gdp := false
	switch l := model.Loadings.(type) {
	case inference.GDPLoadings:
		gdp = true
		pl.kind += fmt.Sprintf(", GDP(alpha = %s, beta = %s) loadings", fmtNum(orDefault(l.Alpha, 3)), fmtNum(orDefault(l.Beta, 1)))
	case inference.NormalLoadings:
		pl.kind += fmt.Sprintf(", Normal(var = %s) loadings", fmtNum(orDefault(l.Var, 1)))
	}
	all := strings.Join(pl.columns, ", ")
	switch pl.Asked {
	case "px", "gibbs", "auto":
		pl.Method = inference.PX
		if pl.Asked == "gibbs" {
			pl.Notes = append(pl.Notes, "gibbs on a factor model is its parameter-expanded Gibbs sampler, px")
		}
		if pl.Asked == "auto" && pl.TravelTime != DefaultTravelTime {
			// auto(T = ...) is taken for a full model, where auto may move
			// columns to exact HMC; px has no travel time.
			pl.Notes = append(pl.Notes, fmt.Sprintf("T = %s is not used: auto runs px on a factor model, which has no travel time; interweave(T = %s) is the factor model's exact-HMC sampler", fmtNum(pl.TravelTime), fmtNum(pl.TravelTime)))
		}
		if pl.Asked == "auto" {
			hmc := make([]bool, len(levels))
			for j, l := range levels {
				hmc[j] = l <= MaxHMCLevels
			}
			pl.Candidates = []Candidate{{Method: "px"}, {Method: "interweave", ColumnHMC: hmc,
				Measured: "0.02× to 0.25× px's min bulk ESS/s"}}
		}
	default: // hmc, interweave
		pl.Method = inference.Interweave
		if pl.Asked == "hmc" {
			pl.Notes = append(pl.Notes, "hmc on a factor model is interweave: the exact HMC step of a factor model moves a column's loadings and latent values together (K&S §5)")
		}
	}
	// Interweave's joint step bounces about 1.2·n_obs·(L−1)·T/(2π) times per
	// trajectory, and about 0.4·n² times on a column of distinct values,
	// which passes the cap of 1000·n + 1000 bounces (and fails the fit) once
	// n is about 2,450. Columns with more than MaxHMCLevels values get PX's
	// column step instead, whatever the method asked.
	var hmcCols, pxCols []string
	if pl.Method == inference.Interweave {
		columnHMC := make([]bool, len(levels))
		for j, l := range levels {
			columnHMC[j] = l <= MaxHMCLevels
			if columnHMC[j] {
				hmcCols = append(hmcCols, pl.columns[j])
			} else {
				pxCols = append(pxCols, pl.columns[j])
			}
		}
		switch {
		case len(pxCols) == 0:
		case len(hmcCols) == 0:
			pl.Method = inference.PX
			pl.Notes = append(pl.Notes, fmt.Sprintf("every column has more than %d distinct values, where the joint exact-HMC step would bounce about 0.4·n² times per trajectory; the fit runs px instead of interweave", MaxHMCLevels))
		default:
			pl.ColumnHMC = columnHMC
			pl.Notes = append(pl.Notes, fmt.Sprintf("%s %s more than %d distinct values, where the joint exact-HMC step would bounce about 0.4·n² times per trajectory (past its cap once n is about 2,450): %s PX's column step instead",
				strings.Join(pxCols, ", "), plural(len(pxCols), "has", "have"), MaxHMCLevels, plural(len(pxCols), "it gets", "they get")))
		}
	}
	if gdp {
		pl.Steps = append(pl.Steps, Step{
			Name:    "GDP hyperparameters",
			Updates: "ζ and ψ of every loading",
			Why:     "conjugate Gibbs conditionals of the generalised double Pareto hierarchy (Gamma and inverse Gaussian)",
			Cost:    "O(p·k) per iteration",
		})
	}
	pxStep := Step{
		Name:    "loadings with parameter expansion",
		Updates: "λ_j and a scale of z_j for " + all,
		Cost:    "O(n·k² + k³) per column per iteration",
	}
	if pl.Method == inference.PX {
		why := "you asked for px"
		switch pl.Asked {
		case "gibbs":
			why = "you asked for gibbs; the factor model's Gibbs sampler is the parameter-expanded one"
		case "auto":
			why = autoFactorWhy
		case "hmc", "interweave":
			why = fmt.Sprintf("no column has %d or fewer distinct values, so no column can take interweave's joint exact-HMC step", MaxHMCLevels)
		}
		pxStep.Why = why + "; the expansion rescales each latent column, which preserves its order constraints, and so mixes faster than plain Gibbs (Murray et al. 2013)"
		pl.Steps = append(pl.Steps,
			pxStep,
			collapsedStep("0.96× to 1.8× the least bulk ESS of C per CPU-second on the efficiency suite's factor setups and 0.95× to 2.5× per second on data from an unstructured C fitted with 3 factors", collapsedCost(len(levels))),
			Step{
				Name:    "factor scores",
				Updates: "η_i for every row",
				Why:     "Gaussian conditional given the loadings and Z",
				Cost:    "O(n·p·k + k³) per iteration",
			},
			factorMovesStep(pl.k),
			Step{
				Name:    "latent columns by Hoff's Gibbs update given the factors",
				Updates: "z of " + all + " (and their missing cells)",
				Why:     "given the factors the columns are independent with mean λ_jᵀη_i and unit variance",
				Cost:    "O(n·k) per column per iteration",
			})
		return
	}
	why := "you asked for interweave"
	switch pl.Asked {
	case "hmc":
		why = "you asked for hmc, which for a factor model is this joint step"
	}
	maxL := 0
	for j, l := range levels {
		if pl.ColumnHMC == nil || pl.ColumnHMC[j] {
			maxL = max(maxL, l)
		}
	}
	pl.Steps = append(pl.Steps, Step{
		Name:    "loadings and latent column by joint exact HMC",
		Updates: "λ_j and z_j together for " + strings.Join(hmcCols, ", "),
		Why:     why + fmt.Sprintf("; T = %s", fmtNum(pl.TravelTime)),
		Cost:    fmt.Sprintf("O(B·n·(k + h)) per column per iteration, B ≈ n·(L−1) bounces (L ≤ %d here): the dearest step: an interweaved iteration costs about 13× a PX one in K&S's timings and about 80× in copulang's at 1000×20 with 5 levels, k = 5, whose PX is much cheaper (sampling.md §8)", maxL),
	})
	if len(pxCols) > 0 {
		pxStep.Updates = "λ_j and a scale of z_j for " + strings.Join(pxCols, ", ")
		pxStep.Why = fmt.Sprintf("more than %d distinct values: the joint exact-HMC step would bounce about 0.4·n² times per trajectory; PX's column move leaves the same conditional invariant", MaxHMCLevels)
		pl.Steps = append(pl.Steps, pxStep)
	}
	pl.Steps = append(pl.Steps,
		Step{
			Name:    "latent columns by Hoff's Gibbs sweep (interweaving)",
			Updates: "z of " + all + " (and their missing cells)",
			Why:     "a cheap second move of Z given the loadings, as in K&S's interweaving",
			Cost:    "O(n·k) per column per iteration",
		},
		collapsedStep("1.02× the least bulk ESS of C per CPU-second on factor data, 0.97× and 1.33× per second on data from an unstructured C fitted with 3 factors (under px it gained more)",
			"O(n·p²) for ZᵀZ, then O(p²·k) per leapfrog step, 5 to 20 steps per iteration: small beside the joint steps"),
		Step{
			Name:    "factor scores",
			Updates: "η_i for every row",
			Why:     "Gaussian conditional given the loadings and Z",
			Cost:    "O(n·p·k + k³) per iteration",
		},
		factorMovesStep(pl.k))
}

// collapsedStep is the collapsed loadings step of px and interweave
// (sampling.md §4.6): what it gained under that method, and its cost line.
func collapsedStep(measured, cost string) Step {
	return Step{
		Name:    "loadings by HMC with the factors integrated out",
		Updates: "Λ (then the factor scores are redrawn given it)",
		Why:     "given Z the rows are N(0, ΛΛᵀ + I), so Λ can move without η holding it where the two are tightly coupled: measured, " + measured + " (sampling.md §4.6); the leapfrog step is tuned in warm-up, a Metropolis test keeps the move exact",
		Cost:    cost,
	}
}

// collapsedCost is the cost line of px's collapsed loadings step for p
// columns.
func collapsedCost(p int) string {
	c := "O(n·p²) for ZᵀZ, then O(p²·k) per leapfrog step, 5 to 20 steps"
	if e := inference.CollapsedLoadingsEvery(p); e > 1 {
		return c + fmt.Sprintf("; with %d columns made in a random one of every %d iterations, so that ZᵀZ stays near 15%% of a px iteration", p, e)
	}
	return c + " per iteration"
}

// factorMovesStep is the step of the factor group moves (sampling.md §4.5).
func factorMovesStep(k int) Step {
	what := "the scale of each factor"
	if k > 1 {
		what = "the scale of each factor and the shear of each ordered pair"
	}
	return Step{
		Name:    "factor group moves",
		Updates: what + ": η against Λ, λ_jᵀη_i unchanged",
		Why:     "Gibbs moves η and Λ along these directions in small steps when the loadings are strong, and they change C; each move draws its parameter from its conditional along the orbit (generalised Gibbs), which leaves the posterior invariant (sampling.md §4.5)",
		Cost:    "O(n·k² + p·k³) per iteration",
	}
}

// fmtCount writes a count with thousands separators: 1,003,000.
func fmtCount(x float64) string {
	digits := fmt.Sprintf("%.0f", x)
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// roundSig rounds x > 0 to three significant digits.
func roundSig(x float64) float64 {
	unit := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Round(x/unit) * unit
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// missingNote mentions the missing cells of the selected columns.
func missingNote(cols []string, hmc []bool, missing []int, want bool) string {
	total := 0
	for j := range cols {
		if hmc[j] == want {
			total += missing[j]
		}
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf(" (and their %d missing %s, drawn from the conditional normal)", total, plural(total, "cell", "cells"))
}

// methodText names the sampler that runs: "hmc for 5 columns, gibbs for 2"
// when exact HMC leaves some columns to Gibbs, else the method's name.
func (pl *InferencePlan) methodText() string {
	if pl.Adapt {
		return "gibbs, switching to hmc where predicted faster"
	}
	if pl.Method == inference.HMC && pl.ColumnHMC != nil {
		k := 0
		for _, h := range pl.ColumnHMC {
			if h {
				k++
			}
		}
		if k < len(pl.ColumnHMC) {
			return fmt.Sprintf("hmc for %d %s, gibbs for %d", k, plural(k, "column", "columns"), len(pl.ColumnHMC)-k)
		}
	}
	return pl.Method.String()
}

// Running says in a few words which sampler runs and, when that is not
// what the fit named, what it asked for: "px (auto)",
// "px (asked: gibbs)", "hmc for 5 columns, gibbs for 2".
func (pl *InferencePlan) Running() string {
	m := pl.methodText()
	switch {
	case pl.Asked == "auto":
		return m + " (auto)"
	case pl.Asked != pl.Method.String():
		return m + " (asked: " + pl.Asked + ")"
	}
	return m
}

// Summary says in one line what the fit will run and roughly how long it
// will take: "will run: px (auto), 4 chains × (500 warm-up + 1000
// kept) iterations; about 3 min on 2 cores (a rough estimate)".
func (pl *InferencePlan) Summary() string {
	f := pl.fit
	iters := fmt.Sprintf("%d %s × (%d warm-up + %d kept) iterations", f.Chains, plural(f.Chains, "chain", "chains"), f.Warmup, f.Iter)
	about := AboutDuration(pl.Duration())
	if f.ESS > 0 {
		// How many more the target asks for is known only once the chains run.
		iters += fmt.Sprintf(", then more until the least ESS of C is %d and R-hat ≤ 1.01 (at most %d kept)", f.ESS, ESSLimit*f.Iter)
		about += fmt.Sprintf(" for the first %d per chain", f.Warmup+f.Iter)
	}
	return fmt.Sprintf("will run: %s, %s; %s on %d %s (a rough estimate)", pl.Running(), iters,
		about, pl.Cores, plural(pl.Cores, "core", "cores"))
}

// Duration estimates the fit's wall time on pl.Cores cores
// (inference.FitDuration): a rough guide, within a factor of about 1.4 of
// the CPU time measured on an idle core.
func (pl *InferencePlan) Duration() time.Duration {
	f := pl.fit
	return inference.FitDuration(pl.Cost(), f.Chains, f.Warmup+f.Iter, pl.Cores)
}

// Cost describes the planned fit to inference's cost model.
func (pl *InferencePlan) Cost() inference.Cost {
	c := inference.Cost{Method: pl.Method, N: pl.n, P: len(pl.columns), ColumnHMC: pl.ColumnHMC, TravelTime: pl.TravelTime, Levels: pl.levels}
	if pl.Adapt {
		// Every column starts on Gibbs, and most data keep it there.
		c.Method, c.ColumnHMC = inference.Gibbs, nil
	}
	for _, m := range pl.missing {
		c.Observed = append(c.Observed, pl.n-m)
	}
	if pl.Method == inference.PX || pl.Method == inference.Interweave {
		c.K = pl.k
	}
	return c
}

// AboutDuration rounds an estimated duration to what an estimate can say:
// "under a second", "about 40 s", "about 3 min".
func AboutDuration(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 1:
		return "under a second"
	case s < 10:
		return fmt.Sprintf("about %.0f s", s)
	case s < 90:
		return fmt.Sprintf("about %.0f s", math.Round(s/5)*5)
	case s < 90*60:
		return fmt.Sprintf("about %.0f min", math.Round(s/60))
	case s < 10*3600:
		return fmt.Sprintf("about %.1f h", s/3600)
	}
	return fmt.Sprintf("about %.0f h", d.Hours())
}

// Explain prints the plan: the model, the method, the fit settings, then
// each step with what it updates, why and its cost, then any notes.
func (pl *InferencePlan) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan for model %s on %s (n = %d rows, p = %d columns): %s\n", pl.Model, pl.Data, pl.n, len(pl.columns), pl.kind)
	b.WriteString(pl.Summary() + "\n")
	fmt.Fprintf(&b, "method: %s (asked: %s)\n", pl.methodText(), pl.Asked)
	if f := pl.fit; f != nil {
		label := "fit"
		if pl.defaultFit {
			label = "fit (defaults)"
		}
		until := ""
		if f.ESS > 0 {
			until = fmt.Sprintf(", then until every entry of C has bulk and tail ESS ≥ %d and R-hat ≤ 1.01 (at most %d × iter = %d kept)", f.ESS, ESSLimit, ESSLimit*f.Iter)
		}
		fmt.Fprintf(&b, "%s: %d %s × (%d warm-up + %d kept) iterations%s, thin %d, seed %d\n",
			label, f.Chains, plural(f.Chains, "chain", "chains"), f.Warmup, f.Iter, until, f.Thin, f.Seed)
		if f.File != "" {
			fmt.Fprintf(&b, "file: %q — read instead of sampling if it holds a fit of this model with these data and settings; otherwise the fit is sampled and written there\n", f.File)
		}
	}
	if len(pl.Candidates) > 0 {
		if pl.Adapt {
			fmt.Fprintf(&b, "auto decides after %d warm-up iterations between (predicted time per chain on one core; sampling.md §9.2):\n", inference.AdaptAfter(pl.fit.Warmup))
		} else {
			sec := "§9.1"
			if pl.k > 0 {
				sec = "§9.6" // since the factor group moves
			}
			fmt.Fprintf(&b, "auto weighed (predicted time per chain on one core; measured mixing, sampling.md %s):\n", sec)
		}
		for i, c := range pl.Candidates {
			cost := pl.Cost()
			cost.Method, _ = inference.ParseMethod(c.Method)
			cost.ColumnHMC = c.ColumnHMC
			per1000 := inference.IterationCost(cost) * 1000
			measured := "chosen"
			switch {
			case pl.Adapt && i == 0:
				measured = "every column starts here"
			case pl.Adapt:
				measured = "on the most strongly correlated columns of 3 to 10 levels, as many as predicted best, taken if predicted to give more bulk ESS/s than gibbs, from the columns' R² at that point"
			case i > 0:
				measured = c.Measured
			}
			fmt.Fprintf(&b, "  %-10s %s per 1000 iterations; %s\n", c.Method, AboutDuration(per1000), measured)
		}
	}
	b.WriteString("each iteration:\n")
	for i, s := range pl.Steps {
		fmt.Fprintf(&b, "%d. %s\n   updates: %s\n   why:     %s\n   cost:    %s\n", i+1, s.Name, s.Updates, s.Why, s.Cost)
	}
	for _, n := range pl.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
