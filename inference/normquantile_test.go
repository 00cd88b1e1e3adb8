package inference

import (
	"math"
	"testing"
)

// Φ(Φ⁻¹(p)) = p from the centre down to p = 10⁻³⁰⁰ (where √2·erf⁻¹(2p − 1)
// has lost every digit), within 10⁻¹⁵(4 + x²) relative: an error δ in x
// moves Φ by x·δ relative to it, so x's own rounding (10⁻¹⁶|x|) gives
// about 10⁻¹⁶x²; a wrong coefficient gives far more. The tails are
// symmetric.
func TestStdNormalQuantileInvertsPhi(t *testing.T) {
	for _, p := range []float64{1e-300, 1e-200, 1e-100, 1e-40, 1e-20, 1e-12, 1e-8, 1e-5, 0.001, 0.02, 0.0749, 0.075, 0.2, 0.5, 0.6, 0.924, 0.93, 0.99} {
		x := stdNormalQuantile(p)
		tol := 1e-15 * (4 + x*x) * p
		if got := stdNormalCDF(x); math.Abs(got-p) > tol {
			t.Errorf("Φ(Φ⁻¹(%g)) = %.17g (x = %.17g), relative error %.2g", p, got, x, math.Abs(got-p)/p)
		}
		if p < 0.5 {
			if got := stdNormalUpper(-x); math.Abs(got-p) > tol {
				t.Errorf("Φ̄(−Φ⁻¹(%g)) = %.17g", p, got)
			}
		}
	}
	for _, p := range []float64{0.01, 0.3} {
		if a, b := stdNormalQuantile(p), stdNormalQuantile(1-p); math.Abs(a+b) > 1e-14*math.Abs(a) {
			t.Errorf("Φ⁻¹(%g) = %.17g but Φ⁻¹(1 − p) = %.17g", p, a, b)
		}
	}
	if !math.IsInf(stdNormalQuantile(0), -1) || !math.IsInf(stdNormalQuantile(1), 1) || stdNormalQuantile(0.5) != 0 {
		t.Errorf("ends: %g %g %g", stdNormalQuantile(0), stdNormalQuantile(1), stdNormalQuantile(0.5))
	}
}
