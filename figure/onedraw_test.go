package figure

import (
	"strings"
	"testing"
)

// TestOneDrawTexts: a fit of one draw gave "1 chain × 1 draws" and a pairs
// plot whose strongest correlation was "NaN".
func TestOneDrawTexts(t *testing.T) {
	trace, err := Trace("x", [][]float64{{0.3}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := Pairs("p", []string{"a", "b", "c"}, [][]float64{{0.1}, {0.2}, {0.3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		f    *Figure
		want string
	}{{trace, "1 chain × 1 draw"}, {pairs, "1 draw of a, b, c"}} {
		if !strings.Contains(tt.f.Text, tt.want) || strings.Contains(tt.f.Text, "draws") || strings.Contains(tt.f.Text, "NaN") {
			t.Errorf("text %q, want %q and no plural or NaN", tt.f.Text, tt.want)
		}
	}
}
