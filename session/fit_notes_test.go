package session

import (
	"strings"
	"testing"
)

// TestFitPrintsPlanNotes: fit prints the plan's notes before it samples, so
// that a substitution shows where the fit is run and not only in explain —
// here hmc handing fine columns to Gibbs because a trajectory of T = 100
// would pass the exact-HMC sampler's bounce cap.
func TestFitPrintsPlanNotes(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 100, seed = 1)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	out := mustRun(t, s, "fit m with hmc(T = 100), iter = 5, warmup = 5, chains = 1, seed = 1")
	text := out.stdout.String()
	if !strings.Contains(text, "note: column Y1 has") || !strings.Contains(text, "so Y1 gets Hoff's Gibbs update instead") {
		t.Errorf("fit printed %q, want the plan's note on Y1", text)
	}
	if i, j := strings.Index(text, "note: "), strings.Index(text, "fit m with gibbs"); i < 0 || j < i {
		t.Errorf("fit printed %q, want the notes before the fit report", text)
	}
}
