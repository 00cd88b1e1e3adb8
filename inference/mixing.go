package inference

import "math"

// MixingMaxRows is the largest number of rows among the runs GibbsTau and
// HMCTau were fitted to. An adaptive run on more rows keeps Gibbs rather
// than extrapolate: beyond it exact HMC's cost per bounce grows faster than
// at the fitted sizes, and Gibbs mixed well where measured (sampling.md
// §9.2).
const MixingMaxRows = 3000

// GibbsTau predicts the integrated autocorrelation time, in iterations, of
// C's worst-mixing entry under Hoff's Gibbs sampler with the scaling move
// (sampling.md §1.4), from the largest share r2 of a latent column's
// variance that the other columns explain (R² = 1 − 1/(V_jj·Ω_jj)) and
// whether that column is binary. It is a least-squares fit on the log
// scale to 46 long runs (sampling.md §9.5; testdata/mixing_measured.csv):
//
//	log τ = −0.167 + 1.029·log(1/(1 − R²)) + 2.011·[binary]
//
// with residual sd 0.45: a prediction is typically within a factor of 1.6
// of the measurement and was within 4.4 on every run. The number of
// columns (5 to 20), n (300 to 3000) and the number of levels beyond 2 did
// not improve the fit. Before the scaling move τ grew like (1 − R²)^−2.6
// and like p², because Gibbs crossed the attenuated start's slow direction
// only over thousands of iterations (539 at R² 0.89, p = 10, 5 levels;
// 9.8 now).
func GibbsTau(r2 float64, binary bool) float64 {
	r2 = clampR2(r2)
	lt := gibbsTauConst + gibbsTauR2*math.Log(1/(1-r2))
	if binary {
		lt += gibbsTauBinary
	}
	return math.Max(1, math.Exp(lt))
}

// HMCTau is GibbsTau's counterpart for exact HMC on every column of 3 to 10
// levels, from the largest R² among them, fitted the same way to 15 runs of
// 200 + 800 iterations:
//
//	log τ = 0.160 + 1.080·log(1/(1 − R²))
//
// with residual sd 0.62 (within a factor of 3.5 on every run). Per iteration
// it is no better than GibbsTau's columns of 3 or more levels, at 10 to 40
// times the cost, so an adaptive run keeps Gibbs on every data set
// measured. Runs this short overstate it where exact HMC's own start has
// not been left (the 5-factor truth of §9.1: 7.9 in 800 iterations, 2.6 in
// 3000). Binary columns are not given exact HMC: it mixed them no better
// than Gibbs per iteration.
func HMCTau(r2 float64) float64 {
	r2 = clampR2(r2)
	return math.Max(1, math.Exp(hmcTauConst+hmcTauR2*math.Log(1/(1-r2))))
}

// mixingModel is what an adaptive run predicts τ from: GibbsTau and
// HMCTau (fittedMixing) except in tests, whose models may also depend on
// the number of columns left on Gibbs.
type mixingModel struct {
	gibbs func(r2 float64, p int, binary bool) float64
	hmc   func(r2 float64) float64
}

func fittedMixing() mixingModel {
	return mixingModel{
		gibbs: func(r2 float64, _ int, binary bool) float64 { return GibbsTau(r2, binary) },
		hmc:   HMCTau,
	}
}

// clampR2 keeps R² in [0, 0.999] (NaN is 0).
func clampR2(r2 float64) float64 {
	if !(r2 > 0) {
		return 0
	}
	return math.Min(r2, 0.999)
}

const (
	gibbsTauConst  = -0.167
	gibbsTauR2     = 1.029
	gibbsTauBinary = 2.011
	hmcTauConst    = 0.160
	hmcTauR2       = 1.080
)
