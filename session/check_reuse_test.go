package session

import (
	"slices"
	"strings"
	"testing"
)

// checkParts are what a check shows, but for its progress and the note of
// a reused check in its table's caption: the verdicts and the rows of its
// tables.
func checkParts(t *testing.T, out *recorder, table string) (stdout string, pairs, cells [][]string) {
	t.Helper()
	return out.stdout.String(), tableRows(t, out, "pair"), tableRows(t, out, table)
}

const keptNote = "every pair's statistics kept from an earlier check of this fit"

// TestCheckOfAPairReusesAnEarlierCheck: check m[A, B] after check m of the
// same settings takes every pair's statistics from it and replicates only
// A and B, and shows what check m[A, B] from scratch shows, number for
// number, for both statistics and data with missing cells; its progress
// and caption say so. A fit made again (with the same settings, so the
// same draws) or extended is a new posterior whose checks start afresh.
func TestCheckOfAPairReusesAnEarlierCheck(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data sim = simulate(FullCopula(p = 5), n = 400, levels = 4, seed = 2, missing = 0.1)
model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }`)
	const fit = "fit m with gibbs, iter = 100, warmup = 100, chains = 2, seed = 1"
	for _, stat := range []string{"spearman", "kendall"} {
		settings := ", stat = " + stat + ", draws = 40, reps = 39, seed = 4"
		pair := "check m[Y3, Y1]" + settings
		mustRun(t, s, fit)
		cold := mustRun(t, s, pair)
		if strings.Contains(cold.text(), keptNote) || !strings.Contains(cold.text(), "replicated data sets, every column (p_adj and the verdict are over all 10 pairs)") {
			t.Errorf("%s: a check of a pair with no earlier check should replicate every column and say so:\n%s", stat, cold.text())
		}
		coldOut, coldPairs, coldCells := checkParts(t, cold, "Y3  Y1")

		mustRun(t, s, fit)
		if out := mustRun(t, s, pair); strings.Contains(out.text(), keptNote) {
			t.Errorf("%s: the check after the fit made again reuses the check of the earlier fit:\n%s", stat, out.text())
		}

		mustRun(t, s, fit)
		mustRun(t, s, "check m"+settings)
		if again := mustRun(t, s, "check m"+settings); !strings.Contains(again.text(), "check m: nothing to replicate, "+keptNote) {
			t.Errorf("%s: check m again should say that it replicates nothing:\n%s", stat, again.text())
		}
		warm := mustRun(t, s, pair)
		for _, want := range []string{"replicated data sets, only Y3 and Y1 (the pairs' statistics kept from an earlier check)",
			keptNote + " with the same settings (draws, reps, stat, seed), and only Y3 and Y1 replicated again"} {
			if !strings.Contains(warm.text(), want) {
				t.Errorf("%s: check m[Y3, Y1] after check m lacks %q:\n%s", stat, want, warm.text())
			}
		}
		warmOut, warmPairs, warmCells := checkParts(t, warm, "Y3  Y1")
		if warmOut != coldOut || !slices.EqualFunc(warmPairs, coldPairs, slices.Equal) || !slices.EqualFunc(warmCells, coldCells, slices.Equal) {
			t.Errorf("%s: check m[Y3, Y1] after check m differs from the check made from scratch:\n%s\nwant\n%s", stat, warm.text(), cold.text())
		}

		mustRun(t, s, "extend m, iter = 20")
		if out := mustRun(t, s, pair); strings.Contains(out.text(), keptNote) {
			t.Errorf("%s: the check after extend reuses the check of the fit it extends:\n%s", stat, out.text())
		}
	}
}
