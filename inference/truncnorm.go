package inference

import (
	"math"
	"math/rand/v2"

	"github.com/copulang/copulang/hough"
)

// truncNormal draws from N(mu, sigma²) restricted to [lo, hi] (either bound
// may be infinite). It standardises to [α, β] = [(lo−μ)/σ, (hi−μ)/σ] and
// draws exactly by rejection, choosing per interval the proposal whose
// acceptance rate is at least about one half (Robert 1995; Chopin 2011):
//
//   - an interval holding 0: uniform proposals with acceptance e^{−x²/2}
//     when it is narrower than √(2π), otherwise standard normal proposals;
//   - an interval in the upper tail (the lower tail is reflected): uniform
//     proposals when the density falls by less than e over it, half-normal
//     proposals when it starts below 0.4, otherwise Robert's translated
//     exponential.
//
// Unlike inverting Φ (sampling.md §1.6), this needs no erfc or quantile
// function, stays exact in the far tails where Φ̄ underflows, and costs a
// few uniform or ziggurat draws. The result is clamped to [lo, hi] against
// rounding in μ + σx. A degenerate interval (lo >= hi) returns lo.
func truncNormal(rng *rand.Rand, mu, sigma, lo, hi float64) float64 {
	if !(lo < hi) {
		return lo
	}
	alpha := (lo - mu) / sigma
	beta := (hi - mu) / sigma
	var x float64
	switch {
	case alpha >= 0:
		x = upperTruncNormal(rng, alpha, beta)
	case beta <= 0:
		x = -upperTruncNormal(rng, -beta, -alpha)
	default:
		x = centralTruncNormal(rng, alpha, beta)
	}
	return min(max(mu+sigma*x, lo), hi)
}

// sqrt2Pi is √(2π): an interval holding 0 that is narrower than this
// accepts uniform proposals more often than standard normal ones.
const sqrt2Pi = 2.5066282746310002

// centralTruncNormal draws a standard normal restricted to [a, b] with
// a < 0 < b.
func centralTruncNormal(rng *rand.Rand, a, b float64) float64 {
	if b-a < sqrt2Pi {
		w := b - a
		for {
			x := a + w*rng.Float64()
			if acceptGauss(rng, x*x/2) {
				return x
			}
		}
	}
	for {
		x := rng.NormFloat64()
		if a <= x && x <= b {
			return x
		}
	}
}

// upperTruncNormal draws a standard normal restricted to [a, b] with
// 0 <= a < b <= +Inf.
func upperTruncNormal(rng *rand.Rand, a, b float64) float64 {
	if (b-a)*(b+a) <= 2 {
		// The density falls by at most e over [a, b]: uniform proposals
		// accept with probability e^{−(x²−a²)/2} ≥ 1/e.
		w := b - a
		for {
			x := a + w*rng.Float64()
			if acceptGauss(rng, (x-a)*(x+a)/2) {
				return x
			}
		}
	}
	if a < 0.4 {
		for {
			x := math.Abs(rng.NormFloat64())
			if a <= x && x <= b {
				return x
			}
		}
	}
	return robertTail(rng, a, b)
}

// acceptGauss reports whether a uniform draw falls below e^{−t} (t >= 0).
func acceptGauss(rng *rand.Rand, t float64) bool {
	return belowExp(rng.Float64(), t)
}

// belowExp reports whether u <= e^{−t} for u in [0, 1) and t >= 0. It
// calls math.Exp only when u falls between two bounds of e^{−t}, about one
// call in 400 on the Gibbs benchmark's draws: the lower bounds 1 − t and
// 1 − t + t²/2 − t³/6 (Taylor, alternating) accept, the upper bound
// 1/(1 + t + t²/2) rejects. The bounds are widened by 2e−15, more than
// their rounding and math.Exp's, so every answer is the one u <= e^{−t}
// gives and the draws are unchanged to the bit.
func belowExp(u, t float64) bool {
	if u <= 1-t {
		return true
	}
	if u*(1+t+t*t/2) > 1+2e-15 {
		return false
	}
	if t2 := t * t / 2; u <= 1-t+t2*(1-t/3)-2e-15 {
		return true
	}
	return u <= math.Exp(-t)
}

// robertTail is Robert's (1995) exponential rejection sampler for a standard
// normal restricted to [alpha, beta] in the upper tail: propose
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
		if acceptGauss(rng, d*d/2) {
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
// part of it: the full-correlation sampler applies that separately. If sums
// is not nil, it records each level's sums of the new values for the group
// moves that follow (levelStretch), saving them a pass over the rows.
func gibbsLevels(rng *rand.Rand, lv *hough.Levels, z, mu []float64, sigma float64, sums *levelStretch) {
	L := lv.NumLevels()
	if sums != nil {
		sums.reset(L)
	}
	lo := math.Inf(-1)
	for l := 0; l < L; l++ {
		hi := math.Inf(1)
		if l+1 < L {
			for _, i := range lv.Rows(l + 1) {
				if z[i] < hi {
					hi = z[i]
				}
			}
		}
		next := math.Inf(-1)
		rows := lv.Rows(l)
		if sums == nil {
			for _, i := range rows {
				v := truncNormal(rng, mu[i], sigma, lo, hi)
				z[i] = v
				if v > next {
					next = v
				}
			}
		} else {
			var sz, szz, szm, sm float64
			for _, i := range rows {
				m := mu[i]
				v := truncNormal(rng, m, sigma, lo, hi)
				z[i] = v
				if v > next {
					next = v
				}
				sz += v
				szz += v * v
				szm += v * m
				sm += m
			}
			sums.record(l, len(rows), sz, szz, szm, sm, next)
		}
		lo = next
	}
	for _, i := range lv.Missing {
		z[i] = mu[i] + sigma*rng.NormFloat64()
	}
}
