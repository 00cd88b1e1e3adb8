package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestExtend fits a model, extends it, and checks that the extension is
// reported like a fit, that the summary equals that of one fit with the
// larger iter, and that the fit's settings and hint follow.
func TestExtend(t *testing.T) {
	const setup = "data d = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 4)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	s := newTestSession(t)
	fit := mustRun(t, s, setup+"fit m, iter = 60, warmup = 40, chains = 2, seed = 3")
	// 60 draws per chain cannot reach an ESS of 100 per chain: the fit says
	// how to extend it.
	if err := fit.stderr.String(); !strings.Contains(err, "hint: `extend m, iter = ") || !strings.Contains(err, "runs every chain") {
		t.Errorf("fit's hint: %q", err)
	}
	out := mustRun(t, s, "extend m, iter = 90\nsummary m.C")
	text := out.text()
	for _, want := range []string{"extend m with gibbs (auto): 2 chains × 90 more iterations in ", "; now 150 iterations per chain after 40 warm-up", "max R-hat "} {
		if !strings.Contains(text, want) {
			t.Errorf("extend's report lacks %q:\n%s", want, text)
		}
	}
	if got := s.models["m"].FitStmt.Iter; got != 150 {
		t.Errorf("the fit's iter is %d after extending, want 150", got)
	}
	if got := len(s.models["m"].Fit.C[0]); got != 150 {
		t.Errorf("%d draws per chain after extending, want 150", got)
	}
	once := newTestSession(t)
	want := mustRun(t, once, setup+"fit m, iter = 150, warmup = 40, chains = 2, seed = 3\nsummary m.C")
	if got, wantTable := lastTable(out.text()), lastTable(want.text()); got != wantTable || got == "" {
		t.Errorf("summary after extending:\n%s\nwant that of one fit with iter = 150:\n%s", got, wantTable)
	}
	// Without iter it doubles the draws.
	mustRun(t, s, "extend m")
	if got := len(s.models["m"].Fit.C[0]); got != 300 {
		t.Errorf("%d draws per chain after extend m, want 300", got)
	}
}

// lastTable is the text from the last "param" heading of a cell's output:
// the summary table.
func lastTable(text string) string { return fromOffset(text, strings.LastIndex(text, "param ")) }

// fromOffset is text from offset i on, or "" when i is negative (not found).
func fromOffset(text string, i int) string {
	if i < 0 {
		return ""
	}
	return text[i:]
}

// TestExtendErrors checks what extend refuses, and that it says why.
func TestExtendErrors(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 4)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	for _, tc := range []struct{ code, want string }{
		{"extend m", "fit"},
		{"extend d", "model"},
		{"fit m, iter = 20, chains = 2\nextend m, warmup = 10", "to change warmup, fit the model again"},
		{"fit m, iter = 20, chains = 2\nextend m, iter = 0", "iter"},
	} {
		_, err := s.Execute(context.Background(), tc.code, &recorder{})
		if err == nil || !strings.Contains(errorText(err), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.code, err, tc.want)
		}
	}
}

// TestExtendInterruptGoesOn: InterruptFit stops a running extension; the
// draws so far are kept and the cell goes on.
func TestExtendInterruptGoesOn(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	mustRun(t, s, "data d = simulate(FullCopula(p = 4), n = 300, levels = 4, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1")
	out := &interruptingRecorder{s: s}
	if _, err := s.Execute(context.Background(), "extend m, iter = 100000000\nsummary m.C[Y1, Y2]", out); err != nil {
		t.Fatalf("cell failed after InterruptFit: %v", err)
	}
	text := out.text()
	// 2 chains × 10⁸ draws of 16 values: the memory is said first.
	for _, want := range []string{"note: after this extension the fit keeps about 23.8 GB of draws in memory",
		"interrupted extend m: ", "more iterations, interrupted,", "C[Y1,Y2]"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	got := len(s.models["m"].Fit.C[0])
	if got <= 20 {
		t.Errorf("%d draws per chain after the interrupted extension, want more than 20", got)
	}
	// extend alone doubles what the chains ran, not the hundred million
	// the interrupted extension asked for.
	mustRun(t, s, "extend m")
	if again := len(s.models["m"].Fit.C[0]); again != 2*got {
		t.Errorf("%d draws per chain after extend m, want twice %d", again, got)
	}
}

// errorText is an error's message with its traceback, if it is a cell's
// Error.
func errorText(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Value + "\n" + strings.Join(se.Traceback, "\n")
	}
	return err.Error()
}

// TestFitUntilESS fits with an ESS target: the fit goes on in rounds until
// C's least bulk and tail ESS reach it, says so, and makes the draws of one
// fit of the length it reached. A target out of reach stops at the limit
// and warns; extend takes a target too.
func TestFitUntilESS(t *testing.T) {
	const setup = "data d = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 4)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	s := newTestSession(t)
	out := mustRun(t, s, setup+"fit m, iter = 50, warmup = 40, chains = 2, seed = 3, ess = 600")
	text := out.text()
	for _, want := range []string{"ess: least ESS of C ", " of the 600 asked, max R-hat ", "until the least ESS of C reached 600 ("} {
		if !strings.Contains(text, want) {
			t.Errorf("fit with ess lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(out.stderr.String(), "warning") {
		t.Errorf("a fit that met its target warns: %s", out.stderr.String())
	}
	m := s.models["m"]
	d := fitDiagnostics(m.Fit).c
	if d.minBulk < 600 || d.minTail < 600 || d.maxRHat > 1.01 {
		t.Errorf("target not met: %+v", d)
	}
	iter := m.FitStmt.Iter
	if iter <= 50 || len(m.Fit.C[0]) != iter {
		t.Fatalf("iter %d and %d draws per chain after the rounds", iter, len(m.Fit.C[0]))
	}
	once := newTestSession(t)
	want := mustRun(t, once, setup+fmt.Sprintf("fit m, iter = %d, warmup = 40, chains = 2, seed = 3\nsummary m.C", iter))
	if got, wantTable := lastTable(mustRun(t, s, "summary m.C").text()), lastTable(want.text()); got != wantTable {
		t.Errorf("summary after the rounds:\n%s\nwant that of one fit with iter = %d:\n%s", got, iter, wantTable)
	}

	// Out of reach within 20 × iter: the fit stops there and warns.
	far := mustRun(t, s, setup+"fit m, iter = 10, warmup = 40, chains = 2, seed = 3, ess = 100000")
	if got := len(s.models["m"].Fit.C[0]); got != 200 {
		t.Errorf("%d draws per chain, want the limit 20 × iter = 200", got)
	}
	if !strings.Contains(far.text(), "stopped at its limit of 200 iterations per chain after warm-up") ||
		!strings.Contains(far.stderr.String(), "short of ess = 100000, after 20 × iter: `extend m, ess = 100000` goes on") {
		t.Errorf("a target out of reach:\n%s", far.text())
	}

	// extend with a target alone runs the rounds from the fit as it is.
	ext := mustRun(t, s, "extend m, ess = 400")
	if !strings.Contains(ext.text(), "until the least ESS of C reached 400 (") {
		t.Errorf("extend with ess:\n%s", ext.text())
	}
	if d := fitDiagnostics(s.models["m"].Fit).c; d.minBulk < 400 || d.minTail < 400 {
		t.Errorf("extend's target not met: %+v", d)
	}
	if _, err := s.Execute(context.Background(), "extend m, ess = 150", &recorder{}); err == nil || !strings.Contains(err.Error(), "below the 100 per chain (200 for its 2 chains)") {
		t.Errorf("extend with a target below 100 per chain: %v", err)
	}
}

// TestFitUntilESSFromOneDraw: the rounds of an ESS target from a fit of
// one draw, whose ESS and R-hat cannot be computed yet, say NA for them,
// not +Inf and -Inf, and so does the report and its warning at the limit.
func TestFitUntilESSFromOneDraw(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 4)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m, iter = 1, warmup = 0, chains = 1, ess = 100000")
	text := out.text() + out.stderr.String()
	if !strings.Contains(text, "ess: least ESS of C NA of the 100000 asked, max R-hat NA: 1 more iterations per chain") {
		t.Errorf("the first round:\n%s", text)
	}
	if strings.Contains(text, "Inf") {
		t.Errorf("the rounds or the report print an infinity:\n%s", text)
	}
}

// TestExtendHint checks the hint after a fit that warns: the iterations the
// least ESS asks for (or as many as ran, when only R-hat warns), and an ESS
// target only where C itself falls short — a factor fit whose loadings
// alone warn gets no ess hint, which would run no iteration.
func TestExtendHint(t *testing.T) {
	ok := diagStats{maxRHat: 1.002, minBulk: 900, minTail: 800}
	lowESS := diagStats{maxRHat: 1.002, minBulk: 200, minTail: 300}
	highRHat := diagStats{maxRHat: 1.05, minBulk: 900, minTail: 800}
	lowBoth := diagStats{maxRHat: 1.05, minBulk: 200, minTail: 300}
	slightly := diagStats{maxRHat: 1.05, minBulk: 380, minTail: 900}
	for _, tc := range []struct {
		name           string
		c, all         diagStats
		want, wantNone string
	}{
		{"C short of ESS", lowESS, lowESS, "`extend m, iter = 1400` runs every chain 1400 more iterations from where it stopped (about what the least ESS needs", ""},
		{"C short of ESS, ess offered", lowESS, lowESS, "; `extend m, ess = 400` runs on until every entry of C has bulk and tail ESS ≥ 400 and R-hat ≤ 1.01", ""},
		{"R-hat only", highRHat, highRHat, "`extend m, iter = 1000` runs every chain 1000 more iterations from where it stopped (as many as the fit ran)", ""},
		{"both", lowBoth, lowBoth, "`extend m, iter = 1400`", ""},
		{"both, little ESS short", slightly, slightly, "`extend m, iter = 1000` runs every chain 1000 more iterations from where it stopped (as many as the fit ran, or what the least ESS", ""},
		{"loadings only", ok, lowESS, "`extend m, iter = 1400`", "ess ="},
		// C warns: its least ESS sets the count, not a loading's lower one.
		{"C and loadings short", lowESS, diagStats{maxRHat: 1.002, minBulk: 50, minTail: 300}, "`extend m, iter = 1400` runs every chain 1400 more iterations from where it stopped (about what the least ESS needs", ""},
		{"C's R-hat, loadings' ESS", highRHat, lowBoth, "`extend m, iter = 1000` runs every chain 1000 more iterations from where it stopped (as many as the fit ran)", ""},
	} {
		d := diagnostics{c: tc.c, all: tc.all}
		// 4 chains of 1000: the least ESS 200 asks for 1000·(1.2·400/200 − 1) = 1400.
		got := extendHint("m", d, 4, 1000)
		if !strings.Contains(got, tc.want) || tc.wantNone != "" && strings.Contains(got, tc.wantNone) {
			t.Errorf("%s: hint %q, want %q and not %q", tc.name, got, tc.want, tc.wantNone)
		}
	}
}

// TestUntilESSNotANumber: with chains of a few draws the ESS cannot be
// computed; such a target is not met, so the fit runs on.
func TestUntilESSNotANumber(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 4)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m, iter = 3, warmup = 10, chains = 1, ess = 100")
	if got := len(s.models["m"].Fit.C[0]); got <= 3 || strings.Contains(out.text(), "without extending") {
		t.Errorf("%d draws after a target on chains of 3 draws:\n%s", got, out.text())
	}
}

// rhythmRecorder calls InterruptFit when the ESS loop announces its second
// round, between two rounds of sampling, and records whether a fit was
// running then.
type rhythmRecorder struct {
	recorder
	s      *Session
	rounds int
	caught chan bool
}

func (r *rhythmRecorder) Stream(name, text string) {
	r.recorder.Stream(name, text)
	if strings.HasPrefix(text, "ess: ") {
		r.rounds++
		if r.rounds == 2 {
			r.caught <- r.s.InterruptFit()
		}
	}
}

// TestUntilESSInterruptBetweenRounds: an InterruptFit between two rounds of
// an ESS target stops the fit there (it is not lost while no chain runs),
// keeps the draws and lets the cell go on.
func TestUntilESSInterruptBetweenRounds(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 4)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	out := &rhythmRecorder{s: s, caught: make(chan bool, 1)}
	if _, err := s.Execute(context.Background(), "fit m, iter = 20, warmup = 10, chains = 2, ess = 100000\nprint 1", out); err != nil {
		t.Fatal(err)
	}
	if !<-out.caught {
		t.Error("InterruptFit between two rounds found no fit running")
	}
	text := out.text()
	if out.rounds != 2 || !strings.Contains(text, "stopped before the least ESS of C reached 100000") || !strings.HasSuffix(strings.TrimSpace(out.stdout.String()), "1") {
		t.Errorf("%d rounds announced; output:\n%s", out.rounds, text)
	}
}

// TestUntilESSMetAtOnce: a first instalment that meets the target says so,
// without rounds.
func TestUntilESSMetAtOnce(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 4)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m, iter = 2000, warmup = 200, chains = 2, seed = 3, ess = 200")
	if text := out.text(); !strings.Contains(text, ", which met the least ESS of C asked, 200, without extending") || strings.Contains(text, "ess: ") {
		t.Errorf("a target met by the first instalment:\n%s", text)
	}
}

// TestAutoShownAsWhatRan: an auto fit of a full correlation matrix is
// planned as exact HMC that starts on Gibbs and may switch; tables and
// descriptions name what it ran ("gibbs"), not "hmc".
func TestAutoShownAsWhatRan(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 4)\n"+
		"model a { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"model b { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit a, iter = 40, warmup = 40, chains = 2\nfit b with gibbs, iter = 40, warmup = 40, chains = 2")
	if s.models["a"].Fit.Schedule == nil {
		t.Fatal("the auto fit did not adapt; the test needs one that did")
	}
	for _, code := range []string{"show [a, b]", "show a"} {
		text := mustRun(t, s, code).text()
		if strings.Contains(text, "hmc") || !strings.Contains(text, "gibbs") {
			t.Errorf("%s:\n%s", code, text)
		}
	}
	res, err := s.Execute(context.Background(), "a", &recorder{})
	if text, _ := res["text/plain"].(string); err != nil || strings.Contains(text, "hmc") || !strings.Contains(text, "gibbs") {
		t.Errorf("a: %q, %v", text, err)
	}
}

// TestSimulateInterrupt: an interrupt stops a large simulate soon after,
// with a KeyboardInterrupt, and binds nothing.
func TestSimulateInterrupt(t *testing.T) {
	s := newTestSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	var se *Error
	// 5·10⁷ cells: about 18 s uninterrupted, the rows' draws most of it.
	if _, err := s.Execute(ctx, "data big = simulate(FullCopula(p = 20), n = 2500000, levels = 5)", &recorder{}); !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
		t.Fatalf("simulate: %v, want a KeyboardInterrupt", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the interrupted simulate returned after %v", took)
	}
	if _, bound := s.data["big"]; bound {
		t.Error("the interrupted simulate bound its data set")
	}
}
