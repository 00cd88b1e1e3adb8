package figure

// The figures of Kalaitzis & Silva's comparison (`copulang bench paper`):
// RMSE-to-truth traces with a side histogram of the post-burn-in values, one
// panel per sampler on a shared scale, and a scatter of one sampler's
// per-quantity values against another's.

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RMSEPanels draws, as Kalaitzis & Silva's (2013) Figure 2, one row per
// labelled trace: on the left the RMSE to the truth against the iteration
// with iterations 1..burn shaded, on the right the histogram of the
// post-burn-in values lying along the same y axis. Every row shares the y
// range and the density axis, so that the spreads of the samplers compare at
// a glance; the y range is that of the post-burn-in values of all traces,
// widened by a quarter, so that the larger errors of the first iterations
// run off the top of the panels (the description gives the largest value).
// Traces must be non-empty and longer than burn; non-finite values break
// the lines and are left out of the histograms. The text description gives
// each trace's post-burn-in mean, standard deviation and range.
func RMSEPanels(title string, labels []string, traces [][]float64, burn int) (*Figure, error) {
	if len(labels) == 0 {
		return nil, fmt.Errorf("RMSE panels: no traces")
	}
	if len(traces) != len(labels) {
		return nil, fmt.Errorf("RMSE panels: %d labels but %d traces", len(labels), len(traces))
	}
	if burn < 0 {
		return nil, fmt.Errorf("RMSE panels: negative burn-in %d", burn)
	}
	longest := 0
	for i, tr := range traces {
		if len(tr) <= burn {
			return nil, fmt.Errorf("RMSE panels: trace %q has %d values, want more than the burn-in %d", labels[i], len(tr), burn)
		}
		longest = max(longest, len(tr))
	}
	_, top, _, nonFinite := valueRange(traces...)
	posts := make([][]float64, len(traces))
	for i, tr := range traces {
		posts[i] = tr[burn:]
	}
	lo, hi, postFinite, _ := valueRange(posts...)
	if pad := 0.25 * (hi - lo); postFinite > 0 {
		lo, hi = lo-pad, hi+pad
	}
	segs := make([][]plotter.XYs, len(traces))
	hists := make([]plotter.XYs, len(traces))
	maxDensity := 0.0
	var desc strings.Builder
	fmt.Fprintf(&desc, "RMSE panels %s: %d traces over %d iterations (first %d burn-in); after burn-in", subject(title), len(traces), longest, burn)
	for i, tr := range traces {
		segs[i] = segments(tr, maxLinePoints)
		post := tr[burn:]
		plo, phi, finite, _ := valueRange(post)
		edges := binEdges(plo, phi, finite)
		bins := density(edges, post)
		hists[i] = stepOutline(edges, bins)
		for _, b := range bins {
			maxDensity = math.Max(maxDensity, b.Weight)
		}
		if finite == 0 {
			fmt.Fprintf(&desc, "; %s no finite values", labels[i])
			continue
		}
		m, sd := meanSD(post)
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&desc, "%s %s mean %s sd %s range [%s, %s]", sep, labels[i], num(m), num(sd), num(plo), num(phi))
	}
	if postFinite > 0 && top > hi {
		fmt.Fprintf(&desc, "; values above %s (at most %s, in the first iterations) run off the top", num(hi), num(top))
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	const rowHeight = 170
	height := rowHeight*len(traces) + 40
	return render(760, height, desc.String(), func(dc draw.Canvas) {
		titleStyle := textStyle(12, color.Black)
		top := dc.Max.Y
		if title != "" {
			h := titleStyle.Height(title) + vg.Points(8)
			dc.FillText(titleStyle, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - h/2}, title)
			top -= h
		}
		rowH := (top - dc.Min.Y) / vg.Length(len(traces))
		split := dc.Min.X + 0.76*(dc.Max.X-dc.Min.X)
		for i := range traces {
			row := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dc.Min.X, Y: top - vg.Length(i+1)*rowH},
				Max: vg.Point{X: dc.Max.X, Y: top - vg.Length(i)*rowH},
			}}
			left := draw.Canvas{Canvas: row.Canvas, Rectangle: vg.Rectangle{Min: row.Min, Max: vg.Point{X: split, Y: row.Max.Y}}}
			right := draw.Canvas{Canvas: row.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: split, Y: row.Min.Y}, Max: row.Max}}

			xLabel, dLabel := "", ""
			if i == len(traces)-1 {
				xLabel, dLabel = "iteration", "density"
			}
			tp := newPlot(labels[i], xLabel, "RMSE")
			if burn > 0 {
				tp.Add(shadedBand{X0: 0.5, X1: float64(burn) + 0.5, Color: color.Gray{Y: 232}})
			}
			addSeries(tp, segs[i], lineStyle(seriesColor(i), 0.6))
			tp.X.Min, tp.X.Max = 0.5, float64(longest)+0.5
			hp := newPlot("", dLabel, "")
			if len(hists[i]) > 0 {
				poly := make(plotter.XYs, len(hists[i]))
				for k, xy := range hists[i] {
					poly[k] = plotter.XY{X: xy.Y, Y: xy.X} // lying along the y axis
				}
				hp.Add(&plotter.Polygon{XYs: []plotter.XYs{poly}, Color: withAlpha(seriesColor(i), 0.45),
					LineStyle: lineStyle(seriesColor(i), 0.8)})
			}
			hp.X.Min, hp.X.Max = 0, maxDensity
			hp.Y.Tick.Marker = unlabelled{hp.Y.Tick.Marker}
			hp.Title.Text = " " // the same height above the data as the trace's title
			for _, p := range []*plot.Plot{tp, hp} {
				if postFinite > 0 {
					p.Y.Min, p.Y.Max = lo, hi
				}
				p.X.Tick.Label.Font = sans(8)
				p.Y.Tick.Label.Font = sans(8)
				widen(p)
			}
			tp.Draw(left)
			hp.Draw(right)
		}
	})
}

// Compare draws paired values of several labelled series as points, x
// against y (one colour per series), with the line y = x: points below it
// are smaller in y. Both axes are logarithmic when all values are positive
// and span more than a factor of 20. The text description gives, per
// series, the number of points, how many lie below the line, and the
// geometric mean of y/x when all values are positive.
func Compare(title, xLabel, yLabel string, labels []string, xs, ys [][]float64) (*Figure, error) {
	if len(labels) == 0 {
		return nil, fmt.Errorf("comparison plot: no series")
	}
	if len(xs) != len(labels) || len(ys) != len(labels) {
		return nil, fmt.Errorf("comparison plot: %d labels but %d x and %d y series", len(labels), len(xs), len(ys))
	}
	points := make([]plotter.XYs, len(labels))
	var desc strings.Builder
	fmt.Fprintf(&desc, "Comparison plot %s, %s against %s", subject(title), yLabel, xLabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	nonFinite := 0
	for s := range labels {
		if len(xs[s]) != len(ys[s]) {
			return nil, fmt.Errorf("comparison plot: series %q has %d x values but %d y values", labels[s], len(xs[s]), len(ys[s]))
		}
		below, logSum, positive := 0, 0.0, true
		for i, x := range xs[s] {
			y := ys[s][i]
			if !drawable(x) || !drawable(y) {
				nonFinite++
				continue
			}
			points[s] = append(points[s], plotter.XY{X: x, Y: y})
			lo, hi = math.Min(lo, math.Min(x, y)), math.Max(hi, math.Max(x, y))
			if y < x {
				below++
			}
			if x > 0 && y > 0 {
				logSum += math.Log(y / x)
			} else {
				positive = false
			}
		}
		fmt.Fprintf(&desc, "; %s: %d points, %d below y = x", labels[s], len(points[s]), below)
		if positive && len(points[s]) > 0 {
			fmt.Fprintf(&desc, ", geometric mean y/x %s", num(math.Exp(logSum/float64(len(points[s])))))
		}
	}
	desc.WriteString(nonFiniteNote(nonFinite))
	logAxes := lo > 0 && hi/lo > 20
	if logAxes {
		desc.WriteString("; log scales")
	}

	return render(defaultHeight+160, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, xLabel, yLabel)
		if logAxes {
			for _, a := range []*plot.Axis{&p.X, &p.Y} {
				a.Scale = plot.LogScale{}
				a.Tick.Marker = plot.LogTicks{Prec: -1}
			}
		}
		if lo <= hi {
			diag := &plotter.Line{XYs: plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}, LineStyle: dashed(color.Black, 1)}
			p.Add(diag)
			p.Legend.Add("y = x", diag)
		}
		for s, pts := range points {
			if len(pts) == 0 {
				continue
			}
			sc := &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{
				Color: withAlpha(seriesColor(s), 0.5), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{},
			}}
			p.Add(sc)
			p.Legend.Add(labels[s], sc)
		}
		drawLegendRight(p, dc, true)
	})
}

// meanSD returns the mean and standard deviation (n − 1) of the finite
// values of x.
func meanSD(x []float64) (mean, sd float64) {
	n := 0.0
	for _, v := range x {
		if drawable(v) {
			mean += v
			n++
		}
	}
	mean /= n
	for _, v := range x {
		if drawable(v) {
			sd += (v - mean) * (v - mean)
		}
	}
	return mean, math.Sqrt(sd / (n - 1))
}
