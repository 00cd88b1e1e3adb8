package session

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/copulang/copulang/compiler"
)

// pager records pages and clears besides what recorder records.
type pager struct {
	recorder
	pages  []MimeBundle
	clears int
}

func (p *pager) Page(b MimeBundle)     { p.pages = append(p.pages, b) }
func (p *pager) ClearOutput(bool)      { p.clears++ }
func (p *pager) Stream(n, text string) { p.recorder.Stream(n, text) }

func TestValueStatements(t *testing.T) {
	s := New(Options{})
	mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 2)`)
	mustRun(t, s, "model m {\n  Y = sim\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ LKJ(eta = 2)\n}")
	fit := mustRun(t, s, "fit m, iter = 100, warmup = 50, chains = 2, seed = 1")
	// 100 draws per chain cannot have an ESS of 100 per chain: warned on stderr.
	if !strings.Contains(fit.stderr.String(), "warning: ESS below 100 per chain") || strings.Contains(fit.stdout.String(), "warning") {
		t.Errorf("fit warnings: stdout %q, stderr %q", fit.stdout.String(), fit.stderr.String())
	}
	// auto ran Gibbs on 3-level columns: the warning comes with the advice
	// to run longer.
	if !strings.Contains(fit.stderr.String(), "hint: on columns of 3 to 10 levels Hoff's Gibbs sampler") || !strings.Contains(fit.stderr.String(), "`extend m`") {
		t.Errorf("fit advice: stderr %q", fit.stderr.String())
	}
	tests := []struct {
		code, want string
	}{
		{"1 + 2", "3"},
		{"2 * pi", "6.283185307179586"},
		{`"copulas"`, `"copulas"`},
		{"sim", "data sim: 100 rows × 3 columns"},
		{"m", "model m: Gaussian copula, full correlation"},
		{"m.C[1, 2]", "C[Y1, Y2] = "},
		{"m.C[Y1, Y3]", "(posterior mean; sd "},
		{"m.C", "posterior means of m.C (200 draws):"},
	}
	for _, tc := range tests {
		r, err := s.Execute(context.Background(), tc.code, &recorder{})
		if err != nil {
			t.Errorf("%s: %v", tc.code, err)
			continue
		}
		if got, _ := r["text/plain"].(string); !strings.Contains(got, tc.want) {
			t.Errorf("%s: result %q, want it to contain %q", tc.code, got, tc.want)
		}
	}
	// Only the last expression is the result; earlier ones are displayed.
	out := &recorder{}
	r, err := s.Execute(context.Background(), "1\n2", out)
	if err != nil || r["text/plain"] != "2" || len(out.displays) != 1 || out.displays[0]["text/plain"] != "1" {
		t.Errorf("two expressions: result %v, displays %v, err %v", r, out.displays, err)
	}
	p := &pager{}
	if _, err := s.Execute(context.Background(), "print \"hello, world\", 1 + 1, sim\nhelp fit\nclear", p); err != nil {
		t.Fatal(err)
	}
	if got := p.stdout.String(); !strings.HasPrefix(got, "hello, world 2 data sim: 100 rows") {
		t.Errorf("print wrote %q", got)
	}
	// help writes into the cell's output, which a saved notebook and
	// nbconvert keep; the pager is for WORD? alone (TestHelpQueryPages).
	if len(p.pages) != 0 || !strings.Contains(p.stdout.String(), "fit NAME [with METHOD") || p.clears != 1 {
		t.Errorf("help: stdout %q, pages %v; %d clears", p.stdout.String(), p.pages, p.clears)
	}
	for _, bad := range []struct{ code, want string }{
		{"nothing", "nothing"},
		{"m.Z[Y1]", "draws of Z are not kept"},
		{"help nonsense", "no help for nonsense"},
		{"sim.C", "sim is a data set"},
	} {
		_, err := s.Execute(context.Background(), bad.code, &recorder{})
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(strings.Join(se.Traceback, "\n")+se.Value, bad.want) {
			t.Errorf("%s: %v, want an error mentioning %q", bad.code, err, bad.want)
		}
	}
	if b, err := s.Evaluate(context.Background(), "m.C[1, 2]"); err != nil || !strings.Contains(b["text/plain"].(string), "posterior mean") {
		t.Errorf("Evaluate: %v %v", b, err)
	}
	if _, err := s.Evaluate(context.Background(), "fit m"); err == nil {
		t.Error("Evaluate ran a statement")
	}
}

// TestCompleteWhileExecuting calls Complete, Inspect and IsComplete from
// another goroutine while cells declare, fit and redefine bindings; run
// with -race it shows that they read only the published view.
func TestCompleteWhileExecuting(t *testing.T) {
	s := New(Options{})
	mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 60, levels = 3, seed = 2)`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	calls := 0
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.Complete("summary m.", len("summary m."))
			s.Complete("plot trace sim[", len("plot trace sim["))
			s.Inspect("m", 0, 1)
			s.Inspect("sim", 0, 1)
			s.IsComplete("model m {")
			calls++
		}
	}()
	for i := 0; i < 3; i++ {
		mustRun(t, s, "model m {\n  Y = sim\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ LKJ(eta = 2)\n}")
		mustRun(t, s, "fit m, iter = 60, warmup = 30, chains = 2, seed = 1")
		mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 60, levels = 3, seed = 3)`)
	}
	close(stop)
	wg.Wait()
	if calls == 0 {
		t.Fatal("no concurrent calls were made")
	}
	if m, _, _ := s.Complete("m.", 2); len(m) == 0 {
		t.Errorf("members of m after the cells: %v", m)
	}
}

// TestNumberText: numbers print in positional notation from 10⁻⁴ to 10¹⁶
// and with an exponent beyond, in the fewest digits that read back, and −0
// as 0 (123456789.123 printed as 1.23456789123e+08, and -0 as -0).
func TestNumberText(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-2.5, "-2.5"}, {1.0 / 3, "0.3333333333333333"},
		{123456789.123, "123456789.123"}, {1e15, "1000000000000000"}, {1e16, "1e+16"}, {0.0001, "0.0001"},
		{0.00001, "1e-05"}, {2 * math.Pi, "6.283185307179586"}, {math.Inf(-1), "-Inf"}, {math.NaN(), "NaN"},
	} {
		if got := numberText(c.v); got != c.want {
			t.Errorf("numberText(%v) = %q, want %q", c.v, got, c.want)
		}
		if v, err := strconv.ParseFloat(numberText(c.v), 64); err != nil || (v != c.v && c.v == c.v) {
			t.Errorf("numberText(%v) = %q reads back as %v, %v", c.v, numberText(c.v), v, err)
		}
	}
}

// TestPosteriorMeansNoNegativeZero pins that a posterior mean which rounds
// to zero prints as "0.000", as summary's tables print it. The aligned
// loadings of a factor model make it common: Lambda[Y1, 2] is rotated to
// a mean of exactly zero up to rounding, which printed as "-0.000" when the
// rounding left it negative (found reviewing a factor-model analysis: the
// list said -0.000 where summary m.Lambda said 0.000).
func TestPosteriorMeansNoNegativeZero(t *testing.T) {
	s := New(Options{})
	mustRun(t, s, `data sim = simulate(FactorCopula(p = 4, k = 2), n = 100, levels = 3, seed = 2)`)
	mustRun(t, s, "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }")
	mustRun(t, s, "fit m, iter = 100, warmup = 50, chains = 2, seed = 1")
	tests := []struct{ code, want string }{
		{"m.Lambda", "  Lambda[Y1, 2]   0.000  (sd "},
		{"m.Lambda[Y1, 2]", "Lambda[Y1, 2] = 0.000 (posterior mean; sd "},
	}
	for _, tc := range tests {
		r, err := s.Execute(context.Background(), tc.code, &recorder{})
		if err != nil {
			t.Fatalf("%s: %v", tc.code, err)
		}
		got, _ := r["text/plain"].(string)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "-0.000 ") {
			t.Errorf("%s: result %q, want it to contain %q and no -0.000", tc.code, got, tc.want)
		}
	}
}

// TestEvaluateErrorsNameThemselves checks that the traceback of a failed
// user_expression starts with the error's name, as a cell's does: it was
// "1:1: unknown name nosuch" for a CheckError (found sending
// user_expressions with jupyter_client).
func TestEvaluateErrorsNameThemselves(t *testing.T) {
	s := newTestSession(t)
	for _, expr := range []string{"nosuch", "1 +", "fit m", "1 + \"a\""} {
		_, err := s.Evaluate(context.Background(), expr)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("Evaluate(%q) = %v, want an *Error", expr, err)
			continue
		}
		if len(se.Traceback) == 0 || !strings.HasPrefix(se.Traceback[0], se.Name+": ") {
			t.Errorf("Evaluate(%q): traceback %q does not start with %q", expr, se.Traceback, se.Name+": ")
		}
	}
}

// TestHelpQueryPages: a cell of only IPython's WORD?, ?WORD or WORD?? pages
// the word's help where the output has a pager; anything else with a ? is
// the parser's error, which says how to ask.
func TestHelpQueryPages(t *testing.T) {
	fitDoc, _ := compiler.Doc("fit")
	factorDoc, _ := compiler.Doc("FactorModel")
	for _, tc := range []struct {
		code, page, err string
	}{
		{"fit?", fitDoc, ""},
		{"?fit", fitDoc, ""},
		{"  fit??  # what does fit take?\n", fitDoc, ""},
		{"\n?FactorModel\n\n", factorDoc, ""},
		{"nonsense?", "", "unexpected character '?'"},
		{"fit m?", "", "unexpected character '?'"},
		{"fit?\nfit?", "", "unexpected character '?'"},
		{"?", "", "unexpected character '?'"},
		{"?fit?", "", "unexpected character '?'"},
	} {
		s := New(Options{})
		p := &pager{}
		_, err := s.Execute(context.Background(), tc.code, p)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || len(p.pages) != 0 {
				t.Errorf("%q: err %v, pages %d, want error %q", tc.code, err, len(p.pages), tc.err)
			}
			continue
		}
		if err != nil || len(p.pages) != 1 || p.pages[0]["text/plain"] != tc.page || p.stdout.Len() != 0 {
			t.Errorf("%q: err %v, %d pages, stdout %q", tc.code, err, len(p.pages), p.stdout.String())
		}
	}
	// Without a pager (a script, the CLI) the question is the parser's error.
	if _, err := New(Options{}).Execute(context.Background(), "fit?", &recorder{}); err == nil {
		t.Error("fit? without a pager: no error")
	}
}
