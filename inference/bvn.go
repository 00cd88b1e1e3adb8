package inference

import "math"

// The bivariate normal distribution function, which predict needs for one
// given column: gonum has none (its distmv.Normal has no CDF).

// gaussLegendre holds the nodes in (−1, 0) and weights of the 6-, 12- and
// 20-point Gauss–Legendre rules (the other half of each is the mirror
// image), as Genz's BVND uses them.
var gaussLegendre = [3]struct{ x, w []float64 }{
	{
		x: []float64{-0.9324695142031522, -0.6612093864662647, -0.2386191860831970},
		w: []float64{0.1713244923791705, 0.3607615730481384, 0.4679139345726904},
	},
	{
		x: []float64{-0.9815606342467191, -0.9041172563704750, -0.7699026741943050,
			-0.5873179542866171, -0.3678314989981802, -0.1252334085114692},
		w: []float64{0.04717533638651177, 0.1069393259953183, 0.1600783285433464,
			0.2031674267230659, 0.2334925365383547, 0.2491470458134029},
	},
	{
		x: []float64{-0.9931285991850949, -0.9639719272779138, -0.9122344282513259,
			-0.8391169718222188, -0.7463319064601508, -0.6360536807265150,
			-0.5108670019508271, -0.3737060887154195, -0.2277858511416451,
			-0.07652652113349734},
		w: []float64{0.01761400713915212, 0.04060142980038694, 0.06267204833410906,
			0.08327674157670475, 0.1019301198172404, 0.1181945319615184,
			0.1316886384491766, 0.1420961093183820, 0.1491729864726037,
			0.1527533871307258},
	},
}

// bvnUpper is P(X > h, Y > k) for standard bivariate normal X, Y with
// correlation r, by Genz's BVND (Genz 2004, "Numerical computation of
// rectangular bivariate and trivariate normal and t probabilities",
// Statistics and Computing 14:251–260): Drezner and Wesolowsky's
// integral over the correlation,
//
//	P = Φ(−h)Φ(−k) + (1/2π) ∫_0^{asin r} exp(−(h² + k² − 2hk sin θ)/(2cos²θ)) dθ,
//
// by Gauss–Legendre for |r| < 0.925, and for |r| ≥ 0.925 Genz's expansion
// about r = ±1, whose integrand stays smooth as |r| → 1. About 15 correct
// digits; h and k may be infinite.
func bvnUpper(h, k, r float64) float64 {
	switch {
	case math.IsInf(h, 1) || math.IsInf(k, 1):
		return 0
	case math.IsInf(h, -1):
		return stdNormalUpper(k)
	case math.IsInf(k, -1):
		return stdNormalUpper(h)
	case r == 0:
		return stdNormalUpper(h) * stdNormalUpper(k)
	}
	rule := 2
	if math.Abs(r) < 0.3 {
		rule = 0
	} else if math.Abs(r) < 0.75 {
		rule = 1
	}
	xs, ws := gaussLegendre[rule].x, gaussLegendre[rule].w
	const twoPi = 2 * math.Pi
	hk := h * k
	bvn := 0.0
	if math.Abs(r) < 0.925 {
		hs := (h*h + k*k) / 2
		asr := math.Asin(r)
		for i, x := range xs {
			sn := math.Sin(asr * (x + 1) / 2)
			bvn += ws[i] * math.Exp((sn*hk-hs)/(1-sn*sn))
			sn = math.Sin(asr * (-x + 1) / 2)
			bvn += ws[i] * math.Exp((sn*hk-hs)/(1-sn*sn))
		}
		return clamp01(bvn*asr/(2*twoPi) + stdNormalUpper(h)*stdNormalUpper(k))
	}
	if r < 0 {
		k, hk = -k, -hk
	}
	if math.Abs(r) < 1 {
		as := (1 - r) * (1 + r)
		a := math.Sqrt(as)
		bs := (h - k) * (h - k)
		c := (4 - hk) / 8
		d := (12 - hk) / 16
		bvn = a * math.Exp(-(bs/as+hk)/2) * (1 - c*(bs-as)*(1-d*bs/5)/3 + c*d*as*as/5)
		if hk > -160 {
			b := math.Sqrt(bs)
			bvn -= math.Exp(-hk/2) * math.Sqrt(twoPi) * stdNormalCDF(-b/a) * b * (1 - c*bs*(1-d*bs/5)/3)
		}
		a /= 2
		for i, x := range xs {
			s := a * (x + 1)
			xs2 := s * s
			rs := math.Sqrt(1 - xs2)
			bvn += a * ws[i] * (math.Exp(-bs/(2*xs2)-hk/(1+rs))/rs - math.Exp(-(bs/xs2+hk)/2)*(1+c*xs2*(1+d*xs2)))
			xs2 = as * (-x + 1) * (-x + 1) / 4
			rs = math.Sqrt(1 - xs2)
			bvn += a * ws[i] * math.Exp(-(bs/xs2+hk)/2) * (math.Exp(-hk*xs2/(2*(1+rs)*(1+rs)))/rs - (1 + c*xs2*(1+d*xs2)))
		}
		bvn = -bvn / twoPi
	}
	if r > 0 {
		return clamp01(bvn + stdNormalUpper(max(h, k)))
	}
	return clamp01(-bvn + max(0, stdNormalUpper(h)-stdNormalUpper(k)))
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

// BivariateNormalCDF is P(X ≤ h, Y ≤ k) for standard bivariate normal X, Y
// with correlation r (−1 ≤ r ≤ 1); h and k may be infinite.
func BivariateNormalCDF(h, k, r float64) float64 { return bvnUpper(-h, -k, r) }

// bvnRectangle is P(a1 < X ≤ b1, a2 < Y ≤ b2) for standard bivariate
// normal X, Y with correlation r, by inclusion–exclusion of upper
// orthants (bounds may be infinite).
func bvnRectangle(a1, b1, a2, b2, r float64) float64 {
	p := bvnUpper(a1, a2, r) - bvnUpper(b1, a2, r) - bvnUpper(a1, b2, r) + bvnUpper(b1, b2, r)
	return max(p, 0)
}
