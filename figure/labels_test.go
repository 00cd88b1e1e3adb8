package figure

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

func TestFitText(t *testing.T) {
	st := textStyle(10, color.Black)
	long := `C[respondent_trust_item_00_agreement_scale, "Trust in the national parliament (2018 wave)"]`
	tests := []struct {
		name  string
		s     string
		width vg.Length
	}{
		{"short stays", "C[Y1, Y2]", 200},
		{"long shortened", long, 150},
		{"wide characters", strings.Repeat("数据名称", 20), 100},
		{"no room", long, 1},
		{"one rune over", "abcdefghij", st.Width("abcdefghi")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fitText(st, tc.s, tc.width)
			if st.Width(tc.s) <= tc.width {
				if got != tc.s {
					t.Fatalf("fitText(%q) = %q, but it fits", tc.s, got)
				}
				return
			}
			if !strings.Contains(got, "…") {
				t.Fatalf("fitText(%q) = %q: no ellipsis", tc.s, got)
			}
			head, tail, _ := strings.Cut(got, "…")
			if !strings.HasPrefix(tc.s, head) || !strings.HasSuffix(tc.s, tail) {
				t.Errorf("fitText(%q) = %q: not the start and end of the label", tc.s, got)
			}
			if w := st.Width(got); w > tc.width && got != "…" {
				t.Errorf("fitText(%q) = %q is %v wide, room %v", tc.s, got, w, tc.width)
			}
			// The widest that fits: one more rune would not.
			if more := []rune(head + tail); len(more) < len([]rune(tc.s))-1 {
				longer := fitText(st, tc.s, tc.width+st.Width("mm"))
				if len([]rune(longer)) <= len([]rune(got)) {
					t.Errorf("fitText with more room kept %q, no longer than %q", longer, got)
				}
			}
		})
	}
}

// TestLongLabelsFit draws every plot that shows column names with names
// far wider than their room: a pairs plot of two such quantities drew into a
// canvas of NaN height and rasterised it for over ten minutes (the plot
// statement never returned), an interval plot's rotated labels left no data
// area, and titles ran off both sides. Each figure must render with its
// names shortened in the picture (whole in the text description) and its
// data visible.
func TestLongLabelsFit(t *testing.T) {
	fx := newPlotFixture()
	name := func(i int) string {
		return fmt.Sprintf(`C[respondent_trust_item_%02d_agreement_scale, "Trust in the national parliament (2018 wave)"]`, i)
	}
	names := []string{name(1), name(2), name(3), name(4)}
	labels := make([]string, 30)
	m := make([]float64, 30*30)
	pairs := make([]string, 30)
	obs, lo, hi := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	for i := range labels {
		labels[i] = fmt.Sprintf("respondent_trust_item_%02d_agreement_scale_of_the_2018_wave", i)
		for j := range labels {
			m[i*30+j] = 1 - 2*float64((i+j)%31)/30
		}
		m[i*30+i] = 1
		obs[i], lo[i], hi[i] = float64(i)/30, float64(i)/30-0.1, float64(i)/30+0.1
	}
	for i := range pairs {
		pairs[i] = labels[i] + "–" + labels[29-i]
	}
	tests := []struct {
		name       string
		make       func() (*Figure, error)
		whole      string      // a name that must not be whole in the SVG
		dataColour color.NRGBA // a colour of the data the PNG must show
	}{
		{"pairs of two", func() (*Figure, error) { return Pairs("pairs", names[:2], fx.draws[:2]) },
			names[0], pairsHistColor()},
		{"pairs of four", func() (*Figure, error) { return Pairs(names[0], names, fx.draws) },
			names[0], pairsHistColor()},
		{"heatmap", func() (*Figure, error) { return Heatmap("posterior mean of m.C", labels, m) },
			labels[0], divergingColor(1)},
		{"intervals", func() (*Figure, error) {
			return Intervals("check m: Spearman's ρ of each pair", "", "ρ", pairs, obs, obs, lo, hi, make([]bool, 30))
		}, "", seriesColor(0)},
		{"trace title", func() (*Figure, error) { return Trace(names[0], fx.chains, 0) }, names[0], seriesColor(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			if tc.whole != "" && bytes.Contains(f.SVG, []byte(html.EscapeString(tc.whole))) {
				t.Errorf("SVG holds %q whole: it is wider than its room", tc.whole)
			}
			if !bytes.Contains(f.SVG, []byte("…")) {
				t.Error("SVG has no shortened label")
			}
			img, err := png.Decode(bytes.NewReader(f.PNG))
			if err != nil {
				t.Fatal(err)
			}
			want := color.RGBAModel.Convert(tc.dataColour)
			n := 0
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if color.RGBAModel.Convert(img.At(x, y)) == want {
						n++
					}
				}
			}
			if n < 100 {
				t.Errorf("the PNG shows %d pixels of the data colour %v, want at least 100", n, want)
			}
		})
	}
}

// TestHeatmapColoursAreValues renders heatmaps whose PNG is large (30
// long labels; many values) and checks that every cell's colour, and the
// colour bar's at −1, −0.5, 0, 0.5 and 1, is in the PNG exactly: the PNG
// of a figure over 80 KB was reduced to its 256 most frequent colours, and
// a heatmap's antialiased labels took most of them, so cells showed the
// nearest colour left and the colour bar turned grey below 0.
func TestHeatmapColoursAreValues(t *testing.T) {
	for _, p := range []int{12, 30, 40} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			labels := make([]string, p)
			m := make([]float64, p*p)
			for i := range p {
				labels[i] = fmt.Sprintf("respondent_item_%02d_agreement_scale", i)
				for j := range p {
					m[i*p+j] = math.Cos(float64(i*p+j) / 3) // values all over [−1, 1]
				}
			}
			f, err := Heatmap("posterior mean of m.C", labels, m)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(f.PNG))
			if err != nil {
				t.Fatal(err)
			}
			shown := map[color.RGBA]bool{}
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					shown[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
				}
			}
			missing := 0
			for _, v := range append(m, -1, -0.5, 0, 0.5, 1) {
				c := divergingColor(v)
				if !shown[color.RGBA{R: c.R, G: c.G, B: c.B, A: 0xFF}] {
					missing++
				}
			}
			// True colour costs the labels' antialiasing: about 110 KB at
			// p = 12 and 150 KB at p = 40 against 50 KB reduced.
			if len(f.PNG) > 200<<10 {
				t.Errorf("PNG is %d bytes, budget 200 KiB for a heatmap", len(f.PNG))
			}
			if missing > 0 {
				t.Errorf("%d of %d colours of cells and colour bar values are not in the PNG (%d bytes)", missing, p*p+5, len(f.PNG))
			}
		})
	}
}

// TestTickLabelsHaveNoSpareZeros checks the labels of the default axis
// ticks over ranges the plots meet (counts of a rank plot, iterations,
// correlations, draws of a pairs plot): no decimal zero ends every label,
// and each label still reads as its tick's value.
func TestTickLabelsHaveNoSpareZeros(t *testing.T) {
	for _, r := range [][2]float64{{0, 80}, {0, 75}, {0, 4000}, {1, 250}, {-3, 3}, {0, 2.6}, {-2.6, 2.6},
		{0.4, 0.6}, {-0.93, -0.81}, {0, 1}, {-1, 1}, {0, 0.00025}, {1e6, 3e6}, {0.001, 0.0013}} {
		var labels []string
		spare := true
		for _, tk := range (trimmedTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			labels = append(labels, tk.Label)
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
				t.Errorf("range %v: label %q of tick %v", r, tk.Label, tk.Value)
			}
			if !strings.Contains(tk.Label, ".") || !strings.HasSuffix(tk.Label, "0") {
				spare = false
			}
		}
		if len(labels) == 0 {
			t.Errorf("range %v: no labelled ticks", r)
		}
		if spare {
			t.Errorf("range %v: labels %q all end in a decimal zero", r, labels)
		}
	}
}

// TestNoNegativeZero checks that the numbers a heatmap prints in its cells
// and a pairs plot by its panels show no -0.00: the GSS's partial
// correlation of income and pchildren, -0.002, read -0.00.
func TestNoNegativeZero(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		decimals int
		want     string
	}{
		{-0.002, 2, "0.00"}, {-0.004999, 2, "0.00"}, {-0.005, 2, "-0.01"}, {0.001, 2, "0.00"}, {-1e-300, 3, "0.000"},
		{math.Copysign(0, -1), 2, "0.00"}, {-0.4, 0, "0"}, {-0.6, 0, "-1"}, {-12.3, 1, "-12.3"},
	} {
		if got := fixed(tc.v, tc.decimals); got != tc.want {
			t.Errorf("fixed(%v, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
	f, err := Heatmap("partial", []string{"income", "pchildren"}, []float64{1, -0.002, -0.002, 1})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(f.SVG, []byte("-0.00")) || !bytes.Contains(f.SVG, []byte(">0.00<")) {
		t.Errorf("heatmap cell of -0.002 is not printed 0.00")
	}
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{6.2525, 2.2515, 0.2505, 0.2495, 2.2485, 6.2475} // (x − 3.5)² − 0.001(x − 3.5): correlation −0.0007
	f, err = Pairs("p", []string{"x", "y"}, [][]float64{x, y})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(f.SVG, []byte("-0.00")) || !bytes.Contains(f.SVG, []byte("r = 0.00")) {
		t.Errorf("pairs plot prints a correlation of %v other than r = 0.00", correlation(x, y))
	}
}

// TestPairsPanelsShareAxes checks that every panel of a pairs plot's
// column spans its quantity's whole range on x, the diagonal histogram
// included, and every scatter panel of a row its quantity's on y. Each
// panel took its own range, the scatter panels from their thinned points:
// only the bottom row labels x, so the histograms above it were read
// against another panel's scale. Here quantity a has one outlying draw
// that thinning to 250 points per panel skips.
func TestPairsPanelsShareAxes(t *testing.T) {
	const n = 6000
	names := []string{"a", "b", "c", "d", "e"}
	draws := make([][]float64, len(names))
	for q := range draws {
		draws[q] = make([]float64, n)
		for i := range draws[q] {
			draws[q][i] = math.Sin(float64(i*(q+1))) * float64(q+1)
		}
	}
	draws[0][n-1] = 10 // one draw far out; the stride is 24
	if _, err := Pairs("p", names, draws); err != nil {
		t.Fatal(err)
	}
	k := len(names)
	hists := make([][]plotter.HistogramBin, k)
	widths := make([]float64, k)
	for q := range k {
		lo, hi, finite, _ := valueRange(draws[q])
		edges := binEdges(lo, hi, finite)
		hists[q], widths[q] = density(edges, draws[q]), edges[1]-edges[0]
	}
	points := make([]plotter.XYs, k*k)
	for i := range k {
		for j := range i {
			for s := 0; s < n; s += 24 {
				points[i*k+j] = append(points[i*k+j], plotter.XY{X: draws[j][s], Y: draws[i][s]})
			}
		}
	}
	plots := pairsPanels(130*k+90, names, hists, widths, points, make([]float64, k*k))
	for i := range k {
		for j := 0; j <= i; j++ {
			x := plots[i][j].X
			want := plots[j][j].X
			if x.Min != want.Min || x.Max != want.Max {
				t.Errorf("panel %d, %d spans [%v, %v] on x; the histogram of %s above it [%v, %v]", i+1, j+1, x.Min, x.Max, names[j], want.Min, want.Max)
			}
			if i > j {
				y, row := plots[i][j].Y, plots[i][i].X
				if y.Min != row.Min || y.Max != row.Max {
					t.Errorf("panel %d, %d spans [%v, %v] on y; %s spans [%v, %v]", i+1, j+1, y.Min, y.Max, names[i], plots[i][i].X.Min, plots[i][i].X.Max)
				}
			}
		}
	}
	if lo, hi := plots[k-1][0].X.Min, plots[k-1][0].X.Max; !(lo < -0.9 && hi >= 10) {
		t.Errorf("the scatter panel of a spans [%v, %v], not the outlying draw 10", lo, hi)
	}
}

// TestSparseTicksDoNotOverlap checks that the labels sparseTicks keeps
// on an axis of the given room do not touch, and that it keeps the first.
func TestSparseTicksDoNotOverlap(t *testing.T) {
	st := textStyle(7, color.Black)
	for _, tc := range []struct {
		lo, hi float64
		room   vg.Length
	}{
		{0.3, 0.55, 50}, {0.3, 0.55, 200}, {-0.05, 0.27, 40}, {0, 4000, 30}, {0.001, 0.0013, 60}, {-3, 3, 20},
	} {
		ticks := sparseTicks{Style: st, Room: tc.room}.Ticks(tc.lo, tc.hi)
		var kept []plot.Tick
		for _, tk := range ticks {
			if tk.Label != "" {
				kept = append(kept, tk)
			}
		}
		if len(kept) == 0 {
			t.Errorf("[%v, %v] in %v: no label kept", tc.lo, tc.hi, tc.room)
			continue
		}
		for a := 1; a < len(kept); a++ {
			pa := vg.Length((kept[a-1].Value-tc.lo)/(tc.hi-tc.lo)) * tc.room
			pb := vg.Length((kept[a].Value-tc.lo)/(tc.hi-tc.lo)) * tc.room
			if pb-pa < (st.Width(kept[a-1].Label)+st.Width(kept[a].Label))/2 {
				t.Errorf("[%v, %v] in %v: labels %q and %q overlap", tc.lo, tc.hi, tc.room, kept[a-1].Label, kept[a].Label)
			}
		}
	}
}

// TestPairsSVGHidesWhatPNGHides checks that the tick labels a pairs plot
// leaves off the panels above its bottom row are not in its SVG either:
// they were drawn in a transparent colour, which the SVG writer drops, so
// Notebook (which shows the SVG) printed every panel's tick labels. Each
// label of the first column's x axis must be in the SVG once, under the
// bottom panel.
func TestPairsSVGHidesWhatPNGHides(t *testing.T) {
	const n = 1000
	draws := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range n {
		u := float64(i) / n
		draws[0][i] = 137 + 60*math.Sin(7*u)     // about 77 to 197: labels like 100, 150
		draws[1][i] = 0.001 + 0.001*u*u          // 0.001 to 0.002
		draws[2][i] = -5000 + 2000*math.Cos(3*u) // -7000 to -3000
	}
	f, err := Pairs("p", []string{"a", "b", "c"}, draws)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, _, _ := valueRange(draws[0])
	edges := binEdges(lo, hi, n)
	checked := 0
	for _, tk := range (trimmedTicks{}).Ticks(edges[0], edges[len(edges)-1]) {
		if tk.Label == "" {
			continue
		}
		if c := bytes.Count(f.SVG, []byte(">"+tk.Label+"</text>")); c > 1 {
			t.Errorf("tick label %q of a is in the SVG %d times, want once (the bottom panel's)", tk.Label, c)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no tick labels to check")
	}
}

// TestLatentAxisSaysItsScale checks that a latent plot's y axis says that
// z is on the sampler's working scale: the GSS's and a simulation's latent
// means reach ±5 under an axis that said only "latent z", which reads as
// standard normal scores.
func TestLatentAxisSaysItsScale(t *testing.T) {
	f, err := Latent("z", []float64{1, 2, 3}, []float64{-5, 0, 5})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(f.SVG, []byte(html.EscapeString(latentAxis)+"</text>")) || !strings.Contains(latentAxis, "working scale") {
		t.Errorf("the latent plot's y axis does not say its scale")
	}
}

// TestIntervalsLabelledItemsSayWhat checks that an interval plot whose
// items are named on the x axis also says what they are: the cells of a
// two-way table were labelled "0–9, 1", "10–15, 0", … with no axis title,
// which left the reader to guess which column each part came from.
func TestIntervalsLabelledItemsSayWhat(t *testing.T) {
	labels := []string{"0–9, 0", "0–9, 1", "10–15, 0", "10–15, 1"}
	v := []float64{40, 130, 36, 122}
	const items = "cell (income, degree), row by row as in the table"
	f, err := Intervals("check hoff: counts of income × degree", items, "count", labels, v, v, v, v, make([]bool, len(v)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(f.SVG, []byte(html.EscapeString(items)+"</text>")) {
		t.Errorf("the x axis does not say what its labels are (want %q)", items)
	}
}

// TestTraceDrawsShortPaths checks that a trace draws each chain as paths
// of at most linePiece points (in its SVG, a path's points are its M and L
// commands), and that the paths pass through as many points as one path
// would. One path per chain (2000 points after bucketing) made the
// rasteriser's per-scan-line cell lists long: a trace of 4 chains × 10⁴
// draws took 3.7 s to draw, 8 × 10⁵ over a minute (BenchmarkTraceLongChains).
func TestTraceDrawsShortPaths(t *testing.T) {
	for _, n := range []int{2, linePiece, linePiece + 1, 5000} {
		chain := make([]float64, n)
		for i := range chain {
			chain[i] = math.Sin(float64(i))
		}
		f, err := Trace("t", [][]float64{chain}, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := seriesColor(0)
		stroke := fmt.Sprintf("stroke:#%02X%02X%02X", c.R, c.G, c.B)
		points, paths := 0, 0
		for _, el := range strings.Split(string(f.SVG), "<path ") {
			if !strings.Contains(el, stroke) || strings.Contains(el, "stroke-width:1.0") {
				continue // not the chain's line (its legend thumbnail is 1 line of 2 points)
			}
			d, _, _ := strings.Cut(el[strings.Index(el, `d="`)+3:], `"`)
			k := strings.Count(d, "M") + strings.Count(d, "L")
			if k > linePiece {
				t.Errorf("%d draws: a path of %d points, at most %d", n, k, linePiece)
			}
			points += k
			paths++
		}
		drawn := min(n, maxLinePoints)
		if want := drawn + paths - 1; paths == 0 || points < want-2 { // the legend's 2 points aside
			t.Errorf("%d draws: %d paths through %d points, want about %d", n, paths, points, want)
		}
	}
}

// BenchmarkTraceLongChains draws the trace of 4 chains × 10⁴ draws of an
// autocorrelated series, whose every bucket of draws spans most of the
// plot's height.
func BenchmarkTraceLongChains(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	chains := make([][]float64, 4)
	for c := range chains {
		chains[c] = make([]float64, 10000)
		v := 0.0
		for i := range chains[c] {
			v = 0.5*v + rng.NormFloat64()
			chains[c][i] = 0.3 + 0.05*v
		}
	}
	for b.Loop() {
		if _, err := Trace("C[1, 2]", chains, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFitLabelsKeepsThemApart fits sets of long names that differ only in
// their middle, their start or their end: each fits its room, and no two
// read the same. Cut in the middle, the items of a survey
// (respondent_trust_item_00_agreement_scale, …_05_…) and a row of C
// (C[respondent_…, "Trust in …"]) all read alike.
func TestFitLabelsKeepsThemApart(t *testing.T) {
	st := textStyle(7, color.Black)
	var survey, row, starts []string
	for i := range 30 {
		w := []string{"trust", "income", "health", "educ", "work"}[i%5]
		survey = append(survey, fmt.Sprintf("respondent_%s_item_%02d_agreement_scale", w, i))
		row = append(row, fmt.Sprintf(`C[respondent_%s_item_%02d_agreement_scale, "Trust in the national parliament (2018 wave)"]`, w, i))
		starts = append(starts, fmt.Sprintf("wave %d of the survey of household income and living conditions", i))
	}
	survey[3], survey[5] = "Trust in the national parliament (2018 wave)", "x"
	for _, tc := range []struct {
		name   string
		labels []string
		width  vg.Length
	}{
		{"survey items", survey, 100},
		{"a row of C", row, 90},
		{"differing at the start", starts, 60},
		{"short", []string{"Y1", "Y2"}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fitLabels(st, tc.labels, tc.width)
			if n := countDistinct(got); n != len(tc.labels) {
				t.Errorf("%d labels read as %d: %q", len(tc.labels), n, got)
			}
			for i, l := range got {
				if st.Width(l) > tc.width {
					t.Errorf("%q is %v wide, room %v", l, st.Width(l), tc.width)
				}
				if allFit(st, tc.labels, tc.width) && l != tc.labels[i] {
					t.Errorf("%q was shortened to %q though every label fits", tc.labels[i], l)
				}
			}
			t.Logf("%q", got[:min(6, len(got))])
		})
	}
}

func allFit(st text.Style, labels []string, width vg.Length) bool {
	for _, l := range labels {
		if st.Width(l) > width {
			return false
		}
	}
	return true
}

// TestGraphLabelsInside draws graphs of 8, 20, 50 and 51 columns with long
// names: the labels around the circle must be shortened to stay inside the
// figure (a column of pixels at either side or a row at the bottom that is
// not white is a label cut by the edge), the SVG must not hold a long name
// whole, and past 50 columns the nodes are numbered instead.
func TestGraphLabelsInside(t *testing.T) {
	for _, p := range []int{8, 20, 50, 51} {
		t.Run(strconv.Itoa(p), func(t *testing.T) {
			nodes := make([]string, p)
			var pairs []GraphPair
			for i := range nodes {
				nodes[i] = fmt.Sprintf("respondent_trust_item_%02d_agreement_scale_of_the_2018_wave", i)
				pairs = append(pairs, GraphPair{I: i, J: (i + p/2) % p, Mean: 0.5, Lo: 0.4, Hi: 0.6, Truth: math.NaN()})
				if p%2 == 0 && i >= p/2 {
					pairs = pairs[:len(pairs)-1] // (i, i + p/2) once
				}
			}
			f, err := Graph("graph", "partial correlation", nodes, pairs, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(f.SVG, []byte(nodes[0])) {
				t.Errorf("SVG holds %q whole", nodes[0])
			}
			numbered := bytes.Contains(f.SVG, []byte(">51<")) || bytes.Contains(f.SVG, []byte(">51</"))
			if p > maxGraphNames && (!numbered || bytes.Contains(f.SVG, []byte("respondent"))) {
				t.Errorf("%d nodes: labels are not numbers", p)
			}
			img, err := png.Decode(bytes.NewReader(f.PNG))
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			white := color.RGBAModel.Convert(color.White)
			legendX := b.Max.X - graphLegendWidth
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for _, x := range []int{b.Min.X, b.Min.X + 1, legendX - 1} {
					if color.RGBAModel.Convert(img.At(x, y)) != white {
						t.Fatalf("pixel (%d, %d) is drawn: a label runs into the edge of the graph's area", x, y)
					}
				}
			}
			for x := b.Min.X; x < legendX; x++ {
				for _, y := range []int{b.Max.Y - 1, b.Max.Y - 2} {
					if color.RGBAModel.Convert(img.At(x, y)) != white {
						t.Fatalf("pixel (%d, %d) is drawn: a label runs off the bottom", x, y)
					}
				}
			}
			n, want := 0, color.RGBAModel.Convert(graphPositive)
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < legendX; x++ {
					if color.RGBAModel.Convert(img.At(x, y)) == want {
						n++
					}
				}
			}
			if n < 100 {
				t.Errorf("%d pixels of the positive edges' colour, want at least 100", n)
			}
		})
	}
}

// TestGraphMissedEdgesDashedUpTo25: a true edge the graph misses is a
// dashed line up to 25 nodes; past them (hundreds of pairs, a factor
// model's truth not 0 in every one) the dashes greyed the whole circle,
// and they are left to the text, which counts them either way.
func TestGraphMissedEdgesDashedUpTo25(t *testing.T) {
	for _, p := range []int{MaxGraphMissed, MaxGraphMissed + 1} {
		nodes := make([]string, p)
		var pairs []GraphPair
		for i := range nodes {
			nodes[i] = fmt.Sprint("Y", i+1)
			// Every pair's truth is 0.1; only (i, i+1) is drawn.
			for j := i + 1; j < p; j++ {
				lo := -0.1
				if j == i+1 {
					lo = 0.05
				}
				pairs = append(pairs, GraphPair{I: i, J: j, Mean: 0.1, Lo: lo, Hi: 0.2, Truth: 0.1})
			}
		}
		f, err := Graph("g", "partial correlation", nodes, pairs, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		missed := len(pairs) - (p - 1)
		if want := fmt.Sprintf("%d drawn, %d missed", p-1, missed); !strings.Contains(f.Text, want) {
			t.Errorf("%d nodes: text %q does not say %q", p, f.Text, want)
		}
		// The legend's sample is one dashed line; the missed edges more.
		dashes := bytes.Count(f.SVG, []byte("stroke-dasharray"))
		if p <= MaxGraphMissed && dashes < missed {
			t.Errorf("%d nodes: %d dashed lines for %d missed true edges", p, dashes, missed)
		}
		if p > MaxGraphMissed && dashes > 0 {
			t.Errorf("%d nodes: %d dashed lines, want none", p, dashes)
		}
	}
}

// TestLongItemLabelsReadWhole: the posterior intervals of a difference of
// many items, each label too long for its room (o.C[pchildren, pdegree] −
// s.C[Y1, Y2]), show each label whole on two lines, a side of the
// difference on each, where they were cut mid-word (C[pchildren,…n,
// pdegree]); with 21 items the figure widens to give each item room for
// two lines. A label with no place to break is still shortened.
func TestLongItemLabelsReadWhole(t *testing.T) {
	cols := []string{"pchildren", "pdegree", "pincome", "children", "degree", "income", "age"}
	var labels, left, right []string
	for i := range cols {
		for j := i + 1; j < len(cols); j++ {
			l, r := fmt.Sprintf("o.C[%s, %s] −", cols[i], cols[j]), fmt.Sprintf("s.C[Y%d, Y%d]", i+1, j+1)
			labels, left, right = append(labels, l+" "+r), append(left, l), append(right, r)
		}
	}
	st := textStyle(8.5, color.Black)
	if st.Width(labels[0]) <= pixels(maxIntervalLabel) {
		t.Fatalf("%q fits its room: the test needs longer labels", labels[0])
	}
	draws := make([][][]float64, len(labels))
	for k := range draws {
		draws[k] = [][]float64{{float64(k), float64(k) + 1, float64(k) + 2}}
	}
	for _, n := range []int{6, 21} {
		f, err := PosteriorIntervals("o.C − s.C", "difference", labels[:n], draws[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			for _, side := range []string{left[k], right[k]} {
				if !bytes.Contains(f.SVG, []byte(">"+html.EscapeString(side)+"<")) {
					t.Errorf("%d items: the SVG has no line %q of the label %q", n, side, labels[k])
				}
			}
		}
		if bytes.Contains(f.SVG, []byte("…")) {
			t.Errorf("%d items: the SVG shortens a label", n)
		}
		img, err := png.Decode(bytes.NewReader(f.PNG))
		if err != nil {
			t.Fatal(err)
		}
		if w := img.Bounds().Dx(); n == 21 && w <= defaultWidth {
			t.Errorf("21 items of two-line labels in %d pixels, want wider than %d", w, defaultWidth)
		}
	}
	// No space to break at: shortened, as before.
	long := strings.Repeat("respondent_trust_item_agreement_scale_", 2)
	if got := readableLabels(st, []string{long + "a", long + "b"}, pixels(maxIntervalLabel), pixels(40)); !strings.Contains(got[0], "…") || got[0] == got[1] {
		t.Errorf("labels with no space read %q, want them shortened and apart", got)
	}
}
