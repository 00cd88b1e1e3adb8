package dsl

import (
	"os"
	"strings"
	"testing"
)

// TestParseWorkIsLinear guards against quadratic work in the error
// recovery, which parses each statement of a failing file on its own: a
// script four times longer, with errors at its end, must cost well under
// sixteen times as much. Work is measured by the allocations of a parse,
// which participle makes per token and per branch tried, so that the test
// is deterministic on a loaded machine (a wall-clock ratio was not); the
// ratio is about 4 when the work is linear.
func TestParseWorkIsLinear(t *testing.T) {
	ex, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	allocsFor := func(repeats int) float64 {
		src := []byte(strings.Repeat(string(ex), repeats) + strings.Repeat("fitt m\n", 20) + "summary ((((((((((m")
		return testing.AllocsPerRun(2, func() {
			_, err := Parse("", src)
			if errs, ok := err.(ErrorList); !ok || len(errs) != maxErrors {
				t.Fatalf("got %v, want %d errors", err, maxErrors)
			}
		})
	}
	small, large := allocsFor(10), allocsFor(40)
	ratio := large / small
	t.Logf("10 copies: %.0f allocations, 40 copies: %.0f, ratio %.2f", small, large, ratio)
	if ratio > 6 {
		t.Errorf("parse work grew %.1f× for 4× the input; quadratic work?", ratio)
	}
}
