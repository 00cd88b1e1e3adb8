package inference

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// solveGauss solves a x = b (a n×n row-major) by Gaussian elimination with
// partial pivoting: a route independent of the Cholesky factorisations
// the code under test uses.
func solveGauss(a []float64, b []float64, n int) []float64 {
	m := make([]float64, n*(n+1))
	for i := 0; i < n; i++ {
		copy(m[i*(n+1):i*(n+1)+n], a[i*n:i*n+n])
		m[i*(n+1)+n] = b[i]
	}
	w := n + 1
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r*w+c]) > math.Abs(m[piv*w+c]) {
				piv = r
			}
		}
		for k := 0; k < w; k++ {
			m[c*w+k], m[piv*w+k] = m[piv*w+k], m[c*w+k]
		}
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := m[r*w+c] / m[c*w+c]
			for k := c; k < w; k++ {
				m[r*w+k] -= f * m[c*w+k]
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = m[i*w+n] / m[i*w+i]
	}
	return x
}

// schurPartial is the partial correlation of variables j and k of c (p×p)
// given all the others, from the conditional covariance of (z_j, z_k) given
// the rest: S = C_ab − C_aR C_RR⁻¹ C_Rb, by Gaussian elimination.
func schurPartial(c []float64, p, j, k int) float64 {
	var rest []int
	for i := 0; i < p; i++ {
		if i != j && i != k {
			rest = append(rest, i)
		}
	}
	q := len(rest)
	crr := make([]float64, q*q)
	for a, i := range rest {
		for b, l := range rest {
			crr[a*q+b] = c[i*p+l]
		}
	}
	cond := func(u, v int) float64 {
		if q == 0 {
			return c[u*p+v]
		}
		rhs := make([]float64, q)
		for a, i := range rest {
			rhs[a] = c[i*p+v]
		}
		x := solveGauss(crr, rhs, q)
		s := c[u*p+v]
		for a, i := range rest {
			s -= c[u*p+i] * x[a]
		}
		return s
	}
	return cond(j, k) / math.Sqrt(cond(j, j)*cond(k, k))
}

// randomCorrelation is the correlation matrix of a Wishart(p+3, I) draw.
func randomCorrelation(rng *rand.Rand, p int) []float64 {
	x := make([]float64, (p+3)*p)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	cov := make([]float64, p*p)
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			for r := 0; r < p+3; r++ {
				cov[a*p+b] += x[r*p+a] * x[r*p+b]
			}
		}
	}
	c := make([]float64, p*p)
	corrFromCov(c, cov, p)
	return c
}

func TestPartialCorrelationAgainstSchurComplement(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, p := range []int{2, 3, 5, 9} {
		c := randomCorrelation(rng, p)
		pc := make([]float64, p*p)
		if !PartialCorrelation(pc, c, p) {
			t.Fatalf("p = %d: not positive definite", p)
		}
		for j := 0; j < p; j++ {
			if pc[j*p+j] != 1 {
				t.Errorf("p = %d: diagonal %v", p, pc[j*p+j])
			}
			for k := j + 1; k < p; k++ {
				if pc[j*p+k] != pc[k*p+j] {
					t.Errorf("p = %d: not symmetric at %d, %d", p, j, k)
				}
				if want := schurPartial(c, p, j, k); math.Abs(pc[j*p+k]-want) > 1e-12 {
					t.Errorf("p = %d: partial[%d, %d] = %.15f, Schur complement gives %.15f", p, j, k, pc[j*p+k], want)
				}
			}
		}
	}
	if PartialCorrelation(make([]float64, 4), []float64{1, 1, 1, 1}, 2) {
		t.Error("a singular matrix gave partial correlations")
	}
}

// TestRegressionOnAllOthersIsSbgcop checks Regression against sbgcop's
// sR.sC route for the regression of z_j on every other variable:
// β = −Ω_{j,−j}/Ω_jj, and R² = 1 − 1/Ω_jj.
func TestRegressionOnAllOthersIsSbgcop(t *testing.T) {
	const p = 6
	c := randomCorrelation(rand.New(rand.NewPCG(8, 9)), p)
	omega := make([]float64, p*p)
	if !invertSPD(omega, c, p) {
		t.Fatal("not positive definite")
	}
	for y := 0; y < p; y++ {
		var xs []int
		for j := 0; j < p; j++ {
			if j != y {
				xs = append(xs, j)
			}
		}
		beta := make([]float64, len(xs))
		r2, ok := Regression(c, p, y, xs, beta)
		if !ok {
			t.Fatal("regression failed")
		}
		for a, j := range xs {
			if want := -omega[y*p+j] / omega[y*p+y]; math.Abs(beta[a]-want) > 1e-12 {
				t.Errorf("y = %d: β[%d] = %v, sR.sC gives %v", y, j, beta[a], want)
			}
		}
		if want := 1 - 1/omega[y*p+y]; math.Abs(r2-want) > 1e-12 {
			t.Errorf("y = %d: R² = %v, want %v", y, r2, want)
		}
	}
}

// TestRegressionAgainstLeastSquares compares β = C_xx⁻¹C_xy and R² with an
// ordinary least-squares fit (with intercept) on n = 200,000 rows drawn from
// N(0, C): the OLS standard errors are about sqrt((1 − R²)/n · (C_xx⁻¹)_aa)
// ≤ 0.003 for the coefficients and 0.002 for R²; tolerance 4 standard
// errors (0.012 and 0.008).
func TestRegressionAgainstLeastSquares(t *testing.T) {
	const p, n = 5, 200000
	rng := rand.New(rand.NewPCG(10, 11))
	c := randomCorrelation(rng, p)
	y, xs := 2, []int{0, 3, 4}
	beta := make([]float64, len(xs))
	r2, ok := Regression(c, p, y, xs, beta)
	if !ok {
		t.Fatal("regression failed")
	}
	rows := dataRows(rng, c, n)
	// Normal equations of [1, x] on y, by Gaussian elimination.
	k := len(xs) + 1
	xtx, xty := make([]float64, k*k), make([]float64, k)
	design := make([]float64, k)
	var sy, syy float64
	for _, z := range rows {
		design[0] = 1
		for a, j := range xs {
			design[a+1] = z[j]
		}
		for a := range k {
			xty[a] += design[a] * z[y]
			for b := range k {
				xtx[a*k+b] += design[a] * design[b]
			}
		}
		sy += z[y]
		syy += z[y] * z[y]
	}
	b := solveGauss(xtx, xty, k)
	rss := syy
	for a := range k {
		rss -= b[a] * xty[a]
	}
	tss := syy - sy*sy/n
	for a := range xs {
		if math.Abs(b[a+1]-beta[a]) > 0.012 {
			t.Errorf("β[%d] = %.4f, least squares gives %.4f", xs[a], beta[a], b[a+1])
		}
	}
	if ols := 1 - rss/tss; math.Abs(ols-r2) > 0.008 {
		t.Errorf("R² = %.4f, least squares gives %.4f", r2, ols)
	}
}

// dataRows draws n rows z ~ N(0, c).
func dataRows(rng *rand.Rand, c []float64, n int) [][]float64 {
	p := int(math.Sqrt(float64(len(c))))
	l := append([]float64(nil), c...)
	cholLower(l, p)
	rows := make([][]float64, n)
	e := make([]float64, p)
	for i := range rows {
		for k := range e {
			e[k] = rng.NormFloat64()
		}
		rows[i] = make([]float64, p)
		for j := 0; j < p; j++ {
			rows[i][j] = dotK(l[j*p:j*p+j+1], e[:j+1])
		}
	}
	return rows
}

// TestCommunalityOfOneFactorModel checks, on every draw of a one-factor
// fit, that the communality computed from the loadings equals the triad
// identity of a one-factor correlation, h_j = λ̃_j² = C_jk C_jl / C_kl, an
// independent route through C; and that the posterior mean communality
// recovers the truth ‖λ_j‖²/(1 + ‖λ_j‖²) within 4 posterior sd.
func TestCommunalityOfOneFactorModel(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 5, K: 1, N: 800, Levels: 4, Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 1}, Method: PX,
		Iter: 300, Warmup: 200, Chains: 2, Seed: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := res.Communality()
	if err != nil {
		t.Fatal(err)
	}
	p := res.P
	for ch, chain := range res.C {
		for d, c := range chain {
			for j := 0; j < p; j++ {
				k, l := (j+1)%p, (j+2)%p
				if want := c[j*p+k] * c[j*p+l] / c[k*p+l]; math.Abs(h[j][ch][d]-want) > 1e-9 {
					t.Fatalf("chain %d draw %d: communality of %d = %v, triad gives %v", ch, d, j, h[j][ch][d], want)
				}
			}
		}
	}
	mean, err := res.MeanCommunality()
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < p; j++ {
		l2 := sim.Lambda[j] * sim.Lambda[j]
		truth := l2 / (1 + l2)
		s := Summarize(h[j])
		if math.Abs(s.Mean-truth) > 4*s.SD {
			t.Errorf("communality of Y%d: posterior mean %.3f (sd %.3f), truth %.3f", j+1, s.Mean, s.SD, truth)
		}
		if math.Abs(mean[j]-s.Mean) > 1e-12 {
			t.Errorf("MeanCommunality of Y%d = %v, the mean of Communality's draws %v", j+1, mean[j], s.Mean)
		}
	}
	full := &Result{P: 3, C: [][][]float64{{{1, 0, 0, 0, 1, 0, 0, 0, 1}}}}
	if _, err := full.Communality(); err == nil {
		t.Error("communality of a full-correlation fit")
	}
	if _, err := full.MeanCommunality(); err == nil {
		t.Error("mean communality of a full-correlation fit")
	}
}

func TestRegressErrors(t *testing.T) {
	r := &Result{P: 3, C: [][][]float64{{{1, 0.5, 0.2, 0.5, 1, 0.1, 0.2, 0.1, 1}}}}
	for _, c := range []struct {
		y  int
		xs []int
	}{{3, []int{0}}, {0, nil}, {0, []int{0}}, {0, []int{1, 1}}, {0, []int{5}}} {
		if _, _, err := r.Regress(c.y, c.xs); err == nil {
			t.Errorf("Regress(%d, %v) succeeded", c.y, c.xs)
		}
	}
	beta, r2, err := r.Regress(0, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := solveGauss([]float64{1, 0.1, 0.1, 1}, []float64{0.5, 0.2}, 2)
	if math.Abs(beta[0][0][0]-want[0]) > 1e-12 || math.Abs(beta[1][0][0]-want[1]) > 1e-12 {
		t.Errorf("β = %v, %v, want %v", beta[0][0][0], beta[1][0][0], want)
	}
	if w := 0.5*want[0] + 0.2*want[1]; math.Abs(r2[0][0]-w) > 1e-12 {
		t.Errorf("R² = %v, want %v", r2[0][0], w)
	}
}

// readGSS reads the shipped GSS extract (notebooks/data): a header row,
// numbers, NA for missing; it returns the columns.
func readGSS(t *testing.T) [][]float64 {
	t.Helper()
	b, err := os.ReadFile("../notebooks/data/gss_hoff2007.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	p := len(strings.Split(lines[0], ","))
	cols := make([][]float64, p)
	for _, line := range lines[1:] {
		for j, cell := range strings.Split(strings.TrimSpace(line), ",") {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				v = math.NaN() // NA
			}
			cols[j] = append(cols[j], v)
		}
	}
	return cols
}

// TestDerivedOnGSS fits sbgcop's model (Gibbs, inverse-Wishart prior
// IW(p+2, (p+2)I)) to the shipped GSS extract and checks the derived
// quantities of every draw against independent computations: partial
// correlations against Schur complements (and those of the posterior mean
// of C too), and the regression of income on degree and age against
// Gaussian elimination on C_xx β = C_xy.
func TestDerivedOnGSS(t *testing.T) {
	cols := readGSS(t)
	res, err := Run(context.Background(), Spec{Columns: cols, Method: Gibbs, Iter: 200, Warmup: 100, Chains: 2, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := res.P
	partial, err := res.Partial()
	if err != nil {
		t.Fatal(err)
	}
	beta, r2, err := res.Regress(0, []int{1, 6})
	if err != nil {
		t.Fatal(err)
	}
	for ch, chain := range res.C {
		for d, c := range chain {
			for j := 0; j < p; j++ {
				for k := j + 1; k < p; k++ {
					if got, want := partial[ch][d][j*p+k], schurPartial(c, p, j, k); math.Abs(got-want) > 1e-12 {
						t.Fatalf("chain %d draw %d: partial[%d, %d] = %v, Schur complement %v", ch, d, j, k, got, want)
					}
				}
			}
			b := solveGauss([]float64{1, c[1*p+6], c[6*p+1], 1}, []float64{c[1*p+0], c[6*p+0]}, 2)
			if math.Abs(beta[0][ch][d]-b[0]) > 1e-12 || math.Abs(beta[1][ch][d]-b[1]) > 1e-12 ||
				math.Abs(r2[ch][d]-(b[0]*c[1]+b[1]*c[6])) > 1e-12 {
				t.Fatalf("chain %d draw %d: β = (%v, %v), R² = %v; elimination gives %v", ch, d, beta[0][ch][d], beta[1][ch][d], r2[ch][d], b)
			}
		}
	}
	mean := res.MeanC()
	pc := make([]float64, p*p)
	if !PartialCorrelation(pc, mean, p) {
		t.Fatal("the posterior mean of C is not positive definite")
	}
	for j := 0; j < p; j++ {
		for k := j + 1; k < p; k++ {
			if want := schurPartial(mean, p, j, k); math.Abs(pc[j*p+k]-want) > 1e-12 {
				t.Errorf("partial of the mean C [%d, %d] = %v, Schur complement %v", j, k, pc[j*p+k], want)
			}
		}
	}
	// income–degree stays strongly associated given the rest (Hoff 2007).
	if pc[1] < 0.3 {
		t.Errorf("partial correlation of income and degree %.3f, expected above 0.3", pc[1])
	}
}
