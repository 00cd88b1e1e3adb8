package session

// Plots of data for teaching notebooks: counts per level of an ordinal
// column, and latent values against the ordinal values they explain.

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarsPlot draws one bar per name with the given heights, each labelled
// with its value when there are at most 20 bars. Non-finite heights are
// drawn as empty bars and mentioned in the text description.
func BarsPlot(title, xLabel, yLabel string, names []string, heights []float64) (*Figure, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("bar chart: no bars")
	}
	if len(heights) != len(names) {
		return nil, fmt.Errorf("bar chart: %d names but %d heights", len(names), len(heights))
	}
	colors := make([]color.Color, len(names))
	for i := range colors {
		colors[i] = figChainColor(0)
	}
	return barsFigure(title, xLabel, yLabel, names, heights, colors, "")
}

// LevelsPlot draws the number of rows at each level of one ordinal column
// y, levels in increasing order, with missing cells (NaN) as a grey bar
// "NA". When labels is non-nil, level v (1-based, as session's text columns
// are coded) is named labels[v-1]; other levels are named by their value.
func LevelsPlot(title string, y []float64, labels []string) (*Figure, error) {
	if len(y) == 0 {
		return nil, fmt.Errorf("levels plot: no rows")
	}
	levels, counts, missing := latentLevels(y)
	names := make([]string, 0, len(levels)+1)
	heights := make([]float64, 0, len(levels)+1)
	colors := make([]color.Color, 0, len(levels)+1)
	for i, v := range levels {
		names = append(names, levelName(v, labels))
		heights = append(heights, float64(counts[i]))
		colors = append(colors, figChainColor(0))
	}
	if missing > 0 {
		names = append(names, "NA")
		heights = append(heights, float64(missing))
		colors = append(colors, color.Gray{Y: 160})
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "Levels of %s: %d rows", figName(title), len(y))
	for i := range names {
		sep := ", "
		if i == 0 {
			sep = "; "
		}
		fmt.Fprintf(&desc, "%s%s: %d", sep, names[i], int(heights[i]))
	}
	return barsFigure(title, "level", "count", names, heights, colors, desc.String())
}

// levelName names the ordinal value v, using labels for coded text values.
func levelName(v float64, labels []string) string {
	if v == math.Trunc(v) && v >= 1 && v <= float64(len(labels)) {
		return labels[int(v)-1]
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// barsFigure renders a bar chart; an empty desc is generated.
func barsFigure(title, xLabel, yLabel string, names []string, heights []float64, colors []color.Color, desc string) (*Figure, error) {
	safe := make([]float64, len(heights))
	nonFinite := 0
	top := 0.0
	for i, h := range heights {
		if figFinite(h) {
			safe[i] = h
			top = math.Max(top, math.Abs(h))
		} else {
			nonFinite++
		}
	}
	if desc == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "Bar chart of %s: %d bars", figName(title), len(names))
		for i := range names {
			sep := ", "
			if i == 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s: %s", sep, names[i], figNum(heights[i]))
		}
		desc = b.String()
	}
	desc += figNote(nonFinite)
	n := len(names)
	return renderFigure(figWidth, figHeight, desc, func(dc draw.Canvas) {
		p := newFigPlot(title, xLabel, yLabel)
		width := figPixels(int(math.Min(60, 0.7*520/float64(n))))
		for i := range n {
			b := &plotter.BarChart{
				Values:    plotter.Values{safe[i]},
				Width:     width,
				Color:     colors[i],
				LineStyle: figLineStyle(color.Gray{Y: 60}, 0.4),
				XMin:      float64(i),
			}
			p.Add(b)
		}
		p.NominalX(names...)
		if n > 8 {
			p.X.Tick.Label.Rotation = math.Pi / 2
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		}
		if n <= 20 {
			p.Add(barLabels{heights: heights})
			p.Y.Max = math.Max(p.Y.Max, 1.1*top)
		}
		p.Y.Min = math.Min(p.Y.Min, 0)
		p.X.Min, p.X.Max = -0.5, float64(n)-0.5
		figWiden(p)
		p.Draw(dc)
	})
}

// barLabels writes each bar's height just above it.
type barLabels struct{ heights []float64 }

// Plot implements plot.Plotter.
func (l barLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	st := text.Style{Color: color.Black, Font: figFont(8), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
	for i, h := range l.heights {
		label := strconv.FormatFloat(h, 'g', 6, 64)
		y := 0.0
		if figFinite(h) {
			y = math.Max(h, 0)
		}
		c.FillText(st, vg.Point{X: trX(float64(i)), Y: trY(y) + vg.Points(2)}, label)
	}
}

// latentLevels returns the distinct non-NaN values of y in increasing
// order, how many rows take each, and the number of NaN rows.
func latentLevels(y []float64) (levels []float64, counts []int, missing int) {
	sorted := make([]float64, 0, len(y))
	for _, v := range y {
		if math.IsNaN(v) {
			missing++
			continue
		}
		sorted = append(sorted, v)
	}
	slices.Sort(sorted)
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			levels = append(levels, v)
			counts = append(counts, 0)
		}
		counts[len(counts)-1]++
	}
	return levels, counts, missing
}

// latentMaxPoints bounds the points of a latent plot.
const latentMaxPoints = 2000

// LatentPlot draws the latent values z against the ordinal values y of the
// same rows, with horizontal jitter, one colour per level, to show that z
// respects the order of y: every z at a level lies below every z at the
// next level. Dashed lines mark the gaps between consecutive levels (the
// midpoint between the largest z of one level and the smallest of the
// next); the text description counts the pairs of levels whose z overlap.
// Rows with missing y (NaN) are drawn in grey at "NA"; their z is
// unconstrained. At most 2000 rows are drawn, thinned by a fixed stride;
// the gaps use all rows. Jitter comes from a fixed seed.
func LatentPlot(title string, y []float64, z []float64) (*Figure, error) {
	if len(y) == 0 {
		return nil, fmt.Errorf("latent plot: no rows")
	}
	if len(z) != len(y) {
		return nil, fmt.Errorf("latent plot: %d ordinal values but %d latent values", len(y), len(z))
	}
	levels, _, missing := latentLevels(y)
	index := func(v float64) int { // position of v on the x axis
		if math.IsNaN(v) {
			return len(levels)
		}
		i, _ := slices.BinarySearch(levels, v)
		return i
	}
	lo := make([]float64, len(levels))
	hi := make([]float64, len(levels))
	for i := range levels {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	nonFinite := 0
	for r, v := range y {
		if !figFinite(z[r]) {
			nonFinite++
			continue
		}
		if math.IsNaN(v) {
			continue
		}
		i := index(v)
		lo[i] = math.Min(lo[i], z[r])
		hi[i] = math.Max(hi[i], z[r])
	}
	var cuts []float64
	var overlaps []string
	for i := 0; i+1 < len(levels); i++ {
		a, b := hi[i], lo[i+1]
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			continue // a level with no finite z
		}
		if a < b {
			cuts = append(cuts, (a+b)/2)
		} else {
			overlaps = append(overlaps, fmt.Sprintf("%s/%s", levelName(levels[i], nil), levelName(levels[i+1], nil)))
		}
	}

	groups := make([]plotter.XYs, len(levels)+1)
	rng := rand.New(rand.NewPCG(0x1a7e, 0xd07)) // fixed: the same input gives the same picture
	stride := max(1, (len(y)+latentMaxPoints-1)/latentMaxPoints)
	for r := 0; r < len(y); r += stride {
		jitter := (rng.Float64() - 0.5) * 0.5
		if !figFinite(z[r]) {
			continue
		}
		i := index(y[r])
		groups[i] = append(groups[i], plotter.XY{X: float64(i) + jitter, Y: z[r]})
	}

	var desc strings.Builder
	fmt.Fprintf(&desc, "Latent plot of %s: %d rows, %d levels", figName(title), len(y), len(levels))
	if missing > 0 {
		fmt.Fprintf(&desc, ", %d missing", missing)
	}
	if len(overlaps) == 0 {
		desc.WriteString("; z respects the order of y")
	} else {
		fmt.Fprintf(&desc, "; z overlaps between levels %s", strings.Join(overlaps, ", "))
	}
	desc.WriteString(figNote(nonFinite))

	names := make([]string, 0, len(levels)+1)
	for _, v := range levels {
		names = append(names, levelName(v, nil))
	}
	if missing > 0 {
		names = append(names, "NA")
	}
	return renderFigure(figWidth, figHeight, desc.String(), func(dc draw.Canvas) {
		p := newFigPlot(title, "observed level y", "latent z")
		cut := figDashed(color.Gray{Y: 90}, 0.8)
		for _, c := range cuts {
			p.Add(figHLine{Y: c, Style: cut})
		}
		if len(cuts) > 0 {
			p.Legend.Add("gap between levels", figHLine{Style: cut})
		}
		for i, g := range groups {
			if len(g) == 0 {
				continue
			}
			c := figAlpha(figChainColor(i), 0.45)
			if i == len(levels) {
				c = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x70}
			}
			p.Add(&plotter.Scatter{XYs: g, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}})
		}
		ticks := make(plot.ConstantTicks, len(names))
		for i, nm := range names {
			ticks[i] = plot.Tick{Value: float64(i), Label: nm}
		}
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
		figDrawLegendRight(p, dc, len(cuts) > 0)
	})
}
