package figure

// The interval plot of a posterior predictive check: observed values
// against the intervals of their replications.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxIntervalLabels is the largest number of items labelled by name.
const maxIntervalLabels = 40

// maxIntervalLabel is the longest item label in pixels, a third of the
// plot's height: longer ones are shortened.
const maxIntervalLabel = defaultHeight / 3

// Intervals draws a posterior predictive check of several statistics
// (the pairs of a check, the cells of a two-way table): for item i, in the
// order given, the replicated 90% interval lo[i]..hi[i] as a grey bar, the
// replicated mean as a dark tick, and the observed value as a dot, blue, or
// vermillion when flagged[i]. labels name the items on the x axis, and
// items, the axis title, says what they are (as "pair, from the smallest
// observed ρ"); when there are more than 40 they are numbered instead, and
// the title adds the count. Items with a non-finite value are
// left out of the drawing and counted in the text description, which also
// counts the observed values outside their interval and the flagged ones.
func Intervals(title, items, yLabel string, labels []string, observed, mean, lo, hi []float64, flagged []bool) (*Figure, error) {
	n := len(labels)
	if n == 0 {
		return nil, fmt.Errorf("interval plot: no items")
	}
	for _, s := range []struct {
		name string
		len  int
	}{{"observed", len(observed)}, {"mean", len(mean)}, {"lo", len(lo)}, {"hi", len(hi)}, {"flagged", len(flagged)}} {
		if s.len != n {
			return nil, fmt.Errorf("interval plot: %d labels but %d %s values", n, s.len, s.name)
		}
	}
	var bars []interval
	var plain, marked plotter.XYs
	outside, nFlagged, nonFinite := 0, 0, 0
	for i := range n {
		vals := []float64{observed[i], mean[i], lo[i], hi[i]}
		if !drawable(vals[0]) || !drawable(vals[1]) || !drawable(vals[2]) || !drawable(vals[3]) {
			nonFinite++
			continue
		}
		x := float64(i)
		bars = append(bars, interval{x: x, lo: lo[i], hi: hi[i], mid: mean[i]})
		if observed[i] < lo[i] || observed[i] > hi[i] {
			outside++
		}
		if flagged[i] {
			nFlagged++
			marked = append(marked, plotter.XY{X: x, Y: observed[i]})
		} else {
			plain = append(plain, plotter.XY{X: x, Y: observed[i]})
		}
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "Interval plot of %s: %d items, %d observed outside their replicated 90%% interval, %d flagged",
		subject(title), n, outside, nFlagged)
	desc.WriteString(nonFiniteNote(nonFinite))

	width := itemsWidth(labels)
	return render(width, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "", yLabel)
		barColor := color.NRGBA{R: 0x9E, G: 0x9E, B: 0x9E, A: 0xFF}
		meanColor := color.NRGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xFF}
		ib := &intervalBars{bars: bars, bar: lineStyle(barColor, 3), tick: lineStyle(meanColor, 1.2)}
		p.Add(ib)
		p.Legend.Add("replicated 90% interval", &plotter.Line{LineStyle: ib.bar})
		p.Legend.Add("replicated mean", &plotter.Line{LineStyle: ib.tick})
		dot := func(xys plotter.XYs, c color.Color, name string) {
			if len(xys) == 0 {
				return
			}
			s := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}}
			p.Add(s)
			p.Legend.Add(name, s)
		}
		dot(plain, seriesColor(0), "observed")
		dot(marked, seriesColor(1), "observed, flagged")
		itemAxis(p, items, labels, width)
		drawLegendRight(p, dc, true)
	})
}

// itemAxis lays out the x axis of an interval plot of len(labels) items
// drawn width pixels wide: each item's label (turned upright when they
// are many or long), and what they are; past maxIntervalLabels items,
// numbers instead, with the count.
func itemAxis(p *plot.Plot, items string, labels []string, width int) {
	n := len(labels)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	if n > maxIntervalLabels {
		p.X.Tick.Marker = indexTicks(n)
		if items == "" {
			items = "item"
		}
		p.X.Label.Text = fmt.Sprintf("%s (1..%d)", items, n)
		return
	}
	rotate := n > 8 || longestLabel(labels) > 8
	room := pixels(width/n) - vg.Points(2) // side by side
	if rotate {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
		room = pixels(maxIntervalLabel) // down the figure's height
	}
	across := vg.Length(0) // room across a rotated label, for two lines
	if rotate {
		across = pixels((width-itemsMargin)/n) - vg.Points(2)
	}
	ticks := make(plot.ConstantTicks, n)
	for i, l := range readableLabels(p.X.Tick.Label, labels, room, across) {
		ticks[i] = plot.Tick{Value: float64(i), Label: l}
	}
	p.X.Tick.Marker = ticks
	p.X.Label.Text = items // what the labels are: "0–9, 1" is an income bin and a degree
}

// itemsMargin is about the pixels of a figure of items that are not its
// plot's width: the value axis and the legend on the right.
const itemsMargin = 200

// itemsWidth is the width in pixels of a figure of items labelled by
// labels: 14 pixels an item (from 640 to 1600), and more, up to 1600, so
// that the items have room for two lines of label each where a label is
// too long for one (readableLabels).
func itemsWidth(labels []string) int {
	n := len(labels)
	width := min(max(defaultWidth, 14*n+160), 1600)
	if n == 0 || n > maxIntervalLabels {
		return width
	}
	st := textStyle(8.5, color.Black)
	for _, l := range labels {
		if st.Width(l) > pixels(maxIntervalLabel) {
			perItem := int(math.Ceil(float64(st.Height("a\nb")+vg.Points(3))*dpi/float64(vg.Inch))) + 1
			return min(max(width, perItem*n+itemsMargin), 1600)
		}
	}
	return width
}

// readableLabels fits item labels into room (fitLabels), but first
// breaks each label too long for it into two lines, where there is room
// across for two (across 0: none): a difference's two sides
// (C[pchildren, pdegree] − C[pdegree, pchildren]) on a line each, or a
// label at the comma or space nearest its middle, so that the labels of
// a plot of many items read whole rather than cut mid-word.
func readableLabels(st text.Style, labels []string, room, across vg.Length) []string {
	out := slices.Clone(labels)
	var rest []int // labels too long even on two lines
	for i, l := range labels {
		if st.Width(l) <= room {
			continue
		}
		if two := twoLines(l); two != "" && st.Height(two) <= across && st.Width(two) <= room {
			out[i] = two
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) == 0 {
		return out
	}
	long := make([]string, len(rest))
	for k, i := range rest {
		long[k] = labels[i]
	}
	for k, l := range fitLabels(st, long, room) {
		out[rest[k]] = l
	}
	return out
}

// twoLines breaks a label into two lines: after a difference's " − "
// when it has one, else at the ", " or the space nearest its middle; ""
// when it has no such place.
func twoLines(label string) string {
	if a, b, ok := strings.Cut(label, " − "); ok {
		return a + " −\n" + b
	}
	best := -1
	mid := len(label) / 2
	for i := 0; i < len(label); i++ {
		if label[i] == ' ' && (best < 0 || abs(i-mid) < abs(best-mid)) {
			best = i
		}
	}
	if best <= 0 || best == len(label)-1 {
		return ""
	}
	return label[:best] + "\n" + label[best+1:]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// interval is one item's replicated interval and mean at position x.
type interval struct{ x, lo, hi, mid float64 }

// intervalBars draws each interval as a vertical bar with a tick at its
// mean (none when the tick's width is 0).
type intervalBars struct {
	bars      []interval
	bar, tick draw.LineStyle
}

// Plot implements plot.Plotter.
func (b *intervalBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	half := vg.Points(5)
	for _, iv := range b.bars {
		x := trX(iv.x)
		c.StrokeLines(b.bar, c.ClipLinesY([]vg.Point{{X: x, Y: trY(iv.lo)}, {X: x, Y: trY(iv.hi)}})...)
		if b.tick.Width <= 0 {
			continue // no tick (the mean drawn otherwise)
		}
		y := trY(iv.mid)
		c.StrokeLines(b.tick, c.ClipLinesY([]vg.Point{{X: x - half, Y: y}, {X: x + half, Y: y}})...)
	}
}

// DataRange implements plot.DataRanger.
func (b *intervalBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return barRange(len(b.bars), func(i int) (x, lo, hi float64) { return b.bars[i].x, b.bars[i].lo, b.bars[i].hi })
}

// barRange is the data range of n vertical bars, bar i at x from lo to hi.
func barRange(n int, bar func(i int) (x, lo, hi float64)) (xmin, xmax, ymin, ymax float64) {
	if n == 0 {
		return 0, 0, 0, 0
	}
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i := range n {
		x, lo, hi := bar(i)
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, lo), math.Max(ymax, hi)
	}
	return xmin, xmax, ymin, ymax
}
