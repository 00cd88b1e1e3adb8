package figure

import (
	"math"
	"strings"
	"testing"
)

// TestPredicted: the text of a prediction's figure names the most likely
// level and counts the levels whose interval lies above or below their
// share over all rows; a level with a non-finite value is left out and
// counted; too many levels, or lengths that differ, are errors.
func TestPredicted(t *testing.T) {
	levels := []string{"0", "1", "2", "3"}
	mean := []float64{0.1, 0.5, 0.3, 0.1}
	lo := []float64{0.08, 0.45, 0.2, 0.05}
	hi := []float64{0.12, 0.55, 0.4, 0.15}
	marginal := []float64{0.25, 0.25, 0.25, 0.25} // levels 0 and 3 below, 1 above, 2 contains it
	f, err := Predicted("P(y | x = 1) under m", "y", levels, mean, lo, hi, marginal, nil, "90%")
	if err != nil {
		t.Fatal(err)
	}
	want := `Prediction plot of "P(y | x = 1) under m": 4 levels, most likely 1 (p = 0.500; 0.250 over all rows); 1 above and 2 below their share over all rows, their 90% intervals excluding it`
	if f.Text != want {
		t.Errorf("text %q\nwant %q", f.Text, want)
	}
	if len(f.PNG) == 0 || len(f.SVG) == 0 {
		t.Error("no image")
	}
	share := []float64{0.2, 0.4, 0.4, 0}
	mean[3] = math.NaN()
	if f, err := Predicted("t", "y", levels, mean, lo, hi, marginal, share, "90%"); err != nil ||
		!strings.Contains(f.Text, "crosses: the shares among the rows") || !strings.Contains(f.Text, "1 above and 1 below") || !strings.HasSuffix(f.Text, "; 1 non-finite values not drawn") {
		t.Errorf("with crosses and a non-finite mean: %v, %q", err, f.Text)
	}
	many := make([]string, MaxPredictedLevels+1)
	vals := make([]float64, len(many))
	if _, err := Predicted("t", "y", many, vals, vals, vals, vals, nil, "90%"); err == nil {
		t.Errorf("%d levels drawn", len(many))
	}
	if _, err := Predicted("t", "y", levels, mean[:3], lo, hi, marginal, nil, "90%"); err == nil {
		t.Error("3 means for 4 levels drawn")
	}
}
