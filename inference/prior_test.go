package inference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIWDrawMean checks the Bartlett inverse-Wishart draw against the exact
// mean E V = Ψ/(ν − p − 1) and the Wishart mean E Ω = νΨ⁻¹, entry by entry,
// within 4.5 Monte Carlo standard errors (iid draws; ν = 12 > p + 3 so the
// variances are finite).
func TestIWDrawMean(t *testing.T) {
	t.Parallel()
	const p, nu, draws = 3, 12.0, 100_000
	psi := []float64{4, 1, -0.5, 1, 3, 0.8, -0.5, 0.8, 2}
	psiInv := slices.Clone(psi)
	if !cholLower(psiInv, p) {
		t.Fatal("psi not PD")
	}
	invLower(psiInv, p)
	inv := make([]float64, p*p)
	gramLowerT(inv, psiInv, p)
	w := newIWWork(p)
	rng := rand.New(rand.NewPCG(3, 4))
	v, omega := make([]float64, p*p), make([]float64, p*p)
	var sv, sv2, so, so2 [p * p]float64
	for range draws {
		logDet, ok := w.draw(rng, nu, psi, v, omega)
		if !ok {
			t.Fatal("draw failed")
		}
		l := slices.Clone(omega)
		if !cholLower(l, p) {
			t.Fatal("omega not PD")
		}
		want := 0.0
		for j := 0; j < p; j++ {
			want += 2 * math.Log(l[j*p+j])
		}
		if math.Abs(logDet-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("log|Ω| = %v, want %v", logDet, want)
		}
		// V Ω = I
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				s := 0.0
				for k := 0; k < p; k++ {
					s += v[i*p+k] * omega[k*p+j]
				}
				if d := s - b2f(i == j); math.Abs(d) > 1e-9 {
					t.Fatalf("(VΩ)[%d,%d] = %v", i, j, s)
				}
			}
		}
		for k := range v {
			sv[k] += v[k]
			sv2[k] += v[k] * v[k]
			so[k] += omega[k]
			so2[k] += omega[k] * omega[k]
		}
	}
	for k := 0; k < p*p; k++ {
		for _, c := range []struct {
			name      string
			sum, sum2 float64
			want      float64
		}{
			{"V", sv[k], sv2[k], psi[k] / (nu - p - 1)},
			{"Ω", so[k], so2[k], nu * inv[k]},
		} {
			m := c.sum / draws
			se := math.Sqrt((c.sum2/draws - m*m) / draws)
			if math.Abs(m-c.want) > 4.5*se {
				t.Errorf("E %s[%d,%d] = %.4f ± %.4f, want %.4f", c.name, k/p+1, k%p+1, m, se, c.want)
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestLKJCorrection runs the covariance step alone with no data, so that the
// inverse-Wishart proposal is the prior IW(p+2, (p+2)I) and the independence
// Metropolis–Hastings correction must turn its draws into LKJ(η) draws of C:
// E C_12² = 1/(2η + p − 1) (sampling.md §5). The mean of C_12² over the chain
// must be within 4 MCSE (ESS of the autocorrelated chain) of that. It also
// checks that the uncorrected IW prior gives E C_12² = 1/(ν − p + 2) = 1/4.
// (η < 1 is not tested this way: LKJ(η<1) piles mass near |C_jk| = 1 where
// the IW proposal rarely goes, so the prior-only chain sticks; with data the
// acceptance rate tends to 1.)
func TestLKJCorrection(t *testing.T) {
	t.Parallel()
	const p, draws = 4, 100_000
	cases := []struct {
		name  string
		prior CorrelationPrior
		want  float64
	}{
		{"IW", nil, 0.25},
		{"LKJ eta=1", LKJ{Eta: 1}, 1.0 / (2 + p - 1)},
		{"LKJ eta=3", LKJ{Eta: 3}, 1.0 / (6 + p - 1)},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cols := [][]float64{{1, 2}, {1, 2}, {2, 1}, {1, 1}}
			rng := rand.New(rand.NewPCG(uint64(k), 5))
			s, _ := mustFullSampler(t, Spec{Columns: cols, Iter: 1, Model: FullCorrelation{Prior: tc.prior}}, rng)
			s.n = 0 // no data: ZᵀZ = 0 and the IW step draws from the prior
			for j := range s.z {
				s.z[j] = s.z[j][:0]
			}
			var st StepStats
			x := make([]float64, draws)
			for i := range x {
				if err := s.stepV(rng, &st); err != nil {
					t.Fatal(err)
				}
				x[i] = s.c[1] * s.c[1]
			}
			m, _ := meanVar(x)
			se := MCSEMean([][]float64{x})
			acc := float64(st.LKJAccepted) / math.Max(1, float64(st.LKJProposed))
			t.Logf("E C12² = %.4f ± %.4f, want %.4f; LKJ acceptance %.3f", m, se, tc.want, acc)
			if math.Abs(m-tc.want) > 4*se {
				t.Errorf("E C12² = %.4f ± %.4f, want %.4f", m, se, tc.want)
			}
			if _, isLKJ := tc.prior.(LKJ); isLKJ && (st.LKJProposed != draws || st.LKJAccepted == 0 || st.LKJAccepted == draws) {
				t.Errorf("LKJ proposed %d accepted %d", st.LKJProposed, st.LKJAccepted)
			}
		})
	}
}

// TestSimulate checks the simulated data: balanced levels, the missing
// fraction, a valid truth (and the factor formula), determinism by seed.
// TestSimulateRejects checks the specs Simulate refuses, among them more
// cells than MaxSimulatedCells (it returns at once, before allocating).
func TestSimulateRejects(t *testing.T) {
	for _, sc := range []SimSpec{
		{P: 1, N: 100, Levels: 2},
		{P: 5, K: 5, N: 100, Levels: 2},
		{P: 5, N: 1, Levels: 2},
		{P: 5, N: 100, Levels: 1},
		{P: 5, N: 100, Levels: 2, Missing: 1},
		{P: 50, N: MaxSimulatedCells/50 + 1, Levels: 5},
		{P: 10000, N: 1 << 40, Levels: 5},
		{P: MaxSimulatedColumns + 1, N: 2, Levels: 2},
	} {
		if _, err := Simulate(sc); err == nil {
			t.Errorf("%+v: no error", sc)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SimulateContext(ctx, SimSpec{P: 5, N: 100, Levels: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want the cancellation", err)
	}
}

func TestSimulate(t *testing.T) {
	t.Parallel()
	cases := []SimSpec{
		{P: 5, K: 0, N: 1000, Levels: 5, Seed: 1},
		{P: 6, K: 2, N: 999, Levels: 2, Seed: 2, Missing: 0.2},
		{P: 3, K: 1, N: 50, Levels: 7, Seed: 3},
	}
	for _, sc := range cases {
		sim, err := Simulate(sc)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Simulate(sc)
		if !slices.EqualFunc(sim.Columns, again.Columns, func(a, b []float64) bool {
			return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
		}) {
			t.Errorf("%+v: not deterministic", sc)
		}
		if len(sim.Names) != sc.P || sim.Names[sc.P-1] != "Y"+string(rune('0'+sc.P)) {
			t.Errorf("names %v", sim.Names)
		}
		if err := (&Result{P: sc.P, C: [][][]float64{{sim.C}}}).Invariants(); err != nil {
			t.Errorf("%+v: truth: %v", sc, err)
		}
		missing := 0
		for _, col := range sim.Columns {
			count := make([]int, sc.Levels+1)
			for _, v := range col {
				if math.IsNaN(v) {
					missing++
					continue
				}
				if v != math.Trunc(v) || v < 1 || v > float64(sc.Levels) {
					t.Fatalf("%+v: value %v", sc, v)
				}
				count[int(v)]++
			}
			if sc.Missing == 0 {
				for l := 1; l <= sc.Levels; l++ {
					if d := count[l] - sc.N/sc.Levels; d < 0 || d > 1 {
						t.Errorf("%+v: level %d has %d rows", sc, l, count[l])
					}
				}
			}
		}
		total := float64(sc.N * sc.P)
		sd := math.Sqrt(total * sc.Missing * (1 - sc.Missing))
		if math.Abs(float64(missing)-total*sc.Missing) > 4*sd+1e-9 {
			t.Errorf("%+v: %d missing cells, want %.0f ± %.0f", sc, missing, total*sc.Missing, sd)
		}
		if sc.K > 0 {
			k := sc.K
			for a := 0; a < sc.P; a++ {
				for b := 0; b < sc.P; b++ {
					var ab, aa, bb float64
					for h := 0; h < k; h++ {
						ab += sim.Lambda[a*k+h] * sim.Lambda[b*k+h]
						aa += sim.Lambda[a*k+h] * sim.Lambda[a*k+h]
						bb += sim.Lambda[b*k+h] * sim.Lambda[b*k+h]
					}
					want := ab / math.Sqrt((1+aa)*(1+bb))
					if a == b {
						want = 1
					}
					if math.Abs(sim.C[a*sc.P+b]-want) > 1e-12 {
						t.Errorf("C[%d,%d] = %v, want %v", a, b, sim.C[a*sc.P+b], want)
					}
				}
			}
		} else if sim.Lambda != nil {
			t.Error("Lambda set for a full-correlation truth")
		}
	}
	for _, bad := range []SimSpec{{P: 1, N: 10, Levels: 2}, {P: 3, K: 3, N: 10, Levels: 2}, {P: 3, N: 10, Levels: 1}, {P: 3, N: 10, Levels: 2, Missing: 1}} {
		if _, err := Simulate(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestRMSETrace pins the RMSE over the upper off-diagonal entries.
func TestRMSETrace(t *testing.T) {
	truth := []float64{1, .5, 0, .5, 1, .2, 0, .2, 1}
	trace := [][]float64{
		truth,
		{1, .6, 0, .6, 1, .2, 0, .2, 1},     // one entry off by 0.1
		{1, .2, .3, .2, 1, -.1, .3, -.1, 1}, // all three off by 0.3
	}
	got := RMSETrace(trace, truth)
	want := []float64{0, 0.1 / math.Sqrt(3), 0.3}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("RMSE[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}
