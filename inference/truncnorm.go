package inference

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"

	"github.com/copulang/copulang/hough"
)

// truncNormal draws from N(mu, sigma²) restricted to [lo, hi] (either bound
// may be infinite), following sampling.md §1.6: standardise, reflect so the
// interval does not lie wholly below zero, invert the upper-tail CDF Φ̄ when
// the interval lies in the upper tail (never forming Φ(β) − Φ(α) for two
// points in the same tail), fall back to Robert's (1995) exponential
// rejection when Φ̄(α) underflows, and clamp the result to the interval.
// A degenerate interval (lo >= hi) returns lo.
func truncNormal(rng *rand.Rand, mu, sigma, lo, hi float64) float64 {
	if !(lo < hi) {
		return lo
	}
	if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
		return mu + sigma*rng.NormFloat64()
	}
	alpha := (lo - mu) / sigma
	beta := (hi - mu) / sigma
	sign := 1.0
	if beta <= 0 {
		// The interval lies below zero: draw −X on [−β, −α] instead.
		alpha, beta = -beta, -alpha
		sign = -1
	}
	var x float64
	if alpha >= 0 {
		x = upperTailNormal(rng, alpha, beta)
	} else {
		// The interval straddles zero: the inverse CDF is accurate here.
		pa := stdNormalCDF(alpha)
		pb := stdNormalCDF(beta)
		u := pa + (pb-pa)*rng.Float64()
		x = mathext.NormalQuantile(u)
	}
	x = math.Max(alpha, math.Min(beta, x))
	return mu + sigma*sign*x
}

// upperTailNormal draws a standard normal restricted to [alpha, beta] with
// 0 <= alpha < beta <= +Inf.
func upperTailNormal(rng *rand.Rand, alpha, beta float64) float64 {
	qa := stdNormalUpper(alpha)
	if qa < 1e-300 {
		return robertTail(rng, alpha, beta)
	}
	qb := stdNormalUpper(beta)
	u := qb + (qa-qb)*rng.Float64()
	if u <= 0 {
		return alpha
	}
	// Φ̄⁻¹(u) = −Φ⁻¹(u); AS241 is accurate for tiny u, where
	// math.Erfcinv(2u) = Erfinv(1−2u) rounds to +Inf.
	return -mathext.NormalQuantile(u)
}

// robertTail is Robert's (1995) exponential rejection sampler for a standard
// normal restricted to [alpha, beta] far in the upper tail: propose
// x = alpha + E/λ with λ = (alpha + sqrt(alpha²+4))/2 and accept with
// probability exp(−(x−λ)²/2). Its acceptance rate tends to 1 as alpha grows.
func robertTail(rng *rand.Rand, alpha, beta float64) float64 {
	lambda := (alpha + math.Sqrt(alpha*alpha+4)) / 2
	for {
		x := alpha + rng.ExpFloat64()/lambda
		if x > beta {
			continue
		}
		d := x - lambda
		if rng.Float64() <= math.Exp(-d*d/2) {
			return x
		}
	}
}

// stdNormalCDF is Φ(x).
func stdNormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// stdNormalUpper is Φ̄(x) = 1 − Φ(x), accurate in the upper tail.
func stdNormalUpper(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// gibbsLevels is Hoff's block update of one latent column z (sampling.md
// §1.4) given its conditional means mu (one per row) and common conditional
// standard deviation sigma. Levels are visited in ascending order; every
// member of level ℓ is drawn from N(mu_i, sigma²) truncated to
// [max of level ℓ−1 (already refreshed), min of level ℓ+1 (not yet
// refreshed)], which is an exact block update because members of one level
// are conditionally independent. Missing rows are drawn from N(mu_i, sigma²)
// unconstrained. It does not allocate. The shift move of sbgcop 1.0 is not
// part of it: the full-correlation sampler applies that separately.
func gibbsLevels(rng *rand.Rand, lv *hough.Levels, z, mu []float64, sigma float64) {
	L := lv.NumLevels()
	lo := math.Inf(-1)
	for l := 0; l < L; l++ {
		hi := math.Inf(1)
		if l+1 < L {
			for _, i := range lv.Rows(l + 1) {
				hi = math.Min(hi, z[i])
			}
		}
		next := math.Inf(-1)
		for _, i := range lv.Rows(l) {
			v := truncNormal(rng, mu[i], sigma, lo, hi)
			z[i] = v
			next = math.Max(next, v)
		}
		lo = next
	}
	for _, i := range lv.Missing {
		z[i] = mu[i] + sigma*rng.NormFloat64()
	}
}
