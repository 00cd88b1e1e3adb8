package inference

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SimSpec describes synthetic ordinal data with a known copula correlation.
type SimSpec struct {
	// P is the number of columns; K the number of factors, 0 for a full
	// (unstructured) correlation matrix.
	P, K int
	// N is the number of rows and Levels the number of levels per column
	// (at least 2).
	N, Levels int
	// Seed seeds the PCG stream of the simulation.
	Seed uint64
	// Missing is the probability that a cell is missing, completely at
	// random, in [0, 1).
	Missing float64
}

// Simulated is a synthetic data set with its truth.
type Simulated struct {
	// Names are Y1..Yp.
	Names []string
	// Columns[j][i] is row i of column j, a level in 1..Levels, or NaN if missing.
	Columns [][]float64
	// C is the true copula correlation, p×p row-major.
	C []float64
	// Lambda is the true loadings, p×k row-major (factor truth only; nil otherwise).
	Lambda []float64
}

// MaxSimulatedCells is the most cells (N·P) Simulate makes: it holds about
// 16 bytes a cell while it works (the latent values and the columns), so
// 10⁸ cells take about 1.6 GB. A mistyped n (10⁹ rows) would otherwise
// exhaust the memory of the kernel that runs it. MaxSimulatedColumns
// bounds P: the correlation is drawn in O(P³) time and O(P²) memory, about
// a second at 1,000 columns (and 10 s at 2,000).
const (
	MaxSimulatedCells   = 100_000_000
	MaxSimulatedColumns = 1000
)

// Simulate draws a data set (sampling.md §6d):
//
//   - Full correlation (K = 0): C is the correlation matrix of a Wishart draw
//     W ~ Wishart(p+2, I), that is C = diag(W)^{-1/2} W diag(W)^{-1/2},
//     the correlation matrix of p+2 independent standard normal p-vectors.
//     Each C_jk then has density ∝ (1−r²)^{(p−1)/2}, E C_jk² = 1/(p+2).
//   - Factor model (K > 0): Λ_jh ~ N(0, 1) and
//     C = D^{-1/2}(ΛΛᵀ + I)D^{-1/2} with D = diag(1 + ‖λ_j‖²).
//
// Rows z_i ~ N(0, C) are drawn, then each column is cut at its own sample
// quantiles: the rows are ranked within the column and the row of rank r
// (0-based) gets level 1 + ⌊r·Levels/N⌋, so every level holds N/Levels rows
// (±1), as balanced as possible and with the cutpoints at the empirical
// k/Levels quantiles. Finally each cell is made missing independently with
// probability Missing.
func Simulate(s SimSpec) (*Simulated, error) {
	return SimulateContext(context.Background(), s)
}

// SimulateContext is Simulate, stopped when ctx is cancelled (it then
// returns ctx.Err()): at the largest size, MaxSimulatedCells, a simulation
// takes about half a minute.
func SimulateContext(ctx context.Context, s SimSpec) (*Simulated, error) {
	switch {
	case s.P < 2 || s.P > MaxSimulatedColumns:
		return nil, fmt.Errorf("inference: simulate: p = %d, want 2 to %d", s.P, MaxSimulatedColumns)
	case s.K < 0 || s.K >= s.P && s.K > 0:
		return nil, fmt.Errorf("inference: simulate: k = %d, want 0 (full correlation) or 1 <= k < p = %d", s.K, s.P)
	case s.N < 2:
		return nil, fmt.Errorf("inference: simulate: n = %d, want at least 2", s.N)
	case s.Levels < 2 || s.Levels > s.N:
		return nil, fmt.Errorf("inference: simulate: levels = %d, want 2 <= levels <= n = %d", s.Levels, s.N)
	case !(s.Missing >= 0 && s.Missing < 1):
		return nil, fmt.Errorf("inference: simulate: missing = %v, want in [0, 1)", s.Missing)
	case float64(s.N)*float64(s.P) > MaxSimulatedCells:
		return nil, fmt.Errorf("inference: simulate: n = %d rows × p = %d columns is more than %d cells", s.N, s.P, MaxSimulatedCells)
	}
	rng := rand.New(rand.NewPCG(splitMix64(s.Seed), splitMix64(s.Seed^0x51a7_c0b1_a5e5_d00d)))
	p, n := s.P, s.N
	out := &Simulated{Names: make([]string, p), Columns: make([][]float64, p), C: make([]float64, p*p)}
	for j := range out.Names {
		out.Names[j] = fmt.Sprintf("Y%d", j+1)
	}
	cov := make([]float64, p*p)
	if s.K == 0 {
		df := p + 2
		x := make([]float64, df*p)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for a := 0; a < p; a++ {
			for b := 0; b <= a; b++ {
				sum := 0.0
				for r := 0; r < df; r++ {
					sum += x[r*p+a] * x[r*p+b]
				}
				cov[a*p+b], cov[b*p+a] = sum, sum
			}
		}
	} else {
		k := s.K
		out.Lambda = make([]float64, p*k)
		for i := range out.Lambda {
			out.Lambda[i] = rng.NormFloat64()
		}
		for a := 0; a < p; a++ {
			for b := 0; b <= a; b++ {
				sum := 0.0
				for h := 0; h < k; h++ {
					sum += out.Lambda[a*k+h] * out.Lambda[b*k+h]
				}
				if a == b {
					sum++
				}
				cov[a*p+b], cov[b*p+a] = sum, sum
			}
		}
	}
	corrFromCov(out.C, cov, p)
	l := slices.Clone(out.C)
	if !cholLower(l, p) {
		return nil, fmt.Errorf("inference: simulate: the drawn correlation is not positive definite")
	}
	z := make([][]float64, p)
	for j := range z {
		z[j] = make([]float64, n)
	}
	e := make([]float64, p)
	for i := 0; i < n; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for j := range e {
			e[j] = rng.NormFloat64()
		}
		for j := 0; j < p; j++ {
			sum := 0.0
			for k := 0; k <= j; k++ {
				sum += l[j*p+k] * e[k]
			}
			z[j][i] = sum
		}
	}
	order := make([]int, n)
	for j := 0; j < p; j++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		col := make([]float64, n)
		for i := range order {
			order[i] = i
		}
		zj := z[j]
		slices.SortFunc(order, func(a, b int) int {
			switch {
			case zj[a] < zj[b]:
				return -1
			case zj[a] > zj[b]:
				return 1
			}
			return a - b
		})
		for r, i := range order {
			col[i] = float64(1 + r*s.Levels/n)
		}
		out.Columns[j] = col
	}
	if s.Missing > 0 {
		for j := 0; j < p; j++ {
			for i := 0; i < n; i++ {
				if rng.Float64() < s.Missing {
					out.Columns[j][i] = math.NaN()
				}
			}
		}
	}
	return out, nil
}

// RMSETrace returns, for each matrix trace[t] (p×p row-major, as in
// Result.WarmupC followed by Result.C of one chain), the root mean square
// error of its off-diagonal upper entries against truth (p×p):
//
//	RMSE_t = sqrt( 2/(p(p−1)) Σ_{j<l} (C^{(t)}_jl − C^true_jl)² ),
//
// the figure of Kalaitzis & Silva (sampling.md §7).
func RMSETrace(trace [][]float64, truth []float64) []float64 {
	p := int(math.Round(math.Sqrt(float64(len(truth)))))
	if p*p != len(truth) {
		panic(fmt.Sprintf("inference: RMSETrace: truth has %d entries, not a square", len(truth)))
	}
	out := make([]float64, len(trace))
	m := float64(p*(p-1)) / 2
	for t, c := range trace {
		if len(c) != p*p {
			panic(fmt.Sprintf("inference: RMSETrace: draw %d has %d entries, want %d", t, len(c), p*p))
		}
		ss := 0.0
		for j := 0; j < p; j++ {
			for l := j + 1; l < p; l++ {
				d := c[j*p+l] - truth[j*p+l]
				ss += d * d
			}
		}
		out[t] = math.Sqrt(ss / m)
	}
	return out
}

// Equicorrelated draws n rows of p columns with equal latent correlation
// rho between every pair (a one-factor truth, z_ij = √rho·f_i +
// √(1−rho)·ε_ij), each column cut at its sample quantiles into levels
// balanced levels, as Simulate does. It is the data of the mixing runs of
// sampling.md §9.2 (`copulang bench mixing`); the PCG stream is (seed, 99).
func Equicorrelated(n, p, levels int, rho float64, seed uint64) ([][]float64, error) {
	switch {
	case n < 2 || p < 2:
		return nil, fmt.Errorf("inference: equicorrelated data of %d rows and %d columns, want at least 2 of each", n, p)
	case levels < 2 || levels > n:
		return nil, fmt.Errorf("inference: %d levels, want 2 to n = %d", levels, n)
	case !(rho >= 0 && rho < 1):
		return nil, fmt.Errorf("inference: correlation %v, want 0 <= rho < 1", rho)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	f := make([]float64, n)
	for i := range f {
		f[i] = rng.NormFloat64()
	}
	cols := make([][]float64, p)
	order := make([]int, n)
	for j := range cols {
		z := make([]float64, n)
		for i := range z {
			z[i] = math.Sqrt(rho)*f[i] + math.Sqrt(1-rho)*rng.NormFloat64()
		}
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(z[a], z[b]) })
		cols[j] = make([]float64, n)
		for r, i := range order {
			cols[j][i] = float64(1 + r*levels/n)
		}
	}
	return cols, nil
}

// EquicorrelatedR2 is the share of each column's latent variance that the
// others explain when all p columns have correlation rho:
// 1 − (1−rho)(1+(p−1)rho)/(1+(p−2)rho).
func EquicorrelatedR2(p int, rho float64) float64 {
	q := float64(p)
	return 1 - (1-rho)*(1+(q-1)*rho)/(1+(q-2)*rho)
}
