package inference

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mathext"
)

// This file holds the convergence diagnostics reported to users: split and
// rank-normalised R-hat, bulk and tail effective sample sizes and Monte Carlo
// standard errors, computed as in Vehtari, Gelman, Simpson, Carpenter and
// Bürkner (2021), "Rank-normalization, folding, and localization: an improved
// R-hat for assessing convergence of MCMC", and as the R package posterior
// implements them, so that the figures agree with posterior's summarise_draws.
//
// Every function takes chains[m], the draws of one scalar quantity in chain
// m; all chains that have draws must have the same length (a chain with
// none, as an interrupted run may leave beside the others, is left out;
// chains of other unequal lengths are a caller's error, which panics with
// their lengths: NonEmptyShortest cuts an interrupted run's to one), but
// for the quantiles, of the pooled draws, which take chains of any
// lengths. A result that posterior reports as
// NA (non-finite or constant draws, chains shorter than three draws after
// splitting) is NaN here.

// Summary is what copulang reports for one scalar quantity: the posterior
// mean, standard deviation and 5%, 50% and 95% quantiles of the pooled draws
// (quantiles of R's type 7), together with the convergence diagnostics.
type Summary struct {
	Mean, SD, Q5, Q50, Q95 float64

	// ESSBulk is the effective sample size of the rank-normalised split
	// chains; ESSTail is the smaller of the ESS of the indicators of the
	// draws at or below the 5% and 95% quantiles.
	ESSBulk, ESSTail float64

	// RHat is the larger of the rank-normalised split R-hat and the
	// rank-normalised split R-hat of the draws folded about their median.
	// Values above 1.01 indicate chains that have not mixed.
	RHat float64

	// MCSEMean is SD/√ESS with the ESS of the split (not rank-normalised)
	// chains. MCSESD is the Monte Carlo standard error of SD by the delta
	// method, as posterior's mcse_sd. MCSEQ5 and MCSEQ95 are the Monte Carlo
	// standard errors of the quantiles by the Beta-quantile construction.
	MCSEMean, MCSESD float64
	MCSEQ5, MCSEQ95  float64
}

// Summarize computes the Summary of one scalar quantity.
func Summarize(chains [][]float64) Summary {
	var w diagWorkspace
	return w.summarize(withDraws(chains))
}

// eachWithDraws is withDraws of every quantity of params, applied before
// eachParam's goroutines start, so that a caller can recover its panic.
func eachWithDraws(params [][][]float64) [][][]float64 {
	out := make([][][]float64, len(params))
	for k, chains := range params {
		out[k] = withDraws(chains)
	}
	return out
}

// withDraws returns chains without those that have no draws, unless none
// has any (every result is then NaN), and panics when the others differ
// in length: the split chains and the between-chain variance need them
// equal, and cutting them short here would hide a caller's mistake.
func withDraws(chains [][]float64) [][]float64 {
	n, empty := -1, 0
	for _, c := range chains {
		switch {
		case len(c) == 0:
			empty++
		case n < 0:
			n = len(c)
		case len(c) != n:
			lengths := make([]int, len(chains))
			for m, c := range chains {
				lengths[m] = len(c)
			}
			panic(fmt.Sprintf("inference: chains of unequal lengths %v: every chain with draws needs as many (NonEmptyShortest cuts them to the shortest)", lengths))
		}
	}
	if empty == 0 || empty == len(chains) {
		return chains
	}
	out := make([][]float64, 0, len(chains)-empty)
	for _, c := range chains {
		if len(c) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// SummarizeAll computes the Summary of many scalar quantities, reusing
// buffers and FFT plans between them; params[k] are the chains of quantity k.
// The work is spread over GOMAXPROCS goroutines; the result does not depend
// on how it is spread.
func SummarizeAll(params [][][]float64) []Summary {
	return eachParam(eachWithDraws(params), (*diagWorkspace).summarize)
}

// QuantilesAll returns, for each quantity of params, its type-7 quantiles
// (Quantile) at probs, sorting each quantity's draws once, over GOMAXPROCS
// goroutines.
func QuantilesAll(params [][][]float64, probs ...float64) [][]float64 {
	return eachParam(params, func(_ *diagWorkspace, chains [][]float64) []float64 {
		sorted := pooledSorted(chains)
		q := make([]float64, len(probs))
		for k, prob := range probs {
			q[k] = quantileSorted(sorted, prob)
		}
		return q
	})
}

// Diagnostics are the convergence diagnostics of one scalar quantity, as
// Summary has them: what a fit's report and an ESS target need.
type Diagnostics struct {
	RHat, ESSBulk, ESSTail float64
}

// DiagnoseAll computes the Diagnostics of many scalar quantities, equal bit
// for bit to the fields of SummarizeAll's Summaries, at about half the cost
// (it leaves out the means, quantiles and Monte Carlo standard errors).
func DiagnoseAll(params [][][]float64) []Diagnostics {
	return eachParam(eachWithDraws(params), func(w *diagWorkspace, chains [][]float64) Diagnostics {
		d, _, _ := w.diagnose(chains, pooledSorted(chains))
		return d
	})
}

// eachParam applies f to every quantity of params over GOMAXPROCS
// goroutines, each with its own workspace.
func eachParam[T any](params [][][]float64, f func(*diagWorkspace, [][]float64) T) []T {
	out := make([]T, len(params))
	workers := min(runtime.GOMAXPROCS(0), len(params))
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w diagWorkspace
			for k := g; k < len(params); k += workers {
				out[k] = f(&w, params[k])
			}
		}()
	}
	wg.Wait()
	return out
}

// SplitRHat is the classic potential scale reduction factor of the split
// chains, without rank normalisation:
//
//	W = mean of the chain variances, B/N = variance of the chain means,
//	R̂ = sqrt(((N−1)/N · W + B/N) / W).
func SplitRHat(chains [][]float64) float64 {
	return rhatOf(splitChains(withDraws(chains)))
}

// RHat is the larger of the rank-normalised split R-hat (bulk) and the
// rank-normalised split R-hat of the folded draws |θ − median θ| (tails).
func RHat(chains [][]float64) float64 {
	var w diagWorkspace
	chains = withDraws(chains)
	return w.rhat(chains, pooledSorted(chains))
}

// ESS is the basic effective sample size of the split chains (not rank
// normalised): S/τ̂ with τ̂ from Geyer's initial monotone sequence applied to
// the combined autocorrelation ρ̂_t = 1 − (W − mean_m γ̂_{t,m})/var⁺.
func ESS(chains [][]float64) float64 {
	var w diagWorkspace
	return w.ess(splitChains(withDraws(chains)))
}

// ESSBulk is the effective sample size of the rank-normalised split chains.
func ESSBulk(chains [][]float64) float64 {
	var w diagWorkspace
	return w.ess(w.zScale(splitChains(withDraws(chains))))
}

// MCSEMean is the Monte Carlo standard error of the posterior mean:
// the pooled standard deviation over √ESS.
func MCSEMean(chains [][]float64) float64 {
	var w diagWorkspace
	return w.mcseMean(withDraws(chains))
}

// Quantile returns the prob-quantile of the pooled draws by linear
// interpolation between order statistics (R's type 7, the default of R's
// quantile and of posterior).
func Quantile(chains [][]float64, prob float64) float64 {
	return quantileSorted(pooledSorted(chains), prob)
}

// Autocovariance writes the biased autocovariance of x to dst, which must
// have len(x):
//
//	dst[t] = (1/N) Σ_{i<N−t} (x_i − x̄)(x_{i+t} − x̄),
//
// computed by FFT after zero-padding the centred series to at least 2N.
func Autocovariance(x, dst []float64) {
	var w diagWorkspace
	w.autocovariance(x, dst)
}

// diagWorkspace keeps FFT plans and scratch buffers so that summarising
// many quantities does not reallocate for each one.
type diagWorkspace struct {
	fft     *fourier.FFT
	seq     []float64
	coeff   []complex128
	acov    [][]float64
	rho     []float64
	pooled  []float64
	folded  []float64
	scratch [][]float64
	ranks   rankIndex
	zS      int       // the number of draws zTable is for
	zTable  []float64 // zTable[2r]: Φ⁻¹ of average rank r, NaN until needed
}

func (w *diagWorkspace) summarize(chains [][]float64) Summary {
	sorted := pooledSorted(chains)
	s := Summary{
		Mean: diagMean(sorted),
		Q5:   quantileSorted(sorted, 0.05),
		Q50:  quantileSorted(sorted, 0.5),
		Q95:  quantileSorted(sorted, 0.95),
	}
	s.SD = math.Sqrt(diagVariance(sorted, s.Mean))
	if len(sorted) == 0 {
		s.SD = math.NaN()
	}
	if !diagAllFinite(sorted) {
		s.Mean, s.SD, s.Q5, s.Q50, s.Q95 = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	d, e5, e95 := w.diagnose(chains, sorted)
	s.ESSBulk, s.ESSTail, s.RHat = d.ESSBulk, d.ESSTail, d.RHat
	s.MCSEMean = s.SD / math.Sqrt(w.ess(splitChains(chains)))
	s.MCSESD = w.mcseSD(chains, sorted)
	s.MCSEQ5 = mcseQuantileFrom(sorted, 0.05, e5)
	s.MCSEQ95 = mcseQuantileFrom(sorted, 0.95, e95)
	return s
}

// diagnose computes the Diagnostics of chains given their pooled sorted
// draws, and the ESS of the 5% and 95% quantiles' indicators.
func (w *diagWorkspace) diagnose(chains [][]float64, sorted []float64) (d Diagnostics, e5, e95 float64) {
	zBulk := w.zScaleSorted(splitChains(chains), splitSorted(chains, sorted))
	d.ESSBulk = w.ess(zBulk)
	d.RHat = w.rhatZ(chains, sorted, zBulk)
	e5 = w.essQuantile(chains, sorted, 0.05)
	e95 = w.essQuantile(chains, sorted, 0.95)
	d.ESSTail = math.Min(e5, e95)
	if math.IsNaN(e5) || math.IsNaN(e95) {
		d.ESSTail = math.NaN()
	}
	return d, e5, e95
}

// rhat is RHat given the pooled sorted draws.
func (w *diagWorkspace) rhat(chains [][]float64, sorted []float64) float64 {
	return w.rhatZ(chains, sorted, w.zScaleSorted(splitChains(chains), splitSorted(chains, sorted)))
}

// rhatZ is RHat given the pooled sorted draws and the rank-normalised split
// chains zBulk (zScale of splitChains(chains)).
func (w *diagWorkspace) rhatZ(chains [][]float64, sorted []float64, zBulk [][]float64) float64 {
	if !diagAllFinite(sorted) || diagIsConstant(sorted) {
		return math.NaN()
	}
	bulk := rhatOf(zBulk)
	med := quantileSorted(sorted, 0.5)
	folded := w.buffers(len(chains), len(chains[0]))
	for m, c := range chains {
		for i, v := range c {
			folded[m][i] = math.Abs(v - med)
		}
	}
	var foldedSplit []float64
	if splitSorted(chains, sorted) != nil {
		w.folded = foldedSorted(sorted, med, w.folded)
		foldedSplit = w.folded
	}
	tail := rhatOf(w.zScaleSorted(splitChains(folded), foldedSplit))
	return math.Max(bulk, tail)
}

// splitSorted returns sorted, the pooled sorted draws of chains, when the
// split chains hold every draw (chains of even length, or of one draw), and
// nil when splitting drops the middle draw of each chain.
func splitSorted(chains [][]float64, sorted []float64) []float64 {
	if len(chains) == 0 || len(chains[0])%2 == 1 && len(chains[0]) > 1 {
		return nil
	}
	return sorted
}

func (w *diagWorkspace) mcseMean(chains [][]float64) float64 {
	sorted := pooledSorted(chains)
	return math.Sqrt(diagVariance(sorted, diagMean(sorted))) / math.Sqrt(w.ess(splitChains(chains)))
}

// mcseSD is posterior 1.4.0's mcse_sd: with c = θ − θ̄ over all draws,
// E = mean(c²) and ESS₂ the ESS of the split chains of c²,
//
//	Var(E) ≈ (mean(c⁴) − E²)/ESS₂,  MCSE(sd) = sqrt(Var(E)/(4E)),
//
// the delta method for sd = √E. sorted holds the pooled draws.
func (w *diagWorkspace) mcseSD(chains [][]float64, sorted []float64) float64 {
	if len(sorted) == 0 || !diagAllFinite(sorted) {
		return math.NaN()
	}
	mean := diagMean(sorted)
	sq := w.buffers(len(chains), len(chains[0]))
	var e2, e4 float64
	for m, c := range chains {
		for i, v := range c {
			d := (v - mean) * (v - mean)
			sq[m][i] = d
			e2 += d
			e4 += d * d
		}
	}
	s := float64(len(sorted))
	e2 /= s
	e4 /= s
	ess := w.ess(splitChains(sq))
	return math.Sqrt((e4 - e2*e2) / ess / e2 / 4)
}

// mcseQuantileFrom implements posterior's Beta-quantile construction given
// the pooled sorted draws and the ESS of the quantile indicator.
func mcseQuantileFrom(sorted []float64, prob, ess float64) float64 {
	if math.IsNaN(ess) || len(sorted) == 0 {
		return math.NaN()
	}
	const lo, hi = 0.1586553, 0.8413447 // Φ(−1), Φ(1)
	a, b := ess*prob+1, ess*(1-prob)+1
	s := float64(len(sorted))
	i1 := max(int(math.Floor(mathext.InvRegIncBeta(a, b, lo)*s)), 1)
	i2 := min(int(math.Ceil(mathext.InvRegIncBeta(a, b, hi)*s)), len(sorted))
	return (sorted[i2-1] - sorted[i1-1]) / 2
}

// essQuantile is the ESS of the indicator I(θ ≤ q̂_prob) over split chains.
// sorted holds the pooled draws in ascending order.
func (w *diagWorkspace) essQuantile(chains [][]float64, sorted []float64, prob float64) float64 {
	if len(sorted) == 0 || !diagAllFinite(sorted) || diagIsConstant(sorted) {
		return math.NaN()
	}
	q := quantileSorted(sorted, prob)
	ind := w.buffers(len(chains), len(chains[0]))
	for m, c := range chains {
		for i, v := range c {
			ind[m][i] = 0
			if v <= q {
				ind[m][i] = 1
			}
		}
	}
	return w.ess(splitChains(ind))
}

// buffers returns m scratch rows of length n, reused between calls.
func (w *diagWorkspace) buffers(m, n int) [][]float64 {
	if len(w.scratch) < m {
		w.scratch = append(w.scratch, make([][]float64, m-len(w.scratch))...)
	}
	for i := range m {
		if cap(w.scratch[i]) < n {
			w.scratch[i] = make([]float64, n)
		}
		w.scratch[i] = w.scratch[i][:n]
	}
	return w.scratch[:m]
}

// splitChains halves every chain; an odd chain drops its middle draw, as
// posterior's split_chains does. Chains of one draw are left whole. The
// returned slices alias the input.
func splitChains(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	n := len(chains[0])
	if n < 2 {
		return chains
	}
	half := n / 2
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		out = append(out, c[:half])
	}
	for _, c := range chains {
		out = append(out, c[n-half:])
	}
	// posterior orders the halves chain by chain (cbind of first halves,
	// then second halves); the order does not change any result.
	return out
}

// zScale replaces every draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its average rank
// among all S draws. The result is written into fresh rows (the input is
// usually an alias of the caller's draws).
func (w *diagWorkspace) zScale(chains [][]float64) [][]float64 {
	return w.zScaleSorted(chains, nil)
}

// zScaleSorted is zScale given sorted, the draws of chains pooled and sorted
// ascending, or nil to sort them here. Each draw's rank is found in sorted
// through a rankIndex, and Φ⁻¹ of each rank is computed once per number of
// draws (zOfRank): sorting pairs of draws and positions, and Φ⁻¹ for every
// draw, were most of the cost of a fit's report.
func (w *diagWorkspace) zScaleSorted(chains [][]float64, sorted []float64) [][]float64 {
	s := 0
	for _, c := range chains {
		s += len(c)
	}
	if sorted == nil {
		w.pooled = w.pooled[:0]
		for _, c := range chains {
			w.pooled = append(w.pooled, c...)
		}
		sort.Float64s(w.pooled)
		sorted = w.pooled
	}
	out := make([][]float64, len(chains))
	if !diagAllFinite(sorted) {
		for m := range chains {
			out[m] = slices.Repeat([]float64{math.NaN()}, len(chains[m]))
		}
		return out
	}
	if s > 0 {
		w.ranks.reset(sorted)
	}
	for m, c := range chains {
		out[m] = make([]float64, len(c))
		for i, v := range c {
			// The draws equal to v hold ranks lo+1 .. hi; their average
			// rank is (lo+hi+1)/2, which twice is an integer.
			lo := w.ranks.lowerBound(v)
			hi := lo + 1
			for hi < s && sorted[hi] == v {
				hi++
			}
			out[m][i] = w.zOfRank(lo+hi+1, s)
		}
	}
	return out
}

// rankIndex finds the position of a value among sorted values (ascending,
// finite, not empty) in a few steps: the values' range is cut into as many
// buckets of equal width as there are values, and starts[b] is the first
// position whose value falls in bucket b or later. A value's bucket, by the
// same (monotone) rounding, bounds where it goes from below, and the next
// bucket's start from above. A binary search over all the values was a
// third of a summary's cost.
type rankIndex struct {
	sorted    []float64
	lo, scale float64
	starts    []int32
}

// bucket returns the bucket of v, clamped to the buckets there are.
func (x *rankIndex) bucket(v float64) int {
	b := (v - x.lo) * x.scale
	switch last := len(x.starts) - 2; {
	case !(b > 0):
		return 0
	case b >= float64(last): // also +Inf, when the values are very close
		return last
	}
	return int(b)
}

// reset indexes sorted, reusing x's memory.
func (x *rankIndex) reset(sorted []float64) {
	n := len(sorted)
	x.sorted = sorted
	x.lo = sorted[0]
	x.scale = 0
	if width := sorted[n-1] - sorted[0]; width > 0 {
		x.scale = float64(n) / width
	}
	x.starts = slices.Grow(x.starts[:0], n+1)[:n+1]
	b := 0
	for i, v := range sorted {
		for vb := x.bucket(v); b <= vb; b++ {
			x.starts[b] = int32(i)
		}
	}
	for ; b <= n; b++ {
		x.starts[b] = int32(n)
	}
}

// lowerBound returns the first position whose value is at least v, or
// len(sorted). It lies between the first positions of v's bucket and of
// the next (whose values all exceed v): a scan when they are a few apart,
// as they are for draws spread like most posteriors', halving first when
// they are not (heavy tails, or an outlier stretching the range, crowd the
// draws into a few buckets).
func (x *rankIndex) lowerBound(v float64) int {
	b := x.bucket(v)
	lo, hi := int(x.starts[b]), int(x.starts[b+1])
	for hi-lo > 8 {
		mid := int(uint(lo+hi) >> 1)
		if x.sorted[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for lo < hi && x.sorted[lo] < v {
		lo++
	}
	return lo
}

// zOfRank is Φ⁻¹((r − 3/8)/(S + 1/4)) for the average rank r = twice/2
// among s draws, remembered per twice for the s of the last call.
func (w *diagWorkspace) zOfRank(twice, s int) float64 {
	if w.zS != s {
		w.zS = s
		w.zTable = slices.Grow(w.zTable[:0], 2*s+2)[:2*s+2]
		for i := range w.zTable {
			w.zTable[i] = math.NaN()
		}
	}
	z := w.zTable[twice]
	if math.IsNaN(z) {
		u := (float64(twice)/2 - 3.0/8) / (float64(s) + 1.0/4)
		z = -math.Sqrt2 * math.Erfcinv(2*u)
		w.zTable[twice] = z
	}
	return z
}

// foldedSorted writes |v − med| for every v of sorted (ascending) into dst
// in ascending order, merging the two runs on either side of med.
func foldedSorted(sorted []float64, med float64, dst []float64) []float64 {
	dst = dst[:0]
	i := sort.SearchFloat64s(sorted, med)
	l, r := i-1, i
	for l >= 0 || r < len(sorted) {
		if r >= len(sorted) || (l >= 0 && math.Abs(sorted[l]-med) <= math.Abs(sorted[r]-med)) {
			dst = append(dst, math.Abs(sorted[l]-med))
			l--
		} else {
			dst = append(dst, math.Abs(sorted[r]-med))
			r++
		}
	}
	return dst
}

// rhatOf is posterior's .rhat on already split chains.
func rhatOf(chains [][]float64) float64 {
	if len(chains) == 0 || len(chains[0]) < 2 {
		return math.NaN()
	}
	if !variesFinitely(chains) {
		return math.NaN()
	}
	n := float64(len(chains[0]))
	means := make([]float64, len(chains))
	var within float64
	for m, c := range chains {
		means[m] = diagMean(c)
		within += diagVariance(c, means[m])
	}
	within /= float64(len(chains))
	between := n * diagVariance(means, diagMean(means))
	if len(chains) == 1 {
		between = 0
	}
	return math.Sqrt((between/within + n - 1) / n)
}

// variesFinitely reports whether every draw is finite and the draws are
// not all equal (within diagEps), as posterior requires before computing
// R-hat or ESS.
func variesFinitely(chains [][]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range chains {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return hi-lo >= diagEps
}

// diagEps is R's .Machine$double.eps, posterior's tolerance for constant draws.
const diagEps = 0x1p-52

// directLags is how many lags of the autocovariance ess sums directly
// before it computes them all by FFT.
const directLags = 32

// ess is posterior's .ess on already split chains.
func (w *diagWorkspace) ess(chains [][]float64) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	if n < 3 {
		return math.NaN()
	}
	if !variesFinitely(chains) {
		return math.NaN()
	}
	// The autocovariances at small lags are summed directly, as the Geyer
	// sequence below asks for them; only a chain that mixes slowly enough
	// to need lag directLags has them all computed by FFT, as posterior
	// does (the two agree to rounding: TestAutocovarianceMatchesDirect).
	// Fast-mixing quantities, most of a fit's, need a few lags, and the
	// FFTs were half the cost of a summary.
	if len(w.acov) < m {
		w.acov = append(w.acov, make([][]float64, m-len(w.acov))...)
	}
	means := make([]float64, m)
	var acov0 float64 // the sum of the lag-0 autocovariances
	for k, c := range chains {
		if cap(w.acov[k]) < n {
			w.acov[k] = make([]float64, n)
		}
		// Until the FFT runs, acov[k] holds the chain centred.
		w.acov[k] = w.acov[k][:n]
		means[k] = diagMean(c)
		ss := 0.0
		for i, v := range c {
			d := v - means[k]
			w.acov[k][i] = d
			ss += d * d
		}
		acov0 += ss / float64(n)
	}
	acov := w.acov[:m]
	fftDone := false
	meanAcov := func(t int) float64 {
		if t >= directLags && !fftDone {
			for k, c := range chains {
				w.autocovariance(c, acov[k])
			}
			fftDone = true
		}
		var s float64
		if fftDone {
			for _, a := range acov {
				s += a[t]
			}
		} else if t == 0 {
			s = acov0
		} else {
			for _, d := range acov {
				s += dot(d[:n-t], d[t:]) / float64(n)
			}
		}
		return s / float64(m)
	}
	fn := float64(n)
	meanVar := meanAcov(0) * fn / (fn - 1)
	varPlus := meanVar * (fn - 1) / fn
	if m > 1 {
		varPlus += diagVariance(means, diagMean(means))
	}

	// Geyer's initial positive sequence, with posterior's improved estimate.
	if cap(w.rho) < n {
		w.rho = make([]float64, n)
	}
	rho := w.rho[:n]
	clear(rho)
	rho[0] = 1
	even := 1.0
	odd := 1 - (meanVar-meanAcov(1))/varPlus
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar-meanAcov(t))/varPlus
		odd = 1 - (meanVar-meanAcov(t+1))/varPlus
		if even+odd >= 0 {
			rho[t] = even
			rho[t+1] = odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	// Geyer's initial monotone sequence.
	for t := 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	s := float64(m * n)
	// τ̂ = −1 + 2 Σ_{t<maxT} ρ̂_t + ρ̂_maxT. When the loop above never ran
	// (maxT = 0, split chains of 5 draws or fewer), posterior's
	// sum(rho_hat_t[1:max_t]) still adds ρ̂₀ = 1, since R's 1:0 is c(1, 0):
	// τ̂ = 2 and ESS = S/2.
	tau := -1 + rho[maxT]
	for _, r := range rho[:max(maxT, 1)] {
		tau += 2 * r
	}
	tau = math.Max(tau, 1/math.Log10(s))
	return s / tau
}

// autocovariance writes posterior's autocovariance of x into dst: the
// centred series is zero-padded to 2M, M the next 2·3·5-smooth size ≥ N, and
// the unnormalised inverse FFT of |FFT|² is scaled so that dst[0] is the
// biased variance (1/N)Σ(x_i − x̄)², as posterior 1.4.0 does
// (ac/ac[1]·var(x)·(N−1)/N); that is the biased autocovariance at every lag.
// A series with zero variance gives zeros.
func (w *diagWorkspace) autocovariance(x, dst []float64) {
	n := len(x)
	if n == 0 {
		return
	}
	m := nextGoodSize(n)
	size := 2 * m
	if w.fft == nil || w.fft.Len() != size {
		w.fft = fourier.NewFFT(size)
		w.seq = make([]float64, size)
		w.coeff = make([]complex128, size/2+1)
	}
	xbar := diagMean(x)
	ss := 0.0
	for i, v := range x {
		d := v - xbar
		w.seq[i] = d
		ss += d * d
	}
	if ss == 0 {
		clear(dst[:n])
		return
	}
	clear(w.seq[n:])
	w.fft.Coefficients(w.coeff, w.seq)
	for i, c := range w.coeff {
		w.coeff[i] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	w.fft.Sequence(w.seq, w.coeff)
	// gonum's inverse is unnormalised like R's fft(inverse = TRUE): seq[t]
	// is 2M times the lag-t sum of products, and seq[0] is 2M·ss.
	scale := ss / float64(n) / w.seq[0]
	for i := range dst[:n] {
		dst[i] = w.seq[i] * scale
	}
}

// nextGoodSize is the padded length of posterior's autocovariance (R's
// nextn(N), fft_next_good_size in older posterior): the least N' ≥ N whose
// only prime factors are 2, 3 and 5 (and at least 2). With posterior 1.4.0's
// normalisation it changes only rounding, not the result.
func nextGoodSize(n int) int {
	if n <= 2 {
		return 2
	}
	for ; ; n++ {
		m := n
		for m%2 == 0 {
			m /= 2
		}
		for m%3 == 0 {
			m /= 3
		}
		for m%5 == 0 {
			m /= 5
		}
		if m <= 1 {
			return n
		}
	}
}

// pooledSorted returns all draws of all chains, sorted ascending.
func pooledSorted(chains [][]float64) []float64 {
	var n int
	for _, c := range chains {
		n += len(c)
	}
	out := make([]float64, 0, n)
	for _, c := range chains {
		out = append(out, c...)
	}
	sort.Float64s(out)
	return out
}

// quantileSorted is R's type-7 quantile of sorted draws.
func quantileSorted(sorted []float64, prob float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * prob
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

func diagMean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// variance is the sample variance with denominator len(x) − 1.
func diagVariance(x []float64, mu float64) float64 {
	var s float64
	for _, v := range x {
		d := v - mu
		s += d * d
	}
	return s / float64(len(x)-1)
}

func diagAllFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// isConstant reports whether sorted draws span less than R's double.eps.
func diagIsConstant(sorted []float64) bool {
	return len(sorted) == 0 || sorted[len(sorted)-1]-sorted[0] < diagEps
}
