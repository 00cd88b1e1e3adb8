package figure

// Plots of several quantities at once: the correlation heatmap and the
// pairs (scatter matrix) plot.

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const (
	heatmapWidth, heatmapHeight = 600, 520
	// maxCellValues is the largest p for which cell values are printed.
	maxCellValues = 12
	// maxCellLabels is the largest p for which every label is printed.
	maxCellLabels = 40
	// minRasterCells is the smallest p drawn as an image instead of one
	// rectangle per cell, which keeps the SVG small for large matrices.
	minRasterCells = 41
	// maxHeatmapLabel is the longest row or column label in pixels: longer
	// ones are shortened, so that the matrix keeps most of the figure.
	maxHeatmapLabel = 130

	// maxPairs is the largest number of quantities in a pairs plot.
	maxPairs = 6
	// maxScatterPoints bounds the points of all scatter panels together, and
	// minPanelPoints and maxPanelPoints the points of one panel: the SVG
	// size grows with the number of points.
	maxScatterPoints, minPanelPoints, maxPanelPoints = 4000, 250, 1500
)

// pairsHistColor fills the histograms of a pairs plot.
func pairsHistColor() color.NRGBA { return color.NRGBA{R: 0xB0, G: 0xC4, B: 0xDE, A: 0xFF} }

// Heatmap draws a p×p matrix m (row-major, values in [-1, 1], such as a
// correlation matrix) as coloured cells: −1 blue, 0 white, 1 red, with a
// colour bar. Row i is drawn at the top for i = 1, as a matrix is printed.
// labels name the rows and columns (p = len(labels)); cell values are printed
// when p ≤ 12. Values outside [−1, 1] take the colour of the nearer end; NaN
// cells are grey.
func Heatmap(title string, labels []string, m []float64) (*Figure, error) {
	return HeatmapWith(title, labels, m, HeatmapOptions{})
}

// HeatmapOptions are the choices of HeatmapWith.
type HeatmapOptions struct {
	// ByDependence orders the rows and columns by dependence
	// (OrderMatrix) rather than as given.
	ByDependence bool
	// Order, when not nil, is the order of the rows and columns, found
	// elsewhere (Order[k] is the column at position k; ByDependence is
	// then ignored): another matrix's order, so that two heatmaps share
	// it. OrderedBy says how it was found, after "ordered" in the title
	// and the description: "by dependence in old.C".
	Order     []int
	OrderedBy string
	// OrderBasis, when not nil (p×p), is the matrix Order was found
	// for, when it is not the one drawn (a difference ordered by both
	// fits' |means|): the description gives the mean |value| of its
	// neighbouring columns, which the order raised, rather than the
	// drawn matrix's.
	OrderBasis []float64
	// Scale, when positive, is the end of a colour scale symmetric about
	// 0, −Scale blue to Scale red (a difference's, whose values run −2..2);
	// 0 is the scale of correlations, −1..1.
	Scale float64
	// Framed, when not nil (p×p, as the matrix), frames the cells it
	// marks, in black, which reads in print and in grey-scale;
	// FrameLegend says what a frame means, under the matrix and in the
	// description.
	Framed      []bool
	FrameLegend string
}

// HeatmapWith is Heatmap with options. With opts.ByDependence the rows and
// columns are ordered by OrderMatrix, their labels with them; when that
// order is not column order, the title says "ordered by dependence" and
// the description how strongly neighbouring columns depend, in that order
// and in column order, and the columns in that order; when it is, the
// description says column order was kept.
func HeatmapWith(title string, labels []string, m []float64, opts HeatmapOptions) (*Figure, error) {
	p := len(labels)
	if p == 0 {
		return nil, fmt.Errorf("heatmap: no labels")
	}
	if len(m) != p*p {
		return nil, fmt.Errorf("heatmap: %d labels need a %d×%d matrix of %d values, got %d", p, p, p, p*p, len(m))
	}
	if opts.Framed != nil && len(opts.Framed) != p*p {
		return nil, fmt.Errorf("heatmap: %d labels need %d frame marks, got %d", p, p*p, len(opts.Framed))
	}
	if opts.Order != nil && !isPermutation(opts.Order, p) {
		return nil, fmt.Errorf("heatmap: the order %v is not one of %d columns", opts.Order, p)
	}
	scale := 1.0
	if opts.Scale > 0 && !math.IsInf(opts.Scale, 0) {
		scale = opts.Scale
	}
	framed := opts.Framed
	var orderNote string
	var order []int // the column at each position; nil in column order
	if opts.Order != nil {
		basis := m
		if opts.OrderBasis != nil {
			if len(opts.OrderBasis) != p*p {
				return nil, fmt.Errorf("heatmap: %d labels need a %d×%d matrix the order was found for, got %d values", p, p, p, len(opts.OrderBasis))
			}
			basis = opts.OrderBasis
		}
		o := MatrixOrder{Order: opts.Order, Neighbours: neighbourDependence(p, basis, opts.Order), ColumnNeighbours: neighbourDependence(p, basis, identityOrder(p))}
		orderNote = "; rows and columns ordered " + opts.OrderedBy + ": " + o.Text(labels)
		order = opts.Order
		if framed != nil {
			framed = permuteMarks(p, framed, order)
		}
		m, labels = permuteMatrix(p, m, labels, order)
		title = strings.TrimPrefix(title+", ordered "+opts.OrderedBy, ", ")
	} else if opts.ByDependence {
		o := OrderMatrix(p, m)
		if o.Reordered() {
			orderNote = "; rows and columns ordered by dependence: " + o.Text(labels)
			order = o.Order
			if framed != nil {
				framed = permuteMarks(p, framed, order)
			}
			m, labels = permuteMatrix(p, m, labels, order)
			if title != "" {
				title += ", ordered by dependence"
			} else {
				title = "ordered by dependence"
			}
		} else {
			orderNote = fmt.Sprintf("; in column order, which no order by dependence betters (mean |value| of neighbouring columns %s)", fixed(o.ColumnNeighbours, 2))
		}
	}
	// The description names the strongest off-diagonal entry.
	bi, bj, best := -1, -1, math.Inf(-1)
	nan := 0
	for i := range p {
		for j := range p {
			v := m[i*p+j]
			if math.IsNaN(v) {
				nan++
				continue
			}
			if i < j && math.Abs(v) > best {
				bi, bj, best = i, j, math.Abs(v)
			}
		}
	}
	if order != nil && bi >= 0 && order[bi] > order[bj] {
		bi, bj = bj, bi // named in column order, as without the order
	}
	var desc strings.Builder
	fmt.Fprintf(&desc, "Heatmap of %s: %d×%d", subject(title), p, p)
	if bi >= 0 {
		fmt.Fprintf(&desc, ", largest off-diagonal |value| %s at [%s, %s]", num(best), rowName(labels, bi), rowName(labels, bj))
	}
	if nan > 0 {
		fmt.Fprintf(&desc, "; %d NaN cells", nan)
	}
	if opts.Scale > 0 {
		fmt.Fprintf(&desc, "; colour scale %s to %s", num(-scale), num(scale))
	}
	if framed != nil {
		fmt.Fprintf(&desc, "; %s %s (%s)", count(framedPairs(p, framed), "pair"), FrameMark(p), opts.FrameLegend)
	}
	desc.WriteString(orderNote)

	var raster *image.RGBA
	if p >= minRasterCells {
		raster = rasterize(p, m, scale, framed)
	}
	return renderColors(heatmapWidth, heatmapHeight, desc.String(), false, func(dc draw.Canvas) {
		pl := newPanel(title, "", "")
		pl.Add(&matrixCells{p: p, m: m, raster: raster, scale: scale, framed: framed})
		pl.X.Min, pl.X.Max = -0.5, float64(p)-0.5
		pl.Y.Min, pl.Y.Max = -0.5, float64(p)-0.5
		pl.X.Padding, pl.Y.Padding = 0, 0
		if p <= maxCellLabels {
			size := vg.Length(8.5)
			if p > 20 {
				size = 6.5
			}
			pl.X.Tick.Label.Font, pl.Y.Tick.Label.Font = sans(size), sans(size)
			xt := make(plot.ConstantTicks, p)
			yt := make(plot.ConstantTicks, p)
			for i, l := range fitLabels(pl.Y.Tick.Label, labels, pixels(maxHeatmapLabel)) {
				xt[i] = plot.Tick{Value: float64(i), Label: l}
				yt[i] = plot.Tick{Value: float64(p - 1 - i), Label: l}
			}
			pl.X.Tick.Marker, pl.Y.Tick.Marker = xt, yt
			if p > 6 || longestLabel(labels) > 6 {
				pl.X.Tick.Label.Rotation = math.Pi / 2
				pl.X.Tick.Label.XAlign = draw.XRight
				pl.X.Tick.Label.YAlign = draw.YCenter
			}
		} else {
			pl.X.Label.Text = fmt.Sprintf("column (1..%d)", p)
			pl.Y.Label.Text = fmt.Sprintf("row (1..%d)", p)
			ticks := indexTicks(p)
			if order != nil {
				// The ticks name the column at their place.
				pl.X.Label.Text = "column, ordered by dependence"
				pl.Y.Label.Text = "row, ordered by dependence"
				for k, t := range ticks {
					ticks[k].Label = fmt.Sprint(order[int(t.Value)] + 1)
				}
			}
			pl.X.Tick.Marker = ticks
			rev := make(plot.ConstantTicks, len(ticks))
			for i, t := range ticks {
				rev[i] = plot.Tick{Value: float64(p-1) - t.Value, Label: t.Label}
			}
			pl.Y.Tick.Marker = rev
		}
		if framed != nil && opts.FrameLegend != "" {
			legend := FrameMark(p) + ": " + opts.FrameLegend
			if pl.X.Label.Text != "" {
				legend = pl.X.Label.Text + "\n" + legend
			}
			pl.X.Label.Text = legend
			pl.X.Label.TextStyle.Font = sans(9)
		}
		// Split the canvas: the matrix on the left, the colour bar on
		// the right; then make the matrix area square.
		barW := pixels(70)
		left := draw.Crop(dc, 0, -barW, 0, 0)
		da := pl.DataCanvas(left)
		sz := da.Size()
		if d := sz.X - sz.Y; d > 0 {
			left = draw.Crop(left, d/2, -d/2, 0, 0)
		} else if d < 0 {
			left = draw.Crop(left, 0, 0, -d, 0)
		}
		fitHeatmapTitle(pl, left.Size().X)
		pl.Draw(left)
		da = pl.DataCanvas(left)
		colorBar(dc, da.Max.X+pixels(18), da.Min.Y, da.Max.Y, scale)
	})
}

// fitHeatmapTitle fits the title of a heatmap into width: a title too
// long for one line whose order is named after ", ordered " (posterior
// mean of old.C − young.C, ordered by dependence in old.C and young.C)
// takes two, the order on the second, each line fitted; otherwise it is
// shortened, as fitTitle shortens titles.
func fitHeatmapTitle(p *plot.Plot, width vg.Length) {
	st := p.Title.TextStyle
	room := width - vg.Points(12)
	if what, order, ok := strings.Cut(p.Title.Text, ", ordered "); ok && st.Width(p.Title.Text) > room {
		p.Title.Text = fitText(st, what, room) + "\n" + fitText(st, "ordered "+order, room)
		return
	}
	fitTitle(p, width)
}

// longestLabel is the length in runes of the longest label.
func longestLabel(labels []string) int {
	n := 0
	for _, l := range labels {
		n = max(n, len([]rune(l)))
	}
	return n
}

// indexTicks labels every 10th (or 50th, ...) row of a large matrix,
// 1-based.
func indexTicks(p int) plot.ConstantTicks {
	step := 10
	for p/step > 10 {
		step *= 5
		if p/step > 10 {
			step *= 2
		}
	}
	var ticks plot.ConstantTicks
	for i := 1; i <= p; i++ {
		if i == 1 || i%step == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(i - 1), Label: fmt.Sprint(i)})
		}
	}
	return ticks
}

// divergingColor maps v in [-1, 1] to a diverging blue–white–red colour
// (ColorBrewer RdBu stops at −1, −½, 0, ½, 1, with pure white at 0),
// interpolated linearly in RGB. NaN is grey.
func divergingColor(v float64) color.NRGBA {
	if math.IsNaN(v) {
		return color.NRGBA{R: 0xBD, G: 0xBD, B: 0xBD, A: 0xFF}
	}
	stops := [...]color.NRGBA{
		{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF},
		{R: 0x92, G: 0xC5, B: 0xDE, A: 0xFF},
		{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF},
		{R: 0xF4, G: 0xA5, B: 0x82, A: 0xFF},
		{R: 0xB2, G: 0x18, B: 0x2B, A: 0xFF},
	}
	t := (math.Max(-1, math.Min(1, v)) + 1) * 2 // in [0, 4]
	i := min(int(t), 3)
	f := t - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xFF}
}

// maxFramedCells is the most columns whose marked cells a heatmap frames;
// past it a cell has less than 5 pixels a side on the page, where a frame
// of one pixel, whatever it is drawn as, covers most of it and leaves no
// colour to read (120 columns drew a grid of black), so marked cells get
// a dot in their middle instead.
const maxFramedCells = 96

// FrameMark says how a heatmap of p columns marks the cells of
// HeatmapOptions.Framed, for the text that counts them: "framed", or
// "dotted" past maxFramedCells columns.
func FrameMark(p int) string {
	if p > maxFramedCells {
		return "dotted"
	}
	return "framed"
}

// rasterize paints the matrix as an image with several pixels per cell,
// so that viewers that smooth scaled images blur only the cell borders,
// coloured on a scale of ±scale. Cells framed (nil: none) get a black
// ring of pixels inside their edge, at least 5 pixels a cell then, so that
// a frame leaves the colour in its middle: drawn as lines, the frames of
// 120 columns half framed made an SVG of 1 MB. Past maxFramedCells
// columns they get a black dot in the middle instead (FrameMark).
func rasterize(p int, m []float64, scale float64, framed []bool) *image.RGBA {
	k := max(1, 480/p)
	ring, dot := 0, 0
	switch {
	case framed != nil && p > maxFramedCells:
		// A dot in the middle (a fifth to a third of the cell), in a
		// finer raster, at most about 2400 pixels a side, than the few
		// pixels a cell then has on the page.
		k = max(5, min(11, 2400/p))
		dot = k / 2
	case framed != nil:
		k = max(k, 5)
		ring = max(1, k/8)
	}
	img := image.NewRGBA(image.Rect(0, 0, p*k, p*k))
	for i := range p {
		for j := range p {
			c := divergingColor(m[i*p+j] / scale)
			frame := framed != nil && framed[i*p+j]
			for y := i * k; y < (i+1)*k; y++ {
				for x := j * k; x < (j+1)*k; x++ {
					px := color.RGBA{R: c.R, G: c.G, B: c.B, A: 0xFF}
					// The ring sits one pixel inside the cell's edge
					// (when the cell has room), so that frames of
					// neighbouring cells stay apart.
					in := min(x-j*k, (j+1)*k-1-x, y-i*k, (i+1)*k-1-y)
					ringed := ring > 0 && in >= min(1, (k-2*ring-1)/2) && in < min(1, (k-2*ring-1)/2)+ring
					dotted := dot > 0 && in >= (k-dot)/2
					if frame && (ringed || dotted) {
						px = color.RGBA{A: 0xFF}
					}
					img.SetRGBA(x, y, px)
				}
			}
		}
	}
	return img
}

// matrixCells draws the matrix cells (and their values when p is small),
// coloured on a scale of ±scale, and a frame around each cell framed
// marks.
type matrixCells struct {
	p      int
	m      []float64
	raster *image.RGBA // non-nil: draw this image instead of rectangles
	scale  float64
	framed []bool // nil: no frames
}

// Plot implements plot.Plotter.
func (h *matrixCells) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	p := h.p
	if h.raster != nil {
		c.DrawImage(vg.Rectangle{
			Min: vg.Point{X: trX(-0.5), Y: trY(-0.5)},
			Max: vg.Point{X: trX(float64(p) - 0.5), Y: trY(float64(p) - 0.5)},
		}, h.raster) // with its frames
		return
	}
	size := vg.Length(9)
	switch {
	case p > 9:
		size = 7
	case p > 6:
		size = 8
	}
	dark := textStyle(size, color.Black)
	light := textStyle(size, color.White)
	for i := range p {
		y := float64(p - 1 - i)
		for j := range p {
			v := h.m[i*p+j]
			x := float64(j)
			// Cells overlap by a hair so that no seams show between them.
			pts := []vg.Point{
				{X: trX(x - 0.5), Y: trY(y - 0.5)},
				{X: trX(x+0.5) + 0.1, Y: trY(y - 0.5)},
				{X: trX(x+0.5) + 0.1, Y: trY(y+0.5) + 0.1},
				{X: trX(x - 0.5), Y: trY(y+0.5) + 0.1},
			}
			c.FillPolygon(divergingColor(v/h.scale), pts)
			if p > maxCellValues {
				continue
			}
			st, label := dark, fixed(v, 2)
			switch {
			case math.IsNaN(v):
				label = "NA"
			case math.Abs(v) > 0.6*h.scale:
				st = light
			}
			c.FillText(st, vg.Point{X: trX(x), Y: trY(y)}, label)
		}
	}
	h.frames(c, trX, trY)
}

// frames draws a black frame inside each framed cell, its line a tenth
// of the cell's side (at most 2 points, at least a hair), so that the
// frames of neighbouring cells stay apart.
func (h *matrixCells) frames(c draw.Canvas, trX, trY func(float64) vg.Length) {
	if h.framed == nil {
		return
	}
	p := h.p
	side := trX(1) - trX(0)
	w := max(min(side/10, vg.Points(2)), vg.Points(0.4))
	st := lineStyle(color.Black, float64(w/vg.Points(1)))
	inset := w/2 + side/20
	for i := range p {
		y := float64(p - 1 - i)
		for j := range p {
			if !h.framed[i*p+j] {
				continue
			}
			x := float64(j)
			x0, x1 := trX(x-0.5)+inset, trX(x+0.5)-inset
			y0, y1 := trY(y-0.5)+inset, trY(y+0.5)-inset
			c.StrokeLines(st, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
		}
	}
}

// permuteMarks returns the p×p marks in order, as permuteMatrix orders a
// matrix.
func permuteMarks(p int, marks []bool, order []int) []bool {
	out := make([]bool, p*p)
	for a, i := range order {
		for b, j := range order {
			out[a*p+b] = marks[i*p+j]
		}
	}
	return out
}

// framedPairs counts the pairs of columns whose cell above the diagonal
// is marked.
func framedPairs(p int, marks []bool) int {
	n := 0
	for i := range p {
		for j := i + 1; j < p; j++ {
			if marks[i*p+j] {
				n++
			}
		}
	}
	return n
}

// isPermutation reports whether order holds each of 0..p-1 once.
func isPermutation(order []int, p int) bool {
	if len(order) != p {
		return false
	}
	seen := make([]bool, p)
	for _, c := range order {
		if c < 0 || c >= p || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// colorBar draws a vertical colour bar for [−scale, scale] from y0 to y1
// at x, with ticks at its ends, halves and 0 (−1, −0.5, 0, 0.5 and 1 for
// correlations). The gradient is an image, which has no seams between
// slices.
func colorBar(c draw.Canvas, x, y0, y1 vg.Length, scale float64) {
	w := pixels(16)
	// One image row per pixel of the PNG, so that nothing is resampled.
	steps := max(2, int(math.Round((y1 - y0).Dots(dpi))))
	cols := int(math.Round(w.Dots(dpi)))
	img := image.NewRGBA(image.Rect(0, 0, cols, steps))
	for k := range steps {
		col := divergingColor(1 - 2*(float64(k)+0.5)/float64(steps)) // image rows run top down
		for x := range cols {
			img.SetRGBA(x, k, color.RGBA{R: col.R, G: col.G, B: col.B, A: 0xFF})
		}
	}
	c.DrawImage(vg.Rectangle{Min: vg.Point{X: x, Y: y0}, Max: vg.Point{X: x + w, Y: y1}}, img)
	frame := lineStyle(color.Gray{Y: 80}, 0.5)
	c.StrokeLines(frame, []vg.Point{{X: x, Y: y0}, {X: x + w, Y: y0}, {X: x + w, Y: y1}, {X: x, Y: y1}, {X: x, Y: y0}})
	st := text.Style{Color: color.Black, Font: sans(8.5), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	for _, v := range []float64{-1, -0.5, 0, 0.5, 1} {
		y := y0 + vg.Length((v+1)/2)*(y1-y0)
		c.StrokeLine2(frame, x+w, y, x+w+vg.Points(3), y)
		c.FillText(st, vg.Point{X: x + w + vg.Points(5), Y: y}, fmt.Sprintf("%g", v*scale))
	}
}

// rowName is the name of row i: its label, or its 1-based number.
func rowName(labels []string, i int) string {
	if labels[i] != "" {
		return labels[i]
	}
	return fmt.Sprint(i + 1)
}

// Pairs draws a scatter matrix of up to six quantities: histograms of
// each on the diagonal, scatter plots of each pair below it, and the
// correlation of each pair above it. draws[k] are the pooled draws of
// quantity k, named names[k]; all must have the same, positive length.
// Each scatter panel shows at most 1500 points (250 with six quantities),
// thinned by a fixed stride.
func Pairs(title string, names []string, draws [][]float64) (*Figure, error) {
	k := len(names)
	switch {
	case k == 0:
		return nil, fmt.Errorf("pairs plot: no quantities")
	case k > maxPairs:
		return nil, fmt.Errorf("pairs plot: %d quantities, at most %d fit", k, maxPairs)
	case len(draws) != k:
		return nil, fmt.Errorf("pairs plot: %d names but %d series of draws", k, len(draws))
	}
	n := len(draws[0])
	if n == 0 {
		return nil, fmt.Errorf("pairs plot: no draws")
	}
	for i, d := range draws {
		if len(d) != n {
			return nil, fmt.Errorf("pairs plot: %s has %d draws but %s has %d", names[i], len(d), names[0], n)
		}
	}

	perPanel := maxPanelPoints
	if pairs := k * (k - 1) / 2; pairs > 0 {
		perPanel = min(maxPanelPoints, max(minPanelPoints, maxScatterPoints/pairs))
	}
	stride := max(1, (n+perPanel-1)/perPanel)
	corr := make([]float64, k*k)
	hists := make([][]plotter.HistogramBin, k)
	widths := make([]float64, k)
	nonFinite := 0
	for i := range k {
		lo, hi, finite, bad := valueRange(draws[i])
		nonFinite += bad
		edges := binEdges(lo, hi, finite)
		hists[i] = density(edges, draws[i])
		if len(edges) > 1 {
			widths[i] = edges[1] - edges[0]
		}
		for j := range i {
			corr[i*k+j] = correlation(draws[i], draws[j])
			corr[j*k+i] = corr[i*k+j]
		}
	}
	scatter := func(i, j int) plotter.XYs { // x = quantity j, y = quantity i
		xy := make(plotter.XYs, 0, n/stride+1)
		for t := 0; t < n; t += stride {
			x, y := draws[j][t], draws[i][t]
			if drawable(x) && drawable(y) {
				xy = append(xy, plotter.XY{X: x, Y: y})
			}
		}
		return xy
	}
	points := make([]plotter.XYs, k*k)
	for i := range k {
		for j := range i {
			points[i*k+j] = scatter(i, j)
		}
	}

	var desc strings.Builder
	fmt.Fprintf(&desc, "Pairs plot of %s: %s of %s", subject(title), count(n, "draw"), strings.Join(names, ", "))
	if k > 1 {
		bi, bj := 1, 0
		for i := range k {
			for j := range i {
				if math.Abs(corr[i*k+j]) > math.Abs(corr[bi*k+bj]) || math.IsNaN(corr[bi*k+bj]) {
					bi, bj = i, j
				}
			}
		}
		// Too few draws, or draws that do not vary, leave every
		// correlation undefined: say nothing rather than "NaN".
		if !math.IsNaN(corr[bi*k+bj]) {
			fmt.Fprintf(&desc, "; strongest correlation %s between %s and %s", fixed(corr[bi*k+bj], 2), names[bj], names[bi])
		}
	}
	desc.WriteString(nonFiniteNote(nonFinite))

	side := max(400, 130*k+90)
	return render(side, side, desc.String(), func(dc draw.Canvas) {
		titleH := drawTitle(dc, title, vg.Points(8))
		plots := pairsPanels(side, names, hists, widths, points, corr)
		tiles := draw.Tiles{Rows: k, Cols: k, PadX: vg.Points(4), PadY: vg.Points(4),
			PadTop: titleH + vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
		canvases := plot.Align(plots, tiles, dc)
		for i := range k {
			for j := range k {
				if sz := canvases[i][j].Size(); !(sz.X > 0 && sz.Y > 0) {
					// Drawing into a negative or NaN box rasterises for minutes.
					panic(fmt.Sprintf("panel %d, %d has no room (%v × %v)", i+1, j+1, sz.X, sz.Y))
				}
				plots[i][j].Draw(canvases[i][j])
			}
		}
	})
}

// correlation is the Pearson correlation of the pairs where both
// values are finite; NaN when fewer than two or either is constant.
func correlation(x, y []float64) float64 {
	var n, mx, my float64
	for t := range x {
		if drawable(x[t]) && drawable(y[t]) {
			n++
			mx += x[t]
			my += y[t]
		}
	}
	if n < 2 {
		return math.NaN()
	}
	mx /= n
	my /= n
	var sxx, syy, sxy float64
	for t := range x {
		if drawable(x[t]) && drawable(y[t]) {
			dx, dy := x[t]-mx, y[t]-my
			sxx += dx * dx
			syy += dy * dy
			sxy += dx * dy
		}
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// nanToZero maps NaN to 0.
func nanToZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// pairsPanels makes the k×k panels of a pairs plot side pixels wide:
// histograms of each quantity on the diagonal (hists, of bin widths
// widths), scatter plots of points[i*k+j] (x quantity j, y quantity i)
// below it and the correlations corr above it. Every panel of column j
// spans quantity j's range on x, and every scatter panel of row i quantity
// i's on y, so that the tick labels of the bottom row and the left column
// read for the whole column or row, the diagonal histograms included.
func pairsPanels(side int, names []string, hists [][]plotter.HistogramBin, widths []float64, points []plotter.XYs, corr []float64) [][]*plot.Plot {
	k := len(names)
	span := make([][2]float64, k)
	for i, h := range hists {
		span[i] = [2]float64{math.Inf(1), math.Inf(-1)}
		if len(h) > 0 {
			span[i] = [2]float64{h[0].Min, h[len(h)-1].Max}
		}
	}
	// A name runs along one panel (the y names rotated): at most its
	// side, less the tick labels'.
	room := pixels(side/k) - vg.Points(24)
	axisNames := fitLabels(newPanel("", "", "").X.Label.TextStyle, names, room)
	plots := make([][]*plot.Plot, k)
	for i := range k {
		plots[i] = make([]*plot.Plot, k)
		for j := range k {
			pl := newPlot("", "", "")
			if i < j {
				pl = newPanel("", "", "")
			}
			pl.X.Tick.Label.Font = sans(7)
			pl.Y.Tick.Label.Font = sans(7)
			pl.X.Tick.Marker = sparseTicks{Style: pl.X.Tick.Label, Room: room - vg.Points(16)}
			switch {
			case i == j:
				if len(hists[i]) > 0 {
					pl.Add(&plotter.Histogram{
						Bins: hists[i], Width: widths[i],
						FillColor: pairsHistColor(),
						LineStyle: lineStyle(color.White, 0.4),
					})
				}
				pl.Y.Min = 0
				pl.Y.Tick.Marker = unlabelled{pl.Y.Tick.Marker}
			case i > j:
				pl.Add(&plotter.Scatter{XYs: points[i*k+j], GlyphStyle: draw.GlyphStyle{
					Color: withAlpha(seriesColor(0), 0.35), Radius: vg.Points(1.1), Shape: draw.CircleGlyph{},
				}})
			default:
				r := corr[i*k+j]
				label := "r = NA"
				if !math.IsNaN(r) {
					label = "r = " + fixed(r, 2)
				}
				st := textStyle(vg.Length(9+5*math.Abs(nanToZero(r))), color.Black)
				pl.Add(centerText{Text: label, Style: st})
				pl.HideAxes()
			}
			if i == k-1 {
				pl.X.Label.Text = axisNames[j]
			} else if i >= j {
				pl.X.Tick.Marker = unlabelled{pl.X.Tick.Marker}
			}
			if j == 0 && i > 0 {
				pl.Y.Label.Text = axisNames[i]
			} else if i > j {
				pl.Y.Tick.Marker = unlabelled{pl.Y.Tick.Marker}
			}
			if i >= j && span[j][0] <= span[j][1] {
				pl.X.Min, pl.X.Max = span[j][0], span[j][1]
			}
			if i > j && span[i][0] <= span[i][1] {
				pl.Y.Min, pl.Y.Max = span[i][0], span[i][1]
			}
			widen(pl)
			plots[i][j] = pl
		}
	}
	return plots
}

// drawTitle writes title centred at the top of dc, shortened to its width,
// and returns the height it takes with pad below and above (0 for no
// title).
func drawTitle(dc draw.Canvas, title string, pad vg.Length) vg.Length {
	if title == "" {
		return 0
	}
	st := textStyle(12, color.Black)
	h := st.Height(title) + pad
	dc.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - h/2}, fitText(st, title, dc.Size().X-vg.Points(12)))
	return h
}
