package inference

import (
	"math"
	"math/rand/v2"
)

// This file holds the small dense linear algebra of the covariance step, on
// flat row-major p×p slices, written so that nothing allocates: Cholesky
// factorisation, triangular inversion, the inverse-Wishart draw by Bartlett's
// decomposition, and a gamma sampler for its chi-square diagonal.

// cholLower overwrites the lower triangle of the symmetric p×p matrix a with
// its Cholesky factor L (a = LLᵀ) and zeroes the strict upper triangle. It
// reports false, leaving a partly overwritten, if a is not numerically
// positive definite.
func cholLower(a []float64, p int) bool {
	for j := 0; j < p; j++ {
		rj := a[j*p : j*p+p]
		d := rj[j]
		for k := 0; k < j; k++ {
			d -= rj[k] * rj[k]
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for i := j + 1; i < p; i++ {
			ri := a[i*p : i*p+p]
			s := ri[j]
			for k := 0; k < j; k++ {
				s -= ri[k] * rj[k]
			}
			ri[j] = s / d
		}
		for k := j + 1; k < p; k++ {
			rj[k] = 0
		}
	}
	return true
}

// invLower overwrites the lower-triangular p×p matrix l (nonzero diagonal)
// with its inverse, which is lower triangular too.
func invLower(l []float64, p int) {
	for j := 0; j < p; j++ {
		l[j*p+j] = 1 / l[j*p+j]
		for i := j + 1; i < p; i++ {
			s := 0.0
			for k := j; k < i; k++ {
				s += l[i*p+k] * l[k*p+j]
			}
			l[i*p+j] = -s / l[i*p+i]
		}
	}
}

// gramLowerT writes dst = MᵀM for the lower-triangular p×p matrix m
// (dst symmetric, both triangles written). With m = L⁻¹ this is (LLᵀ)⁻¹.
func gramLowerT(dst, m []float64, p int) {
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := i; k < p; k++ { // m[k][i], m[k][j] nonzero for k >= i >= j
				s += m[k*p+i] * m[k*p+j]
			}
			dst[i*p+j] = s
			dst[j*p+i] = s
		}
	}
}

// gammaDraw draws from Gamma(shape, rate 1) by Marsaglia and Tsang's (2000)
// squeeze method; a shape below 1 uses the boost X·U^(1/shape).
func gammaDraw(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		return gammaDraw(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return d * v
		}
		if math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// iwWork is the workspace of one inverse-Wishart draw.
type iwWork struct {
	p       int
	r, a, b []float64 // p×p scratch
}

func newIWWork(p int) *iwWork {
	return &iwWork{p: p, r: make([]float64, p*p), a: make([]float64, p*p), b: make([]float64, p*p)}
}

// draw samples V ~ IW(df, psi) by Bartlett's decomposition (sampling.md
// §1.4) and writes V into v and its inverse Ω = V⁻¹ ~ Wishart(df, psi⁻¹) into
// omega (both p×p, symmetric). With psi = RRᵀ, U = R⁻ᵀ is a factor of psi⁻¹
// (UUᵀ = psi⁻¹), so with Bartlett's lower-triangular A (A_ii² ~ χ²_{df−i+1},
// A_ik ~ N(0,1) below the diagonal), Ω = (UA)(UA)ᵀ = R⁻ᵀAAᵀR⁻¹. Then
// V = Ω⁻¹ = (RA⁻ᵀ)(RA⁻ᵀ)ᵀ needs only the inverse of the triangular A:
// V = R(A⁻¹)ᵀA⁻¹Rᵀ. psi is left unchanged. It returns log|Ω| =
// 2(Σ log A_ii − Σ log R_ii), and ok = false if psi is not positive definite.
func (w *iwWork) draw(rng *rand.Rand, df float64, psi, v, omega []float64) (logDetOmega float64, ok bool) {
	p := w.p
	copy(w.r, psi)
	if !cholLower(w.r, p) {
		return 0, false
	}
	a := w.a
	for i := 0; i < p; i++ {
		for k := 0; k < i; k++ {
			a[i*p+k] = rng.NormFloat64()
		}
		a[i*p+i] = math.Sqrt(2 * gammaDraw(rng, (df-float64(i))/2))
		for k := i + 1; k < p; k++ {
			a[i*p+k] = 0
		}
		logDetOmega += 2 * (math.Log(a[i*p+i]) - math.Log(w.r[i*p+i]))
	}
	// b = R⁻¹ (lower), then ω = (AᵀR⁻¹)ᵀ(AᵀR⁻¹) with AᵀR⁻¹ = (R⁻ᵀA)ᵀ.
	b := w.b
	copy(b, w.r)
	invLower(b, p)
	// omega = R⁻ᵀ A Aᵀ R⁻¹: let G = AᵀR⁻¹ (p×p, general); omega = GᵀG.
	// Compute G into v temporarily.
	g := v
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			s := 0.0
			// (Aᵀ)_{ik} = A_{ki}, nonzero for k >= i; (R⁻¹)_{kj} nonzero for k >= j.
			for k := max(i, j); k < p; k++ {
				s += a[k*p+i] * b[k*p+j]
			}
			g[i*p+j] = s
		}
	}
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < p; k++ {
				s += g[k*p+i] * g[k*p+j]
			}
			omega[i*p+j] = s
			omega[j*p+i] = s
		}
	}
	// V = R A⁻ᵀ A⁻¹ Rᵀ = HHᵀ with H = R A⁻ᵀ; A⁻¹ into a.
	invLower(a, p)
	// H = R (A⁻¹)ᵀ: H_ij = Σ_k R_ik (A⁻¹)_jk, R_ik nonzero k <= i, (A⁻¹)_jk nonzero k <= j.
	h := w.b
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			s := 0.0
			for k := 0; k <= min(i, j); k++ {
				s += w.r[i*p+k] * a[j*p+k]
			}
			h[i*p+j] = s
		}
	}
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < p; k++ {
				s += h[i*p+k] * h[j*p+k]
			}
			v[i*p+j] = s
			v[j*p+i] = s
		}
	}
	return logDetOmega, true
}

// corrFromCov writes C = Δ⁻¹VΔ⁻¹ with Δ = diag(V)^{1/2} into c, with an exact
// unit diagonal and bitwise symmetry.
func corrFromCov(c, v []float64, p int) {
	for i := 0; i < p; i++ {
		c[i*p+i] = 1
		for j := 0; j < i; j++ {
			r := v[i*p+j] / math.Sqrt(v[i*p+i]*v[j*p+j])
			c[i*p+j] = r
			c[j*p+i] = r
		}
	}
}
