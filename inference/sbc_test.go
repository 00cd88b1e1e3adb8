package inference

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSBC is simulation-based calibration (Talts et al. 2018; sampling.md
// §6c C2) of the whole Run pipeline, initialisation and warm-up included:
// 500 replications with n = 10, p = 3; each draws V from the prior
// IW(5, 5I), rows z_i ~ N(0, V), the data y = s(Z) with fixed level sizes
// (so that {Z : s(Z) = y} = D(y) and the ERL posterior is the exact
// posterior), then runs 200 warm-up iterations and keeps 99 draws thinned by
// 5. The rank of the true C_jk among its 99 draws is uniform on 0..99 for a
// correct sampler; binned into 20 bins of 5, the χ² statistic with 19
// degrees of freedom must stay below 43.82 (α = 0.001) for each entry.
// The adaptive case (Spec.Adapt) checks the run in two phases with the
// choice between them; at n = 10 and p = 3 its rule keeps Gibbs in most
// replications (the log says how many switched), so the mixed schedule it
// may switch to is checked by TestGeweke.
func TestSBC(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation-based calibration: long statistical test, skipped under -short")
	}
	t.Parallel()
	const reps, p, n, bins = 500, 3, 10, 20
	sizes := [][]int{{4, 6}, {3, 3, 4}, {2, 2, 2, 2, 2}}
	cases := []struct {
		name   string
		method Method
		adapt  bool
	}{{"gibbs", Gibbs, false}, {"hmc", HMC, false}, {"adaptive", HMC, true}}
	for k, tc := range cases {
		method := tc.method
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(2718, uint64(k)))
			switched := 0
			iw := newIWWork(p)
			psi := []float64{5, 0, 0, 0, 5, 0, 0, 0, 5}
			v, omega, l := make([]float64, p*p), make([]float64, p*p), make([]float64, p*p)
			var counts [3][bins]int
			for rep := 0; rep < reps; rep++ {
				if _, ok := iw.draw(rng, 5, psi, v, omega); !ok {
					t.Fatal("prior draw failed")
				}
				copy(l, v)
				if !cholLower(l, p) {
					t.Fatal("V not positive definite")
				}
				z := make([][]float64, p)
				for j := range z {
					z[j] = make([]float64, n)
				}
				for i := 0; i < n; i++ {
					var e [p]float64
					for j := range e {
						e[j] = rng.NormFloat64()
					}
					for j := 0; j < p; j++ {
						for k := 0; k <= j; k++ {
							z[j][i] += l[j*p+k] * e[k]
						}
					}
				}
				cols := make([][]float64, p)
				for j := range cols {
					cols[j] = levelsBySize(z[j], sizes[j])
				}
				res, err := Run(context.Background(), Spec{Columns: cols, Method: method, Adapt: tc.adapt, Warmup: 200, Iter: 495, Thin: 5, Seed: uint64(rep),
					Model: FullCorrelation{Prior: InverseWishart{DF: 5, Scale: 5}}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Schedule != nil && slices.Contains(res.Schedule.HMC, true) {
					switched++
				}
				if len(res.C[0]) != 99 {
					t.Fatalf("%d draws, want 99", len(res.C[0]))
				}
				for e, jk := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
					truth := v[jk[0]*p+jk[1]] / math.Sqrt(v[jk[0]*p+jk[0]]*v[jk[1]*p+jk[1]])
					rank := 0
					for _, c := range res.C[0] {
						if c[jk[0]*p+jk[1]] < truth {
							rank++
						}
					}
					counts[e][rank*bins/100]++
				}
			}
			if tc.adapt {
				t.Logf("adaptive: %d of %d replications moved columns to exact HMC after 50 warm-up iterations", switched, reps)
			}
			for e, name := range []string{"C.1.2", "C.1.3", "C.2.3"} {
				chi2 := 0.0
				want := float64(reps) / bins
				for _, c := range counts[e] {
					chi2 += (float64(c) - want) * (float64(c) - want) / want
				}
				t.Logf("%s %s: χ²₁₉ = %.1f (pass < 43.82), bins %v", tc.name, name, chi2, counts[e])
				if chi2 >= 43.82 {
					t.Errorf("%s: rank histogram not uniform: χ²₁₉ = %.1f >= 43.82", name, chi2)
				}
			}
		})
	}
}

// levelsBySize gives the lowest sizes[0] values of z level 1, the next
// sizes[1] level 2, and so on.
func levelsBySize(z []float64, sizes []int) []float64 {
	order := make([]int, len(z))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ { // insertion sort: n is tiny
		for k := i; k > 0 && z[order[k]] < z[order[k-1]]; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	y := make([]float64, len(z))
	r := 0
	for l, size := range sizes {
		for range size {
			y[order[r]] = float64(l + 1)
			r++
		}
	}
	if r != len(z) {
		panic(fmt.Sprintf("levelsBySize: sizes sum to %d, want %d", r, len(z)))
	}
	return y
}

// TestFactorSBC is simulation-based calibration of the factor-model samplers
// through Run, initialisation, warm-up and the factor group moves
// (sampling.md §4.5) included: 500 replications with n = 10, p = 4, k = 2;
// each draws Λ from its N(0, 1) prior, rows z_i = Λη_i + ε_i with
// η_i, ε_i ~ N(0, I), the data y = s(Z) with fixed level sizes, then runs 200
// warm-up iterations and keeps 99 draws thinned by 5. The rank of the true
// C_jl among the draws must be uniform: χ² over 20 bins below 43.82
// (α = 0.001) for each of the 6 entries (measured: at most 18.3 for px with
// its collapsed loadings step, 23.4 before it; 31.4 for interweave with
// it, 32.1 before). A
// planted bug, the factor scale move without the Jacobian of Λ's columns,
// fails it (χ² 45.4 on one entry; 49.8 before the collapsed step). At this
// size the test has little power against subtler bugs: with σ × 1.2 in the
// Z update, the shears' sd × 1.5 or bfa's unscaled Z the largest χ² was 28
// to 38, and with (n−1)/2 for n/2 in the collapsed step's target 37, so
// those are left to TestFactorGeweke, which catches them all.
func TestFactorSBC(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation-based calibration: long statistical test, skipped under -short")
	}
	t.Parallel()
	const reps, p, k, n, bins = 500, 4, 2, 10, 20
	sizes := [][]int{{4, 6}, {3, 3, 4}, {2, 2, 2, 2, 2}, {5, 5}}
	cases := []struct {
		name   string
		method Method
		bug    factorBug
	}{
		{"px", PX, bugNone}, {"interweave", Interweave, bugNone},
		{"px scale jacobian (planted)", PX, bugFactorScaleJacobian},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(3141, uint64(ci)))
			var counts [p * (p - 1) / 2][bins]int
			lam := make([]float64, p*k)
			for rep := 0; rep < reps; rep++ {
				for i := range lam {
					lam[i] = rng.NormFloat64()
				}
				z := make([][]float64, p)
				for j := range z {
					z[j] = make([]float64, n)
				}
				for i := 0; i < n; i++ {
					eta := [k]float64{rng.NormFloat64(), rng.NormFloat64()}
					for j := 0; j < p; j++ {
						z[j][i] = dotK(lam[j*k:j*k+k], eta[:]) + rng.NormFloat64()
					}
				}
				cols := make([][]float64, p)
				for j := range cols {
					cols[j] = levelsBySize(z[j], sizes[j])
				}
				res, err := Run(context.Background(), Spec{Columns: cols, Model: FactorModel{K: k, Loadings: NormalLoadings{Var: 1}},
					Method: tc.method, factorBug: tc.bug, Warmup: 200, Iter: 495, Thin: 5, Seed: uint64(rep)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				e := 0
				for a := 0; a < p; a++ {
					for b := a + 1; b < p; b++ {
						la, lb := lam[a*k:a*k+k], lam[b*k:b*k+k]
						truth := dotK(la, lb) / math.Sqrt((1+dotK(la, la))*(1+dotK(lb, lb)))
						rank := 0
						for _, c := range res.C[0] {
							if c[a*p+b] < truth {
								rank++
							}
						}
						counts[e][rank*bins/100]++
						e++
					}
				}
			}
			worst := 0.0
			for e := range counts {
				chi2 := 0.0
				want := float64(reps) / bins
				for _, c := range counts[e] {
					chi2 += (float64(c) - want) * (float64(c) - want) / want
				}
				t.Logf("%s entry %d: χ²₁₉ = %.1f (pass < 43.82), bins %v", tc.name, e+1, chi2, counts[e])
				worst = math.Max(worst, chi2)
			}
			if pass := worst < 43.82; pass == (tc.bug != bugNone) {
				if tc.bug != bugNone {
					t.Errorf("planted bug not caught: largest χ²₁₉ = %.1f < 43.82", worst)
				} else {
					t.Errorf("rank histogram not uniform: largest χ²₁₉ = %.1f >= 43.82", worst)
				}
			}
		})
	}
}
