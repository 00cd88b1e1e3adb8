package figure

// The figure of a prediction: a column's distribution on its levels for a
// new row, against its shares in the data.

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxPredictedLevels is the most levels a prediction's figure draws: past
// them the levels would be numbered, not named, and a column of that many
// values is read from the table.
const MaxPredictedLevels = maxIntervalLabels

// Predicted draws the predicted distribution of a column on its levels,
// named by levels in their order along the x axis, which column names:
// for each level the central interval of its probability over the
// posterior draws (lo to hi, probLabel as "90%") as a grey bar, the
// posterior mean (mean) as a dark dot, the level's share over all rows of
// the data (marginal) as an open circle and, when share is not nil, its
// share among the rows that have the given values as a cross. The text
// description names the most probable level and says how many levels the
// prediction puts above and below their share over all rows (outside the
// interval only).
func Predicted(title, column string, levels []string, mean, lo, hi, marginal, share []float64, probLabel string) (*Figure, error) {
	n := len(levels)
	if n == 0 {
		return nil, fmt.Errorf("prediction plot: no levels")
	}
	if n > MaxPredictedLevels {
		return nil, fmt.Errorf("prediction plot: %d levels, more than %d", n, MaxPredictedLevels)
	}
	for _, s := range []struct {
		name string
		len  int
	}{{"mean", len(mean)}, {"lo", len(lo)}, {"hi", len(hi)}, {"marginal", len(marginal)}} {
		if s.len != n {
			return nil, fmt.Errorf("prediction plot: %d levels but %d %s values", n, s.len, s.name)
		}
	}
	if share != nil && len(share) != n {
		return nil, fmt.Errorf("prediction plot: %d levels but %d shares", n, len(share))
	}
	var bars []interval
	var means, margins, shares plotter.XYs
	nonFinite, above, below, mode := 0, 0, 0, -1
	for i := range n {
		if !drawable(mean[i]) || !drawable(lo[i]) || !drawable(hi[i]) || !drawable(marginal[i]) {
			nonFinite++
			continue
		}
		x := float64(i)
		bars = append(bars, interval{x: x, lo: lo[i], hi: hi[i], mid: mean[i]})
		means = append(means, plotter.XY{X: x, Y: mean[i]})
		margins = append(margins, plotter.XY{X: x, Y: marginal[i]})
		if share != nil && drawable(share[i]) {
			shares = append(shares, plotter.XY{X: x, Y: share[i]})
		}
		switch {
		case lo[i] > marginal[i]:
			above++
		case hi[i] < marginal[i]:
			below++
		}
		if mode < 0 || mean[i] > mean[mode] {
			mode = i
		}
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "Prediction plot of %s: %s", subject(title), count(n, "level"))
	if mode >= 0 {
		fmt.Fprintf(&desc, ", most likely %s (p = %.3f; %.3f over all rows); %d above and %d below their share over all rows, their %s intervals excluding it",
			levels[mode], mean[mode], marginal[mode], above, below, probLabel)
	}
	if share != nil {
		desc.WriteString("; crosses: the shares among the rows that have the given values")
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	width := itemsWidth(levels)
	return render(width, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "", "probability")
		p.Y.Min = 0
		barColor := color.NRGBA{R: 0x9E, G: 0x9E, B: 0x9E, A: 0xFF}
		meanColor := color.NRGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xFF}
		// The mean is a dot, so the bar's tick is not drawn.
		ib := &intervalBars{bars: bars, bar: lineStyle(barColor, 3), tick: draw.LineStyle{}}
		p.Add(ib)
		p.Legend.Add("posterior "+probLabel+" interval", &plotter.Line{LineStyle: ib.bar})
		add := func(xys plotter.XYs, g draw.GlyphStyle, name string) {
			if len(xys) == 0 {
				return
			}
			s := &plotter.Scatter{XYs: xys, GlyphStyle: g}
			p.Add(s)
			p.Legend.Add(name, s)
		}
		add(means, draw.GlyphStyle{Color: meanColor, Radius: vg.Points(2.8), Shape: draw.CircleGlyph{}}, "posterior mean")
		add(margins, draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(3.2), Shape: draw.RingGlyph{}}, "share over all rows")
		add(shares, draw.GlyphStyle{Color: seriesColor(1), Radius: vg.Points(3.2), Shape: draw.CrossGlyph{}}, "share among matching rows")
		itemAxis(p, column, levels, width)
		drawLegendRight(p, dc, true)
	})
}
