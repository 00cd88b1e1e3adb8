package inference

// Quantities derived from each draw of C (or of the loadings), as sbgcop
// users compute them: partial correlations, regressions of one latent
// variable on others (sbgcop's sR.sC generalised to any predictors), and
// for factor models the share of each variable's variance the factors
// explain. Computed per draw, they have full posterior distributions and
// go through the same summaries and diagnostics as C.

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// PartialCorrelation writes into dst (p×p, row-major) the partial
// correlations of the correlation matrix c: the correlation of z_j and z_k
// given every other variable,
//
//	dst_jk = −Ω_jk / sqrt(Ω_jj Ω_kk),  Ω = C⁻¹,
//
// with a unit diagonal; dst is bitwise symmetric. It reports false if c is
// not positive definite. dst must not alias c.
func PartialCorrelation(dst, c []float64, p int) bool {
	if !invertSPD(dst, c, p) {
		return false
	}
	d := make([]float64, p)
	for j := range d {
		d[j] = 1 / math.Sqrt(dst[j*p+j])
	}
	for j := 0; j < p; j++ {
		dst[j*p+j] = 1
		for k := 0; k < j; k++ {
			v := -dst[j*p+k] * d[j] * d[k]
			dst[j*p+k], dst[k*p+j] = v, v
		}
	}
	return true
}

// invertSPD writes the inverse of the symmetric positive definite p×p
// matrix a into dst (both triangles), through its Cholesky factor; it
// reports false if a is not positive definite.
func invertSPD(dst, a []float64, p int) bool {
	l := slices.Clone(a)
	if !cholLower(l, p) {
		return false
	}
	invLower(l, p)
	gramLowerT(dst, l, p)
	return true
}

// Regression is the regression of the latent variable z_y on the latent
// variables z_x (0-based indices into the columns of c, p×p) implied by the
// correlation matrix c, on the latent normal-score scale where every z has
// unit variance:
//
//	β = C_xx⁻¹ C_xy,  R² = C_yx β,
//
// so that z_y = βᵀz_x + ε with Var ε = 1 − R². β is written into beta
// (len(xs)). It reports false if C_xx is not positive definite.
func Regression(c []float64, p, y int, xs []int, beta []float64) (r2 float64, ok bool) {
	k := len(xs)
	l := make([]float64, k*k)
	for a, i := range xs {
		for b, j := range xs {
			l[a*k+b] = c[i*p+j]
		}
		beta[a] = c[i*p+y]
	}
	if !cholLower(l, k) {
		return math.NaN(), false
	}
	// Solve L Lᵀ β = C_xy.
	solveLowerK(l, beta, k)
	solveUpperK(l, beta, k)
	for a, i := range xs {
		r2 += c[y*p+i] * beta[a]
	}
	return r2, true
}

// Partial returns the partial correlation matrix of every kept draw of C,
// out[chain][draw] (p×p row-major), as C is stored.
func (r *Result) Partial() ([][][]float64, error) {
	out := make([][][]float64, len(r.C))
	for ch, chain := range r.C {
		out[ch] = make([][]float64, len(chain))
		for t, c := range chain {
			m := make([]float64, r.P*r.P)
			if !PartialCorrelation(m, c, r.P) {
				return nil, fmt.Errorf("inference: partial correlations: draw %d of chain %d is not positive definite", t+1, ch+1)
			}
			out[ch][t] = m
		}
	}
	return out, nil
}

// Regress returns the draws of the regression of column y on columns xs
// (0-based, distinct, not y): beta[a][chain][draw] is the coefficient of
// xs[a], and r2[chain][draw] is R².
func (r *Result) Regress(y int, xs []int) (beta [][][]float64, r2 [][]float64, err error) {
	if y < 0 || y >= r.P {
		return nil, nil, fmt.Errorf("inference: regression: response %d out of range 1..%d", y+1, r.P)
	}
	if len(xs) == 0 {
		return nil, nil, errors.New("inference: regression: no predictors")
	}
	seen := map[int]bool{y: true}
	for _, x := range xs {
		if x < 0 || x >= r.P || seen[x] {
			return nil, nil, fmt.Errorf("inference: regression: predictor %d is out of range, repeated or the response", x+1)
		}
		seen[x] = true
	}
	beta = make([][][]float64, len(xs))
	for a := range beta {
		beta[a] = make([][]float64, len(r.C))
	}
	r2 = make([][]float64, len(r.C))
	b := make([]float64, len(xs))
	for ch, chain := range r.C {
		for a := range beta {
			beta[a][ch] = make([]float64, len(chain))
		}
		r2[ch] = make([]float64, len(chain))
		for t, c := range chain {
			v, ok := Regression(c, r.P, y, xs, b)
			if !ok {
				return nil, nil, fmt.Errorf("inference: regression: draw %d of chain %d is not positive definite", t+1, ch+1)
			}
			r2[ch][t] = v
			for a := range b {
				beta[a][ch][t] = b[a]
			}
		}
	}
	return beta, r2, nil
}

// MeanCommunality returns, for a factor model, each variable's posterior
// mean communality: the mean of Communality's draws over every chain,
// without storing them; NaN when no draws were kept.
func (r *Result) MeanCommunality() ([]float64, error) {
	if r.K == 0 || r.Lambda == nil {
		return nil, errors.New("inference: communality: not a factor model")
	}
	k := r.K
	mean := make([]float64, r.P)
	var n int
	for _, chain := range r.Lambda {
		for _, l := range chain {
			for j := range mean {
				row := l[j*k : j*k+k]
				mean[j] += dotK(row, row)
			}
		}
		n += len(chain)
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return mean, nil
}

// Communality returns, for a factor model, the share of each variable's
// latent variance that the factors explain, ‖λ_j‖²/(1 + ‖λ_j‖²), per
// draw: out[j][chain][draw]. It is the squared norm of row j of the stored
// correlation-scale loadings, and like C it does not depend on the
// rotation of the factors.
func (r *Result) Communality() ([][][]float64, error) {
	if r.K == 0 || r.Lambda == nil {
		return nil, errors.New("inference: communality: not a factor model")
	}
	k := r.K
	out := make([][][]float64, r.P)
	for j := range out {
		out[j] = make([][]float64, len(r.Lambda))
		for ch, chain := range r.Lambda {
			out[j][ch] = make([]float64, len(chain))
			for t, l := range chain {
				row := l[j*k : j*k+k]
				out[j][ch][t] = dotK(row, row)
			}
		}
	}
	return out, nil
}
