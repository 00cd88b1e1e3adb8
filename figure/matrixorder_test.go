package figure

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// blockMatrix is a p×p correlation-like matrix of columns in blocks
// (column i in block[i]): within rather than between blocks each pair
// has within, and every pair noise drawn uniformly from ±spread, with rng
// (symmetric, 1 on the diagonal).
func blockMatrix(block []int, within, spread float64, rng *rand.Rand) []float64 {
	p := len(block)
	m := make([]float64, p*p)
	for i := range p {
		m[i*p+i] = 1
		for j := i + 1; j < p; j++ {
			v := spread * (2*rng.Float64() - 1)
			if block[i] == block[j] {
				v += within
			}
			m[i*p+j], m[j*p+i] = v, v
		}
	}
	return m
}

// contiguousBlocks reports whether each block's columns sit side by side
// in order (the columns by position).
func contiguousBlocks(block, order []int) bool {
	seen := map[int]bool{}
	for k, c := range order {
		b := block[c]
		if k > 0 && block[order[k-1]] == b {
			continue
		}
		if seen[b] {
			return false
		}
		seen[b] = true
	}
	return true
}

// TestOrderMatrixRecoversShuffledBlocks: a heatmap's rows and columns
// ordered by dependence put each block of columns that depend within
// blocks side by side, where column order scattered them, and their
// neighbours depend more than in column order.
func TestOrderMatrixRecoversShuffledBlocks(t *testing.T) {
	for _, tt := range []struct {
		name           string
		p, k           int
		within, spread float64
	}{
		{"two blocks of 4", 8, 2, 0.4, 0.05},
		{"three blocks of 10", 30, 3, 0.5, 0.1},
		{"three weak blocks of 10", 30, 3, 0.2, 0.1},
		{"four blocks of 15", 60, 4, 0.3, 0.1},
		{"six blocks of 5", 30, 6, 0.4, 0.1},
		// Past maxSpectralColumns the local moves start from column
		// order alone.
		{"five blocks of 82, past the spectral order's columns", maxSpectralColumns + 10, 5, 0.3, 0.1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			block := shuffledBlocks(tt.p, tt.k, 7)
			m := blockMatrix(block, tt.within, tt.spread, rand.New(rand.NewPCG(11, uint64(tt.p))))
			if contiguousBlocks(block, identityOrder(tt.p)) {
				t.Fatalf("the blocks are already side by side in column order: %v", block)
			}
			o := OrderMatrix(tt.p, m)
			t.Logf("mean |value| of neighbours %.3f, %.3f in column order", o.Neighbours, o.ColumnNeighbours)
			if !o.Reordered() || o.Neighbours <= o.ColumnNeighbours {
				t.Errorf("neighbours %.3f, %.3f in column order: want more", o.Neighbours, o.ColumnNeighbours)
			}
			if got := neighbourDependence(tt.p, m, o.Order); got != o.Neighbours {
				t.Errorf("Neighbours %v, but the order's neighbours have %v", o.Neighbours, got)
			}
			if !contiguousBlocks(block, o.Order) {
				blocks := make([]int, tt.p)
				for k, c := range o.Order {
					blocks[k] = block[c]
				}
				t.Errorf("the blocks are not side by side: blocks by position %v", blocks)
			}
			sorted := slices.Clone(o.Order)
			slices.Sort(sorted)
			if !slices.Equal(sorted, identityOrder(tt.p)) {
				t.Errorf("order %v is not a permutation", o.Order)
			}
		})
	}
}

// TestOrderMatrixNeverWorseThanColumnOrder: on random symmetric matrices
// (fixed seeds), blocks already side by side, a matrix of zeros, NaN cells
// and one column, the order's neighbours depend no less than column
// order's, column order is kept where no order was found better, and the
// order is the same each time.
func TestOrderMatrixNeverWorseThanColumnOrder(t *testing.T) {
	type matrix struct {
		name string
		p    int
		m    []float64
	}
	var cases []matrix
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 3))
		p := 1 + int(seed)%20
		block := make([]int, p)
		for i := range block {
			block[i] = rng.IntN(3)
		}
		cases = append(cases, matrix{fmt.Sprintf("random %d", seed), p, blockMatrix(block, 0.3*rng.Float64(), 0.3, rng)})
	}
	sorted := []int{0, 0, 0, 1, 1, 1, 2, 2, 2}
	cases = append(cases,
		matrix{"blocks in column order", 9, blockMatrix(sorted, 0.5, 0, rand.New(rand.NewPCG(1, 1)))},
		matrix{"zeros", 4, make([]float64, 16)},
		matrix{"NaN", 3, []float64{1, math.NaN(), 0.2, math.NaN(), 1, 0.5, 0.2, 0.5, 1}},
		matrix{"one column", 1, []float64{1}},
	)
	for _, tt := range cases {
		o := OrderMatrix(tt.p, tt.m)
		if o.Neighbours < o.ColumnNeighbours {
			t.Errorf("%s: neighbours %.4f, less than column order's %.4f", tt.name, o.Neighbours, o.ColumnNeighbours)
		}
		if o.Reordered() != (o.Neighbours > o.ColumnNeighbours) {
			t.Errorf("%s: reordered %v with neighbours %.4f, %.4f in column order", tt.name, o.Reordered(), o.Neighbours, o.ColumnNeighbours)
		}
		if again := OrderMatrix(tt.p, tt.m); !slices.Equal(again.Order, o.Order) {
			t.Errorf("%s: order %v, then %v", tt.name, o.Order, again.Order)
		}
	}
}

// TestHeatmapOrderedByDependence: a heatmap ordered by dependence says so
// in its title and description, lists the columns in its order, and names
// the strongest cell by its columns' names; one in column order says that
// no order betters it.
func TestHeatmapOrderedByDependence(t *testing.T) {
	block := shuffledBlocks(12, 3, 7)
	m := blockMatrix(block, 0.5, 0.1, rand.New(rand.NewPCG(2, 2)))
	labels := make([]string, 12)
	for i := range labels {
		labels[i] = fmt.Sprintf("item%d", i+1)
	}
	f, err := HeatmapWith("posterior mean of m.C", labels, m, HeatmapOptions{ByDependence: true})
	if err != nil {
		t.Fatal(err)
	}
	o := OrderMatrix(12, m)
	names := make([]string, 12)
	for k, c := range o.Order {
		names[k] = labels[c]
	}
	for _, want := range []string{
		`Heatmap of "posterior mean of m.C, ordered by dependence": 12×12`,
		"rows and columns ordered by dependence: mean |value| of neighbouring columns",
		"; columns " + strings.Join(names, ", "),
	} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("description %q lacks %q", f.Text, want)
		}
	}
	plain, err := Heatmap("posterior mean of m.C", labels, m)
	if err != nil {
		t.Fatal(err)
	}
	// The strongest cell is the same pair of columns either way.
	best := func(s string) string {
		_, after, _ := strings.Cut(s, "largest off-diagonal")
		before, _, _ := strings.Cut(after, ";")
		return before
	}
	if a, b := best(f.Text), best(plain.Text); a != b {
		t.Errorf("largest cell %q ordered by dependence, %q in column order", a, b)
	}
	if strings.Contains(plain.Text, "dependence") {
		t.Errorf("a heatmap in column order says %q", plain.Text)
	}

	kept, err := HeatmapWith("C", []string{"a", "b", "c"}, []float64{1, 0.5, 0.1, 0.5, 1, 0.5, 0.1, 0.5, 1}, HeatmapOptions{ByDependence: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "in column order, which no order by dependence betters (mean |value| of neighbouring columns 0.50)"; !strings.Contains(kept.Text, want) {
		t.Errorf("description %q lacks %q", kept.Text, want)
	}
}

// TestHeatmapOfADifference: a heatmap may take its order from elsewhere
// (another matrix's, so that two heatmaps share it), a colour scale of
// ±Scale and frames around marked cells; the title and the description say
// each, the order moves the frames with their cells, and a bad order or
// marks of another size are errors.
func TestHeatmapOfADifference(t *testing.T) {
	labels := []string{"a", "b", "c"}
	m := []float64{0, 0.1, -0.2, 0.1, 0, 0.05, -0.2, 0.05, 0}
	framed := []bool{false, false, true, false, false, false, true, false, false} // [a, c]
	cases := []struct {
		name    string
		opts    HeatmapOptions
		want    []string
		wantErr string
	}{
		{name: "given order", opts: HeatmapOptions{Order: []int{2, 0, 1}, OrderedBy: "by dependence in old.C"},
			want: []string{`Heatmap of "d, ordered by dependence in old.C": 3×3`, "rows and columns ordered by dependence in old.C: mean |value| of neighbouring columns 0.15, 0.08 in column order; columns c, a, b"}},
		{name: "given order wins over by dependence", opts: HeatmapOptions{Order: []int{0, 1, 2}, OrderedBy: "by dependence in old.C", ByDependence: true},
			want: []string{`"d, ordered by dependence in old.C"`, "; columns a, b, c"}},
		{name: "order found for another matrix", opts: HeatmapOptions{Order: []int{2, 0, 1}, OrderedBy: "by dependence in a.C and b.C", OrderBasis: []float64{1, 0.1, 0.8, 0.1, 1, 0.6, 0.8, 0.6, 1}},
			want: []string{"rows and columns ordered by dependence in a.C and b.C: mean |value| of neighbouring columns 0.45, 0.35 in column order; columns c, a, b"}},
		{name: "basis of another size", opts: HeatmapOptions{Order: []int{2, 0, 1}, OrderBasis: []float64{1}}, wantErr: "the order was found for, got 1 values"},
		{name: "scale", opts: HeatmapOptions{Scale: 0.25}, want: []string{"largest off-diagonal |value| 0.2 at [a, c]; colour scale -0.25 to 0.25"}},
		{name: "frames", opts: HeatmapOptions{Scale: 0.25, Framed: framed, FrameLegend: "central 90% interval excludes 0"},
			want: []string{"; 1 pair framed (central 90% interval excludes 0)"}},
		{name: "not an order", opts: HeatmapOptions{Order: []int{0, 0, 1}}, wantErr: "is not one of 3 columns"},
		{name: "short order", opts: HeatmapOptions{Order: []int{0, 1}}, wantErr: "is not one of 3 columns"},
		{name: "marks of another size", opts: HeatmapOptions{Framed: framed[:4]}, wantErr: "need 9 frame marks, got 4"},
	}
	for _, c := range cases {
		f, err := HeatmapWith("d", labels, m, c.opts)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(f.Text, w) {
				t.Errorf("%s: description %q lacks %q", c.name, f.Text, w)
			}
		}
	}
}

// TestHeatmapFramesMarkedCells: a frame is black: a heatmap with the
// pair [a, c] framed has dark pixels the one without has not, twice as
// many with [a, b] framed too (two cells each), and marks of none frame
// nothing. A difference's scale colours a value v as v/Scale on the scale
// of correlations.
func TestHeatmapFramesMarkedCells(t *testing.T) {
	labels := []string{"a", "b", "c"}
	m := []float64{0, 0.1, -0.2, 0.1, 0, 0.05, -0.2, 0.05, 0}
	dark := func(framed []bool) int {
		f, err := HeatmapWith("d", labels, m, HeatmapOptions{Scale: 0.25, Framed: framed, FrameLegend: "x"})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(f.PNG))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r < 0x2000 && g < 0x2000 && bl < 0x2000 {
					n++
				}
			}
		}
		return n
	}
	none := dark(make([]bool, 9))
	one := dark([]bool{false, false, true, false, false, false, true, false, false})
	two := dark([]bool{false, true, true, true, false, false, true, false, false})
	if none >= one || one >= two {
		t.Errorf("dark pixels: %d with no frame, %d with one pair framed, %d with two", none, one, two)
	}
	if a, b := one-none, two-one; math.Abs(float64(a-b)) > 0.1*float64(a) {
		t.Errorf("a framed pair adds %d dark pixels, the next %d: want as many", a, b)
	}
	img := rasterize(2, []float64{0.1, -0.25, 0.3, 0}, 0.2, nil)
	for k, want := range []color.NRGBA{divergingColor(0.5), divergingColor(-1), divergingColor(1), divergingColor(0)} {
		k0 := max(1, 480/2)
		got := img.RGBAAt(k%2*k0, k/2*k0)
		if got.R != want.R || got.G != want.G || got.B != want.B {
			t.Errorf("cell %d: colour %v, want %v", k, got, want)
		}
	}
}

// TestHeatmapTitleTakesTwoLines: a heatmap's title too long for one line
// whose order is named after ", ordered " takes two, the order on the
// second, rather than losing its middle to an ellipsis (posterior mean of
// mold.C − my…ndence in mold.C and myoung.C, as on the GSS by age).
func TestHeatmapTitleTakesTwoLines(t *testing.T) {
	labels := []string{"a", "b", "c"}
	m := []float64{0, 0.1, -0.2, 0.1, 0, 0.05, -0.2, 0.05, 0}
	f, err := HeatmapWith("posterior mean of mold.C − myoung.C", labels, m, HeatmapOptions{Order: []int{2, 0, 1}, OrderedBy: "by dependence in mold.C and myoung.C"})
	if err != nil {
		t.Fatal(err)
	}
	svg := string(f.SVG)
	for _, line := range []string{">posterior mean of mold.C − myoung.C<", ">ordered by dependence in mold.C and myoung.C<"} {
		if !strings.Contains(svg, line) {
			t.Errorf("the SVG has no title line %q", line)
		}
	}
	if strings.Contains(svg, "…") {
		t.Errorf("the SVG shortens the title")
	}
}

// TestRasterFramesMarkedCells: past minRasterCells columns the matrix is
// an image, and its frames are pixels of it, not lines over it (drawn as
// lines, 120 columns half framed made an SVG of 1 MB): a framed cell has a
// black ring inside its edge and its colour in the middle and at its
// edge, an unframed one its colour throughout; a cell has at least 5
// pixels a side when frames are drawn, so that the ring leaves a middle.
// Past maxFramedCells columns a marked cell has a black dot in its
// middle instead (TestDenseHeatmapMarksLeaveTheColour says why).
func TestRasterFramesMarkedCells(t *testing.T) {
	for _, p := range []int{2, 50, 300} {
		m := make([]float64, p*p)
		framed := make([]bool, p*p)
		m[1], framed[1] = 0.3, true // row 0, column 1
		m[p] = 0.3                  // row 1, column 0: not framed
		img := rasterize(p, m, 0.4, framed)
		k := img.Bounds().Dx() / p
		if k < 5 || img.Bounds().Dx() != p*k {
			t.Fatalf("p = %d: %d pixels a cell", p, k)
		}
		want := divergingColor(0.75)
		colour := func(x, y int) bool {
			c := img.RGBAAt(x, y)
			return c.R == want.R && c.G == want.G && c.B == want.B
		}
		black := func(x, y int) bool { c := img.RGBAAt(x, y); return c.R == 0 && c.G == 0 && c.B == 0 }
		mid := k / 2
		if p > maxFramedCells {
			// A dot in the middle, the cell's colour around it.
			if !black(k+mid, mid) || !colour(k+1, mid) || !colour(k, 0) || !colour(mid, k+mid) {
				t.Errorf("p = %d (%d pixels a cell): marked middle %v, inside its edge %v; unmarked middle %v",
					p, k, img.RGBAAt(k+mid, mid), img.RGBAAt(k+1, mid), img.RGBAAt(mid, k+mid))
			}
			continue
		}
		if !colour(k+mid, mid) || !black(k+1, mid) || !colour(mid, k+mid) || !colour(1, k+mid) || black(1, k+mid) {
			t.Errorf("p = %d (%d pixels a cell): framed middle %v, ring %v; unframed middle %v, edge %v",
				p, k, img.RGBAAt(k+mid, mid), img.RGBAAt(k+1, mid), img.RGBAAt(mid, k+mid), img.RGBAAt(1, k+mid))
		}
		if k > 5 && !colour(k, mid) {
			t.Errorf("p = %d (%d pixels a cell): the ring touches the cell's edge %v", p, k, img.RGBAAt(k, mid))
		}
	}
	big := 120
	m := make([]float64, big*big)
	framed := make([]bool, big*big)
	for k := range framed {
		framed[k] = k%2 == 0
	}
	f, err := HeatmapWith("d", make([]string, big), m, HeatmapOptions{Scale: 0.4, Framed: framed, FrameLegend: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(f.SVG), "<path"); n > 100 {
		t.Errorf("the SVG of %d columns, half framed, has %d paths: the frames are lines", big, n)
	}
}

// markedHalf renders a heatmap of p columns whose every cell is 0.3 on a
// scale of ±0.4, the cells of its left half marked (Framed), and returns,
// over that half of the PNG (found in a rendering with no cell marked, as
// the columns of the cell's colour; 3 pixels in from its edges), the share
// of pixels within 24 levels of the cell's colour in every channel, and
// how much darker the half is than the colour (1 − the ratio of their
// luminances).
func markedHalf(t *testing.T, p int) (colour, darker float64) {
	t.Helper()
	m := make([]float64, p*p)
	none, half := make([]bool, p*p), make([]bool, p*p)
	for k := range m {
		m[k], half[k] = 0.3, k%p < p/2
	}
	decode := func(marks []bool) image.Image {
		f, err := HeatmapWith("d", make([]string, p), m, HeatmapOptions{Scale: 0.4, Framed: marks, FrameLegend: "x"})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(f.PNG))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	plain, marked := decode(none), decode(half)
	want := divergingColor(0.75)
	rgb := func(img image.Image, x, y int) [3]float64 {
		r, g, b, _ := img.At(x, y).RGBA()
		return [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
	}
	cell := [3]float64{float64(want.R), float64(want.G), float64(want.B)}
	bd := plain.Bounds()
	x0, x1, y0, y1 := bd.Max.X, -1, bd.Max.Y, -1
	for x := bd.Min.X; x < bd.Max.X; x++ {
		n := 0
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			if rgb(plain, x, y) == cell {
				n++
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
		if n > bd.Dy()/2 {
			x0, x1 = min(x0, x), max(x1, x)
		}
	}
	if x1-x0 < 100 || y1-y0 < 100 {
		t.Fatalf("p = %d: the matrix found at x %d..%d, y %d..%d", p, x0, x1, y0, y1)
	}
	lum := func(c [3]float64) float64 { return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2] }
	n, close, sum := 0, 0, 0.0
	for y := y0 + 3; y <= y1-3; y++ {
		for x := x0 + 3; x <= x0+(x1-x0)/2-4; x++ {
			c := rgb(marked, x, y)
			n++
			sum += lum(c)
			if math.Abs(c[0]-cell[0]) <= 24 && math.Abs(c[1]-cell[1]) <= 24 && math.Abs(c[2]-cell[2]) <= 24 {
				close++
			}
		}
	}
	return float64(close) / float64(n), 1 - sum/float64(n)/lum(cell)
}

// TestDenseHeatmapMarksLeaveTheColour: past 96 columns a framed cell had
// less than 5 pixels a side on the page, and its frame covered it: 120
// columns of a difference drew a grid of black, 34% of the framed cells'
// pixels keeping their colour (6% at 200 columns). There a marked cell
// gets a dot in its middle instead: 56% keep it at 120 columns (60% at
// 97, 34% at 200), more than the 42% that frames leave at 60 columns,
// where they read well, while the mark still darkens the cells it marks
// by a fifth. (At 300 columns a cell is 1.5 pixels, and no mark of it
// leaves its colour: none is asserted.)
func TestDenseHeatmapMarksLeaveTheColour(t *testing.T) {
	for _, tt := range []struct {
		p                    int
		mark                 string
		minColour, minDarker float64
	}{
		{60, "framed", 0.4, 0.15},
		{96, "framed", 0.4, 0.15},
		{97, "dotted", 0.5, 0.15},
		{120, "dotted", 0.5, 0.15},
		{200, "dotted", 0.3, 0.15},
	} {
		colour, darker := markedHalf(t, tt.p)
		if colour < tt.minColour || darker < tt.minDarker || FrameMark(tt.p) != tt.mark {
			t.Errorf("p = %d, %s (want %s): %.2f of the marked cells' pixels keep their colour (want at least %.2f), %.2f darker (want at least %.2f)",
				tt.p, FrameMark(tt.p), tt.mark, colour, tt.minColour, darker, tt.minDarker)
		}
	}
}
