package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// repeatedInterrupter calls InterruptFit whenever a fit or an extension is
// sampling, as the CLI does on each Ctrl-C.
type repeatedInterrupter struct {
	recorder
	s *Session
}

func (r *repeatedInterrupter) UpdateDisplay(b MimeBundle, id string) {
	r.recorder.UpdateDisplay(b, id)
	if text, _ := b["text/plain"].(string); strings.Contains(text, ", sampling,") {
		go r.s.InterruptFit()
	}
}

// TestShowInterruptedFitSaysWhatRan: after an interrupted fit or extension,
// show m gave the iterations asked for (a million), not those each chain
// ran and holds.
func TestShowInterruptedFitSaysWhatRan(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 200, levels = 4, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	for _, cell := range []string{
		"fit m with gibbs, iter = 1000000, warmup = 10, chains = 2, seed = 1",
		"extend m, iter = 1000000",
	} {
		out := &repeatedInterrupter{s: s}
		if _, err := s.Execute(context.Background(), cell+"\nshow m", out); err != nil {
			t.Fatalf("%s: %v", cell, err)
		}
		r := s.models["m"].Fit
		if !r.Interrupted {
			t.Fatalf("%s was not interrupted", cell)
		}
		want := fmt.Sprintf("2 chains, 10 warm-up + %d iterations, thin 1", len(r.C[0]))
		if text := out.text(); !strings.Contains(text, want) {
			t.Errorf("after %s, show m lacks %q:\n%s", cell, want, text)
		}
		// The extension's report counts the same iterations.
		if now := fmt.Sprintf("now %d iterations per chain", len(r.C[0])); strings.HasPrefix(cell, "extend") && !strings.Contains(out.text(), now) {
			t.Errorf("the report of %s lacks %q:\n%s", cell, now, out.text())
		}
	}
}
