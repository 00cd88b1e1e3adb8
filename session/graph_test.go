package session

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
)

// TestPlotGraph draws the graph of a fit's partial correlations, of its C
// at another prob, of a difference of two fits and of a factor model's
// partial correlations, each in its own file, with the text beside it: the
// count of edges, the strongest, the truth of simulated data, and that an
// edge is not a posterior edge probability.
func TestPlotGraph(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 150, levels = 3, seed = 2)\n"+
		"model m1 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n"+
		"model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }\n"+
		"fit m1 with gibbs, iter = 60, warmup = 30, chains = 2, seed = 1\n"+
		"fit m2 with gibbs, iter = 60, warmup = 30, chains = 2, seed = 1\n"+
		"fit f, iter = 60, warmup = 30, chains = 2, seed = 1")
	stmts := []string{"plot graph m1.partial", "plot graph m1.C, prob = 0.5", "plot graph m1.partial - m2.partial", "plot graph f.partial", "plot graph m2"}
	want := []struct{ name, title, text string }{
		{"graph-m1.partial", `Graph of m1.partial: 4 nodes, `, "of 6 pairs are edges, their central 90% interval excluding 0"},
		{"graph-m1.C", `Graph of m1.C: 4 nodes, `, "of 6 pairs are edges, their central 50% interval excluding 0"},
		{"graph-m1.partial-m2.partial", `Graph of m1.partial − m2.partial: 4 nodes, `, "note: m1 and m2 fit the same data"},
		{"graph-f.partial", `Graph of f.partial: 4 nodes, `, "of 6 pairs are edges"},
		// A model alone is its C, as in summary m, and the title says so.
		{"graph-m2", `Graph of m2.C: 4 nodes, `, "graph of m2.C: "},
	}
	for k, stmt := range stmts {
		out := &figureFiles{}
		if _, err := s.Execute(context.Background(), stmt, out); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		w := want[k]
		if len(out.names) != 1 || out.names[0] != w.name || !strings.HasPrefix(out.titles[0], w.title) {
			t.Errorf("%s: figures %v %q, want %s %q", stmt, out.names, out.titles, w.name, w.title)
		}
		text := out.stdout.String()
		for _, part := range []string{w.text, "The data were simulated: ",
			"it is not a posterior probability of an edge, which would need a prior over graphs (as BDgraph's); copulang has none"} {
			if !strings.Contains(text, part) {
				t.Errorf("%s: the text does not say %q:\n%s", stmt, part, text)
			}
		}
	}
}

// TestGraphAgreesWithSummary: the edges of plot graph are the pairs
// whose row of summary at the same prob has q_lo > 0 or q_hi < 0, and the
// strongest listed are those of the largest |mean|, with the summary's
// numbers.
func TestGraphAgreesWithSummary(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 5), n = 300, levels = 4, seed = 3)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 100, warmup = 50, chains = 2, seed = 4")
	for _, prob := range []float64{0.9, 0.99} {
		m, ps, err := s.params(&compiler.Ref{Name: "m", Member: "partial"})
		if err != nil {
			t.Fatal(err)
		}
		sums := paramSummaries(m, ps, prob)
		edges, best, bestMean := 0, "", 0.0
		for k, sm := range sums {
			if sm.Q5 > 0 || sm.Q95 < 0 {
				edges++
				if abs := max(sm.Mean, -sm.Mean); abs > bestMean {
					best, bestMean = fmt.Sprintf("%s  %6s  [%6s, %6s]", ps[k].label, tableNum("%.3f", sm.Mean), tableNum("%.3f", sm.Q5), tableNum("%.3f", sm.Q95)), abs
				}
			}
		}
		out := mustRun(t, s, fmt.Sprintf("plot graph m.partial, prob = %g", prob))
		text := out.stdout.String()
		head := fmt.Sprintf("graph of m.partial: %d of 10 pairs are edges, their central %s%% interval excluding 0", edges, percent(prob))
		if !strings.HasPrefix(text, head) {
			t.Fatalf("prob %g: text begins %q, want %q", prob, firstLine(text), head)
		}
		if edges == 0 || edges == 10 {
			t.Fatalf("prob %g: %d edges of 10: the test needs some of each", prob, edges)
		}
		lines := strings.Split(text, "\n")
		if strongest := regexp.MustCompile(`\s+`).ReplaceAllString(strings.TrimSpace(lines[1]), " "); strongest != regexp.MustCompile(`\s+`).ReplaceAllString(best, " ") {
			t.Errorf("prob %g: strongest %q, summary's %q", prob, strongest, best)
		}
	}
}

// TestGraphOfADifferenceNeedsTheSameColumns: a difference of two fits of
// as many columns but other ones pairs each entry with another's (by
// position); its graph would draw them between the first model's
// columns. compiler.Check refuses it when it knows both models' columns;
// the session refuses it too, naming a pair.
func TestGraphOfADifferenceNeedsTheSameColumns(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 100, levels = 3, seed = 2)\n"+
		"data a = d[Y1, Y2, Y3]\n"+
		"data b = d[Y1, Y2, Y4]\n"+
		"model ma { Y = a; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model mb { Y = b; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit ma with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\n"+
		"fit mb with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1")
	x := &compiler.PlotStmt{Kind: "graph", Target: compiler.Ref{Name: "ma", Member: "partial"},
		Minus: &compiler.Ref{Name: "mb", Member: "partial"}, Prob: compiler.DefaultProb}
	err := s.plotGraph(x, "graph", &figureFiles{})
	want := "plot graph of ma.partial − mb.partial: ma.partial[Y1, Y3] − mb.partial[Y1, Y4] pairs entries of other columns"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	if _, err := s.Execute(context.Background(), "plot graph ma.partial - mb.partial", &figureFiles{}); err == nil || !strings.Contains(err.Error(), "plot graph of a difference draws one node per column of both models") {
		t.Errorf("the checker's error %v", err)
	}
}

// graphText's first line agrees with the number of edges: one edge's
// interval is "its", several "their".
func TestGraphTextOneEdge(t *testing.T) {
	ps := []param{{label: "partial[a, b]"}, {label: "partial[a, c]"}, {label: "partial[b, c]"}}
	edge := figure.GraphPair{I: 0, J: 1, Mean: 0.4, Lo: 0.3, Hi: 0.5, Truth: math.NaN()}
	none := figure.GraphPair{I: 0, J: 2, Mean: 0.01, Lo: -0.1, Hi: 0.1, Truth: math.NaN()}
	cases := []struct {
		pairs []figure.GraphPair
		want  string
	}{
		{[]figure.GraphPair{edge, none, none}, "graph of m.partial: 1 of 3 pairs is an edge, its central 90% interval excluding 0 (1 positive, 0 negative)"},
		{[]figure.GraphPair{edge, edge, none}, "graph of m.partial: 2 of 3 pairs are edges, their central 90% interval excluding 0 (2 positive, 0 negative)"},
	}
	for _, c := range cases {
		if got := graphText("m.partial", "partial", []string{"a", "b", "c"}, ps, c.pairs, 0.9, nil, false); !strings.HasPrefix(got, c.want) {
			t.Errorf("graphText:\n%s\nwant it to start %q", got, c.want)
		}
	}
}

// TestGraphSaysWhatItLeavesOut: plot graph, edges = N draws the N
// strongest edges, and the text says how many there are and the setting
// that draws every one; a graph whose nodes are ordered by dependence
// says so, with the crossings, and lists the columns clockwise from the
// top, so that a reader finds one.
func TestGraphSaysWhatItLeavesOut(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 300, levels = 4, seed = 2)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 100, warmup = 50, chains = 2, seed = 1")
	_, ps, err := s.params(&compiler.Ref{Name: "m", Member: "partial"})
	if err != nil {
		t.Fatal(err)
	}
	sums := paramSummaries(s.models["m"], ps, 0.5)
	edges := 0
	for _, sm := range sums {
		if sm.Q5 > 0 || sm.Q95 < 0 {
			edges++
		}
	}
	if edges < 2 {
		t.Fatalf("only %d edges at prob = 0.5: pick another simulation", edges)
	}
	text := mustRun(t, s, "plot graph m.partial, prob = 0.5, edges = 1").text()
	if want := fmt.Sprintf("Only the 1 strongest of the %d edges are drawn (edges = 1; edges = %d draws every one); the counts above are of every edge.", edges, edges); !strings.Contains(text, want) {
		t.Errorf("the text:\n%s\ndoes not say %q", text, want)
	}
	if text := mustRun(t, s, fmt.Sprintf("plot graph m.partial, prob = 0.5, edges = %d", edges)).text(); strings.Contains(text, "Only the") {
		t.Errorf("every edge drawn, and the text says:\n%s", text)
	} else if !regexp.MustCompile(`; \d+ of them are drawn and \d+ missed .*; \d+ drawn where the truth is 0 \(crossed\)\.`).MatchString(text) {
		t.Errorf("every edge drawn, and the truth's counts are not said to be drawn:\n%s", text)
	}
	// The data are simulated: with one edge drawn, the counts of true
	// edges are of edges, not of edges drawn ("2 of them are drawn" beside
	// "Only the 1 strongest of the 2 edges are drawn"), and a false edge
	// not drawn has no cross; the figure's description says "found".
	capped := mustRun(t, s, "plot graph m.partial, prob = 0.5, edges = 1")
	if text := capped.text(); !regexp.MustCompile(`; \d+ of them are edges and \d+ missed .*; \d+ edges where the truth is 0 \(crossed where drawn\)\.`).MatchString(text) ||
		regexp.MustCompile(`of them are drawn|\d+ drawn,`).MatchString(text) {
		t.Errorf("one edge drawn, and the truth's counts say drawn:\n%s", text)
	}

	// Two blocks, {a, c, e, g} and {b, d, f, h}: 2 crossings (one each)
	// when each is together, 22 in column order, where they alternate.
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var pairs []figure.GraphPair
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			m := 0.0
			if i%2 == j%2 {
				m = 0.3
			}
			pairs = append(pairs, figure.GraphPair{I: i, J: j, Mean: m, Lo: m - 0.1, Hi: m + 0.1, Truth: math.NaN()})
		}
	}
	got := graphLayoutText(names, figure.LayoutGraph(len(names), pairs, figure.GraphOptions{}), 0)
	want := "The nodes are ordered by dependence, so that columns joined by edges sit side by side and fewer edges cross (2 edge crossings, 22 in column order), clockwise from the top: a, "
	if !strings.HasPrefix(got, want) || !regexp.MustCompile(`: a, [aceg], [aceg], [aceg], [bdfh], [bdfh], [bdfh], [bdfh]\.\n$|: a, [bdfh], [bdfh], [bdfh], [bdfh], [aceg], [aceg], [aceg]\.\n$`).MatchString(got) {
		t.Errorf("the text of two blocks:\n%s\nwant it to start %q and list each block together", got, want)
	}
}
