package hough

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestHitTime(t *testing.T) {
	w := newWindow(math.Pi / 2)
	inf := math.Inf(1)
	cases := []struct {
		name string
		u, v curve
		t0   float64
		want float64 // as time t; inf for no hit
	}{
		// d = sin t − cos t rises through 0 at π/4.
		{"rising", curve{0, 1, -1}, curve{}, 0, math.Pi / 4},
		{"rising from later start", curve{0, 1, -1}, curve{}, 0.5, math.Pi / 4},
		// d = −1 + 0.5 sin t: never reaches 0.
		{"too far", curve{-1, 0.5, 0}, curve{}, 0, inf},
		// d = −1 + sin t: tangent at π/2 (rule 4).
		{"tangent", curve{-1, 1, 0}, curve{}, 0, inf},
		// d = sin t − 2cos t crosses at atan(2) ≈ 1.107 < π/2.
		{"mu difference", curve{1, 1, -2}, curve{1, 0, 0}, 0, math.Atan(2)},
		// d = sin t − 10 cos t crosses at atan(10) ≈ 1.47 < π/2 …
		{"late", curve{0, 1, -10}, curve{}, 0, math.Atan(10)},
		// … and d = −cos t + 0 sin t never crosses before π/2.
		{"after horizon", curve{0, 0, -1}, curve{}, 0, inf},
		// d = sin t ≥ 0 at t0 = 0.3 and rising: past the wall, fire now (rule 2).
		{"past wall", curve{0, 1, 0}, curve{}, 0.3, 0.3},
		// d = −sin t at t = 0: on the wall, leaving (rule 3).
		{"leaving wall", curve{0, -1, 0}, curve{}, 0, inf},
		// the same difference split between both curves
		{"both move", curve{0.5, 0.5, -0.5}, curve{0.5, -0.5, 0.5}, 0, math.Pi / 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, ct := math.Sincos(c.t0)
			k := hitTime(&c.u, &c.v, math.Tan(c.t0/2), st, ct, &w)
			got := 2 * math.Atan(k)
			if math.IsInf(c.want, 1) {
				if !math.IsInf(k, 1) {
					t.Fatalf("hit at t = %v, want none", got)
				}
				return
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("hit at t = %.15g, want %.15g", got, c.want)
			}
		})
	}
}

func TestNewLevels(t *testing.T) {
	lv := mustLevels(t, []float64{3, math.NaN(), 1, 3, 2, 1})
	if got := fmt.Sprint(lv.Values, lv.Order, lv.Start, lv.Level, lv.Missing); got != "[1 2 3] [2 5 4 0 3] [0 2 3 5] [2 -1 0 2 1 0] [1]" {
		t.Fatalf("got %s", got)
	}
	if _, err := NewLevels([]float64{1, math.Inf(1)}); err == nil {
		t.Fatal("infinite value accepted")
	}
	if !lv.Feasible([]float64{5, 0, -1, 6, 1, -2}) || lv.Feasible([]float64{5, 0, 1.5, 6, 1, -2}) {
		t.Fatal("Feasible is wrong")
	}
}

// TestEnergy is B4: every bounce conserves Σ(a_i² + b_i²) to relative error
// < 1e−10, for both searches, over many trajectories with several hundred
// bounces each.
func TestEnergy(t *testing.T) {
	for _, search := range []Search{Kinetic, Envelope, Walk} {
		t.Run(search.String(), func(t *testing.T) {
			rng := newRNG(7)
			lv := mustLevels(t, randomColumn(rng, 200, 4, 0.05))
			mu := make([]float64, lv.N)
			for i := range mu {
				mu[i] = 0.2 * rng.NormFloat64()
			}
			s := NewSampler(lv, Options{Search: search, TravelTime: 2})
			var e0 float64
			bounces, worst := 0, 0.0
			s.afterBounce = func(s *Sampler) {
				bounces++
				worst = math.Max(worst, math.Abs(s.energy()-e0)/e0)
			}
			x := feasibleStart(rng, lv)
			for k := 0; k < 20; k++ {
				for i := range s.xi {
					s.xi[i] = rng.NormFloat64()
				}
				// The energy of the curves is set up at the start of transition;
				// capture it through a first, bounce-free evaluation.
				for p, i := range lv.Order {
					s.curves[p] = curve{mu: mu[i], a: 0.8 * s.xi[i], b: x[i] - mu[i]}
				}
				e0 = s.energy()
				if _, err := s.transition(x, mu, 0.8, s.xi); err != nil {
					t.Fatal(err)
				}
			}
			if bounces < 100 {
				t.Fatalf("only %d bounces", bounces)
			}
			if worst > 1e-10 {
				t.Fatalf("energy changed by relative %g", worst)
			}
		})
	}
}

// TestInvariants checks sampling.md §6(e) on random instances: every output
// satisfies the constraints exactly, no trajectory is rejected, missing rows
// are finite, and runs are deterministic under a seed.
func TestInvariants(t *testing.T) {
	for trial := 0; trial < 30; trial++ {
		rng := newRNG(uint64(100 + trial))
		n := 1 + rng.IntN(60)
		L := 1 + rng.IntN(8)
		y := randomColumn(rng, n, L, 0.15)
		lv := mustLevels(t, y)
		mu := make([]float64, n)
		for i := range mu {
			mu[i] = rng.NormFloat64()
		}
		sigma := 0.2 + 2*rng.Float64()
		x0 := feasibleStart(rng, lv)
		opt := Options{TravelTime: []float64{0, 0.3, 1, 3}[trial%4], Search: Search(trial % 2)}
		run := func() []float64 {
			s := NewSampler(lv, opt)
			r := newRNG(uint64(trial))
			x := append([]float64(nil), x0...)
			for k := 0; k < 50; k++ {
				st, err := s.Transition(r, x, mu, sigma)
				if err != nil {
					t.Fatal(err)
				}
				if st.Rejections != 0 {
					t.Fatalf("trial %d: rejection", trial)
				}
				checkFeasible(t, lv, x)
				for _, v := range x {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("trial %d: non-finite output %v", trial, x)
					}
				}
			}
			return x
		}
		a, b := run(), run()
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("trial %d: runs differ under the same seed at row %d: %v vs %v", trial, i, a[i], b[i])
			}
		}
	}
}

func TestTransitionErrors(t *testing.T) {
	lv := mustLevels(t, []float64{0, 1, 1, 2, math.NaN()})
	mu := make([]float64, 5)
	cases := []struct {
		name  string
		x     []float64
		sigma float64
		opt   Options
		want  string
	}{
		{"infeasible", []float64{0, 2, 1, 1.5, 0}, 1, Options{}, "infeasible"},
		{"nan", []float64{0, math.NaN(), 1, 2, 0}, 1, Options{}, "row 2"},
		{"sigma", []float64{0, 1, 1, 2, 0}, 0, Options{}, "sigma"},
		{"bounce cap kinetic", []float64{0, 0, 0, 0, 0}, 1, Options{MaxBounces: 1, TravelTime: 20}, "cap"},
		{"bounce cap envelope", []float64{0, 0, 0, 0, 0}, 1, Options{MaxBounces: 1, TravelTime: 20, Search: Envelope}, "cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSampler(lv, c.opt)
			x := append([]float64(nil), c.x...)
			_, err := s.Transition(newRNG(1), x, mu, c.sigma)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			for i := range x {
				if math.Float64bits(x[i]) != math.Float64bits(c.x[i]) {
					t.Fatalf("x changed on error: %v → %v", c.x, x)
				}
			}
		})
	}
}

func TestTransitionAllocs(t *testing.T) {
	rng := newRNG(9)
	lv := mustLevels(t, randomColumn(rng, 300, 5, 0.05))
	mu := make([]float64, lv.N)
	for _, search := range []Search{Kinetic, Envelope, Walk} {
		s := NewSampler(lv, Options{Search: search, TravelTime: 2})
		x := feasibleStart(rng, lv)
		allocs := testing.AllocsPerRun(10, func() {
			if _, err := s.Transition(rng, x, mu, 1); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per transition", search, allocs)
		}
	}
}

// fuzzColumn decodes a level structure from data: n = 1 + data[0] % 40 rows,
// L = 1 + data[1] % 6 values, row i at level data[2+i] % (L+1), L meaning
// missing.
func fuzzColumn(data []byte) []float64 {
	if len(data) < 2 {
		return []float64{0}
	}
	n := 1 + int(data[0])%40
	L := 1 + int(data[1])%6
	y := make([]float64, n)
	for i := range y {
		b := byte(i)
		if 2+i < len(data) {
			b = data[2+i]
		}
		l := int(b) % (L + 1)
		if l == L {
			y[i] = math.NaN()
		} else {
			y[i] = float64(l)
		}
	}
	return y
}

// FuzzTransition runs both searches from the same state with the same
// velocity draw on random level structures and checks that the outputs are
// feasible, unrejected and equal to 1e−9.
func FuzzTransition(f *testing.F) {
	f.Add([]byte{0, 0}, uint64(1))                               // n = 1
	f.Add([]byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint64(2)) // single level
	f.Add([]byte{5, 2, 3, 3, 3, 3, 3, 3}, uint64(3))             // all missing (L = 3)
	f.Add([]byte{7, 5, 0, 1, 2, 3, 4, 5, 0, 1}, uint64(4))       // one-element levels
	f.Add([]byte{30, 2, 0, 0, 1, 1, 2, 2, 0, 1, 2, 2, 1, 0}, uint64(5))
	f.Add([]byte{39, 4, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 1, 1, 1, 1}, uint64(6))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		y := fuzzColumn(data)
		lv := mustLevels(t, y)
		rng := newRNG(seed)
		n := lv.N
		mu := make([]float64, n)
		for i := range mu {
			mu[i] = rng.NormFloat64()
		}
		sigma := 0.1 + 2*rng.Float64()
		T := []float64{0, 0.5, 2}[seed%3]
		kin := NewSampler(lv, Options{TravelTime: T})
		env := NewSampler(lv, Options{TravelTime: T, Search: Envelope})
		wlk := NewSampler(lv, Options{TravelTime: T, Search: Walk})
		x := feasibleStart(rng, lv)
		xi := make([]float64, n)
		for k := 0; k < 3; k++ {
			for i := range xi {
				xi[i] = rng.NormFloat64()
			}
			xk := append([]float64(nil), x...)
			xe := append([]float64(nil), x...)
			sk, err := kin.transition(xk, mu, sigma, xi)
			if err != nil {
				t.Fatal(err)
			}
			se, err := env.transition(xe, mu, sigma, xi)
			if err != nil {
				t.Fatal(err)
			}
			if sk.Rejections+se.Rejections != 0 {
				t.Fatalf("rejection: %+v %+v", sk, se)
			}
			checkFeasible(t, lv, xk)
			checkFeasible(t, lv, xe)
			if d := maxAbsDiff(xk, xe); d > 1e-9 {
				t.Fatalf("searches differ by %g", d)
			}
			xw := append([]float64(nil), x...)
			sw, err := wlk.transition(xw, mu, sigma, xi)
			if err != nil {
				t.Fatal(err)
			}
			if sw.Rejections != 0 {
				t.Fatalf("walk rejected: %+v", sw)
			}
			checkFeasible(t, lv, xw)
			if d := maxAbsDiff(xw, xe); d > 1e-9 {
				t.Fatalf("walk and envelope differ by %g", d)
			}
			x = xk
		}
	})
}
