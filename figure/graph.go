package figure

// The conditional-dependence graph of a fit: one node per column on a
// circle, and an edge for each pair whose central posterior interval
// excludes 0.

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GraphPair is one pair of nodes I and J of a graph: the posterior mean of
// the scalar that links them (a partial correlation, an entry of C, a
// difference of these), the ends Lo and Hi of its central interval, and its
// true value (NaN when unknown).
type GraphPair struct {
	I, J         int
	Mean, Lo, Hi float64
	Truth        float64
}

// Edge reports whether the pair is an edge of the graph: its mean and
// interval are finite and the interval excludes 0. It is not a posterior
// probability of an edge: there is no prior over graphs.
func (p GraphPair) Edge() bool {
	return drawable(p.Mean) && drawable(p.Lo) && drawable(p.Hi) && (p.Lo > 0 || p.Hi < 0)
}

// trueEdgeTolerance is the |truth| above which a pair is a true edge: a
// partial correlation computed from a correlation matrix with a zero in
// its inverse comes out as a rounding error, not exactly 0.
const trueEdgeTolerance = 1e-9

// TrueEdge reports whether the pair's truth is known and not 0.
func (p GraphPair) TrueEdge() bool { return drawable(p.Truth) && math.Abs(p.Truth) > trueEdgeTolerance }

const (
	graphWidth, graphHeight = 720, 600
	// graphLegendWidth is the width of the legend column on the right.
	graphLegendWidth = 170
	// maxGraphNames is the most nodes labelled by name; past it they are
	// numbered in the order given, and past maxGraphNumbers every
	// graphNumberStep-th is.
	maxGraphNames, maxGraphNumbers, graphNumberStep = 50, 100, 10
	// maxGraphLabel is the longest node label in pixels: longer ones are
	// shortened (the text description keeps whole names).
	maxGraphLabel = 110
	// maxGraphOpaque is the most edges drawn opaque; more are drawn
	// partly transparent, so that the ones beneath show through.
	maxGraphOpaque = 100
)

// MaxGraphMissed is the most nodes of a graph whose missed true edges are
// drawn: past it the pairs are hundreds, a factor model's true partial
// correlations are all not 0, and the dashes of the missed ones grey the
// whole circle over. The text counts them still.
const MaxGraphMissed = 25

// graphPositive and graphNegative are the colours of positive and negative
// edges: the ends of the heatmap's RdBu scale (divergingColor), which
// colour-blind readers tell apart.
var (
	graphPositive = color.NRGBA{R: 0xB2, G: 0x18, B: 0x2B, A: 0xFF}
	graphNegative = color.NRGBA{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF}
)

// falseEdgeMark marks the middle of an edge drawn where the truth is 0.
var falseEdgeMark = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}

// edgeWidth is the width in points of an edge of mean m in a graph of p
// nodes: from 0.75 at 0 to 6.75 at |m| ≥ 1 up to 15 nodes, and thinner, by
// √(15/p), past them, where the edges are many and close together.
func edgeWidth(m float64, p int) float64 {
	return (0.75 + 6*math.Min(1, math.Abs(m))) * math.Sqrt(15/float64(max(p, 15)))
}

// GraphOptions are the settings of a graph that have defaults.
type GraphOptions struct {
	// MaxEdges is the most edges drawn, the strongest by |mean|; 0 is
	// DefaultGraphEdges of the number of nodes.
	MaxEdges int
}

// DefaultGraphEdges is the most edges a graph of p nodes draws unless told:
// 3p, and at least 30. Past about three edges a node the chords of 40 or
// more nodes fill the circle and no edge can be followed; a graph of
// blocks of items draws its within-block edges, the strongest, whole.
func DefaultGraphEdges(p int) int { return max(30, 3*p) }

// Graph is GraphWith with the default options.
func Graph(title, what string, nodes []string, pairs []GraphPair, prob float64) (*Figure, error) {
	return GraphWith(title, what, nodes, pairs, prob, GraphOptions{})
}

// GraphWith draws a conditional-dependence graph: nodes, named by nodes, on a
// circle clockwise from the top, and for each pair that
// is an Edge (its central prob interval excludes 0) a line whose width
// grows with |mean|, red when the mean is positive and blue when negative.
// Pairs whose interval holds 0 are not drawn. When truths are known, a
// true edge not drawn is a thin black dashed line (up to 25 nodes) and an edge drawn where
// the truth is 0 has a black cross at its middle, so that misses and false
// edges show. what
// names the scalars ("partial correlation"). The text description counts
// the edges and names the strongest.
//
// Only the opts.MaxEdges strongest edges are drawn, and the text and the
// legend say so. The nodes are ordered by dependence (dependenceOrder):
// the first node at the top, and the others where fewer drawn edges
// cross than in the order given, if there is such an order; else in the
// order given.
func GraphWith(title, what string, nodes []string, pairs []GraphPair, prob float64, opts GraphOptions) (*Figure, error) {
	p := len(nodes)
	if p == 0 {
		return nil, fmt.Errorf("graph: no nodes")
	}
	seen := make(map[[2]int]bool, len(pairs))
	pairs = slices.Clone(pairs)
	for k, pr := range pairs {
		if pr.I > pr.J {
			pairs[k].I, pairs[k].J = pr.J, pr.I // named in the nodes' order
		}
		if pr.I < 0 || pr.J < 0 || pr.I >= p || pr.J >= p || pr.I == pr.J {
			return nil, fmt.Errorf("graph: pair (%d, %d) is not two of the %d nodes", pr.I+1, pr.J+1, p)
		}
		key := [2]int{min(pr.I, pr.J), max(pr.I, pr.J)}
		if seen[key] {
			return nil, fmt.Errorf("graph: pair (%d, %d) given twice", key[0]+1, key[1]+1)
		}
		seen[key] = true
	}
	// Edges are drawn weakest first, so that the strongest lie on top.
	var edges, missed []GraphPair
	positive, trueEdges, trueKnown, found, falseEdges, nonFinite := 0, 0, 0, 0, 0, 0
	for _, pr := range pairs {
		if !drawable(pr.Mean) || !drawable(pr.Lo) || !drawable(pr.Hi) {
			nonFinite++
		}
		if drawable(pr.Truth) {
			trueKnown++
		}
		if pr.TrueEdge() {
			trueEdges++
		}
		switch {
		case pr.Edge():
			edges = append(edges, pr)
			if pr.Mean > 0 {
				positive++
			}
			if pr.TrueEdge() {
				found++
			} else if drawable(pr.Truth) {
				falseEdges++
			}
		case pr.TrueEdge() && p <= MaxGraphMissed:
			missed = append(missed, pr)
		}
	}
	layout := LayoutGraph(p, pairs, opts)
	drawn, allEdges := layout.Drawn, len(edges)

	var desc strings.Builder
	// The session titles it "graph of m.partial": the description says
	// "Graph of m.partial", not "Graph of "graph of m.partial"".
	about := subject(title)
	if rest, ok := strings.CutPrefix(title, "graph of "); ok && rest != "" {
		about = rest
	}
	fmt.Fprintf(&desc, "Graph of %s: %s, %d of %s %s (%s central %s interval excludes 0), %d positive and %d negative",
		about, count(p, "node"), len(edges), count(len(pairs), "pair"), EdgesVerb(len(edges)), EdgesTheir(len(edges)), percent(prob), positive, len(edges)-positive)
	if n := len(drawn); n > 0 {
		s := drawn[n-1]
		fmt.Fprintf(&desc, "; strongest %s–%s %s", nodes[s.I], nodes[s.J], fixed(s.Mean, 2))
	}
	if trueKnown > 0 {
		// With some edges not drawn, the counts are of every edge: "found",
		// not "drawn" (251 drawn beside "only the 72 strongest drawn").
		found1 := "drawn"
		if layout.Capped() {
			found1 = "found"
		}
		fmt.Fprintf(&desc, "; %d true edges (truth not 0): %d %s, %d missed; %d %s where the truth is 0", trueEdges, found, found1, trueEdges-found, falseEdges, found1)
		if layout.Capped() {
			desc.WriteString(" (counting every edge, drawn or not)")
		}
	}
	if nonFinite > 0 {
		fmt.Fprintf(&desc, "; %d pairs with non-finite values not drawn", nonFinite)
	}
	if len(drawn) < allEdges {
		fmt.Fprintf(&desc, "; only the %d strongest of the %d edges drawn", len(drawn), allEdges)
	}
	if layout.Reordered() {
		fmt.Fprintf(&desc, "; nodes ordered by dependence, %s", layout.OrderText())
	}

	labels := graphLabels(nodes)
	return render(graphWidth, graphHeight, desc.String(), func(dc draw.Canvas) {
		titleH := drawTitle(dc, title, vg.Points(10))
		legendW := pixels(graphLegendWidth)
		area := draw.Crop(dc, 0, -legendW, 0, -titleH)
		drawGraph(area, labels, layout.Positions, drawn, missed, trueKnown > 0)
		var notes []string
		if len(drawn) < allEdges {
			notes = append(notes, fmt.Sprintf("Only the %d strongest of the %d edges are drawn.", len(drawn), allEdges))
		}
		if layout.Reordered() {
			notes = append(notes, fmt.Sprintf("Nodes ordered by dependence: %s.", layout.OrderText()))
		}
		drawGraphLegend(draw.Crop(dc, dc.Size().X-legendW, 0, 0, -titleH), p, what, prob, trueKnown > 0, notes)
	})
}

// GraphLayout is what a graph draws: the position of each node on the
// circle, clockwise from the top, and the edges drawn, weakest first, of
// Edges; and how many pairs of them cross there and in column order.
type GraphLayout struct {
	Positions                  []int
	Drawn                      []GraphPair
	Edges                      int
	Crossings, ColumnCrossings int
}

// LayoutGraph lays out a graph of p nodes and pairs (each I < J): its
// edges (Edge) weakest first, ties in the pairs' order, the strongest
// opts.MaxEdges of them drawn, and its nodes ordered by dependence
// (dependenceOrder).
func LayoutGraph(p int, pairs []GraphPair, opts GraphOptions) GraphLayout {
	var edges []GraphPair
	for _, pr := range pairs {
		if pr.Edge() {
			edges = append(edges, pr)
		}
	}
	slices.SortStableFunc(edges, func(a, b GraphPair) int {
		if c := cmpFloat(math.Abs(a.Mean), math.Abs(b.Mean)); c != 0 {
			return c
		}
		return cmpFloat(float64(a.I*p+a.J), float64(b.I*p+b.J))
	})
	maxEdges := opts.MaxEdges
	if maxEdges <= 0 {
		maxEdges = DefaultGraphEdges(p)
	}
	l := GraphLayout{Drawn: edges[max(0, len(edges)-maxEdges):], Edges: len(edges)}
	l.Positions, l.Crossings, l.ColumnCrossings = dependenceOrder(p, l.Drawn)
	return l
}

// Reordered reports whether the nodes are ordered by dependence, not in
// column order.
func (l GraphLayout) Reordered() bool { return l.Crossings < l.ColumnCrossings }

// Capped reports whether some edges are not drawn.
func (l GraphLayout) Capped() bool { return len(l.Drawn) < l.Edges }

// OrderText says how many drawn edges cross in the layout's order and in
// column order: "4 edge crossings, 85 in column order".
func (l GraphLayout) OrderText() string {
	return fmt.Sprintf("%s, %d in column order", count(l.Crossings, "edge crossing"), l.ColumnCrossings)
}

// EdgesVerb is what n pairs are, after "n of m pairs": "is an edge" for
// one, "are edges" otherwise.
func EdgesVerb(n int) string {
	if n == 1 {
		return "is an edge"
	}
	return "are edges"
}

// EdgesTheir is the pronoun of n edges' intervals: "its" for one edge,
// "their" otherwise (1 of 1 pair is an edge, its interval ...).
func EdgesTheir(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// cmpFloat orders a and b.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// percent is prob as a percentage, as "90%" or "95.5%".
func percent(prob float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*prob), "0"), ".") + "%"
}

// graphLabels are the labels of the nodes: their names up to
// maxGraphNames nodes, numbers past it (every graphNumberStep-th past
// maxGraphNumbers, the others unlabelled).
func graphLabels(nodes []string) []string {
	p := len(nodes)
	out := make([]string, p)
	for i := range p {
		switch {
		case p <= maxGraphNames:
			out[i] = nodes[i]
			if out[i] == "" {
				out[i] = fmt.Sprint(i + 1)
			}
		case p <= maxGraphNumbers || i == 0 || (i+1)%graphNumberStep == 0:
			out[i] = fmt.Sprint(i + 1)
		}
	}
	return out
}

// graphLabelSize is the size in points of the node labels of a graph of p
// nodes.
func graphLabelSize(p int) vg.Length {
	switch {
	case p <= 12:
		return 10
	case p <= 25:
		return 8.5
	}
	return 7
}

// drawGraph draws the nodes labelled labels on a circle in c, node i at
// position pos[i] clockwise from the top, the edges (weakest first) and
// the missed true edges.
func drawGraph(c draw.Canvas, labels []string, pos []int, edges, missed []GraphPair, truthKnown bool) {
	p := len(labels)
	labelStyle := textStyle(graphLabelSize(p), color.Black)
	room := min(pixels(maxGraphLabel), 0.25*min(c.Size().X, c.Size().Y))
	labels = fitLabels(labelStyle, labels, room)
	widest := vg.Length(0)
	for _, l := range labels {
		widest = max(widest, labelStyle.Width(l))
	}
	centre := vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
	radius := min(c.Size().X, c.Size().Y)/2 - widest - pixels(28)
	if p <= 12 {
		// Upright labels beside the nodes take their height above and
		// below, their width at the sides.
		radius = min(c.Size().X/2-widest, c.Size().Y/2-labelStyle.Height("Ag")) - pixels(28)
	}
	radius = max(radius, pixels(20))
	maxNode := 7.0
	if p > 25 {
		maxNode = 4.5
	}
	nodeRadius := vg.Length(math.Max(1.5, math.Min(maxNode, 0.3*float64(2*math.Pi*float64(radius)/float64(p)))))
	if p == 1 {
		nodeRadius = 7
	}
	at := func(i int) (vg.Point, float64) {
		theta := math.Pi/2 - 2*math.Pi*float64(pos[i])/float64(p) // clockwise from the top
		return vg.Point{X: centre.X + radius*vg.Length(math.Cos(theta)), Y: centre.Y + radius*vg.Length(math.Sin(theta))}, theta
	}
	alpha := 1.0
	if len(edges) > maxGraphOpaque {
		alpha = 0.75
	}
	for _, m := range missed {
		a, _ := at(m.I)
		b, _ := at(m.J)
		c.StrokeLine2(dashed(color.Black, 0.7), a.X, a.Y, b.X, b.Y)
	}
	for _, e := range edges {
		a, _ := at(e.I)
		b, _ := at(e.J)
		col := graphNegative
		if e.Mean > 0 {
			col = graphPositive
		}
		c.StrokeLine2(lineStyle(withAlpha(col, alpha), edgeWidth(e.Mean, p)), a.X, a.Y, b.X, b.Y)
	}
	if truthKnown {
		// A cross at the middle of each edge drawn where the truth is 0,
		// over every edge, so that no other hides it.
		for _, e := range edges {
			if !e.TrueEdge() && drawable(e.Truth) {
				a, _ := at(e.I)
				b, _ := at(e.J)
				c.DrawGlyph(falseEdgeMark, vg.Point{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2})
			}
		}
	}
	fill := draw.GlyphStyle{Color: color.White, Radius: nodeRadius, Shape: draw.CircleGlyph{}}
	ring := draw.GlyphStyle{Color: color.Gray{Y: 60}, Radius: nodeRadius, Shape: draw.RingGlyph{}}
	for i, l := range labels {
		pt, theta := at(i)
		c.DrawGlyph(fill, pt)
		c.DrawGlyph(ring, pt)
		if l == "" {
			continue
		}
		gap := nodeRadius + pixels(5)
		st := labelStyle
		cos, sin := math.Cos(theta), math.Sin(theta)
		lp := vg.Point{X: pt.X + gap*vg.Length(cos), Y: pt.Y + gap*vg.Length(sin)}
		switch {
		case p <= 12:
			// Upright, away from the centre.
			st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
			if cos > 0.2 {
				st.XAlign = draw.XLeft
			} else if cos < -0.2 {
				st.XAlign = draw.XRight
			}
			if math.Abs(cos) <= 0.2 {
				st.YAlign = draw.YBottom
				if sin < 0 {
					st.YAlign = draw.YTop
				}
			}
		case cos >= -1e-9:
			st.Rotation, st.XAlign, st.YAlign = theta, draw.XLeft, draw.YCenter
		default:
			// On the left, turned half round so as to read left to right.
			st.Rotation, st.XAlign, st.YAlign = theta+math.Pi, draw.XRight, draw.YCenter
		}
		c.FillText(st, lp, l)
	}
}

// drawGraphLegend draws the key of a graph in c, top down: the colours of
// the signs, the widths of |mean|, the marks of the truth, and what an edge
// is.
func drawGraphLegend(c draw.Canvas, p int, what string, prob float64, truthKnown bool, notes []string) {
	st := textStyle(8.5, color.Black)
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	x0 := c.Min.X + pixels(4)
	sample := pixels(26)
	y := c.Max.Y - pixels(24)
	step := pixels(19)
	item := func(label string, paint func(a, b vg.Point)) {
		paint(vg.Point{X: x0, Y: y}, vg.Point{X: x0 + sample, Y: y})
		c.FillText(st, vg.Point{X: x0 + sample + pixels(8), Y: y}, fitText(st, label, c.Max.X-x0-sample-pixels(12)))
		y -= step
	}
	line := func(ls draw.LineStyle) func(a, b vg.Point) {
		return func(a, b vg.Point) { c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y) }
	}
	heading := func(s string) {
		h := st
		h.Font = sans(9)
		for _, l := range wrapText(h, s, c.Max.X-x0-pixels(4)) {
			c.FillText(h, vg.Point{X: x0, Y: y}, l)
			y -= step * 4 / 5
		}
		y -= step / 5
	}
	heading("sign of the mean")
	item("positive", line(lineStyle(graphPositive, edgeWidth(0.4, p))))
	item("negative", line(lineStyle(graphNegative, edgeWidth(0.4, p))))
	heading("|mean| of the " + what)
	for _, m := range []float64{0.1, 0.3, 0.6} {
		item(fixed(m, 1), line(lineStyle(color.Gray{Y: 90}, edgeWidth(m, p))))
	}
	if truthKnown {
		heading("truth")
		if p <= MaxGraphMissed {
			item("true edge, missed", line(dashed(color.Black, 0.7)))
		} else {
			for _, l := range wrapText(st, fmt.Sprintf("true edges missed: not drawn past %d nodes (the text counts them)", MaxGraphMissed), c.Max.X-x0-pixels(4)) {
				c.FillText(st, vg.Point{X: x0, Y: y}, l)
				y -= step * 4 / 5
			}
			y -= step / 5
		}
		item("drawn, truth 0", func(a, b vg.Point) {
			c.StrokeLine2(lineStyle(graphPositive, edgeWidth(0.3, p)), a.X, a.Y, b.X, b.Y)
			c.DrawGlyph(falseEdgeMark, vg.Point{X: (a.X + b.X) / 2, Y: a.Y})
		})
	}
	y -= step / 2
	note := textStyle(8, color.Gray{Y: 60})
	note.XAlign, note.YAlign = draw.XLeft, draw.YCenter
	for _, n := range append([]string{fmt.Sprintf("An edge: the central %s interval excludes 0. Not a posterior edge probability.", percent(prob))}, notes...) {
		for _, l := range wrapText(note, n, c.Max.X-x0-pixels(4)) {
			c.FillText(note, vg.Point{X: x0, Y: y}, l)
			y -= step * 3 / 4
		}
		y -= step / 4
	}
}

// wrapText breaks s at spaces into lines at most width wide in style st
// (a word wider than that is a line of its own).
func wrapText(st text.Style, s string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case st.Width(line+" "+w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
