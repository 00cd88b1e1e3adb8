package figure

// This file holds the Figure type and the machinery shared by the plots:
// rendering one drawing to PNG (vgimg) and SVG (vgsvg), fonts, series
// colours, input checks, and small custom plotters (shaded bands, vertical
// and horizontal reference lines, centred text). The plots themselves live
// in chains.go, matrix.go and latent.go.

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is a rendered plot: PNG and SVG bytes of the same drawing, a
// one-line text description used as the text/plain fallback, and the size
// of the PNG in pixels (the SVG has the same size at 96 dpi).
type Figure struct {
	PNG, SVG      []byte
	Text          string
	Width, Height int // pixels

	// paint draws the figure again, on the canvas of another format
	// (PDF); nil for a Figure made otherwise than by render.
	paint func(dc draw.Canvas)
}

const (
	dpi           = 96  // pixels per inch of the PNG; SVG lengths use the same scale
	defaultWidth  = 640 // default width in pixels
	defaultHeight = 400 // default height in pixels

	// frequentColours is how many of the 256 colours of a reduced PNG
	// are its most frequent (quantize).
	frequentColours = 192
	// pngBudget is the PNG size above which the image is reduced to
	// 256 colours.
	pngBudget = 80 << 10

	// maxLinePoints bounds the points drawn per line: longer series are
	// reduced to the minimum and maximum of each of maxLinePoints/2
	// buckets, which keeps the envelope a reader sees.
	maxLinePoints = 2000
)

// pixels converts a length in pixels to vg units at dpi.
func pixels(px int) vg.Length { return vg.Length(px) * vg.Inch / dpi }

// render draws the picture twice, to a PNG canvas and to an SVG
// canvas of wpx×hpx pixels. paint must draw the same thing every time it is
// called; it is called once per format. A panic from gonum/plot (which
// panics on some degenerate inputs) is returned as an error.
func render(wpx, hpx int, desc string, paint func(dc draw.Canvas)) (fig *Figure, err error) {
	return renderColors(wpx, hpx, desc, true, paint)
}

// renderColors is render, reducing a large PNG to 256 colours only when
// reduce is set. A heatmap is not reduced: its colours are its values, and
// the antialiased text of its labels would take palette entries from the
// cells and the colour bar, which then show the nearest of what is left
// (greys below 0 once the labels are many).
func renderColors(wpx, hpx int, desc string, reduce bool, paint func(dc draw.Canvas)) (fig *Figure, err error) {
	defer func() {
		if r := recover(); r != nil {
			fig, err = nil, fmt.Errorf("rendering %s: %v", desc, r)
		}
	}()
	w, h := pixels(wpx), pixels(hpx)

	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	paint(draw.New(cleanText{img}))
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img.Image()); err != nil {
		return nil, fmt.Errorf("encoding PNG of %s: %w", desc, err)
	}
	if rgba, ok := img.Image().(*image.RGBA); ok && reduce && pngBuf.Len() > pngBudget {
		// Dense antialiased lines make true-colour PNGs large; 256
		// colours look the same and take about a third of the bytes.
		pngBuf.Reset()
		if err := png.Encode(&pngBuf, quantize(rgba)); err != nil {
			return nil, fmt.Errorf("encoding PNG of %s: %w", desc, err)
		}
	}

	svg := vgsvg.New(w, h)
	paint(draw.New(cleanText{svg}))
	var svgBuf bytes.Buffer
	if _, err := svg.WriteTo(&svgBuf); err != nil {
		return nil, fmt.Errorf("encoding SVG of %s: %w", desc, err)
	}

	b := img.Image().Bounds()
	return &Figure{
		PNG:    pngBuf.Bytes(),
		SVG:    labelEmbeddedPNGs(svgBuf.Bytes()),
		Text:   desc,
		Width:  b.Dx(),
		Height: b.Dy(),
		paint:  paint,
	}, nil
}

// labelEmbeddedPNGs labels the images vgsvg embeds in an SVG as what they
// are: vgsvg encodes them as PNG but labels them image/jpg, which browsers
// sniff past and librsvg (rsvg-convert) does not, leaving them out.
func labelEmbeddedPNGs(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte(`xlink:href="data:image/jpg;base64,`), []byte(`xlink:href="data:image/png;base64,`))
}

// cleanText is a canvas that replaces, in the text it draws, invalid
// UTF-8 and the characters XML forbids (C0 controls other than tab and
// newline, U+FFFE, U+FFFF) with U+FFFD, so that titles and labels taken from
// user input always give a well-formed SVG.
type cleanText struct{ vg.CanvasSizer }

// FillString implements vg.Canvas.
func (c cleanText) FillString(f font.Face, pt vg.Point, s string) {
	c.CanvasSizer.FillString(f, pt, xmlText(s))
}

// xmlText is s with the characters XML cannot carry replaced by U+FFFD.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// sans is the sans-serif face used for all text, at size points.
func sans(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// textStyle is a centred text style in the figure font.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    sans(size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot with the house style: sans-serif text, a light
// grid, the legend at the top right.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := newPanel(title, xLabel, yLabel)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// newPanel is newPlot without the grid.
func newPanel(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(8.5)
		a.Tick.Marker = trimmedTicks{}
	}
	p.Legend.TextStyle.Font = sans(8.5)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(14)
	return p
}

// seriesColor is the colour of series i: the Okabe–Ito palette, which
// stays distinguishable for colour-blind readers, cycled after eight.
func seriesColor(i int) color.NRGBA {
	palette := [...]color.NRGBA{
		{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
		{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}, // vermillion
		{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
		{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
		{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
		{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}, // sky blue
		{R: 0x59, G: 0x59, B: 0x59, A: 0xFF}, // grey
		{R: 0xB8, G: 0xA9, B: 0x00, A: 0xFF}, // dark yellow
	}
	if i < 0 {
		i = -i
	}
	return palette[i%len(palette)]
}

// withAlpha returns c with opacity a in [0, 1].
func withAlpha(c color.NRGBA, a float64) color.NRGBA {
	c.A = uint8(math.Round(255 * a))
	return c
}

// maxMagnitude bounds the values that are drawn: beyond it, differences
// of values overflow and gonum/plot's axis arithmetic breaks down.
const maxMagnitude = 1e300

// drawable reports whether v can be drawn: not NaN, and not infinite or
// beyond ±maxMagnitude. Values that cannot be drawn are counted in the
// text descriptions as non-finite.
func drawable(v float64) bool { return math.Abs(v) <= maxMagnitude }

// valueRange returns the smallest and largest finite values of the series
// and how many finite and non-finite values they hold.
func valueRange(series ...[]float64) (lo, hi float64, finite, nonFinite int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s {
			if !drawable(v) {
				nonFinite++
				continue
			}
			finite++
			lo = math.Min(lo, v)
			hi = math.Max(hi, v)
		}
	}
	return lo, hi, finite, nonFinite
}

// checkChains checks that chains is non-empty and that all chains have
// the same positive length, which it returns.
func checkChains(what string, chains [][]float64) (int, error) {
	if len(chains) == 0 {
		return 0, fmt.Errorf("%s: no chains", what)
	}
	n := len(chains[0])
	if n == 0 {
		return 0, fmt.Errorf("%s: chains have no draws", what)
	}
	for m, c := range chains {
		if len(c) != n {
			return 0, fmt.Errorf("%s: chain %d has %d draws but chain 1 has %d", what, m+1, len(c), n)
		}
	}
	return n, nil
}

// segments turns y (plotted against x = 1, 2, ...) into the runs of
// finite points to draw as lines; a non-finite value breaks the line. When
// y is longer than maxPoints it is cut into maxPoints/2 buckets and each
// bucket contributes its minimum and maximum, in order.
func segments(y []float64, maxPoints int) []plotter.XYs {
	bucket := 1
	if half := maxPoints / 2; half > 0 && len(y) > maxPoints {
		bucket = (len(y) + half - 1) / half
	}
	var segs []plotter.XYs
	var cur plotter.XYs
	flush := func() {
		if len(cur) > 0 {
			segs = append(segs, cur)
			cur = nil
		}
	}
	for start := 0; start < len(y); start += bucket {
		end := min(start+bucket, len(y))
		lo, hi := -1, -1
		for i := start; i < end; i++ {
			if !drawable(y[i]) {
				continue
			}
			if lo < 0 || y[i] < y[lo] {
				lo = i
			}
			if hi < 0 || y[i] > y[hi] {
				hi = i
			}
		}
		if lo < 0 {
			flush()
			continue
		}
		a, b := min(lo, hi), max(lo, hi)
		cur = append(cur, plotter.XY{X: float64(a + 1), Y: y[a]})
		if b != a {
			cur = append(cur, plotter.XY{X: float64(b + 1), Y: y[b]})
		}
	}
	flush()
	return segs
}

// addSeries adds the segments of one series as lines in the given style;
// single isolated points are drawn as dots so that they stay visible. It
// returns a thumbnail for the legend.
func addSeries(p *plot.Plot, segs []plotter.XYs, style draw.LineStyle) plot.Thumbnailer {
	for _, s := range segs {
		if len(s) == 1 {
			p.Add(&plotter.Scatter{XYs: s, GlyphStyle: draw.GlyphStyle{
				Color: style.Color, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{},
			}})
			continue
		}
		// Short pieces, each its own path sharing an end point with the
		// next: the rasteriser looks up its cells in a list per scan line,
		// so one path that crosses the same lines thousands of times (a
		// trace of thousands of draws) takes time quadratic in its length.
		for start := 0; start < len(s)-1; start += linePiece - 1 {
			p.Add(&plotter.Line{XYs: s[start:min(start+linePiece, len(s))], LineStyle: style})
		}
	}
	return &plotter.Line{LineStyle: style}
}

// linePiece is the most points drawn as one path of a line (addSeries).
const linePiece = 64

// lineStyle is a solid line of the given colour and width in points.
func lineStyle(c color.Color, width float64) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width)}
}

// dashed is a dashed line of the given colour and width in points.
func dashed(c color.Color, width float64) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
}

// shadedBand shades the x interval [X0, X1] over the full height of the plot.
type shadedBand struct {
	X0, X1 float64
	Color  color.Color
}

// Plot implements plot.Plotter.
func (b shadedBand) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(b.X0), trX(b.X1)
	pts := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}
	c.FillPolygon(b.Color, c.ClipPolygonX(pts))
}

// DataRange implements plot.DataRanger; the band does not widen the y axis.
func (b shadedBand) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.X0, b.X1, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer.
func (b shadedBand) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.Color, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// vLine is a vertical line at X over the full height of the plot.
type vLine struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.X)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
}

// DataRange implements plot.DataRanger: the x axis includes X.
func (l vLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.X, l.X, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer.
func (l vLine) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// hLine is a horizontal line at Y over the full width of the plot.
type hLine struct {
	Y     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l hLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(l.Y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the y axis includes Y.
func (l hLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.Y, l.Y
}

// Thumbnail implements plot.Thumbnailer.
func (l hLine) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// centerText writes Text in the middle of the data area.
type centerText struct {
	Text  string
	Style text.Style
}

// Plot implements plot.Plotter.
func (t centerText) Plot(c draw.Canvas, _ *plot.Plot) {
	c.FillText(t.Style, c.Center(), t.Text)
}

// nonFiniteNote returns a short phrase about dropped values, or "".
func nonFiniteNote(nonFinite int) string {
	if nonFinite == 0 {
		return ""
	}
	return fmt.Sprintf("; %d non-finite values not drawn", nonFinite)
}

// fixed formats v with the given decimals; a negative value that rounds
// to zero prints as zero (0.00, not -0.00, which reads as a sign the
// estimate does not have), as the tables print it.
func fixed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}

// num formats a number for the text descriptions.
func num(v float64) string {
	return fmt.Sprintf("%.4g", v)
}

// drawLegendRight draws p on dc with its legend, when it has one, in a
// column to the right of the data area instead of over the data.
func drawLegendRight(p *plot.Plot, dc draw.Canvas, hasLegend bool) {
	widen(p)
	if !hasLegend {
		fitTitle(p, dc.Size().X)
		p.Draw(dc)
		return
	}
	leg := p.Legend
	p.Legend = plot.NewLegend() // empty: the plot draws no legend of its own
	w := leg.Rectangle(dc).Size().X + vg.Points(12)
	w = min(w, 0.4*dc.Size().X) // very long labels run off the edge instead
	area := draw.Crop(dc, 0, -w, 0, 0)
	fitTitle(p, area.Size().X)
	p.Draw(area)
	da := p.DataCanvas(area)
	leg.Top, leg.Left = true, true
	leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: dc.Max.X - w + vg.Points(8), Y: da.Min.Y},
		Max: vg.Point{X: dc.Max.X, Y: da.Max.Y},
	}})
}

// quantize reduces img to a palette of 256 colours: its frequentColours
// most frequent, then, one at a time, the colour whose pixels are the
// farthest in all from the palette (count × squared distance to the
// nearest entry), so that a colour few pixels have but none near it (the
// blue of a graph's few negative edges among hundreds of shades of its
// red ones) is kept, not mapped to a grey. Ties are broken by colour
// value, so the result is deterministic; every other colour maps to the
// nearest palette entry in RGB.
func quantize(img *image.RGBA) *image.Paletted {
	b := img.Bounds()
	counts := make(map[color.RGBA]int)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[img.RGBAAt(x, y)]++
		}
	}
	type entry struct {
		c color.RGBA
		n int
	}
	all := make([]entry, 0, len(counts))
	for c, n := range counts {
		all = append(all, entry{c, n})
	}
	key := func(c color.RGBA) uint32 {
		return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
	}
	slices.SortFunc(all, func(a, b entry) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return int(int64(key(a.c)) - int64(key(b.c)))
	})
	distance := func(a, b color.RGBA) int {
		dr, dg, db := int(a.R)-int(b.R), int(a.G)-int(b.G), int(a.B)-int(b.B)
		return dr*dr + dg*dg + db*db
	}
	pal := make(color.Palette, 0, 256)
	index := make(map[color.RGBA]uint8, len(all))
	add := func(c color.RGBA) {
		index[c] = uint8(len(pal))
		pal = append(pal, c)
	}
	for _, e := range all[:min(len(all), frequentColours)] {
		add(e.c)
	}
	rest := all[len(pal):]
	if len(rest) > 256-len(pal) {
		// nearest[k]: the squared distance of rest[k] to the palette.
		nearest := make([]int, len(rest))
		for k, e := range rest {
			nearest[k] = math.MaxInt
			for _, q := range pal {
				nearest[k] = min(nearest[k], distance(e.c, q.(color.RGBA)))
			}
		}
		for len(pal) < 256 {
			pick, worst := -1, 0
			for k, e := range rest {
				if err := e.n * nearest[k]; err > worst {
					pick, worst = k, err
				}
			}
			if pick < 0 {
				break
			}
			c := rest[pick].c
			add(c)
			for k, e := range rest {
				nearest[k] = min(nearest[k], distance(e.c, c))
			}
		}
	} else {
		for _, e := range rest {
			add(e.c)
		}
	}
	for _, e := range rest {
		if _, ok := index[e.c]; ok {
			continue
		}
		best, bestD := 0, math.MaxInt
		for i, p := range pal {
			if d := distance(e.c, p.(color.RGBA)); d < bestD {
				best, bestD = i, d
			}
		}
		index[e.c] = uint8(best)
	}
	out := image.NewPaletted(b, pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := out.Pix[(y-b.Min.Y)*out.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			row[x-b.Min.X] = index[img.RGBAAt(x, y)]
		}
	}
	return out
}

// widen widens axis ranges that are empty or too narrow to hold ticks.
// gonum/plot widens an empty range by ±1, which is lost in rounding for
// values beyond 2⁵³ and then panics; a range narrower than 1e-12 of its
// values defeats its tick placement.
func widen(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if _, isLog := a.Scale.(plot.LogScale); isLog {
			continue
		}
		lo, hi := a.Min, a.Max
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
			continue // no data: gonum/plot shows [-1, 1]
		}
		mag := math.Max(math.Abs(lo), math.Abs(hi))
		if hi-lo > 1e-12*mag {
			continue
		}
		mid := lo/2 + hi/2
		d := math.Max(1, 0.05*mag)
		a.Min, a.Max = mid-d, mid+d
	}
}

// fitText returns s, or s shortened in the middle to its first and last
// runes around an ellipsis, so that it is at most width wide in style st
// before rotation. Labels come from column names of any length; one wider
// than its room squeezes the data area of a plot to nothing (or, in a
// pairs plot, to a negative size that gonum/plot fills for minutes). The
// text description keeps the whole name.
func fitText(st text.Style, s string, width vg.Length) string {
	if st.Width(s) <= width {
		return s
	}
	runes := []rune(s)
	shortened := func(keep int) string {
		head := (keep + 1) / 2
		return string(runes[:head]) + "…" + string(runes[len(runes)-(keep-head):])
	}
	return widestFitting(st, width, len(runes)-1, shortened)
}

// widestFitting returns cut(keep) for the largest keep in [0, most] whose
// text is at most width wide in style st, or cut(0) if none is: a binary
// search, since the width grows with the runes kept.
func widestFitting(st text.Style, width vg.Length, most int, cut func(keep int) string) string {
	lo, hi := 0, most
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if st.Width(cut(mid)) <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cut(lo)
}

// fitTitle fits the title of p into width, the width of the canvas the
// title is centred on, less a margin.
func fitTitle(p *plot.Plot, width vg.Length) {
	p.Title.Text = fitText(p.Title.TextStyle, p.Title.Text, width-vg.Points(12))
}

// trimmedTicks are gonum/plot's default ticks with the zeros that end every
// label dropped: gonum/plot gives a step of 25 or 2.5 two decimals, so
// that a rank plot's counts read 25.00, 50.00, 75.00 and a pairs plot's
// axis -2.50, 0.00, 2.50, a precision the values do not have.
type trimmedTicks struct{}

// Ticks implements plot.Ticker.
func (trimmedTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for {
		trim, labelled := true, 0
		for _, t := range ticks {
			if t.Label == "" {
				continue
			}
			labelled++
			if !strings.Contains(t.Label, ".") || !strings.HasSuffix(t.Label, "0") || strings.ContainsAny(t.Label, "eE") {
				trim = false
				break
			}
		}
		if !trim || labelled == 0 {
			return ticks
		}
		for i, t := range ticks {
			if t.Label != "" {
				ticks[i].Label = strings.TrimSuffix(strings.TrimSuffix(t.Label, "0"), ".")
			}
		}
	}
}

// sparseTicks are trimmedTicks whose labels, on an axis Room long drawn in
// Style, do not overlap: from the left, a label that would touch the last
// one kept loses its text (its tick stays). The small panels of a pairs
// plot printed 0.325, 0.425 and 0.525 as one run of digits.
type sparseTicks struct {
	Style text.Style
	Room  vg.Length
}

// Ticks implements plot.Ticker.
func (s sparseTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := trimmedTicks{}.Ticks(lo, hi)
	if !(hi > lo) {
		return ticks
	}
	gap := vg.Points(4)
	lastEnd, kept := vg.Length(0), false
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		at := vg.Length((t.Value-lo)/(hi-lo)) * s.Room
		half := s.Style.Width(t.Label) / 2
		if kept && at-half < lastEnd+gap {
			ticks[i].Label = ""
			continue
		}
		lastEnd, kept = at+half, true
	}
	return ticks
}

// unlabelled are the ticks of Ticker without their labels. An axis whose
// ticks should not be labelled uses it rather than a transparent label
// colour, which gonum/plot's SVG writer drops (its text has no opacity), so
// that the SVG showed labels the PNG hid.
type unlabelled struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ticks := u.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}

// fitLabels fits each of a set of labels into width (fitText), choosing
// where to cut so that the labels stay told apart: column names of a
// survey share long prefixes and suffixes (respondent_…_agreement_scale),
// and cutting each in its middle gave several the same label. It tries,
// in turn, cutting in the middle, keeping the end, keeping the start, and
// the same after leaving out what every label begins and ends with, and
// keeps the first whose labels are all different (else the one with the
// most different ones).
func fitLabels(st text.Style, labels []string, width vg.Length) []string {
	fits := true
	for _, l := range labels {
		fits = fits && st.Width(l) <= width
	}
	if fits {
		return labels
	}
	core, pre, suf := stripCommon(labels)
	var best []string
	bestDistinct := -1
	for _, strip := range []bool{false, true} {
		for _, keep := range []func(string, vg.Length) string{
			func(s string, w vg.Length) string { return fitText(st, s, w) },
			func(s string, w vg.Length) string { return fitEnd(st, s, w, false) },
			func(s string, w vg.Length) string { return fitEnd(st, s, w, true) },
		} {
			out := make([]string, len(labels))
			for i, l := range labels {
				if !strip || core[i] == "" {
					out[i] = keep(l, width)
					continue
				}
				out[i] = pre + keep(core[i], width-st.Width(pre+suf)) + suf
			}
			n := countDistinct(out)
			if n == len(out) {
				return out
			}
			if n > bestDistinct {
				best, bestDistinct = out, n
			}
		}
	}
	return best
}

// stripCommon returns each label without the longest prefix and suffix all
// labels share (empty when that leaves nothing), and marks of "…" for a
// prefix and a suffix that were left out ("" when none).
func stripCommon(labels []string) (core []string, pre, suf string) {
	if len(labels) < 2 {
		return make([]string, len(labels)), "", ""
	}
	rs := make([][]rune, len(labels))
	for i, l := range labels {
		rs[i] = []rune(l)
	}
	p, s := len(rs[0]), len(rs[0])
	for _, r := range rs[1:] {
		k := 0
		for k < min(p, len(r)) && r[k] == rs[0][k] {
			k++
		}
		p = k
		k = 0
		for k < min(s, len(r)) && r[len(r)-1-k] == rs[0][len(rs[0])-1-k] {
			k++
		}
		s = k
	}
	core = make([]string, len(labels))
	for i, r := range rs {
		if p+s < len(r) {
			core[i] = string(r[p : len(r)-s])
		}
	}
	if p > 0 {
		pre = "…"
	}
	if s > 0 {
		suf = "…"
	}
	return core, pre, suf
}

// fitEnd is fitText keeping the end of s (or, with start, its start) and
// an ellipsis where the rest was.
func fitEnd(st text.Style, s string, width vg.Length, start bool) string {
	if st.Width(s) <= width {
		return s
	}
	runes := []rune(s)
	cut := func(keep int) string {
		if start {
			return string(runes[:keep]) + "…"
		}
		return "…" + string(runes[len(runes)-keep:])
	}
	return widestFitting(st, width, len(runes)-1, cut)
}

// countDistinct is the number of different strings in ss.
func countDistinct(ss []string) int {
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		seen[s] = true
	}
	return len(seen)
}
