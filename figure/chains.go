package figure

// Plots of MCMC output for one scalar quantity (trace, histogram,
// autocorrelation) and of error against a known truth per iteration (RMSE).

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/copulang/copulang/inference"
)

// Trace draws each chain's draws against the iteration number, one
// colour per chain. Iterations 1..warmup (0 for none) are shaded as warmup;
// a warmup longer than the chains shades them all. Chains must have the
// same, positive length; non-finite draws break the line and are counted in
// the text description. Chains longer than 2000 draws are drawn as the
// minimum and maximum of buckets, which keeps their envelope.
func Trace(title string, chains [][]float64, warmup int) (*Figure, error) {
	return TraceThinned(title, chains, warmup, 1, math.NaN())
}

// TraceThinned is Trace for draws kept every thin-th iteration: draw i
// (from 1) is drawn at iteration i·thin, and warmup counts draws. Against
// the draw's number, a fit of 1000 iterations thinned by 5 read as 200
// iterations. A horizontal dashed line marks truth, the value the draws
// were simulated from, unless it is NaN.
func TraceThinned(title string, chains [][]float64, warmup, thin int, truth float64) (*Figure, error) {
	n, err := checkChains("trace plot", chains)
	if err != nil {
		return nil, err
	}
	if warmup < 0 {
		return nil, fmt.Errorf("trace plot: negative warmup %d", warmup)
	}
	if thin < 1 {
		return nil, fmt.Errorf("trace plot: thin %d, want at least 1", thin)
	}
	warmup = min(warmup, n)
	segs := make([][]plotter.XYs, len(chains))
	for m, c := range chains {
		segs[m] = thinX(segments(c, maxLinePoints), thin)
	}
	lo, hi, finite, nonFinite := valueRange(chains...)

	var desc strings.Builder
	fmt.Fprintf(&desc, "Trace plot of %s: %s × %s", subject(title), chainCount(len(chains)), count(n, "draw"))
	if thin > 1 {
		fmt.Fprintf(&desc, " (every %s iteration)", ordinal(thin))
	}
	if warmup > 0 {
		fmt.Fprintf(&desc, " (first %d warmup)", warmup)
	}
	if finite > 0 {
		fmt.Fprintf(&desc, ", values in [%s, %s]", num(lo), num(hi))
	}
	showTruth := drawable(truth)
	if showTruth {
		fmt.Fprintf(&desc, ", truth %s", num(truth))
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "iteration", "value")
		if warmup > 0 {
			band := shadedBand{X0: 0.5, X1: float64(warmup*thin) + 0.5, Color: color.Gray{Y: 232}}
			p.Add(band)
			p.Legend.Add("warmup", band)
		}
		for m := range chains {
			th := addSeries(p, segs[m], lineStyle(seriesColor(m), 0.6))
			if len(chains) > 1 {
				p.Legend.Add(fmt.Sprintf("chain %d", m+1), th)
			}
		}
		if showTruth {
			// Over the chains, which would hide it.
			h := hLine{Y: truth, Style: dashed(color.Black, 1.5)}
			p.Add(h)
			p.Legend.Add("truth "+num(truth), h)
		}
		p.X.Min = math.Min(p.X.Min, 0.5)
		p.X.Max = math.Max(p.X.Max, float64(n*thin)+0.5)
		drawLegendRight(p, dc, warmup > 0 || len(chains) > 1 || showTruth)
	})
}

// Histogram draws the histogram of the pooled draws of all chains, scaled as
// a density, with each chain's histogram outlined in its colour when there
// are several chains, and a vertical dashed line at truth unless truth is
// NaN. Chains must have the same, positive length; non-finite draws are
// left out and counted in the text description.
func Histogram(title string, chains [][]float64, truth float64) (*Figure, error) {
	n, err := checkChains("histogram", chains)
	if err != nil {
		return nil, err
	}
	lo, hi, finite, nonFinite := valueRange(chains...)
	edges := binEdges(lo, hi, finite)
	pooled := density(edges, chains...)
	var outlines []plotter.XYs
	if len(chains) > 1 {
		outlines = make([]plotter.XYs, len(chains))
		for m, c := range chains {
			outlines[m] = stepOutline(edges, density(edges, c))
		}
	}
	showTruth := drawable(truth)

	var desc strings.Builder
	fmt.Fprintf(&desc, "Histogram of %s: %s × %s", subject(title), chainCount(len(chains)), count(n, "draw"))
	if finite > 0 {
		mean := 0.0
		for _, c := range chains {
			for _, v := range c {
				if drawable(v) {
					mean += v
				}
			}
		}
		fmt.Fprintf(&desc, ", mean %s, range [%s, %s]", num(mean/float64(finite)), num(lo), num(hi))
	}
	if showTruth {
		fmt.Fprintf(&desc, ", truth %s", num(truth))
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "value", "density")
		if len(edges) > 1 {
			h := &plotter.Histogram{
				Bins:      pooled,
				Width:     edges[1] - edges[0],
				FillColor: color.NRGBA{R: 0xB0, G: 0xC4, B: 0xDE, A: 0xFF},
				LineStyle: lineStyle(color.Gray{Y: 255}, 0.5),
			}
			p.Add(h)
			if len(chains) > 1 {
				p.Legend.Add("all chains", h)
			}
		}
		for m, o := range outlines {
			l := &plotter.Line{XYs: o, LineStyle: lineStyle(withAlpha(seriesColor(m), 0.9), 1)}
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("chain %d", m+1), l)
		}
		if showTruth {
			v := vLine{X: truth, Style: dashed(color.Black, 1.5)}
			p.Add(v)
			p.Legend.Add("truth "+num(truth), v)
		}
		p.Y.Min = 0
		drawLegendRight(p, dc, len(chains) > 1 || showTruth)
	})
}

// binEdges chooses equal-width histogram bins covering [lo, hi] for
// count finite values: about √count bins, between 5 and 40. A single value
// gets a bin of width 1 (or a tenth of its magnitude) centred on it. With no
// finite values there are no bins.
func binEdges(lo, hi float64, count int) []float64 {
	if count == 0 {
		return nil
	}
	k := min(max(int(math.Ceil(math.Sqrt(float64(count)))), 5), 40)
	// A range too narrow for distinct bin edges (relative to the values,
	// or near the underflow limit) is drawn as a single bin.
	if span := hi - lo; !(span > 0) || span < 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) || span < 1e-250 {
		half := math.Max(0.5, 0.05*math.Abs(lo))
		lo, hi, k = lo-half, lo+half, 1
	}
	edges := make([]float64, k+1)
	for i := range edges {
		edges[i] = lo + (hi-lo)*float64(i)/float64(k)
	}
	edges[k] = hi
	return edges
}

// density bins the finite values of the series with the given edges and
// scales the counts to a density (area one).
func density(edges []float64, series ...[]float64) []plotter.HistogramBin {
	if len(edges) < 2 {
		return nil
	}
	k := len(edges) - 1
	bins := make([]plotter.HistogramBin, k)
	for i := range bins {
		bins[i].Min, bins[i].Max = edges[i], edges[i+1]
	}
	lo, width := edges[0], edges[1]-edges[0]
	total := 0
	for _, s := range series {
		for _, v := range s {
			if !drawable(v) {
				continue
			}
			i := min(max(int((v-lo)/width), 0), k-1)
			bins[i].Weight++
			total++
		}
	}
	if total > 0 {
		for i := range bins {
			bins[i].Weight /= float64(total) * width
		}
	}
	return bins
}

// stepOutline is the outline of a histogram as a polyline.
func stepOutline(edges []float64, bins []plotter.HistogramBin) plotter.XYs {
	if len(bins) == 0 {
		return nil
	}
	out := make(plotter.XYs, 0, 2*len(bins)+2)
	out = append(out, plotter.XY{X: edges[0], Y: 0})
	for _, b := range bins {
		out = append(out, plotter.XY{X: b.Min, Y: b.Weight}, plotter.XY{X: b.Max, Y: b.Weight})
	}
	return append(out, plotter.XY{X: edges[len(edges)-1], Y: 0})
}

// ACF draws the autocorrelation of each chain at lags 0..maxLag (see
// inference.Autocovariance), with dashed lines at ±1.96/√n, the band in
// which the autocorrelations of white noise fall 95% of the time.
// maxLag ≤ 0 selects min(40, n−1); it is capped at n−1. Chains with
// non-finite or constant draws have no autocorrelation; they are left out
// and named in the text description.
func ACF(title string, chains [][]float64, maxLag int) (*Figure, error) {
	n, err := checkChains("autocorrelation plot", chains)
	if err != nil {
		return nil, err
	}
	if maxLag <= 0 {
		maxLag = 40
	}
	maxLag = min(maxLag, n-1)

	acov := make([]float64, n)
	acfs := make([]plotter.XYs, len(chains))
	var skipped []string
	firstBelow := -1 // smallest lag at which the mean autocorrelation is below 0.05
	mean := make([]float64, maxLag+1)
	used := 0
	for m, c := range chains {
		_, _, _, nonFinite := valueRange(c)
		if nonFinite > 0 {
			skipped = append(skipped, fmt.Sprintf("chain %d (non-finite draws)", m+1))
			continue
		}
		inference.Autocovariance(c, acov)
		if !(acov[0] > 0) {
			skipped = append(skipped, fmt.Sprintf("chain %d (constant)", m+1))
			continue
		}
		if math.IsInf(acov[0], 0) || math.IsNaN(acov[0]) {
			skipped = append(skipped, fmt.Sprintf("chain %d (variance overflows)", m+1))
			continue
		}
		xy := make(plotter.XYs, maxLag+1)
		for t := range xy {
			xy[t] = plotter.XY{X: float64(t), Y: acov[t] / acov[0]}
			mean[t] += xy[t].Y
		}
		acfs[m] = xy
		used++
	}
	if used > 0 {
		for t := range mean {
			if mean[t]/float64(used) < 0.05 {
				firstBelow = t
				break
			}
		}
	}
	bound := 1.96 / math.Sqrt(float64(n))

	var desc strings.Builder
	fmt.Fprintf(&desc, "Autocorrelation of %s: %s × %s, lags 0..%d", subject(title), chainCount(len(chains)), count(n, "draw"), maxLag)
	switch {
	case used == 0:
	case firstBelow >= 0:
		fmt.Fprintf(&desc, ", mean autocorrelation below 0.05 from lag %d", firstBelow)
	default:
		fmt.Fprintf(&desc, ", mean autocorrelation still %s at lag %d", num(mean[maxLag]/float64(used)), maxLag)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&desc, "; not drawn: %s", strings.Join(skipped, ", "))
	}

	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "lag", "autocorrelation")
		p.Add(hLine{Y: 0, Style: lineStyle(color.Gray{Y: 90}, 0.8)})
		if n > 1 {
			band := dashed(color.Gray{Y: 110}, 0.8)
			p.Add(hLine{Y: bound, Style: band}, hLine{Y: -bound, Style: band})
			p.Legend.Add("±1.96/√n", hLine{Style: band})
		}
		for m, xy := range acfs {
			if xy == nil {
				continue
			}
			c := withAlpha(seriesColor(m), 0.85)
			l := &plotter.Line{XYs: xy, LineStyle: lineStyle(c, 1)}
			s := &plotter.Scatter{XYs: xy, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}}
			p.Add(l, s)
			if len(chains) > 1 {
				p.Legend.Add(fmt.Sprintf("chain %d", m+1), l, s)
			}
		}
		p.Y.Max = math.Max(p.Y.Max, 1)
		p.X.Min = math.Min(p.X.Min, 0)
		p.X.Max = math.Max(p.X.Max, float64(maxLag))
		drawLegendRight(p, dc, true)
	})
}

// RMSE draws, for each labelled series, the root mean square error
// against a known truth per iteration, as lines with a legend sorted by
// label. Iterations 1..warmup are shaded. The y axis is logarithmic when
// all values are positive and span more than a factor of 20; non-finite
// values break the lines.
func RMSE(title string, series map[string][]float64, warmup int) (*Figure, error) {
	return RMSEThinned(title, series, warmup, 1)
}

// RMSEThinned is RMSE for values of draws kept every thin-th iteration:
// value i (from 1) is drawn at iteration i·thin, and warmup counts values.
func RMSEThinned(title string, series map[string][]float64, warmup, thin int) (*Figure, error) {
	if thin < 1 {
		return nil, fmt.Errorf("RMSE plot: thin %d, want at least 1", thin)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("RMSE plot: no series")
	}
	if warmup < 0 {
		return nil, fmt.Errorf("RMSE plot: negative warmup %d", warmup)
	}
	labels := slices.SortedFunc(maps.Keys(series), cmp.Compare[string])
	longest := 0
	all := make([][]float64, 0, len(labels))
	for _, l := range labels {
		s := series[l]
		if len(s) == 0 {
			return nil, fmt.Errorf("RMSE plot: series %q is empty", l)
		}
		longest = max(longest, len(s))
		all = append(all, s)
	}
	warmup = min(warmup, longest)
	lo, hi, finite, nonFinite := valueRange(all...)
	logY := finite > 0 && lo > 0 && hi/lo > 20
	segs := make([][]plotter.XYs, len(labels))
	for i, s := range all {
		segs[i] = thinX(segments(s, maxLinePoints), thin)
	}

	var desc strings.Builder
	fmt.Fprintf(&desc, "RMSE plot %s: %d series over %s", subject(title), len(labels), count(longest*thin, "iteration"))
	if thin > 1 {
		fmt.Fprintf(&desc, " (a draw every %s)", ordinal(thin))
	}
	if warmup > 0 {
		fmt.Fprintf(&desc, " (first %d warmup)", warmup*thin)
	}
	for i, l := range labels {
		if last, ok := lastDrawable(all[i]); ok {
			fmt.Fprintf(&desc, "; %s final %s", l, num(last))
		}
	}
	if logY {
		desc.WriteString("; log scale")
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "iteration", "RMSE")
		if logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		if warmup > 0 {
			band := shadedBand{X0: 0.5, X1: float64(warmup*thin) + 0.5, Color: color.Gray{Y: 232}}
			p.Add(band)
			p.Legend.Add("warmup", band)
		}
		for i, l := range labels {
			th := addSeries(p, segs[i], lineStyle(seriesColor(i), 1.2))
			p.Legend.Add(l, th)
		}
		if !logY {
			p.Y.Min = math.Min(p.Y.Min, 0)
		}
		drawLegendRight(p, dc, true)
	})
}

// lastDrawable returns the last finite value of s.
func lastDrawable(s []float64) (float64, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if drawable(s[i]) {
			return s[i], true
		}
	}
	return 0, false
}

// chainCount is "1 chain" or "n chains".
func chainCount(n int) string { return count(n, "chain") }

// count is "1 draw" or "n draws".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// subject is a title for the text description: quoted, or "the quantity".
func subject(title string) string {
	if title == "" {
		return "the quantity"
	}
	return fmt.Sprintf("%q", title)
}

// rankBins is the number of bins of a rank plot for chains of n draws:
// 20, as bayesplot's and ArviZ's, or fewer so that a chain expects at least
// 10 draws in each, but never fewer than 2.
func rankBins(n int) int { return max(2, min(20, n/10)) }

// Rank draws the rank plot of Vehtari et al. (2021): the draws of all
// chains are ranked together (ties take their average rank, NaN draws are
// left out) and each chain's ranks are binned, one step line per chain.
// When the chains sample the same distribution each chain's ranks are
// uniform; a chain stuck in one region shows as a line high at one end and
// low at the other. The shaded band is where a chain's count in a bin
// falls 99% of the time for independent draws from one distribution
// (hypergeometric: a chain's draws among all, a bin's among all ranks);
// autocorrelated draws scatter more, so it guides the eye and is no test.
// The text names the chain and bin farthest from the expected count.
// Chains must have the same, positive length.
func Rank(title string, chains [][]float64, bins int) (*Figure, error) {
	n, err := checkChains("rank plot", chains)
	if err != nil {
		return nil, err
	}
	if bins <= 0 {
		bins = rankBins(n)
	}
	counts, total, nan, distinct := rankCounts(chains, bins)
	edges := make([]float64, bins+1)
	for i := range edges {
		edges[i] = float64(total) * float64(i) / float64(bins)
	}
	expected := float64(n) / float64(bins)
	lo, hi := hypergeometricInterval(total, int(math.Round(float64(total)/float64(bins))), n, 0.99)
	far, farChain, farBin := -1.0, 0, 0
	for m, c := range counts {
		for b, k := range c {
			if d := math.Abs(float64(k) - expected); d > far {
				far, farChain, farBin = d, m, b
			}
		}
	}
	band := len(chains) > 1 && nan == 0 && distinct > 1

	var desc strings.Builder
	fmt.Fprintf(&desc, "Rank plot of %s: %s × %s ranked together, %d bins", subject(title), chainCount(len(chains)), count(n, "draw"), bins)
	switch {
	case total > 0 && distinct == 1:
		desc.WriteString("; every draw is the same value: its ranks are all tied")
	case len(chains) == 1:
		desc.WriteString("; one chain's ranks are uniform by construction: the plot compares chains")
	case total > 0:
		fmt.Fprintf(&desc, "; farthest from the expected %s per bin: chain %d with %d in ranks %d–%d",
			num(expected), farChain+1, counts[farChain][farBin], int(math.Round(edges[farBin]))+1, int(math.Round(edges[farBin+1])))
		if band {
			fmt.Fprintf(&desc, "; for independent draws from one distribution a chain's count falls in [%d, %d] 99%% of the time (shaded), and autocorrelated draws scatter more", lo, hi)
		}
		if n < 20 {
			desc.WriteString("; with fewer than 20 draws per chain it says little")
		}
	}
	if nan > 0 {
		fmt.Fprintf(&desc, "; NaN draws not ranked: %d", nan)
	}

	// Each chain's counts as steps, without the drops to zero at the ends
	// that a histogram's outline has.
	outlines := make([]plotter.XYs, len(chains))
	for m, c := range counts {
		for i, k := range c {
			outlines[m] = append(outlines[m], plotter.XY{X: edges[i], Y: float64(k)}, plotter.XY{X: edges[i+1], Y: float64(k)})
		}
	}
	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "rank among all chains' draws", "draws per bin")
		if band {
			poly := &plotter.Polygon{
				XYs:   []plotter.XYs{{{X: 0, Y: float64(lo)}, {X: float64(total), Y: float64(lo)}, {X: float64(total), Y: float64(hi)}, {X: 0, Y: float64(hi)}}},
				Color: color.Gray{Y: 228},
			}
			p.Add(poly)
			p.Legend.Add("99%, independent draws", poly)
		}
		if total > 0 {
			ref := hLine{Y: expected, Style: dashed(color.Gray{Y: 90}, 0.8)}
			p.Add(ref)
			p.Legend.Add("expected", ref)
		}
		for m, o := range outlines {
			l := &plotter.Line{XYs: o, LineStyle: lineStyle(withAlpha(seriesColor(m), 0.9), 1.2)}
			p.Add(l)
			if len(chains) > 1 {
				p.Legend.Add(fmt.Sprintf("chain %d", m+1), l)
			}
		}
		// Headroom, so that a line at the largest count does not sit on
		// the frame.
		p.Y.Min, p.Y.Max = 0, 1.08*math.Max(p.Y.Max, 1)
		p.X.Min, p.X.Max = 0, math.Max(float64(total), 1)
		drawLegendRight(p, dc, true)
	})
}

// rankCounts ranks the draws of all chains together (ties take their
// average rank; NaN draws are left out and counted in nan) and returns, per
// chain, how many of its draws fall in each of bins equal bins of rank
// position (rank − ½)/total, with total the number of draws ranked and
// distinct the number of distinct values among them.
func rankCounts(chains [][]float64, bins int) (counts [][]int, total, nan, distinct int) {
	type ranked struct {
		v     float64
		chain int
	}
	var pooled []ranked
	for m, c := range chains {
		for _, v := range c {
			if math.IsNaN(v) {
				nan++
				continue
			}
			pooled = append(pooled, ranked{v, m})
		}
	}
	slices.SortFunc(pooled, func(a, b ranked) int { return cmp.Compare(a.v, b.v) })
	total = len(pooled)
	counts = make([][]int, len(chains))
	for m := range counts {
		counts[m] = make([]int, bins)
	}
	for i := 0; i < total; {
		j := i + 1
		for j < total && pooled[j].v == pooled[i].v {
			j++
		}
		// Draws i..j−1 (from 0) tie at the average rank (i+1+j)/2, whose
		// position (rank − ½)/total is (i+j)/(2·total).
		b := min(int(float64(i+j)/2/float64(total)*float64(bins)), bins-1)
		for _, d := range pooled[i:j] {
			counts[d.chain][b]++
		}
		distinct++
		i = j
	}
	return counts, total, nan, distinct
}

// hypergeometricInterval returns the equal-tailed interval [lo, hi] at
// the given level of the number of marked items among n drawn without
// replacement from total items of which marked are marked: lo is the
// smallest x with P(X ≤ x) ≥ (1−level)/2 and hi the smallest x with
// P(X ≤ x) ≥ (1+level)/2. It sums the probabilities, in logs, within 12
// standard deviations of the mean, so large counts neither underflow nor
// cost more than a few thousand terms.
func hypergeometricInterval(total, marked, n int, level float64) (lo, hi int) {
	marked, n = min(max(marked, 0), total), min(max(n, 0), total)
	from, to := max(0, n+marked-total), min(n, marked)
	if from >= to {
		return from, from
	}
	N, K, m := float64(total), float64(marked), float64(n)
	mean := m * K / N
	sd := math.Sqrt(m * K / N * (1 - K/N) * (N - m) / math.Max(N-1, 1))
	from = max(from, int(mean-12*sd)-12)
	to = min(to, int(mean+12*sd)+12)
	lgamma := func(x float64) float64 { v, _ := math.Lgamma(x + 1); return v }
	logChoose := func(a, b float64) float64 { return lgamma(a) - lgamma(b) - lgamma(a-b) }
	logAll := logChoose(N, m)
	tail := (1 - level) / 2
	lo, hi = to, to
	sum, foundLo := 0.0, false
	for x := from; x <= to; x++ {
		sum += math.Exp(logChoose(K, float64(x)) + logChoose(N-K, m-float64(x)) - logAll)
		if !foundLo && sum >= tail {
			lo, foundLo = x, true
		}
		if sum >= 1-tail {
			hi = x
			break
		}
	}
	return lo, hi
}

// thinX puts the points of segs, at x = 1, 2, … for draws, at the
// iterations of draws kept every thin-th: x·thin.
func thinX(segs []plotter.XYs, thin int) []plotter.XYs {
	if thin == 1 {
		return segs
	}
	for _, s := range segs {
		for i := range s {
			s[i].X *= float64(thin)
		}
	}
	return segs
}

// ordinal is "2nd", "3rd", "5th", "21st", …
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}
