package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// orbitMoments returns the mean and second moment of the scaling move's
// target along one orbit, p(u) ∝ u^k·exp(−A·u²/2 + B·u) on u > 0, by
// Simpson's rule on a grid that covers the mode ± 14 curvature sds.
func orbitMoments(A, B, k float64) (m1, m2 float64) {
	mode := (B + math.Sqrt(B*B+4*A*k)) / (2 * A)
	sd := 1 / math.Sqrt(k/(mode*mode)+A)
	logf := func(u float64) float64 { return k*math.Log(u) - A*u*u/2 + B*u }
	return simpsonMoments(logf, func(u float64) float64 { return u }, math.Max(1e-12, mode-14*sd), mode+14*sd, logf(mode))
}

// simpsonMoments returns the mean and second moment of g(x) under the
// density ∝ exp(logf(x)) on [lo, hi], by Simpson's rule with 20,000
// steps; top is logf's maximum there (it keeps exp from overflowing).
func simpsonMoments(logf, g func(float64) float64, lo, hi, top float64) (m1, m2 float64) {
	const steps = 20000 // even
	h := (hi - lo) / steps
	var z, s1, s2 float64
	for i := 0; i <= steps; i++ {
		x := lo + float64(i)*h
		w := 2.0
		switch {
		case i == 0 || i == steps:
			w = 1
		case i%2 == 1:
			w = 4
		}
		f := w * math.Exp(logf(x)-top)
		gx := g(x)
		z += f
		s1 += f * gx
		s2 += f * gx * gx
	}
	return s1 / z, s2 / z
}

// batchZ returns the z-score of the mean of batch means b against want,
// with the standard error estimated from the batches.
func batchZ(b []float64, want float64) float64 {
	mean, se := batchMean(b)
	return (mean - want) / se
}

// orbitChain runs the scaling move on one orbit for steps steps: the state
// is the column's scale u relative to a base point with sums A and B, so
// the move sees A·u² and B·u and multiplies u by what it draws. It returns
// z-scores of the chain's mean of u and u² against the target's (orbitZ).
func orbitChain(rng *rand.Rand, A, B, k, kMove float64, steps int) (zMean, zSquare float64) {
	m1, m2 := orbitMoments(A, B, k)
	return orbitZ(steps, func(u float64) float64 { return drawScale(rng, A*u*u, B*u, kMove) }, m1, m2)
}

// orbitZ runs a chain on one orbit of a group move for steps steps from
// u = 1, multiplying u by move(u) at each step, and returns the z-scores of
// its mean of u and u² against m1 and m2, with Monte Carlo standard errors
// from 100 batch means.
func orbitZ(steps int, move func(u float64) float64, m1, m2 float64) (zMean, zSquare float64) {
	const batches = 100
	per := steps / batches
	u := 1.0
	var b1, b2 [batches]float64
	for i := 0; i < batches*per; i++ {
		u *= move(u)
		b1[i/per] += u / float64(per)
		b2[i/per] += u * u / float64(per)
	}
	return batchZ(b1[:], m1), batchZ(b2[:], m2)
}

// checkOrbitZ fails t unless the orbit chain's z-scores say what the case
// wants: max |z| < 4 for a correct move, at least 4 for a planted bug.
func checkOrbitZ(t *testing.T, zMean, zSquare float64, wantPass bool) {
	t.Helper()
	worst := math.Max(math.Abs(zMean), math.Abs(zSquare))
	if pass := worst < 4; pass != wantPass {
		if wantPass {
			t.Errorf("the chain does not keep the target: max |z| = %.2f", worst)
		} else {
			t.Errorf("planted bug not caught: max |z| = %.2f", worst)
		}
	}
}

// TestScaleMoveTarget checks drawScale as a Markov chain along one orbit:
// started anywhere and repeated, the one-step independence Metropolis–
// Hastings move from a = 1 must leave p(u) ∝ u^k·exp(−A·u²/2 + B·u)
// invariant, which is the property the scaling move of sampling.md §1.4
// rests on (the proposal is built afresh at each point, in that point's
// coordinates). The chain's mean of u and u² must match the target's,
// computed by quadrature, within 4 Monte Carlo standard errors (batch
// means; a false alarm about 6e-5 per comparison), on a small orbit where
// the normal proposal fits the target poorly (k = 3), a long column (k =
// 999) and a column whose conditional mean points the other way (B < 0).
// A planted bug, the move built for exponent k+1 (the Haar measure's 1/a
// left out), must fail on the small orbit.
func TestScaleMoveTarget(t *testing.T) {
	cases := []struct {
		A, B, k, kMove float64
		wantPass       bool
	}{
		{2, 1, 3, 3, true},
		{1000, 50, 999, 999, true},
		{5, -3, 8, 8, true},
		{2, 1, 3, 4, false},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("A=%g,B=%g,k=%g,move k=%g", tc.A, tc.B, tc.k, tc.kMove), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(20+i), 5))
			zMean, zSquare := orbitChain(rng, tc.A, tc.B, tc.k, tc.kMove, 400_000)
			t.Logf("z of the mean %.2f, of the second moment %.2f", zMean, zSquare)
			checkOrbitZ(t, zMean, zSquare, tc.wantPass)
		})
	}
}

// TestScaleMoveKeepsOrder: a full-model sweep with the scaling move leaves
// every observed latent value inside its level's bounds (the move multiplies
// a column by a > 0, which keeps its order).
func TestScaleMoveKeepsOrder(t *testing.T) {
	cols, err := Equicorrelated(300, 5, 4, 0.9, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []Method{Gibbs, HMC} {
		rng := rand.New(rand.NewPCG(9, 9))
		s, d := mustFullSampler(t, Spec{Columns: cols, Method: method, Iter: 1}, rng)
		var st StepStats
		for it := range 50 {
			if err := s.iterate(rng, false, &st); err != nil {
				t.Fatal(err)
			}
			for j, lv := range d.levels {
				if !lv.Feasible(s.z[j]) {
					t.Fatalf("%v, iteration %d: column %d breaks its order constraints", method, it, j)
				}
			}
		}
	}
}
