package hough

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PP is the general exact HMC of Pakman & Paninski (2014) for
// x ~ N(μ, Σ) restricted to F x ≤ g (sampling.md §3). It whitens the target,
// x = μ + L w with Σ = L Lᵀ (or L = R⁻¹ for a precision RᵀR), so that w ~
// N(0, I) restricted to F̃ w ≤ g̃ with F̃ = F L and g̃ = g − F μ, and then follows
// w(s) = ẇ sin s + w cos s, reflecting ẇ off each wall it meets. Each bounce
// costs O(m·d) for m constraints in d dimensions. It serves as the test
// oracle for Sampler and for steps with a dense mass matrix. A PP is not safe
// for concurrent use.
type PP struct {
	d, m   int
	mu     []float64
	lw     *mat.Dense    // x = μ + lw·w
	ft     *mat.Dense    // F̃ = F·lw
	gt     []float64     // g̃ = g − Fμ
	fnorm2 []float64     // ‖f̃_j‖²
	u      *mat.TriDense // upper Cholesky factor of the precision (prec only)
	prec   bool
	v      []float64 // velocity scratch for Transition

	w, wd, fw, fwd, tmp *mat.VecDense
}

// NewPPCov returns the sampler for N(mu, cov) restricted to F x ≤ g.
func NewPPCov(F mat.Matrix, g, mu []float64, cov mat.Symmetric) (*PP, error) {
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return nil, errors.New("hough: NewPPCov: covariance is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	lw := mat.DenseCopyOf(&l)
	return newPP(F, g, mu, lw, false)
}

// NewPPPrec returns the sampler for N(mu, prec⁻¹) restricted to F x ≤ g.
func NewPPPrec(F mat.Matrix, g, mu []float64, prec mat.Symmetric) (*PP, error) {
	var ch mat.Cholesky
	if !ch.Factorize(prec) {
		return nil, errors.New("hough: NewPPPrec: precision is not positive definite")
	}
	var u, uinv mat.TriDense
	ch.UTo(&u)
	if err := uinv.InverseTri(&u); err != nil {
		return nil, fmt.Errorf("hough: NewPPPrec: %w", err)
	}
	p, err := newPP(F, g, mu, mat.DenseCopyOf(&uinv), true)
	if p != nil {
		p.u = &u
	}
	return p, err
}

func newPP(F mat.Matrix, g, mu []float64, lw *mat.Dense, prec bool) (*PP, error) {
	m, d := F.Dims()
	if len(g) != m || len(mu) != d {
		return nil, fmt.Errorf("hough: PP: F is %d×%d but len(g) = %d, len(mu) = %d", m, d, len(g), len(mu))
	}
	p := &PP{d: d, m: m, mu: append([]float64(nil), mu...), lw: lw, prec: prec, v: make([]float64, d),
		gt: make([]float64, m), fnorm2: make([]float64, m),
		w: mat.NewVecDense(d, nil), wd: mat.NewVecDense(d, nil), tmp: mat.NewVecDense(d, nil),
		fw: mat.NewVecDense(max(m, 1), nil), fwd: mat.NewVecDense(max(m, 1), nil)}
	p.ft = mat.NewDense(max(m, 1), d, nil)
	if m > 0 {
		p.ft.Mul(F, lw)
		fmu := mat.NewVecDense(m, nil)
		fmu.MulVec(F, mat.NewVecDense(d, p.mu))
		for j := 0; j < m; j++ {
			p.gt[j] = g[j] - fmu.AtVec(j)
			r := p.ft.RawRowView(j)
			p.fnorm2[j] = mat.Dot(mat.NewVecDense(d, r), mat.NewVecDense(d, r))
		}
	}
	return p, nil
}

// Transition replaces x by the end point of one exact HMC trajectory of
// travel time T (0 means π/2), with a fresh velocity ẇ ~ N(0, I) drawn from rng.
func (p *PP) Transition(rng *rand.Rand, x []float64, T float64) (Stats, error) {
	for i := range p.v {
		p.v[i] = rng.NormFloat64()
	}
	return p.Step(x, p.v, T)
}

// Step is Transition with the whitened initial velocity v given (len d; v is
// overwritten). It returns an error if x is infeasible or more than
// 1000·(m+d)+1000 bounces occur; a trajectory whose end point fails the
// final check is rejected, leaving x unchanged.
func (p *PP) Step(x, v []float64, T float64) (Stats, error) {
	var st Stats
	if len(x) != p.d || len(v) != p.d {
		panic(fmt.Sprintf("hough: PP.Step: len(x) = %d, len(v) = %d, want %d", len(x), len(v), p.d))
	}
	if T == 0 {
		T = math.Pi / 2
	}
	// w = lw⁻¹ (x − μ).
	for i := range x {
		p.tmp.SetVec(i, x[i]-p.mu[i])
	}
	if p.prec {
		// lw = U⁻¹, so w = U (x − μ).
		p.w.MulVec(p.u, p.tmp)
	} else {
		if err := p.w.SolveVec(p.lw, p.tmp); err != nil {
			return st, fmt.Errorf("hough: PP.Step: %w", err)
		}
	}
	copy(p.wd.RawVector().Data, v)
	if p.m > 0 {
		p.fw.MulVec(p.ft, p.w)
		for j := 0; j < p.m; j++ {
			if p.fw.AtVec(j) > p.gt[j]+1e-12*(1+math.Abs(p.gt[j])) {
				return st, fmt.Errorf("hough: PP.Step: start violates constraint %d by %g", j+1, p.fw.AtVec(j)-p.gt[j])
			}
		}
	}
	left := T
	last := -1
	maxB := 1000*(p.m+p.d) + 1000
	for {
		best, bj := math.Inf(1), -1
		if p.m > 0 {
			p.fw.MulVec(p.ft, p.w)
			p.fwd.MulVec(p.ft, p.wd)
		}
		for j := 0; j < p.m; j++ {
			alpha, beta := -p.fwd.AtVec(j), -p.fw.AtVec(j)
			u := math.Hypot(alpha, beta)
			if u <= math.Abs(p.gt[j]) {
				continue
			}
			phi := math.Atan2(alpha, beta)
			c := math.Max(-1, math.Min(1, -p.gt[j]/u))
			s := math.Mod(phi+math.Acos(c)+2*math.Pi, 2*math.Pi)
			if j == last && (s < 1e-10 || s > 2*math.Pi-1e-10) {
				continue
			}
			if s < best {
				best, bj = s, j
			}
		}
		if bj < 0 || best >= left {
			sn, cs := math.Sincos(left)
			p.w.AddScaledVec(scaled(p.tmp, sn, p.wd), cs, p.w)
			break
		}
		st.Bounces++
		st.Events++
		if st.Bounces > maxB {
			return st, capError("bounces", maxB)
		}
		sn, cs := math.Sincos(best)
		// (w, ẇ) ← (ẇ sin s + w cos s, ẇ cos s − w sin s)
		for i := 0; i < p.d; i++ {
			w0, v0 := p.w.AtVec(i), p.wd.AtVec(i)
			p.w.SetVec(i, v0*sn+w0*cs)
			p.wd.SetVec(i, v0*cs-w0*sn)
		}
		f := p.ft.RawRowView(bj)
		dot := 0.0
		for i, fi := range f {
			dot += fi * p.wd.AtVec(i)
		}
		k := 2 * dot / p.fnorm2[bj]
		for i, fi := range f {
			p.wd.SetVec(i, p.wd.AtVec(i)-k*fi)
		}
		left -= best
		last = bj
	}
	if p.m > 0 {
		p.fw.MulVec(p.ft, p.w)
		for j := 0; j < p.m; j++ {
			if p.fw.AtVec(j) > p.gt[j]+1e-12*(1+math.Abs(p.gt[j])) {
				st.Rejections = 1
				return st, nil
			}
		}
	}
	p.tmp.MulVec(p.lw, p.w)
	for i := range x {
		x[i] = p.mu[i] + p.tmp.AtVec(i)
	}
	return st, nil
}

// scaled sets dst = a·v and returns it.
func scaled(dst *mat.VecDense, a float64, v *mat.VecDense) *mat.VecDense {
	dst.ScaleVec(a, v)
	return dst
}
