package inference

import "math"

// MixingMaxRows is the largest number of rows among the runs GibbsTau and
// HMCTau were fitted to. An adaptive run on more rows keeps Gibbs rather
// than extrapolate: beyond it Gibbs's worst entry mixed well where
// measured (τ 3.0 at n = 10⁴ on the 3-factor truth whose τ was 360 at
// n = 1000) and exact HMC's cost per bounce grows faster than at the fitted
// sizes (sampling.md §9.2).
const MixingMaxRows = 3000

// GibbsTau predicts the integrated autocorrelation time, in iterations, of
// C's worst-mixing entry under Hoff's Gibbs sampler, from the largest share
// r2 of a latent column's variance that the other columns explain (R² =
// 1 − 1/(V_jj·Ω_jj)), the number of columns p, and whether that column is
// binary. It is a least-squares fit on the log scale to 46 long runs
// (sampling.md §9.2; testdata/mixing_measured.csv):
//
//	log τ = −0.515 + 2.583·log(1/(1 − R²)) + 2.060·log(p/10) + 0.757·[binary]
//
// with residual sd 0.79: a prediction is typically within a factor of 2 of
// the measurement and was within 7.2 on every run; the same setting with
// other seeds gave 13 to 80, so much of the scatter is the runs' own. The
// worst miss is a 3-factor truth (p = 10, R² 0.82): 360 measured, 50
// predicted, where exact HMC gave 3.1× Gibbs's bulk ESS per CPU-second and
// the rule keeps Gibbs (sampling.md §9.2). n (300 to 3000) and the
// number of levels beyond 2 did not improve the fit. Gibbs's worst entries
// are those of strongly correlated columns, and grow steeply with their R²
// and with the number of columns that share it.
func GibbsTau(r2 float64, p int, binary bool) float64 {
	r2 = clampR2(r2)
	lt := gibbsTauConst + gibbsTauR2*math.Log(1/(1-r2)) + gibbsTauP*math.Log(float64(p)/10)
	if binary {
		lt += gibbsTauBinary
	}
	return math.Max(1, math.Exp(lt))
}

// HMCTau is GibbsTau's counterpart for exact HMC on every column of 3 to 10
// levels, from the largest R² among them, fitted the same way to 15 runs:
//
//	log τ = 0.262 + 0.879·log(1/(1 − R²))
//
// with residual sd 0.71 (within a factor of 4.7 on every run). Unlike
// Gibbs's, it did not grow with p. It fell with n (R² 0.89, p = 10: 42, 15
// and 8.9 at n = 300, 1000 and 3000, where Gibbs gave 36, 539 and 463);
// the model leaves n out, which errs against exact HMC at large n and for
// it at small n. Binary columns are not given exact HMC: it mixed them no
// better than Gibbs per iteration except at R² 0.89 (2.7×; sampling.md
// §9.2), not enough to pay for its cost.
func HMCTau(r2 float64) float64 {
	r2 = clampR2(r2)
	return math.Max(1, math.Exp(hmcTauConst+hmcTauR2*math.Log(1/(1-r2))))
}

// clampR2 keeps R² in [0, 0.999] (NaN is 0).
func clampR2(r2 float64) float64 {
	if !(r2 > 0) {
		return 0
	}
	return math.Min(r2, 0.999)
}

const (
	gibbsTauConst  = -0.515
	gibbsTauR2     = 2.583
	gibbsTauP      = 2.060
	gibbsTauBinary = 0.757
	hmcTauConst    = 0.262
	hmcTauR2       = 0.879
)
