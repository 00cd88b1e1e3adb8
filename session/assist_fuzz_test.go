package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAssist feeds the editor requests (completion, inspection, is_complete)
// arbitrary cell text and cursor positions, as a client may send them
// mid-edit: they must never panic, and a completion must replace a range
// inside the text that ends at the cursor.
func FuzzAssist(f *testing.F) {
	// A file for the load calls to read: their columns and labels.
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("a,q1,\"b c\"\n1,agree,\"x, y\"\n2,,NA\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	s := New(Options{Dir: dir})
	if _, err := s.Execute(context.Background(), "data sim = simulate(FullCopula(p = 3), n = 40, levels = 3, seed = 1)\n"+
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }", &recorder{}); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"fit m, it", "extend m, ", `data d = load("x.csv", `, "fit m with hmc(", "summary m.C[Y", "model n { C ~ Inv",
		"compare m, ", "((((", ")))(", "\"(,", "m.C[1, ", "explain fit m, wa", "é, (", "plot trace m.C[1, 2]",
		`data d = load("x.csv", drop = [a, "b`, `data d = load("x.csv", sep = ";", order = {[q1, `, `summary sim[Y`,
		`data d = load("x.csv", order = {q1: ["agree", `, `data d = load("x.csv", order = {[q1, "b c"]: ["`, `data d = load("x.csv", order = {*: [`,
		`data d = sim[Y1, Y2] where Y3 >= 2 and `, `data d = sim where not (`, `data d = sim where "Y1" in [1, `, "data d = sim where Y1 >= 2 or\n  Y",
		"predict m[Y1] given Y2 = ", "predict m given Y1 = 1, ", `predict m[Y1, Y3] given "Y2" = "`, "predict m[Y1] given\n  Y", "predict m[Y1 given Y2 = 1,", "plot heatmap m.partial - m.", "plot heatmap m.C, order = m.", "m.C - m.", "export m.", "summary m.C[1, 2] -\n  m."} {
		f.Add(seed, len(seed))
		f.Add(seed, len(seed)/2)
	}
	f.Fuzz(func(t *testing.T, code string, cursor int) {
		matches, start, end := s.Complete(code, cursor)
		c := max(0, min(cursor, len(code)))
		if start < 0 || start > end || end != c {
			t.Fatalf("Complete(%q, %d) replaces [%d, %d)", code, cursor, start, end)
		}
		for _, m := range matches {
			if !strings.HasPrefix(m, code[start:end]) {
				t.Fatalf("Complete(%q, %d) offers %q for %q", code, cursor, m, code[start:end])
			}
		}
		s.Inspect(code, cursor, 0)
		s.Inspect(code, cursor, 1)
		s.IsComplete(code)
	})
}
