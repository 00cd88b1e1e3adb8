package inference

// Held-out cells: the predictive score that compares models. The extended
// rank likelihood is not a full likelihood of the data (it leaves the
// marginals out), so LOO and WAIC, which need the likelihood of each
// observation, do not apply as usual. What a copula model does predict is
// one cell from the rest of its row: hold out observed cells, refit, and
// score each held-out cell by the log of its posterior predictive
// probability of the value it had, mapped through the column's observed
// values exactly as Impute maps a missing cell.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/copulang/copulang/hough"
)

// HeldOutCell is an observed cell withheld from a fit: Row and Col are
// 0-based (Col in the order of Spec.Columns) and Value is the value it had.
type HeldOutCell struct {
	Row, Col int
	Value    float64
}

// heldOutScorer accumulates, at each post-warm-up iteration of a chain,
// the posterior predictive probability of every held-out cell's value,
// Rao-Blackwellised over the cell's latent value: given the latent values
// z_{i,−j} of the rest of its row and the draw's covariance V = S C S
// (S = diag(s_j), s_j the marginal sd of latent column j, as Impute uses),
// z_ij is N(μ, σ²), and the value v_ℓ has probability
//
//	Φ((s_j Φ⁻¹(F_ℓ) − μ)/σ) − Φ((s_j Φ⁻¹(F_{ℓ−1}) − μ)/σ),
//
// F the empirical CDF of the column's observed (not held-out) values: the
// probability that Impute's mapping gives v_ℓ. In the factor model V =
// ΛΛᵀ + I, the factors integrated out. It does not allocate.
//
// Per draw it forms each column's regression coefficients −Ω_jk/(Ω_jj s_k)
// once, and visits the cells row by row, gathering a row's latent values
// once for all its held-out cells: compare's folds hold out a share of
// every row, and come ordered by column. At 20,000 × 40 this halved the
// cost per cell (BenchmarkHeldOutScore), most of it now the two Φ calls.
type heldOutScorer struct {
	cells  []HeldOutCell
	lo, hi []float64 // Φ⁻¹(F_{ℓ−1}), Φ⁻¹(F_ℓ) of each cell's value
	p      int
	c, l   []float64 // p×p: C, its Cholesky factor and inverse
	omega  []float64 // Ω = C⁻¹
	coef   []float64 // p×p: row j holds −Ω_jk/(Ω_jj s_k), k ≠ j, and 0 at k = j
	sigma  []float64 // 1/√Ω_jj
	sd     []float64
	zrow   []float64 // z_ik of the row being scored
	order  []int32   // the cells by row, then column: the order add visits them
}

func newHeldOutScorer(levels []*hough.Levels, cells []HeldOutCell) *heldOutScorer {
	p := len(levels)
	sc := &heldOutScorer{cells: cells, p: p, lo: make([]float64, len(cells)), hi: make([]float64, len(cells)),
		c: make([]float64, p*p), l: make([]float64, p*p), omega: make([]float64, p*p),
		coef: make([]float64, p*p), sigma: make([]float64, p), sd: make([]float64, p), zrow: make([]float64, p)}
	sc.order = make([]int32, len(cells))
	for m := range sc.order {
		sc.order[m] = int32(m)
	}
	slices.SortFunc(sc.order, func(a, b int32) int {
		ca, cb := &cells[a], &cells[b]
		if ca.Row != cb.Row {
			return ca.Row - cb.Row
		}
		return ca.Col - cb.Col
	})
	for m, cell := range cells {
		lv := levels[cell.Col]
		l := slices.Index(lv.Values, cell.Value)
		nObs := float64(len(lv.Order))
		sc.lo[m] = normalQuantile(float64(lv.Start[l]) / nObs)
		sc.hi[m] = normalQuantile(float64(lv.Start[l+1]) / nObs)
	}
	return sc
}

// normalQuantile is Φ⁻¹(u), −∞ at 0 and +∞ at 1.
func normalQuantile(u float64) float64 { return math.Sqrt2 * math.Erfinv(2*u-1) }

// normalMass is Φ(b) − Φ(a) for a ≤ b, without cancellation in either tail.
func normalMass(a, b float64) float64 {
	if a > 0 {
		return stdNormalUpper(a) - stdNormalUpper(b)
	}
	return stdNormalCDF(b) - stdNormalCDF(a)
}

// add adds to dst[m] the probability of held-out cell m's value under the
// sampler's current state; it reports false if C is not positive definite.
func (sc *heldOutScorer) add(dst []float64, cs chainSampler) bool {
	p := sc.p
	cs.corr(sc.c)
	z := cs.latent()
	scaler, hasScale := cs.(latentScaler)
	for j := range sc.sd {
		if hasScale {
			sc.sd[j] = scaler.latentSD(j)
		} else {
			sc.sd[j] = sampleSD(z[j])
		}
	}
	copy(sc.l, sc.c)
	if !cholLower(sc.l, p) {
		return false
	}
	invLower(sc.l, p)
	gramLowerT(sc.omega, sc.l, p)
	// In units of s_j: μ/s_j = −Σ_{k≠j} Ω_jk (z_ik/s_k) / Ω_jj and
	// σ/s_j = 1/√Ω_jj, Ω = C⁻¹.
	for j := range p {
		row, coef := sc.omega[j*p:j*p+p], sc.coef[j*p:j*p+p]
		for k, w := range row {
			coef[k] = -w / (row[j] * sc.sd[k])
		}
		coef[j] = 0
		sc.sigma[j] = 1 / math.Sqrt(row[j])
	}
	zrow, row := sc.zrow[:p], -1
	for _, m := range sc.order {
		i, j := sc.cells[m].Row, sc.cells[m].Col
		if i != row {
			for k := range zrow {
				zrow[k] = z[k][i]
			}
			row = i
		}
		mu := dot(sc.coef[j*p:j*p+p], zrow)
		sigma := sc.sigma[j]
		dst[m] += normalMass((sc.lo[m]-mu)/sigma, (sc.hi[m]-mu)/sigma)
	}
	return true
}

// checkHeldOut checks that every held-out cell is missing in the data and
// that its value is one of its column's observed values.
func checkHeldOut(d *data, cells []HeldOutCell) error {
	seen := make(map[Cell]bool, len(cells))
	for _, c := range cells {
		if c.Col < 0 || c.Col >= d.p || c.Row < 0 || c.Row >= d.n {
			return fmt.Errorf("inference: held-out cell (%d, %d) is outside the %d×%d data", c.Row+1, c.Col+1, d.n, d.p)
		}
		if !math.IsNaN(d.columns[c.Col][c.Row]) {
			return fmt.Errorf("inference: held-out cell (%d, %s) is not missing in the data", c.Row+1, d.name(c.Col))
		}
		if !isLevelValue(d.levels[c.Col], c.Value) {
			return fmt.Errorf("inference: held-out cell (%d, %s) has value %v, which is not an observed value of its column", c.Row+1, d.name(c.Col), c.Value)
		}
		if seen[Cell{c.Row, c.Col}] {
			return fmt.Errorf("inference: held-out cell (%d, %s) is listed twice", c.Row+1, d.name(c.Col))
		}
		seen[Cell{c.Row, c.Col}] = true
	}
	return nil
}

// HoldOut chooses the observed cells to hold out, with a random stream
// seeded by seed. Only cells whose value is also observed elsewhere in its
// column are chosen, and never every remaining cell of a value, so that
// each held-out value stays one the refitted model can predict (a column
// of distinct values, continuous data, is never held out).
//
// With folds = 1 it returns one set: a share fraction (in (0, 0.5]) of the
// eligible cells, but at least 100 (or half the eligible cells when there
// are fewer than 200). With folds = K ≥ 2 it returns K sets that split the
// eligible cells at random (K-fold cross-validation over cells); fraction
// is then ignored.
func HoldOut(columns [][]float64, folds int, fraction float64, seed uint64) ([][]HeldOutCell, error) {
	if folds < 1 {
		return nil, fmt.Errorf("inference: hold out: folds = %d, want at least 1", folds)
	}
	if folds == 1 && !(fraction > 0 && fraction <= 0.5) {
		return nil, fmt.Errorf("inference: hold out: fraction = %v, want in (0, 0.5]", fraction)
	}
	type key struct {
		col int
		v   float64
	}
	counts := map[key]int{}
	var cells []HeldOutCell
	for j, col := range columns {
		for i, v := range col {
			if !math.IsNaN(v) {
				counts[key{j, v}]++
				cells = append(cells, HeldOutCell{Row: i, Col: j, Value: v})
			}
		}
	}
	cells = slices.DeleteFunc(cells, func(c HeldOutCell) bool { return counts[key{c.Col, c.Value}] < 2 })
	if len(cells) < 2*folds {
		return nil, fmt.Errorf("inference: hold out: only %d observed cells share their value with another cell of their column, too few for %d folds", len(cells), folds)
	}
	rng := rand.New(rand.NewPCG(splitMix64(seed^0x9b05688c2b3e6c1f), splitMix64(seed^0x1f83d9abfb41bd6b)))
	rng.Shuffle(len(cells), func(a, b int) { cells[a], cells[b] = cells[b], cells[a] })
	held := make([]map[key]int, folds)
	for f := range held {
		held[f] = map[key]int{}
	}
	out := make([][]HeldOutCell, folds)
	if folds == 1 {
		want := max(int(math.Ceil(fraction*float64(len(cells)))), min(100, len(cells)/2))
		for _, c := range cells {
			if len(out[0]) == want {
				break
			}
			k := key{c.Col, c.Value}
			if held[0][k]+1 < counts[k] {
				held[0][k]++
				out[0] = append(out[0], c)
			}
		}
	} else {
		for t, c := range cells {
			k := key{c.Col, c.Value}
			// The next fold in turn that would still leave a cell of
			// this value observed; one always exists (see the doc).
			for step := range folds {
				f := (t + step) % folds
				if held[f][k]+1 < counts[k] {
					held[f][k]++
					out[f] = append(out[f], c)
					break
				}
			}
		}
	}
	for f := range out {
		slices.SortFunc(out[f], func(a, b HeldOutCell) int {
			if a.Col != b.Col {
				return a.Col - b.Col
			}
			return a.Row - b.Row
		})
	}
	return out, nil
}

// MaskCells returns a copy of columns with the given cells missing (NaN).
func MaskCells(columns [][]float64, cells []HeldOutCell) [][]float64 {
	out := make([][]float64, len(columns))
	for j, col := range columns {
		out[j] = slices.Clone(col)
	}
	for _, c := range cells {
		out[c.Col][c.Row] = math.NaN()
	}
	return out
}

// CrossValidation is what CrossValidate returns: the log posterior
// predictive probability of every held-out cell (Result.HeldOutProb),
// folds in order and cells in their fold's order, and, per fold, each
// chain's total of its estimates of the cells' probabilities relative to
// all chains' (Result.HeldOutChainTotals), from which ELPDMCVar estimates
// the Monte Carlo variance of their sum.
type CrossValidation struct {
	LogProb     []float64
	ChainTotals [][]float64 // [fold][chain]
}

// CrossValidate refits spec once per fold, with the fold's cells missing
// and held out (spec.Columns are the full data, spec.HeldOut must be
// empty), and returns its scores. progress, if not nil, receives each
// fold's progress. A cancelled ctx stops the refit under way and returns
// ctx.Err().
func CrossValidate(ctx context.Context, spec Spec, folds [][]HeldOutCell, progress func(fold int, p Progress)) (*CrossValidation, error) {
	if len(spec.HeldOut) > 0 {
		return nil, errors.New("inference: cross-validate: the spec already holds cells out")
	}
	out := &CrossValidation{}
	for f, cells := range folds {
		fs := spec
		fs.Columns = MaskCells(spec.Columns, cells)
		fs.HeldOut = cells
		fs.KeepWarmup = false
		// A refit is scored, never imputed: it keeps the fewest
		// imputations there are, one draw's a chain, instead of mapping
		// every missing and held-out cell at every kept draw.
		fs.MaxImputed = 1
		var report func(Progress)
		if progress != nil {
			report = func(p Progress) { progress(f, p) }
		}
		res, err := Run(ctx, fs, report)
		if err != nil {
			return nil, err
		}
		for _, pr := range res.HeldOutProb {
			out.LogProb = append(out.LogProb, math.Log(pr))
		}
		out.ChainTotals = append(out.ChainTotals, res.HeldOutChainTotals())
	}
	return out, nil
}

// HeldOutChainTotals returns, for each chain c, u_c = Σ_m p̂_cm / p̂_m over
// the held-out cells m, where p̂_cm is chain c's estimate of cell m's
// probability (HeldOutProb) and p̂_m that of all chains. To first order
// (the delta method) Σ_m log p̂_m moves by the mean over chains of
// u_c − M, so that, the chains being independent, its Monte Carlo variance
// is var_c(u_c)/C (ELPDMCVar). Chains whose sums are gone (a Result an
// extension took them from) or that ran no post-warm-up iteration give
// NaN; nil when r holds no cells out.
func (r *Result) HeldOutChainTotals() []float64 {
	if len(r.HeldOut) == 0 {
		return nil
	}
	out := make([]float64, len(r.zcount))
	for c := range out {
		if c >= len(r.heldSum) || r.heldSum[c] == nil || r.zcount[c] == 0 {
			out[c] = math.NaN()
			continue
		}
		n := float64(r.zcount[c])
		for m, sum := range r.heldSum[c] {
			out[c] += sum / n / r.HeldOutProb[m]
		}
	}
	return out
}

// ELPDMCVar estimates the Monte Carlo variance of a sum of held-out log
// scores from each fold's chain totals (CrossValidation.ChainTotals): the
// sum over folds, whose refits are independent, of var_c(u_c)/C (variance
// with divisor C − 1). A review of compare checked it against the spread
// of the sum over seeds (p = 6, n = 150, 4 chains, 16 seeds: 0.113 against
// 0.100, 0.024 against 0.020, 0.084 against 0.096, 0.213 against 0.184)
// and found the cells' Monte Carlo covariances, which it includes, near
// zero (docs/sampling.md §10.4). With C chains it is itself an estimate of
// C − 1 degrees of freedom. NaN when a fold has fewer than two chains or a
// total is not a number, or there are no folds.
func ELPDMCVar(chainTotals [][]float64) float64 {
	if len(chainTotals) == 0 {
		return math.NaN()
	}
	v := 0.0
	for _, u := range chainTotals {
		c := float64(len(u))
		if len(u) < 2 {
			return math.NaN()
		}
		mean := 0.0
		for _, x := range u {
			mean += x
		}
		mean /= c
		ss := 0.0
		for _, x := range u {
			ss += (x - mean) * (x - mean)
		}
		v += ss / (c - 1) / c
	}
	return v
}

// ScoreSummary is one model's held-out score in a comparison, in the form
// of loo_compare (Vehtari, Gelman and Gabry 2017): ELPD is the sum of the
// pointwise log scores and SE its standard error sqrt(N·var); Diff is
// ELPD minus the best model's ELPD (0 for the best) and SEDiff the standard
// error of the paired pointwise differences, sqrt(N·var(d)).
type ScoreSummary struct {
	ELPD, SE, Diff, SEDiff float64
}

// CompareScores summarises the pointwise log scores of several models on
// the same held-out cells (pointwise[m][i] for model m and cell i) and
// returns the index of the best model, the one with the largest ELPD.
func CompareScores(pointwise [][]float64) ([]ScoreSummary, int, error) {
	if len(pointwise) == 0 {
		return nil, -1, errors.New("inference: compare: no models")
	}
	n := len(pointwise[0])
	if n < 2 {
		return nil, -1, fmt.Errorf("inference: compare: %d held-out cells, want at least 2", n)
	}
	out := make([]ScoreSummary, len(pointwise))
	best := 0
	for m, lp := range pointwise {
		if len(lp) != n {
			return nil, -1, fmt.Errorf("inference: compare: model %d has %d scores, model 1 has %d", m+1, len(lp), n)
		}
		out[m].ELPD, out[m].SE = sumAndSE(lp)
		if out[m].ELPD > out[best].ELPD {
			best = m
		}
	}
	d := make([]float64, n)
	for m, lp := range pointwise {
		for i := range d {
			d[i] = lp[i] - pointwise[best][i]
		}
		out[m].Diff, out[m].SEDiff = sumAndSE(d)
	}
	return out, best, nil
}

// sumAndSE is Σx and sqrt(N·var(x)), var with divisor N − 1.
func sumAndSE(x []float64) (sum, se float64) {
	n := float64(len(x))
	for _, v := range x {
		sum += v
	}
	m := sum / n
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return sum, math.Sqrt(n * ss / (n - 1))
}
