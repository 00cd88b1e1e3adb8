package session

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestPlotIntervals draws the posterior intervals of what summary
// takes: the entries of C with their true values, a derived quantity, and
// a difference of two fits, each in its own file.
func TestPlotIntervals(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 120, levels = 3, seed = 2)\n"+
		"model m1 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n"+
		"fit m1 with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1\n"+
		"fit m2 with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1")
	out := &figureFiles{}
	stmts := []string{"plot intervals m1.C", "plot intervals m1.partial[Y2]", "plot intervals m1.C - m2.C"}
	if _, err := s.Execute(context.Background(), strings.Join(stmts, "\n"), out); err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, text string }{
		{"intervals-m1.C", `Posterior intervals of "m1.C": 6 items, median and central 50% and 90% intervals;`},
		{"intervals-m1.partial-2", `Posterior intervals of "m1.partial[Y2]": 3 items`},
		{"intervals-m1.C-m2.C", `Posterior intervals of "m1.C − m2.C": 6 items`},
	}
	if len(out.titles) != len(want) {
		t.Fatalf("%d figures, want %d", len(out.titles), len(want))
	}
	for k, w := range want {
		if out.names[k] != w.name || !strings.HasPrefix(out.titles[k], w.text) {
			t.Errorf("%s: %s, %q; want %s, %q", stmts[k], out.names[k], out.titles[k], w.name, w.text)
		}
	}
	// Simulated data: the true values are drawn and counted, for C, for
	// the partial correlations derived from it, and for a difference (of
	// two fits of d: 0).
	for k, n := range []int{6, 3, 6} {
		if !strings.Contains(out.titles[k], " of "+strconv.Itoa(n)+" true values outside their 90% interval") {
			t.Errorf("%s: %q does not count %d true values", stmts[k], out.titles[k], n)
		}
	}
}
