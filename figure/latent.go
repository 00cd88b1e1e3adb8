package figure

// The latent plot: latent values against the ordinal values they explain.

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
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// levelName names the ordinal value v.
func levelName(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// distinctLevels returns the distinct non-NaN values of y in increasing
// order, how many rows take each, and the number of NaN rows.
func distinctLevels(y []float64) (levels []float64, counts []int, missing int) {
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

// latentAxis names the y axis of a latent plot. The latent values a fit
// keeps are on its sampler's working scale (the full model's Z has
// covariance V, of which C is the correlation; a factor model's, ΛΛᵀ + I),
// which the rank likelihood leaves unidentified: their order means
// something, their units do not, and z of ±5 is no outlier.
const latentAxis = "latent z, sampler's working scale"

// maxLatentPoints bounds the points of a latent plot.
const maxLatentPoints = 2000

// maxLatentGaps is the most gaps between levels a latent plot draws: past
// it (a column of many levels, a continuous one) the dashed lines would
// cover the points.
const maxLatentGaps = 20

// latentTicks labels the x axis of a latent plot: every level when they
// fit, else every step-th (step 2, 5, 10, 20, 50, …), as many as fit in a
// 640-pixel plot beside one another at the longest label's width, and
// "NA" (names' last, when missing) always. names are the levels' labels in
// order, then "NA" if missing.
func latentTicks(names []string, missing bool) plot.ConstantTicks {
	n := len(names)
	if missing {
		n--
	}
	fit := min(max(60/(longestLabel(names)+2), 4), 15) // labels side by side
	if missing {
		fit-- // room for NA
	}
	step := 1
	for k := 0; (n+step-1)/step > fit; k++ {
		step = []int{2, 5, 10}[k%3] * int(math.Pow(10, float64(k/3)))
	}
	var ticks plot.ConstantTicks
	for i := 0; i < n; i += step {
		if missing && step > 1 && n-i < (step+1)/2 {
			break // too close to NA
		}
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: names[i]})
	}
	if missing {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: names[n]})
	}
	return ticks
}

// Latent draws the latent values z against the ordinal values y of the
// same rows, with horizontal jitter, one colour per level, to show that z
// respects the order of y: every z at a level lies below every z at the
// next level. Dashed lines mark the gaps between consecutive levels (the
// midpoint between the largest z of one level and the smallest of the
// next); the text description counts the pairs of levels whose z overlap.
// Rows with missing y (NaN) are drawn in grey at "NA"; their z is
// unconstrained. At most 2000 rows are drawn, thinned by a fixed stride;
// the gaps use all rows, and are drawn for at most 20 gaps (21 levels);
// more levels than fit on the x axis are labelled every few (latentTicks).
// Jitter comes from a fixed seed.
func Latent(title string, y []float64, z []float64) (*Figure, error) {
	return LatentLabelled(title, y, z, nil)
}

// LatentLabelled is Latent for a column whose levels have labels: level
// k (k = 1, 2, …, as a column of text is coded) is named labels[k-1] on the
// x axis and in the text description, other values by their number.
func LatentLabelled(title string, y []float64, z []float64, labels []string) (*Figure, error) {
	levelName := func(v float64) string {
		if k := int(v); float64(k) == v && k >= 1 && k <= len(labels) {
			return labels[k-1]
		}
		return levelName(v)
	}
	if len(y) == 0 {
		return nil, fmt.Errorf("latent plot: no rows")
	}
	if len(z) != len(y) {
		return nil, fmt.Errorf("latent plot: %d ordinal values but %d latent values", len(y), len(z))
	}
	levels, _, missing := distinctLevels(y)
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
		if !drawable(z[r]) {
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
			overlaps = append(overlaps, fmt.Sprintf("%s/%s", levelName(levels[i]), levelName(levels[i+1])))
		}
	}

	groups := make([]plotter.XYs, len(levels)+1)
	rng := rand.New(rand.NewPCG(0x1a7e, 0xd07)) // fixed: the same input gives the same picture
	stride := max(1, (len(y)+maxLatentPoints-1)/maxLatentPoints)
	for r := 0; r < len(y); r += stride {
		jitter := (rng.Float64() - 0.5) * 0.5
		if !drawable(z[r]) {
			continue
		}
		i := index(y[r])
		groups[i] = append(groups[i], plotter.XY{X: float64(i) + jitter, Y: z[r]})
	}

	var desc strings.Builder
	fmt.Fprintf(&desc, "Latent plot of %s: %d rows, %d levels", subject(title), len(y), len(levels))
	if missing > 0 {
		fmt.Fprintf(&desc, ", %d missing", missing)
	}
	if len(overlaps) == 0 {
		desc.WriteString("; z respects the order of y")
	} else {
		fmt.Fprintf(&desc, "; z overlaps between levels %s", strings.Join(overlaps, ", "))
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	names := make([]string, 0, len(levels)+1)
	for _, v := range levels {
		names = append(names, levelName(v))
	}
	if missing > 0 {
		names = append(names, "NA")
	}
	return render(defaultWidth, defaultHeight, desc.String(), func(dc draw.Canvas) {
		p := newPlot(title, "observed level y", latentAxis)
		cut := dashed(color.Gray{Y: 90}, 0.8)
		drawCuts := len(cuts) > 0 && len(levels) <= maxLatentGaps+1
		if drawCuts {
			for _, c := range cuts {
				p.Add(hLine{Y: c, Style: cut})
			}
			p.Legend.Add("gap between levels", hLine{Style: cut})
		}
		for i, g := range groups {
			if len(g) == 0 {
				continue
			}
			c := withAlpha(seriesColor(i), 0.45)
			if i == len(levels) {
				c = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x70}
			}
			p.Add(&plotter.Scatter{XYs: g, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}})
		}
		p.X.Tick.Marker = latentTicks(names, missing > 0)
		p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
		drawLegendRight(p, dc, drawCuts)
	})
}
