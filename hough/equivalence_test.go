package hough

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSearchesAgree is B3 (sampling.md §6(b)): from the same state with the
// same velocity draw, the kinetic search, the walk, the Hough envelope and
// Pakman–Paninski with one explicit row per pair of adjacent-level rows end
// at the same point, max |Δx| < 1e−9, and every output is feasible. The
// kinetic search runs with the walk (the default for these levels), in
// TestSearchesAgreeSides with the sides that track extremes and, in
// TestSearchesAgreeTrees, with tournament trees; those two compare with
// the envelope only, which this test compares with Pakman–Paninski on the
// same states and velocities (Pakman–Paninski's dense rows were three
// quarters of the package's short test time).
func TestSearchesAgree(t *testing.T) { searchesAgree(t, true) }

// TestSearchesAgreeSides runs the kinetic search with the sides that track
// each level's extreme (kinetic.go) instead of the walk.
func TestSearchesAgreeSides(t *testing.T) {
	defer func(w bool) { kineticWalk = w }(kineticWalk)
	kineticWalk = false
	searchesAgree(t, false)
}

func TestSearchesAgreeTrees(t *testing.T) {
	defer func(k int32) { sideMaxLevel = k }(sideMaxLevel)
	sideMaxLevel = 0
	searchesAgree(t, false)
}

// searchesAgree compares the searches on columns of 12, 30 and 250 rows
// of 2, 3 and 5 levels; with withPP, Pakman–Paninski too.
func searchesAgree(t *testing.T, withPP bool) {
	for _, n := range []int{12, 30, 250} {
		for _, L := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("n=%d/L=%d", n, L), func(t *testing.T) {
				rng := newRNG(uint64(1000*n + L))
				y := randomColumn(rng, n, L, 0.1)
				lv := mustLevels(t, y)
				mu := make([]float64, n)
				for i := range mu {
					mu[i] = 0.3 * rng.NormFloat64()
				}
				sigma := 0.5 + rng.Float64()
				kin := NewSampler(lv, Options{})
				env := NewSampler(lv, Options{Search: Envelope})
				wlk := NewSampler(lv, Options{Search: Walk})
				var pp *PP
				// With L = 2 and n = 250, PP has ~15,000 dense rows; compare
				// it on the first two trajectories only.
				ppTrajectories := 1 << 30
				if n == 250 && L == 2 {
					ppTrajectories = 2
				}
				if !withPP {
					ppTrajectories = 0
				}
				if ppTrajectories > 0 {
					F, g := pairRows(lv)
					cov := mat.NewDiagDense(n, nil)
					for i := 0; i < n; i++ {
						cov.SetDiag(i, sigma*sigma)
					}
					var err error
					pp, err = NewPPCov(F, g, mu, cov)
					if err != nil {
						t.Fatal(err)
					}
				}
				x := feasibleStart(rng, lv)
				xi := make([]float64, n)
				trajectories := 20
				if n == 250 {
					trajectories = 4
				}
				bounces, worst := 0, 0.0
				for k := 0; k < trajectories; k++ {
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
					if sk.Rejections != 0 || se.Rejections != 0 {
						t.Fatalf("rejections: kinetic %d, envelope %d", sk.Rejections, se.Rejections)
					}
					if sk.Bounces != se.Bounces {
						t.Errorf("trajectory %d: %d bounces (kinetic) vs %d (envelope)", k, sk.Bounces, se.Bounces)
					}
					xw := append([]float64(nil), x...)
					sw, err := wlk.transition(xw, mu, sigma, xi)
					if err != nil {
						t.Fatal(err)
					}
					if sw.Rejections != 0 {
						t.Fatalf("rejections: walk %d", sw.Rejections)
					}
					if sw.Bounces != se.Bounces {
						t.Errorf("trajectory %d: %d bounces (walk) vs %d (envelope)", k, sw.Bounces, se.Bounces)
					}
					checkFeasible(t, lv, xw)
					if d := maxAbsDiff(xw, xe); d > 1e-9 {
						t.Fatalf("trajectory %d: walk and envelope differ by %g", k, d)
					}
					worst = math.Max(worst, maxAbsDiff(xw, xe))
					checkFeasible(t, lv, xk)
					checkFeasible(t, lv, xe)
					worst = math.Max(worst, maxAbsDiff(xk, xe))
					if d := maxAbsDiff(xk, xe); d > 1e-9 {
						t.Fatalf("trajectory %d: kinetic and envelope differ by %g", k, d)
					}
					if k < ppTrajectories {
						xp := append([]float64(nil), x...)
						v := append([]float64(nil), xi...)
						sp, err := pp.Step(xp, v, 0)
						if err != nil {
							t.Fatal(err)
						}
						if sp.Rejections != 0 {
							t.Fatal("PP rejected")
						}
						if sp.Bounces != sk.Bounces {
							t.Errorf("trajectory %d: %d bounces (PP) vs %d (kinetic)", k, sp.Bounces, sk.Bounces)
						}
						worst = math.Max(worst, maxAbsDiff(xk, xp))
						if d := maxAbsDiff(xk, xp); d > 1e-9 {
							t.Fatalf("trajectory %d: kinetic and PP differ by %g", k, d)
						}
					}
					bounces += sk.Bounces
					x = xk
				}
				if bounces == 0 && L > 1 {
					t.Errorf("no bounces in %d trajectories: the test exercises nothing", trajectories)
				}
				t.Logf("%d bounces in %d trajectories, max |Δx| = %.2g (PP compared on %d)", bounces, trajectories, worst, min(trajectories, ppTrajectories))
			})
		}
	}
}

// TestSearchesAgreeCatchesQueueBug plants an ordering bug in the kinetic
// search's event queue — each bucket yields its latest certificate instead of
// its earliest — and checks that comparing with the envelope search, as
// TestSearchesAgree does, exposes it, with the sides that track extremes and
// with the walk: some trajectory differs by more than 1e−9, is rejected,
// ends infeasible or fails. The walk queues far fewer certificates, so two
// rarely share a bucket; it needs more trajectories.
func TestSearchesAgreeCatchesQueueBug(t *testing.T) {
	for _, walk := range []bool{false, true} {
		t.Run(fmt.Sprintf("walk=%v", walk), func(t *testing.T) {
			defer func(w bool) { kineticWalk = w }(kineticWalk)
			kineticWalk = walk
			catchQueueBug(t)
		})
	}
}

func catchQueueBug(t *testing.T) {
	rng := newRNG(77)
	n := 200
	lv := mustLevels(t, randomColumn(rng, n, 5, 0.05))
	mu := make([]float64, n)
	for i := range mu {
		mu[i] = 0.3 * rng.NormFloat64()
	}
	kin := NewSampler(lv, Options{})
	kin.queue.latestFirst = true
	env := NewSampler(lv, Options{Search: Envelope})
	x := feasibleStart(rng, lv)
	xi := make([]float64, n)
	const trajectories = 400
	for k := 0; k < trajectories; k++ {
		for i := range xi {
			xi[i] = rng.NormFloat64()
		}
		xk := append([]float64(nil), x...)
		xe := append([]float64(nil), x...)
		sk, errK := kin.transition(xk, mu, 0.8, xi)
		if _, err := env.transition(xe, mu, 0.8, xi); err != nil {
			t.Fatal(err)
		}
		if errK != nil || sk.Rejections != 0 || !lv.Feasible(xk) || maxAbsDiff(xk, xe) > 1e-9 {
			t.Logf("caught at trajectory %d: err %v, rejections %d, feasible %v, max difference %.3g", k, errK, sk.Rejections, lv.Feasible(xk), maxAbsDiff(xk, xe))
			return
		}
		x = xe
	}
	t.Fatalf("the planted queue-ordering bug went unnoticed in %d trajectories", trajectories)
}

// TestTreesFor checks which columns the kinetic search gives tournament
// trees: those of three levels or more with a level of more than
// sideMaxLevel curves; a column of two levels keeps the walk at any size,
// unless sideMaxLevel is 0 (trees everywhere, for the tests).
func TestTreesFor(t *testing.T) {
	column := func(sizes ...int) *Levels {
		var y []float64
		for l, k := range sizes {
			for range k {
				y = append(y, float64(l))
			}
		}
		return mustLevels(t, y)
	}
	m := int(sideMaxLevel)
	for _, c := range []struct {
		sizes []int
		want  bool
	}{
		{[]int{5}, false},
		{[]int{m + 1}, false},
		{[]int{3 * m, 2 * m}, false},
		{[]int{10, m, 10}, false},
		{[]int{10, m + 1, 10}, true},
		{[]int{m + 1, 1, 1, 1}, true},
	} {
		if got := treesFor(column(c.sizes...)); got != c.want {
			t.Errorf("levels of %v: trees %v, want %v", c.sizes, got, c.want)
		}
	}
	defer func(k int32) { sideMaxLevel = k }(sideMaxLevel)
	sideMaxLevel = 0
	if !treesFor(column(3, 4)) {
		t.Error("sideMaxLevel = 0 does not give trees to two levels")
	}
}

// TestSearchesAgreeLargeBinary runs the kinetic search, the walk since it
// serves columns of two levels of any size, against the envelope search on
// a column of two levels of 1,500 curves each (trees served it before),
// with missing rows and row means.
func TestSearchesAgreeLargeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("the envelope search is quadratic")
	}
	const n = 3000
	rng := newRNG(77)
	y := randomColumn(rng, n, 2, 0.1)
	lv := mustLevels(t, y)
	if treesFor(lv) {
		t.Fatal("a column of two levels gets trees")
	}
	mu := make([]float64, n)
	for i := range mu {
		mu[i] = 0.3 * rng.NormFloat64()
	}
	kin := NewSampler(lv, Options{})
	env := NewSampler(lv, Options{Search: Envelope})
	x := feasibleStart(rng, lv)
	xi := make([]float64, n)
	for k := range 3 {
		for i := range xi {
			xi[i] = rng.NormFloat64()
		}
		xk := append([]float64(nil), x...)
		xe := append([]float64(nil), x...)
		sk, err := kin.transition(xk, mu, 0.8, xi)
		if err != nil {
			t.Fatal(err)
		}
		se, err := env.transition(xe, mu, 0.8, xi)
		if err != nil {
			t.Fatal(err)
		}
		if sk.Bounces != se.Bounces || sk.Rejections != 0 || se.Rejections != 0 {
			t.Fatalf("trajectory %d: bounces %d (kinetic) and %d (envelope), rejections %d and %d", k, sk.Bounces, se.Bounces, sk.Rejections, se.Rejections)
		}
		checkFeasible(t, lv, xk)
		if d := maxAbsDiff(xk, xe); d > 1e-9 {
			t.Fatalf("trajectory %d: kinetic and envelope differ by %g", k, d)
		}
		x = xk
	}
}
