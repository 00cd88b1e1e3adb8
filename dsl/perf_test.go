package dsl

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLargeInputIsFast guards against quadratic work in the error recovery:
// a 300 kB script with an error in every statement of its last part must
// still parse quickly.
func TestLargeInputIsFast(t *testing.T) {
	ex, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Repeat(string(ex), 200) + strings.Repeat("fitt m\n", 20) + "summary ((((((((((((((((((((m"
	start := time.Now()
	_, err = Parse("", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	if errs := err.(ErrorList); len(errs) != maxErrors {
		t.Errorf("got %d errors, want %d", len(errs), maxErrors)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("parsing %d bytes took %v", len(src), d)
	}
	t.Logf("%d bytes in %v", len(src), time.Since(start))
}
