package session

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
)

// graphStrongest is the most edges the text beside a graph lists.
const graphStrongest = 8

// plotGraph draws the conditional-dependence graph of a fit's partial
// correlations (or the marginal one of C, or a difference of either):
// an edge for each pair whose central x.Prob interval, as summary
// computes it, excludes 0. The text beside it counts the edges, lists the
// strongest and says what an edge is, and is not.
func (s *Session) plotGraph(x *compiler.PlotStmt, name string, out Output) error {
	ref := &x.Target
	var (
		m     *Model
		ps    []param
		label string
		notes []string
	)
	if x.Minus != nil {
		d, err := s.contrastParams(ref, x.Minus)
		if err != nil {
			return err
		}
		m, ps, label, notes = d.a, d.ps, d.label, d.notes
		name = figureName(x.Kind, refText(ref)+"-"+refText(x.Minus))
	} else {
		var err error
		if m, ps, err = s.params(ref); err != nil {
			return err
		}
		label = partLabel(m, ref)
		if ref.Member == "" {
			label += ".C" // plot graph m draws m.C
		}
	}
	names := m.Names()
	at := make(map[string]int, len(names))
	for i, n := range names {
		at[n] = i
	}
	sums := paramSummaries(m, ps, x.Prob)
	pairs := make([]figure.GraphPair, len(ps))
	for k, p := range ps {
		i, okI := at[p.row]
		j, okJ := at[p.column]
		if !okI || !okJ || i == j {
			// A difference whose two sides pair other columns
			// (compiler.Check refuses the models it knows of).
			return fmt.Errorf("plot graph of %s: %s pairs entries of other columns; a graph of a difference needs the same columns on both sides", label, p.label)
		}
		pairs[k] = figure.GraphPair{I: min(i, j), J: max(i, j), Mean: sums[k].Mean, Lo: sums[k].Q5, Hi: sums[k].Q95, Truth: p.truth}
	}
	what := map[string]string{"C": "correlation", "partial": "partial correlation"}[ref.Part()]
	if x.Minus != nil {
		what = "difference"
	}
	opts := figure.GraphOptions{MaxEdges: x.Edges}
	f, err := figure.GraphWith("graph of "+label, what, names, pairs, x.Prob, opts)
	if err != nil {
		return err
	}
	layout := figure.LayoutGraph(len(names), pairs, opts)
	out.Stream("stdout", graphText(label, ref.Part(), names, ps, pairs, x.Prob, notes, layout.Capped())+graphLayoutText(names, layout, x.Edges))
	return s.emit(name, f, out)
}

// graphText is the text beside a graph: how many pairs are edges, the
// strongest with their means and intervals, the truth when known, and
// what an edge means; capped when the figure draws only the strongest
// edges.
func graphText(label, part string, names []string, ps []param, pairs []figure.GraphPair, prob float64, notes []string, capped bool) string {
	var edges []int
	positive := 0
	for k, pr := range pairs {
		if pr.Edge() {
			edges = append(edges, k)
			if pr.Mean > 0 {
				positive++
			}
		}
	}
	slices.SortStableFunc(edges, func(a, b int) int { return cmp.Compare(math.Abs(pairs[b].Mean), math.Abs(pairs[a].Mean)) })
	var b strings.Builder
	fmt.Fprintf(&b, "graph of %s: %d of %s %s, %s central %s%% interval excluding 0 (%d positive, %d negative)",
		label, len(edges), plural(len(pairs), "pair"), figure.EdgesVerb(len(edges)), figure.EdgesTheir(len(edges)), percent(prob), positive, len(edges)-positive)
	if len(edges) > 0 {
		if len(edges) > graphStrongest {
			fmt.Fprintf(&b, "; the strongest %d:\n", graphStrongest)
		} else {
			b.WriteString(":\n")
		}
		width := 0
		for _, k := range edges[:min(len(edges), graphStrongest)] {
			width = max(width, len([]rune(ps[k].label)))
		}
		for _, k := range edges[:min(len(edges), graphStrongest)] {
			pr := pairs[k]
			fmt.Fprintf(&b, "  %-*s  %6s  [%6s, %6s]\n", width, ps[k].label, tableNum("%.3f", pr.Mean), tableNum("%.3f", pr.Lo), tableNum("%.3f", pr.Hi))
		}
	} else {
		b.WriteString(".\n")
	}
	if truth, found, _, falseEdges, largestMissed := graphTruth(pairs); truth >= 0 {
		how := "dashed"
		if len(names) > figure.MaxGraphMissed {
			how = fmt.Sprintf("not drawn past %d columns", figure.MaxGraphMissed)
		}
		// When only the strongest edges are drawn, the counts are of
		// every edge, and a false one not drawn has no cross.
		are, edgesWhere, crossed := "are drawn", "drawn", "crossed"
		if capped {
			are, edgesWhere, crossed = "are edges", "edges", "crossed where drawn"
		}
		fmt.Fprintf(&b, "The data were simulated: %d of the %s have a true value not 0 (true edges); %d of them %s and %d missed (%s)",
			truth, plural(len(pairs), "pair"), found, are, truth-found, how)
		if truth-found > 0 {
			fmt.Fprintf(&b, ", the largest missed |true value| %s", tableNum("%.3f", largestMissed))
		}
		fmt.Fprintf(&b, "; %d %s where the truth is 0 (%s).\n", falseEdges, edgesWhere, crossed)
	}
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	fmt.Fprintf(&b, "An edge means only that the central %s%% interval excludes 0: it is not a posterior probability of an edge, which would need a prior over graphs (as BDgraph's); copulang has none.", percent(prob))
	if part == "C" {
		b.WriteString(" Edges of C are marginal dependences; those of partial are conditional on every other column.")
	}
	b.WriteString("\n")
	return b.String()
}

// graphLayoutText says what the figure of a graph leaves out and how its
// nodes are placed: that only the strongest edges are drawn, and the
// setting that draws more; that the nodes are ordered by dependence, and
// in which order, so that a reader finds a column. "" when the figure
// draws every edge with its nodes in column order.
func graphLayoutText(names []string, l figure.GraphLayout, edges int) string {
	var b strings.Builder
	if l.Capped() {
		given := "by default"
		if edges > 0 {
			given = fmt.Sprintf("edges = %d", edges)
		}
		fmt.Fprintf(&b, "Only the %d strongest of the %d edges are drawn (%s; edges = %d draws every one); the counts above are of every edge.\n", len(l.Drawn), l.Edges, given, l.Edges)
	}
	if l.Reordered() {
		order := make([]string, len(names))
		for i, at := range l.Positions {
			order[at] = columnText(names[i])
		}
		fmt.Fprintf(&b, "The nodes are ordered by dependence, so that columns joined by edges sit side by side and fewer edges cross (%s), clockwise from the top", l.OrderText())
		if len(names) <= graphNamedColumns {
			fmt.Fprintf(&b, ": %s.\n", strings.Join(order, ", "))
		} else {
			b.WriteString("; each node is numbered by its column, as summary orders them.\n")
		}
	}
	return b.String()
}

// graphNamedColumns is the most columns whose order the text beside a
// graph lists; past it the nodes are numbered (figure.Graph) and the
// numbers say which column is which.
const graphNamedColumns = 50

// graphTruth counts the true edges of pairs (-1 when no truth is known),
// those drawn, those missed and the edges drawn where the truth is 0, and
// the largest |truth| of a missed one.
func graphTruth(pairs []figure.GraphPair) (truth, found, missed, falseEdges int, largestMissed float64) {
	known := false
	for _, pr := range pairs {
		if !math.IsNaN(pr.Truth) && !math.IsInf(pr.Truth, 0) {
			known = true
		}
		switch {
		case pr.TrueEdge() && pr.Edge():
			truth++
			found++
		case pr.TrueEdge():
			truth++
			missed++
			largestMissed = math.Max(largestMissed, math.Abs(pr.Truth))
		case pr.Edge() && !math.IsNaN(pr.Truth):
			falseEdges++
		}
	}
	if !known {
		return -1, 0, 0, 0, 0
	}
	return truth, found, missed, falseEdges, largestMissed
}
