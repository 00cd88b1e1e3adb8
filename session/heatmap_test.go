package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/copulang/copulang/figure"
)

// writeBlockCSV writes n rows of nine ordinal columns in three blocks,
// a1..a3, b1..b3 and c1..c3, each block's latent values sharing a factor
// (correlation 0.64 within a block, 0 between), cut into three levels; the
// file interleaves the blocks (a1, b1, c1, a2, ...), as a questionnaire
// mixes its themes. Fixed seed.
func writeBlockCSV(t *testing.T, path string, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(26, 7))
	var b strings.Builder
	var names []string
	for k := 1; k <= 3; k++ {
		for _, block := range "abc" {
			names = append(names, fmt.Sprintf("%c%d", block, k))
		}
	}
	b.WriteString(strings.Join(names, ",") + "\n")
	for range n {
		factor := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		row := make([]string, len(names))
		for j := range names {
			z := 0.8*factor[j%3] + 0.6*rng.NormFloat64()
			level := 1
			switch {
			case z > 0.5:
				level = 3
			case z > -0.5:
				level = 2
			}
			row[j] = fmt.Sprint(level)
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listedColumns is the order a heatmap's text lists its columns in.
func listedColumns(t *testing.T, text string) []string {
	t.Helper()
	m := regexp.MustCompile(`; columns ([^;\n]+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the text lists no columns:\n%s", text)
	}
	return strings.Split(m[1], ", ")
}

// TestPlotHeatmapOrderedByDependence: plot heatmap ..., order =
// dependence draws the posterior mean of C or of the partial correlations
// with columns that depend side by side (three blocks whose columns the
// file interleaves come out as blocks), says so in its title and text,
// and lists the columns in the order; plot heatmap sim, order =
// dependence orders a simulation's truth by the truth; without the
// setting, or with order = columns, the heatmap is in column order and
// says nothing of an order. The within-block correlations are 0.64 on the
// latent scale and 0 between; with 300 rows their posterior means are
// within about 0.05 (a few posterior standard deviations) of that, so the
// blocks cannot be mistaken.
func TestPlotHeatmapOrderedByDependence(t *testing.T) {
	dir := t.TempDir()
	writeBlockCSV(t, filepath.Join(dir, "blocks.csv"), 300)
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("blocks.csv")
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
fit m with gibbs, iter = 100, warmup = 50, chains = 2, seed = 1`)
	for _, member := range []string{"C", "partial"} {
		cell := "plot heatmap m." + member + ", order = dependence"
		out := mustRun(t, s, cell)
		if out.images() != 1 {
			t.Fatalf("%s: %d images", cell, out.images())
		}
		text := out.text()
		if want := `"posterior mean of m.` + member + `, ordered by dependence"`; !strings.Contains(text, want) {
			t.Errorf("%s: the text does not name the title %s:\n%s", cell, want, text)
		}
		cols := listedColumns(t, text)
		blocks := ""
		for _, c := range cols {
			if b := c[:1]; !strings.HasSuffix(blocks, b) {
				blocks += b
			}
		}
		if len(cols) != 9 || len(blocks) != 3 {
			t.Errorf("%s: columns %v, want each block of three side by side", cell, cols)
		}
	}
	for _, cell := range []string{"plot heatmap m.C", "plot heatmap m.C, order = columns"} {
		out := mustRun(t, s, cell)
		if text := out.text(); strings.Contains(text, "dependence") || strings.Contains(text, "; columns ") {
			t.Errorf("%s: a heatmap in column order says:\n%s", cell, text)
		}
	}

	mustRun(t, s, "data sim = simulate(FactorCopula(p = 12, k = 3), n = 100, levels = 3, seed = 4)")
	text := mustRun(t, s, "plot heatmap sim, order = dependence").text()
	d := s.data["sim"]
	o := figure.OrderMatrix(len(d.Names), d.Truth.C)
	if !o.Reordered() {
		t.Fatalf("the truth of sim is best in column order: pick another seed")
	}
	var want []string
	for _, c := range o.Order {
		want = append(want, d.Names[c])
	}
	if got := listedColumns(t, text); strings.Join(got, ",") != strings.Join(want, ",") || !strings.Contains(text, `"true C of sim, ordered by dependence"`) {
		t.Errorf("plot heatmap sim, order = dependence lists %v, want the truth's order %v:\n%s", got, want, text)
	}
}
