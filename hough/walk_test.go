package hough

import (
	"fmt"
	"math"
	"testing"
)

// TestWalkAgrees runs the Walk search against the envelope search from the
// same states with the same velocity draws on shapes TestSearchesAgree does
// not cover: many levels, levels of one curve (all values distinct), missing
// rows, several segments, and σ small or large beside the spread of μ (few
// or all curves awake). The outputs must be feasible, unrejected, have the
// same number of bounces and agree to 1e−9.
func TestWalkAgrees(t *testing.T) { walkAgrees(t) }

// TestWalkAgreesFewSegments records at most one or two segments per wall,
// so that most walks overflow and every change to a wall re-walks it.
func TestWalkAgreesFewSegments(t *testing.T) {
	defer func(c int) { walkSegLimit = c }(walkSegLimit)
	for _, c := range []int{1, 2} {
		t.Run(fmt.Sprintf("cap=%d", c), func(t *testing.T) {
			walkSegLimit = c
			walkAgrees(t)
		})
	}
}

// TestWalkAgreesDoze varies how often the walk puts curves to sleep
// (mayDoze): never but where the witness is sought, at every walk, and the
// default. Dozing at every walk puts the first curve of a level to sleep
// while its witness may be anywhere (no curve slept, so the witness had no
// floor certificate), which doze must repair before the walk reads the
// awake curves; never dozing keeps curves awake far under the floor.
func TestWalkAgreesDoze(t *testing.T) {
	defer func(r int32) { dozeRate = r }(dozeRate)
	for _, c := range []struct {
		name string
		rate int32
	}{{"never", 0}, {"every", 1 << 20}, {"default", dozeRate}} {
		t.Run(c.name, func(t *testing.T) {
			dozeRate = c.rate
			walkAgrees(t)
		})
	}
}

// TestLevelMargin checks the floor margin by level size.
func TestLevelMargin(t *testing.T) {
	for _, c := range []struct {
		k    int32
		want float64
	}{{1, walkMargin}, {200, walkMargin}, {marginLevel, walkMargin}, {4 * marginLevel, walkMargin / 2}, {100 * marginLevel, walkMargin / 10}} {
		if got := levelMargin(c.k); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("levelMargin(%d) = %g, want %g", c.k, got, c.want)
		}
	}
}

// TestWalkAgreesLevelMargin runs walkAgrees with the margin shrinking from
// levels of 8 curves, so that its levels have floors narrower than
// walkMargin.
func TestWalkAgreesLevelMargin(t *testing.T) {
	defer func(k int32) { marginLevel = k }(marginLevel)
	marginLevel = 8
	walkAgrees(t)
}

func walkAgrees(t *testing.T) {
	type shape struct {
		n, L         int
		na, T, sigma float64
		muScale      float64
		trajs        int // trajectories; 0 means 10
	}
	shapes := []shape{
		{n: 200, L: 20, sigma: 0.8, muScale: 0.3},
		{n: 60, L: 60, sigma: 0.7, muScale: 0.2},
		{n: 150, L: 5, na: 0.3, sigma: 1, muScale: 0.3},
		{n: 150, L: 4, T: 5, sigma: 0.9, muScale: 0.3},
		{n: 120, L: 3, sigma: 0.02, muScale: 1},
		{n: 120, L: 3, sigma: 30, muScale: 0.1},
		{n: 40, L: 2, sigma: 1, muScale: 0},
		{n: 300, L: 6, T: 2, sigma: 0.5, muScale: 0.5},
		// Levels of a few curves, all awake at times.
		{n: 12, L: 5, sigma: 1, muScale: 0.3, trajs: 300},
		{n: 43, L: 8, sigma: 0.54, muScale: 1, trajs: 100},
	}
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("n=%d/L=%d/na=%g/T=%g/sigma=%g", sh.n, sh.L, sh.na, sh.T, sh.sigma), func(t *testing.T) {
			rng := newRNG(uint64(7*sh.n + sh.L))
			y := randomColumn(rng, sh.n, sh.L, sh.na)
			if sh.L == sh.n {
				for i := range y {
					y[i] = float64(i)
				}
				rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
			}
			lv := mustLevels(t, y)
			mu := make([]float64, sh.n)
			for i := range mu {
				mu[i] = sh.muScale * rng.NormFloat64()
			}
			env := NewSampler(lv, Options{Search: Envelope, TravelTime: sh.T, MaxBounces: 100 * sh.n * sh.n})
			wlk := NewSampler(lv, Options{Search: Walk, TravelTime: sh.T, MaxBounces: 100 * sh.n * sh.n})
			x := feasibleStart(rng, lv)
			xi := make([]float64, sh.n)
			bounces, worst := 0, 0.0
			trajs := sh.trajs
			if trajs == 0 {
				trajs = 10
			}
			for k := 0; k < trajs; k++ {
				for i := range xi {
					xi[i] = rng.NormFloat64()
				}
				xe := append([]float64(nil), x...)
				xw := append([]float64(nil), x...)
				se, err := env.transition(xe, mu, sh.sigma, xi)
				if err != nil {
					t.Fatal(err)
				}
				sw, err := wlk.transition(xw, mu, sh.sigma, xi)
				if err != nil {
					t.Fatal(err)
				}
				if se.Rejections+sw.Rejections != 0 {
					t.Fatalf("rejections: envelope %d, walk %d", se.Rejections, sw.Rejections)
				}
				if se.Bounces != sw.Bounces {
					t.Errorf("trajectory %d: %d bounces (walk) vs %d (envelope)", k, sw.Bounces, se.Bounces)
				}
				checkFeasible(t, lv, xw)
				d := maxAbsDiff(xe, xw)
				if d > 1e-9 {
					t.Fatalf("trajectory %d: walk and envelope differ by %g", k, d)
				}
				worst = max(worst, d)
				bounces += sw.Bounces
				x = xw
			}
			if bounces == 0 && lv.NumLevels() > 1 {
				t.Error("no bounces: the test exercises nothing")
			}
			t.Logf("%d bounces, max |Δx| = %.2g, walks %d, steps %d", bounces, worst, wlk.walkCount.walks, wlk.walkCount.steps)
		})
	}
}

// TestTinySigma runs a column whose curves travel far beside σ (σ tiny
// beside |x − μ|, as for a column nearly determined by the others): each
// floor widening added 0.03σ, so the events grew like 1/σ and the kinetic
// search hit its cap on events at σ = 1e-5 where the envelope search made 2.
// Widening by a quarter of the margin at least keeps the events few, and
// every search agrees with the envelope.
func TestTinySigma(t *testing.T) {
	lv := mustLevels(t, []float64{0, 0, 1, 1, 1})
	mu := make([]float64, 5)
	for _, sigma := range []float64{1e-2, 1e-4, 1e-6, 1e-8} {
		var want []float64
		for _, search := range []Search{Envelope, Kinetic, Walk} {
			x := []float64{-1.3, -0.2, 0.1, 0.7, 1.9}
			st, err := NewSampler(lv, Options{Search: search}).transition(x, mu, sigma, []float64{0.3, -1.1, 0.8, 0.2, -0.5})
			if err != nil {
				t.Fatalf("σ = %g, %v: %v", sigma, search, err)
			}
			if st.Events > 500 {
				t.Errorf("σ = %g, %v: %d events for %d bounces", sigma, search, st.Events, st.Bounces)
			}
			if search == Envelope {
				want = x
			} else if d := maxAbsDiff(x, want); d > 1e-12 {
				t.Errorf("σ = %g, %v: end state differs from the envelope's by %g", sigma, search, d)
			}
		}
	}
}
