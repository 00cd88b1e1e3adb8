package session

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

// TestCompareShowsMonteCarloError: compare showed the standard error of
// each difference over the cells but nothing of its Monte Carlo error, so
// a difference that another seed would reverse looked as firm as one that
// it would not. The table has mcse_diff beside se_diff (0 for the best,
// a positive number for the other), estimated from the refits' chains;
// the scores kept in a fit file keep it, so a new session shows the same;
// scores read from a file written before it was kept show NA, and a note
// says why.
func TestCompareShowsMonteCarloError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const setup = fitFileSetup + "model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n" +
		"fit m2, iter = 60, warmup = 40, chains = 3, seed = 3\n" +
		"fit m, iter = 60, warmup = 40, chains = 3, seed = 3, file = \"m.fit\"\n"
	const compare = "compare m, m2, holdout = 0.2, seed = 2"
	mcse := func(t *testing.T, out *recorder) map[string]string {
		t.Helper()
		rows := tableRows(t, out, "model")
		got := map[string]string{}
		for _, row := range rows {
			if len(row) != 9 {
				t.Fatalf("a row of %d cells, want 9 (mcse_diff after se_diff): %v", len(row), row)
			}
			got[row[0]] = row[7]
		}
		return got
	}
	s1 := New(Options{Dir: dir})
	mustRun(t, s1, setup)
	first := mustRun(t, s1, compare)
	if !strings.Contains(first.text(), "se_diff") || !strings.Contains(first.text(), "mcse_diff") {
		t.Fatalf("compare's table lacks mcse_diff:\n%s", first.text())
	}
	got := mcse(t, first)
	rows := tableRows(t, first, "model")
	best, other := rows[0][0], rows[1][0]
	if got[best] != "0.00" {
		t.Errorf("the best model's mcse_diff is %s, want 0.00", got[best])
	}
	if v, err := strconv.ParseFloat(got[other], 64); err != nil || !(v > 0) {
		t.Errorf("the other model's mcse_diff is %q, want a positive number:\n%s", got[other], first.text())
	}

	s2 := New(Options{Dir: dir})
	mustRun(t, s2, setup)
	second := mustRun(t, s2, compare)
	if !strings.Contains(second.text(), "m (read from m.fit)") {
		t.Fatalf("the scores were not read from m.fit:\n%s", second.text())
	}
	if again := mcse(t, second); again[other] != got[other] {
		t.Errorf("mcse_diff with m's scores read from its file: %s, want %s", again[other], got[other])
	}

	// The file as an earlier copulang wrote it: scores without their
	// chain totals.
	path := filepath.Join(dir, "m.fit")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, data)
	for i := range f.Scores {
		f.Scores[i].ChainTotals = nil
	}
	if err := writeFitBytes(osFiles{}, path, f, readBytes(f.Result)); err != nil {
		t.Fatal(err)
	}
	s3 := New(Options{Dir: dir})
	mustRun(t, s3, setup)
	third := mustRun(t, s3, compare)
	if old := mcse(t, third); old[other] != "NA" || old[best] != "0.00" {
		t.Errorf("mcse_diff with scores of an earlier file: %v, want NA for %s:\n%s", old, other, third.text())
	}
	const note = "note: the scores of m (read from m.fit) were kept by a copulang that did not keep what their Monte Carlo error needs, so mcse_diff is NA where they enter"
	if !strings.Contains(third.text(), note) {
		t.Errorf("compare with scores of an earlier file does not say why mcse_diff is NA:\n%s", third.text())
	}
	if strings.Contains(first.text(), "note: the scores of") && strings.Contains(first.text(), "Monte Carlo error needs") {
		t.Errorf("the first compare gave the note of earlier files:\n%s", first.text())
	}
}

// TestCompareVerdictSaysWhenTheFitsAreTooShort: compare's verdict ranked a
// model by the standard error of its difference alone, so a difference of
// 0.5 with se_diff 0.01 was "clearly worse" while its mcse_diff, 0.35,
// said that refits with other seeds could reverse it. A difference within
// about 2 Monte Carlo errors of zero now says that the fits are too short
// to tell, and to extend both fits; one beyond them, or whose Monte Carlo
// error is unknown (scores kept without it), is ranked as before. The
// scores are constructed: 50 cells, one fold, 4 chains.
func TestCompareVerdictSaysWhenTheFitsAreTooShort(t *testing.T) {
	t.Parallel()
	a, b := make([]float64, 50), make([]float64, 50)
	for i := range a {
		a[i] = -1 - 0.002*float64(i%5)
		b[i] = a[i] - 0.01 + 0.001*float64(i%2*2-1) // 0.5 lower in all, se_diff 0.007
	}
	sums, best, err := inference.CompareScores([][]float64{a, b})
	if err != nil || best != 0 {
		t.Fatalf("best %d, %v", best, err)
	}
	if d, se := -sums[1].Diff, sums[1].SEDiff; math.Abs(d-0.5) > 1e-9 || se > 0.01 {
		t.Fatalf("constructed scores: elpd_diff %v, se_diff %v; want 0.5 and below 0.01", d, se)
	}
	// Chain totals of the one fold whose spread gives mcse_diff
	// sqrt(2 × 0.24 / 4) = 0.35 (0.24 the variance of the wide totals), or
	// sqrt(2 × 0.0002 / 3 / 4) = 0.006.
	wide := [][]float64{{-50, -50.6, -49.4, -50}}
	narrow := [][]float64{{-50, -50.01, -49.99, -50}}
	for _, tc := range []struct {
		name        string
		totals      [][][]float64
		mcse        float64
		want, avoid string
	}{
		{"within 2 Monte Carlo errors", [][][]float64{wide, wide}, 0.346,
			"compare: a scores best; behind by no more than about 2 Monte Carlo errors of the difference, so the fits are too short to tell which scores better (refits with other seeds could reverse the order): b by 0.5 (mcse_diff 0.35); `extend a` and `extend b` and compare again",
			"clearly worse"},
		{"beyond 2 Monte Carlo errors", [][][]float64{narrow, narrow}, 0.0058,
			"compare: a scores best; clearly worse (by more than 2 standard errors): b by 0.5 ± 0.0", "too short"},
		{"Monte Carlo error unknown", [][][]float64{nil, wide}, math.NaN(),
			"compare: a scores best; clearly worse (by more than 2 standard errors): b by 0.5 ± 0.0", "too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mcse := diffMCSE(tc.totals, best)
			if mcse[0] != 0 || !(math.Abs(mcse[1]-tc.mcse) < 0.001) && !(math.IsNaN(tc.mcse) && math.IsNaN(mcse[1])) {
				t.Fatalf("mcse_diff %v, want 0 and %.4f", mcse, tc.mcse)
			}
			got := compareVerdict([]string{"a", "b"}, sums, best, 1, mcse)
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.avoid) {
				t.Errorf("verdict:\n%s\nwant it to contain\n%s\nand not %q", got, tc.want, tc.avoid)
			}
		})
	}
}
