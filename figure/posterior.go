package figure

// The interval plot of a posterior: several scalars' central intervals
// side by side.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PosteriorIntervals draws the posterior of several scalars side by side,
// as bayesplot's mcmc_intervals does (upright): for item i, in the order
// given, the central 90% interval of its pooled draws as a thin bar, the
// central 50% interval as a thick one, the median as a dot, and its true
// value, unless truth is nil or truth[i] is NaN, as a vermillion cross.
// A dashed line marks 0, the value a correlation or a difference is read
// against. labels name the items on the x axis, items says what they are
// (past 40 items they are numbered, as Intervals numbers them). Each item's
// chains must have the same, positive length; non-finite draws are left
// out, and an item with none is counted in the text description.
func PosteriorIntervals(title, items string, labels []string, draws [][][]float64, truth []float64) (*Figure, error) {
	n := len(labels)
	if n == 0 {
		return nil, fmt.Errorf("posterior interval plot: no items")
	}
	if len(draws) != n || truth != nil && len(truth) != n {
		return nil, fmt.Errorf("posterior interval plot: %d labels but %d draws and %d true values", n, len(draws), len(truth))
	}
	var bars []posteriorBar
	var truths plotter.XYs
	empty, outside := 0, 0
	for i, chains := range draws {
		if _, err := checkChains("posterior interval plot", chains); err != nil {
			return nil, fmt.Errorf("%s: %w", labels[i], err)
		}
		var pooled []float64
		for _, c := range chains {
			for _, v := range c {
				if drawable(v) {
					pooled = append(pooled, v)
				}
			}
		}
		if len(pooled) == 0 {
			empty++
			continue
		}
		slices.Sort(pooled)
		b := posteriorBar{x: float64(i), lo90: sortedQuantile(pooled, 0.05), lo50: sortedQuantile(pooled, 0.25),
			median: sortedQuantile(pooled, 0.5), hi50: sortedQuantile(pooled, 0.75), hi90: sortedQuantile(pooled, 0.95)}
		bars = append(bars, b)
		if truth != nil && drawable(truth[i]) {
			truths = append(truths, plotter.XY{X: float64(i), Y: truth[i]})
			if truth[i] < b.lo90 || truth[i] > b.hi90 {
				outside++
			}
		}
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "Posterior intervals of %s: %s, median and central 50%% and 90%% intervals", subject(title), count(n, "item"))
	if len(bars) > 0 {
		below, above := 0, 0
		for _, b := range bars {
			switch {
			case b.hi90 < 0:
				below++
			case b.lo90 > 0:
				above++
			}
		}
		fmt.Fprintf(&desc, "; %d with the 90%% interval above 0, %d below", above, below)
	}
	if len(truths) > 0 {
		fmt.Fprintf(&desc, "; %d of %d true values outside their 90%% interval", outside, len(truths))
	}
	if empty > 0 {
		fmt.Fprintf(&desc, "; %s with no finite draw left out", count(empty, "item"))
	}

	width := itemsWidth(labels)
	return render(width, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "", "value")
		zero := hLine{Y: 0, Style: dashed(color.Gray{Y: 0x80}, 1)}
		p.Add(zero)
		pb := &posteriorBars{bars: bars, thin: lineStyle(seriesColor(0), 1.2), thick: lineStyle(seriesColor(0), 4),
			dot: draw.GlyphStyle{Color: color.White, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}}
		p.Add(pb)
		p.Legend.Add("90% interval", &plotter.Line{LineStyle: pb.thin})
		p.Legend.Add("50% interval", &plotter.Line{LineStyle: pb.thick})
		if len(truths) > 0 {
			s := &plotter.Scatter{XYs: truths, GlyphStyle: draw.GlyphStyle{Color: seriesColor(1), Radius: vg.Points(3), Shape: draw.CrossGlyph{}}}
			p.Add(s)
			p.Legend.Add("truth", s)
		}
		itemAxis(p, items, labels, width)
		drawLegendRight(p, dc, true)
	})
}

// sortedQuantile is the type-7 quantile q of sorted, non-empty values,
// as R's quantile() computes it by default.
func sortedQuantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// posteriorBar is one item's posterior at position x.
type posteriorBar struct{ x, lo90, lo50, median, hi50, hi90 float64 }

// posteriorBars draws each item's 90% interval thin, its 50% interval
// thick and its median as a dot.
type posteriorBars struct {
	bars        []posteriorBar
	thin, thick draw.LineStyle
	dot         draw.GlyphStyle
}

// Plot implements plot.Plotter.
func (b *posteriorBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, pb := range b.bars {
		x := trX(pb.x)
		c.StrokeLines(b.thin, c.ClipLinesY([]vg.Point{{X: x, Y: trY(pb.lo90)}, {X: x, Y: trY(pb.hi90)}})...)
		c.StrokeLines(b.thick, c.ClipLinesY([]vg.Point{{X: x, Y: trY(pb.lo50)}, {X: x, Y: trY(pb.hi50)}})...)
		if pt := (vg.Point{X: x, Y: trY(pb.median)}); c.Contains(pt) {
			c.DrawGlyph(b.dot, pt)
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *posteriorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return barRange(len(b.bars), func(i int) (x, lo, hi float64) { return b.bars[i].x, b.bars[i].lo90, b.bars[i].hi90 })
}
