package dsl

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestParseTimeIsLinear guards against quadratic work in the error
// recovery, which parses each statement of a failing file on its own:
// a script four times longer, with errors at its end, must take well under
// sixteen times as long (the ratio is about 4 when the work is linear; the
// best of three runs is used to damp the noise of a shared machine).
func TestParseTimeIsLinear(t *testing.T) {
	ex, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	timeFor := func(repeats int) time.Duration {
		src := []byte(strings.Repeat(string(ex), repeats) + strings.Repeat("fitt m\n", 20) + "summary ((((((((((m")
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			_, err := Parse("", src)
			if d := time.Since(start); d < best {
				best = d
			}
			if errs, ok := err.(ErrorList); !ok || len(errs) != maxErrors {
				t.Fatalf("got %v, want %d errors", err, maxErrors)
			}
		}
		return best
	}
	small, large := timeFor(25), timeFor(100)
	ratio := float64(large) / float64(small)
	t.Logf("25 copies: %v, 100 copies: %v, ratio %.1f", small, large, ratio)
	if ratio > 10 {
		t.Errorf("parse time grew %.1f× for 4× the input; quadratic work?", ratio)
	}
}
