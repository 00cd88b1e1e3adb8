package inference

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/copulang/copulang/hough"
)

// Cell is one cell of the data: Row and Col are 0-based, Col in the order of
// Spec.Columns.
type Cell struct{ Row, Col int }

// Result holds the draws of a run and what the samplers did. Chains are
// numbered from 0 here; every per-chain slice has one entry per chain. After
// an interrupted run the chains may hold different numbers of draws.
type Result struct {
	// Names are the column names (Spec.Names, or Y1..Yp).
	Names []string
	// N is the number of rows, P the number of columns and K the number of
	// factors (0 for the full-correlation model).
	N, P, K int
	// Model and Method are as run (Model defaulted to FullCorrelation{}).
	Model  Model
	Method Method
	// Warmup, Iter and Thin are the settings the run used (Thin at least 1).
	Warmup, Iter, Thin int
	// Seed is the seed the chains' streams were derived from.
	Seed uint64

	// C[chain][draw] is a kept post-warm-up draw of the copula correlation
	// matrix, p×p row-major: bitwise symmetric with an exact unit diagonal.
	C [][][]float64
	// Lambda[chain][draw] is the matching draw of the factor loadings on the
	// correlation scale, D^{-1/2}Λ (row j is λ_j/√(1+‖λ_j‖²), so that C_ij =
	// λ̃_i·λ̃_j for i ≠ j), p×k row-major (factor model only; nil otherwise).
	// They are identified only up to rotation: monitor C.
	Lambda [][][]float64
	// WarmupC[chain][draw] are the warm-up draws of C, thinned like C, when
	// Spec.KeepWarmup is set (nil otherwise); WarmupC followed by C is the
	// whole trace, as RMSETrace wants it.
	WarmupC [][][]float64

	// ZMean[j][i] is the posterior mean of the latent z_ij over every
	// post-warm-up iteration (not only the kept ones) of every chain, in the
	// sampler's working scale (the full model's Z has covariance V, of which
	// C is the correlation). NaN if no post-warm-up iteration ran.
	ZMean [][]float64
	// Missing lists the missing cells, ordered by column then row. Their
	// imputations, a value of each at kept draws of every chain, are read
	// with ImputedDraws, ImputedValue, ImputedTo, Impute and ImputeLevels.
	Missing []Cell
	// ImputeThin is 1 unless the missing cells times the kept draws the run
	// was asked for exceed Spec.MaxImputed: then only every ImputeThin-th
	// kept draw of each chain, from its first, carries imputations, the
	// fewest that keep them within the bound (an extension that would pass
	// it keeps every k-th of them and thins by k times as many from then
	// on).
	ImputeThin int

	// HeldOut are the cells of Spec.HeldOut, and HeldOutProb[m] the
	// posterior predictive probability of HeldOut[m].Value, averaged over
	// every post-warm-up iteration of every chain (Rao-Blackwellised; see
	// heldOutScorer). NaN if no post-warm-up iteration ran.
	HeldOut     []HeldOutCell
	HeldOutProb []float64

	// Schedule is the per-column choice of an adaptive run (Spec.Adapt);
	// nil if the run did not adapt.
	Schedule *Schedule

	// Stats are the sampler statistics accumulated by each chain.
	Stats []StepStats
	// Iterations is the number of iterations each chain completed, warm-up
	// included.
	Iterations []int
	// Interrupted is true if the run was cancelled before every chain
	// finished; the draws of every chain are then cut to the shortest.
	Interrupted bool
	// Elapsed is the wall-clock time of the run.
	Elapsed time.Duration

	levels      []*hough.Levels
	entries     *entryMemo    // EntrySummaries once computed; nil: not remembered
	checks      *checkMemo    // the pair statistics of the latest checks; nil: not remembered
	run         *runState     // what Extend continues; nil for a Result not made by Run or read back with its chains
	moved       bool          // Extend has moved run to a new Result
	zsum        [][][]float64 // per chain, per column, per row
	zcount      []int
	heldSum     [][]float64 // per chain, per held-out cell
	interrupted []bool

	// imputed[chain][d] holds the imputations of kept draw d·ImputeThin of
	// the chain as level codes, imputeWidth (codeWidth) bytes per missing
	// cell in the order of Missing (imputed.go).
	imputed     [][][]byte
	imputeWidth int
}

func newResult(d *data, sp *Spec) *Result {
	m := sp.Chains
	r := &Result{
		entries: new(entryMemo),
		checks:  new(checkMemo),
		Names:   sp.Names, N: d.n, P: d.p, Model: sp.Model, Method: sp.Method,
		Warmup: sp.Warmup, Iter: sp.Iter, Thin: sp.Thin, Seed: sp.Seed,
		C:           make([][][]float64, m),
		Stats:       make([]StepStats, m),
		Iterations:  make([]int, m),
		imputed:     make([][][]byte, m),
		levels:      d.levels,
		zsum:        make([][][]float64, m),
		zcount:      make([]int, m),
		interrupted: make([]bool, m),
		HeldOut:     sp.HeldOut,
		heldSum:     make([][]float64, m),
	}
	if fm, ok := sp.Model.(FactorModel); ok {
		r.K = fm.K
		r.Lambda = make([][][]float64, m)
	}
	if sp.KeepWarmup {
		r.WarmupC = make([][][]float64, m)
	}
	for j, lv := range d.levels {
		for _, i := range lv.Missing {
			r.Missing = append(r.Missing, Cell{Row: int(i), Col: j})
		}
	}
	r.imputeWidth = codeWidth(d.levels, r.Missing)
	r.ImputeThin = imputeThin(len(r.Missing), m*(sp.Iter/sp.Thin), sp.MaxImputed)
	// Capacities grow as draws arrive beyond this.
	keep := min(sp.Iter/sp.Thin, 1024)
	for c := 0; c < m; c++ {
		r.C[c] = make([][]float64, 0, keep)
		if r.Lambda != nil {
			r.Lambda[c] = make([][]float64, 0, keep)
		}
		if r.WarmupC != nil {
			r.WarmupC[c] = make([][]float64, 0, min(sp.Warmup/sp.Thin, 1024))
		}
		if len(r.Missing) > 0 {
			r.imputed[c] = make([][]byte, 0, keep)
		}
		r.heldSum[c] = make([]float64, len(sp.HeldOut))
		r.zsum[c] = make([][]float64, d.p)
		for j := range r.zsum[c] {
			r.zsum[c][j] = make([]float64, d.n)
		}
	}
	return r
}

// DefaultMaxImputed is the bound on a run's imputed values when
// Spec.MaxImputed is 0: 2²⁵ values, 32 MB as level codes of a byte (64 MB
// of two). Kept in full, the imputations of a survey of 10⁵ rows and 20
// columns with a fifth of its cells missing would take 1.6 GB for the
// default 4 chains × 1000 draws.
const DefaultMaxImputed = 1 << 25

// imputeThin returns the thinning of the imputations of cells missing cells
// over draws kept draws (all chains) that keeps them within bound values (0:
// DefaultMaxImputed), give or take a draw per chain; at least one draw per
// chain is kept.
func imputeThin(cells, draws, bound int) int {
	if bound <= 0 {
		bound = DefaultMaxImputed
	}
	if cells == 0 || draws <= bound/cells {
		return 1
	}
	allowed := max(bound/cells, 1) // draws of all chains the bound allows
	return imputedDraws(draws, allowed)
}

// imputedDraws is the number of a chain's kept draws, of kept, that carry
// imputations when they are thinned by thin (≥ 1): ⌈kept/thin⌉, without
// overflow for any thin.
func imputedDraws(kept, thin int) int {
	n := kept / thin
	if kept%thin != 0 {
		n++
	}
	return n
}

// finish combines the chains' running sums into ZMean and HeldOutProb (it
// keeps the sums, which Extend adds to) and cuts the chains of an
// interrupted run to the shortest.
func (r *Result) finish() {
	total := 0
	for _, k := range r.zcount {
		total += k
	}
	r.ZMean = make([][]float64, r.P)
	for j := range r.ZMean {
		col := make([]float64, r.N)
		for c := range r.zsum {
			axpy(1, r.zsum[c][j], col)
		}
		for i := range col {
			col[i] /= float64(total)
		}
		r.ZMean[j] = col
	}
	r.HeldOutProb = make([]float64, len(r.HeldOut))
	for m := range r.HeldOutProb {
		for c := range r.heldSum {
			r.HeldOutProb[m] += r.heldSum[c][m]
		}
		r.HeldOutProb[m] /= float64(total)
	}
	for _, b := range r.interrupted {
		r.Interrupted = r.Interrupted || b
	}
	// Chains stopped by an interrupt end at different iterations (and an
	// extension of such a run may keep one more thinned draw in some); cut
	// every chain to the shortest so that diagnostics, plots and exports see
	// equal chains.
	r.C = trimChains(r.C)
	r.Lambda = trimChains(r.Lambda)
	r.WarmupC = trimChains(r.WarmupC)
	r.imputed = trimChains(r.imputed)
}

// trimChains cuts every chain to the length of the shortest.
func trimChains[T any](chains [][][]T) [][][]T {
	if len(chains) == 0 {
		return chains
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	for i := range chains {
		chains[i] = chains[i][:n]
	}
	return chains
}

// Draws returns the kept draws of C_ij (0-based i, j) per chain:
// Draws(i, j)[chain][draw].
func (r *Result) Draws(i, j int) [][]float64 {
	if i < 0 || j < 0 || i >= r.P || j >= r.P {
		panic(fmt.Sprintf("inference: Result.Draws(%d, %d) out of range for p = %d", i, j, r.P))
	}
	out := make([][]float64, len(r.C))
	for c, chain := range r.C {
		out[c] = make([]float64, len(chain))
		for t, m := range chain {
			out[c][t] = m[i*r.P+j]
		}
	}
	return out
}

// DrawsOf returns, for every entry (i, j) of entries, what Draws(i, j)
// returns, gathered in one pass over the draws: a block of 64 draws at a
// time, so that the entries of one matrix are read while it is in cache.
// Draws called for each of the 4,950 entries at p = 100 (4 × 1000 draws)
// took a second, reading every matrix once per entry.
func (r *Result) DrawsOf(entries [][2]int) [][][]float64 {
	idx := make([]int, len(entries))
	for k, e := range entries {
		i, j := e[0], e[1]
		if i < 0 || j < 0 || i >= r.P || j >= r.P {
			panic(fmt.Sprintf("inference: Result.DrawsOf: entry (%d, %d) out of range for p = %d", i, j, r.P))
		}
		idx[k] = i*r.P + j
	}
	out := make([][][]float64, len(entries))
	for k := range out {
		out[k] = make([][]float64, len(r.C))
	}
	const block = 64
	for c, chain := range r.C {
		n := len(chain)
		back := make([]float64, len(entries)*n)
		for k := range out {
			out[k][c] = back[k*n : (k+1)*n : (k+1)*n]
		}
		for t0 := 0; t0 < n; t0 += block {
			draws := chain[t0:min(t0+block, n)]
			for k, at := range idx {
				dst := out[k][c][t0:]
				for t, m := range draws {
					dst[t] = m[at]
				}
			}
		}
	}
	return out
}

// KeptDraws is the number of kept post-warm-up draws of C over all chains.
func (r *Result) KeptDraws() int {
	n := 0
	for _, chain := range r.C {
		n += len(chain)
	}
	return n
}

// NoOrderColumns lists, ascending, the columns with at most one distinct
// observed value. Their data hold no order information, so their entries of
// C (and their loadings) follow the prior alone, and the sampler moves
// through that prior slowly: each draw of such a column's latent values
// comes from C, and C is then drawn given them. Nil when there is none, or
// for a Result without its data.
func (r *Result) NoOrderColumns() []int {
	var cols []int
	for j, lv := range r.levels {
		if lv != nil && lv.NumLevels() <= 1 {
			cols = append(cols, j)
		}
	}
	return cols
}

// MeanC is the posterior mean of C over every kept draw of every chain,
// p×p row-major; its entries are NaN when no draw was kept.
func (r *Result) MeanC() []float64 {
	mean, _ := MeanDraw(r.C, r.P*r.P)
	return mean
}

// MeanDraw is the elementwise mean of draws[chain][draw], each of size
// values, over every draw of every chain, and the number of draws; the
// mean's entries are NaN when there is none.
func MeanDraw(draws [][][]float64, size int) (mean []float64, n int) {
	mean = make([]float64, size)
	for _, chain := range draws {
		for _, d := range chain {
			for k, v := range d {
				mean[k] += v
			}
			n++
		}
	}
	for k := range mean {
		mean[k] /= float64(n)
	}
	return mean, n
}

// ParamSummary is the Summary of one named scalar.
type ParamSummary struct {
	// Name follows CmdStan: C.i.j for the correlation of columns i < j,
	// 1-based.
	Name string
	Summary
}

// Summary summarises every off-diagonal entry C_ij, i < j, in row-major
// order. Chains with no draws are left out and the others are cut to the
// shortest chain's length (only an interrupted run has unequal chains). With
// no draws at all it returns nil.
func (r *Result) Summary() []ParamSummary {
	all := r.EntrySummaries()
	if all == nil {
		return nil
	}
	var out []ParamSummary
	for i := 0; i < r.P; i++ {
		for j := i + 1; j < r.P; j++ {
			out = append(out, ParamSummary{Name: fmt.Sprintf("C.%d.%d", i+1, j+1), Summary: all[len(out)]})
		}
	}
	return out
}

// Invariants checks what must hold of every stored draw (sampling.md §6e):
// each C (warm-up draws included) is bitwise symmetric with an exact unit
// diagonal, off-diagonal entries in (−1, 1), and a successful Cholesky
// factorisation; imputed values are observed values of their column; and
// no exact-HMC trajectory was rejected. It returns every violation found,
// joined, or nil.
func (r *Result) Invariants() error {
	var errs []error
	p := r.P
	work := make([]float64, p*p)
	check := func(kind string, c, t int, m []float64) {
		for _, e := range correlationErrors(m, p, work) {
			errs = append(errs, fmt.Errorf("%s chain %d draw %d: %s", kind, c+1, t+1, e))
		}
	}
	for c, ch := range r.C {
		for t, m := range ch {
			check("C", c, t, m)
		}
	}
	for c, ch := range r.WarmupC {
		for t, m := range ch {
			check("warm-up C", c, t, m)
		}
	}
	for c, ch := range r.imputed {
		for t, codes := range ch {
			for m, cell := range r.Missing {
				if l, n := getCode(codes, r.imputeWidth, m), r.levels[cell.Col].NumLevels(); l >= n {
					errs = append(errs, fmt.Errorf("imputed chain %d draw %d: cell (%d, %d) is level %d of %d", c+1, t+1, cell.Row+1, cell.Col+1, l+1, n))
				}
			}
		}
	}
	for c, st := range r.Stats {
		if st.Rejections != 0 {
			errs = append(errs, fmt.Errorf("chain %d: %d exact-HMC trajectories rejected", c+1, st.Rejections))
		}
	}
	if len(errs) > 20 {
		errs = append(errs[:20], fmt.Errorf("and %d more violations", len(errs)-20))
	}
	return errors.Join(errs...)
}

// correlationErrors says how m fails to be a p×p correlation matrix:
// bitwise symmetric with an exact unit diagonal, off-diagonal entries in
// (−1, 1), and positive definite (work, p×p, is overwritten). It returns
// nil for a valid one.
func correlationErrors(m []float64, p int, work []float64) []string {
	if len(m) != p*p {
		return []string{fmt.Sprintf("%d entries, want %d", len(m), p*p)}
	}
	var errs []string
	for i := 0; i < p; i++ {
		if m[i*p+i] != 1 {
			errs = append(errs, fmt.Sprintf("C[%d,%d] = %v, want 1", i+1, i+1, m[i*p+i]))
		}
		for j := i + 1; j < p; j++ {
			if m[i*p+j] != m[j*p+i] || math.IsNaN(m[i*p+j]) {
				errs = append(errs, fmt.Sprintf("C[%d,%d] = %v but C[%d,%d] = %v", i+1, j+1, m[i*p+j], j+1, i+1, m[j*p+i]))
			}
			if !(math.Abs(m[i*p+j]) < 1) {
				errs = append(errs, fmt.Sprintf("|C[%d,%d]| = %v, want < 1", i+1, j+1, m[i*p+j]))
			}
		}
	}
	copy(work, m)
	if !cholLower(work, p) {
		errs = append(errs, "C is not positive definite")
	}
	return errs
}

func isLevelValue(lv *hough.Levels, v float64) bool {
	for _, x := range lv.Values {
		if x == v {
			return true
		}
	}
	return false
}

// entryMemo holds a Result's EntrySummaries once computed.
type entryMemo struct {
	mu   sync.Mutex
	done bool
	sums []Summary
}

// EntrySummaries returns the Summary of every entry C_ij, i < j, row by
// row (entry i·p − i(i+1)/2 + j − i − 1), then, for a factor model, of
// every aligned loading Λ_ih, row by row (entry p(p−1)/2 + i·k + h), each
// over the chains' kept draws cut to the shortest chain that has any
// (chains without draws left out); nil when no chain has a draw. A Result
// made by Run, Extend or UnmarshalResult computes them once, on first use,
// and returns the same slice to every caller, which must not change it: a
// fit's report and every later summary of C or the loadings read them.
func (r *Result) EntrySummaries() []Summary {
	if r.entries == nil {
		return r.entrySummaries()
	}
	r.entries.mu.Lock()
	defer r.entries.mu.Unlock()
	if !r.entries.done {
		r.entries.sums, r.entries.done = r.entrySummaries(), true
	}
	return r.entries.sums
}

// EntrySummariesDone reports whether EntrySummaries are computed and
// remembered already, so that a caller wanting a few entries can summarise
// just those instead (a fit interrupted in its cell has had no report).
func (r *Result) EntrySummariesDone() bool {
	if r.entries == nil {
		return false
	}
	r.entries.mu.Lock()
	defer r.entries.mu.Unlock()
	return r.entries.done
}

func (r *Result) entrySummaries() []Summary {
	var pairs [][2]int
	for i := 0; i < r.P; i++ {
		for j := i + 1; j < r.P; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	params := r.DrawsOf(pairs)
	for k, chains := range params {
		params[k] = NonEmptyShortest(chains)
	}
	if r.K > 0 && len(r.Lambda) > 0 {
		for e := range r.P * r.K {
			draws := make([][]float64, len(r.Lambda))
			for c, chain := range r.Lambda {
				draws[c] = make([]float64, len(chain))
				for t, l := range chain {
					draws[c][t] = l[e]
				}
			}
			params = append(params, NonEmptyShortest(draws))
		}
	}
	if len(params) == 0 || len(params[0]) == 0 {
		return nil
	}
	return SummarizeAll(params)
}

// NonEmptyShortest returns the chains that have draws, each cut to the
// length of the shortest of them (only an interrupted run has chains of
// unequal length).
func NonEmptyShortest(chains [][]float64) [][]float64 {
	n := -1
	for _, c := range chains {
		if len(c) > 0 && (n < 0 || len(c) < n) {
			n = len(c)
		}
	}
	var out [][]float64
	for _, c := range chains {
		if len(c) > 0 {
			out = append(out, c[:n])
		}
	}
	return out
}
