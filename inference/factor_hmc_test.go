package inference

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/copulang/copulang/hough"
)

// TestJointHMCMatchesScan checks the working-set search of jointHMC against
// the full scan it replaced (scanJointHMC, factor_hmc_scan_test.go): from the
// same state with the same whitened velocity, both must make the same number
// of bounces and end within 1e-9 of each other. Each case first runs a few
// trajectories of the reference so that the state is typical of the
// posterior rather than of the start, and then continues both from the
// reference's end point.
func TestJointHMCMatchesScan(t *testing.T) {
	cases := []struct {
		name    string
		n, L, k int
		miss    float64
		T       float64
		steps   int
		tiers   int // 0: windowTiersFor(n)
	}{
		{"n200 L5 k3", 200, 5, 3, 0, 0, 8, 0},
		{"n1000 L5 k5", 1000, 5, 5, 0, 0, 4, 0},
		{"n500 L2 k2 NA", 500, 2, 2, 0.2, 0, 6, 0},
		{"n120 distinct k1", 120, 120, 1, 0, 0, 3, 0},
		{"n400 L20 k4 NA", 400, 20, 4, 0.05, 0, 3, 0},
		{"n300 L3 k2 T3", 300, 3, 2, 0, 3, 4, 0},
		{"n150 L4 k5 T0.3", 150, 4, 5, 0.1, 0.3, 8, 0},
		// More tiers, as columns of more than 4,500 rows get.
		{"n1000 L5 k2 3 tiers", 1000, 5, 2, 0, 0, 4, 3},
		{"n800 L3 k3 NA 6 tiers", 800, 3, 3, 0.1, 0, 4, 6},
		{"n300 L2 k2 T3 4 tiers", 300, 2, 2, 0, 3, 4, 4},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 41))
			n, k := tc.n, tc.k
			lv := cyclicLevels(t, rng, n, tc.L, tc.miss)
			eta, prec, lam, z := jointInputs(rng, lv, k)
			ref := newScanJointHMC(lv, k)
			for range 3 {
				if _, err := ref.step(rng, z, lam, eta, prec, tc.T); err != nil {
					t.Fatal(err)
				}
			}
			h := newJointHMC(lv, k, nil)
			if tc.tiers > 0 {
				h.tiers = tc.tiers
				h.setLevels(lv)
			}
			z2, lam2 := make([]float64, n), make([]float64, k)
			ud, ed := make([]float64, k), make([]float64, n)
			for s := 0; s < tc.steps; s++ {
				for c := range ud {
					ud[c] = rng.NormFloat64()
				}
				for i := range ed {
					ed[i] = rng.NormFloat64()
				}
				copy(z2, z)
				copy(lam2, lam)
				rs, err := ref.stepWith(z, lam, eta, prec, tc.T, ud, ed)
				if err != nil {
					t.Fatal(err)
				}
				js, err := h.stepWith(z2, lam2, eta, prec, tc.T, ud, ed)
				if err != nil {
					t.Fatal(err)
				}
				checkJointStep(t, s, "the full scan", lv, js, rs, lam2, z2, lam, z)
			}
		})
	}
}

// TestJointScratchShared checks that joint steps of two columns taking turns
// in one scratch memory draw exactly what they draw each in its own: same
// latent values, loadings and counts, bit for bit.
func TestJointScratchShared(t *testing.T) {
	const n, k = 300, 3
	rng := rand.New(rand.NewPCG(9, 41))
	type column struct {
		lv            *hough.Levels
		own, shared   *jointHMC
		zOwn, zShared []float64
		lOwn, lShared []float64
		rOwn, rShared *rand.Rand
		eta, prec     []float64
	}
	sc := newJointScratch(n, k)
	var cols []*column
	for ci, L := range []int{5, 2, 12} {
		lv := cyclicLevels(t, rng, n, L, 0.1)
		eta, prec, lam, z := jointInputs(rng, lv, k)
		cols = append(cols, &column{lv: lv, own: newJointHMC(lv, k, nil), shared: newJointHMC(lv, k, sc),
			zOwn: z, zShared: slices.Clone(z), lOwn: lam, lShared: slices.Clone(lam),
			rOwn: rand.New(rand.NewPCG(uint64(ci), 7)), rShared: rand.New(rand.NewPCG(uint64(ci), 7)),
			eta: eta, prec: prec})
	}
	for it := range 6 {
		for ci, c := range cols {
			so, err := c.own.step(c.rOwn, c.zOwn, c.lOwn, c.eta, c.prec, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.shared.use(sc)
			ss, err := c.shared.step(c.rShared, c.zShared, c.lShared, c.eta, c.prec, 0)
			if err != nil {
				t.Fatal(err)
			}
			if so != ss || so.Bounces == 0 {
				t.Errorf("step %d, column %d: stats %+v (own), %+v (shared)", it, ci, so, ss)
			}
			if !slices.Equal(c.zOwn, c.zShared) || !slices.Equal(c.lOwn, c.lShared) {
				t.Fatalf("step %d, column %d: the shared scratch changed the draw", it, ci)
			}
		}
	}
}

// cyclicLevels returns the levels of a column of n rows whose values cycle
// through 0..L−1, each missing with probability miss, in random order.
func cyclicLevels(t *testing.T, rng *rand.Rand, n, L int, miss float64) *hough.Levels {
	t.Helper()
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % L)
		if rng.Float64() < miss {
			y[i] = math.NaN()
		}
	}
	rng.Shuffle(n, func(a, b int) { y[a], y[b] = y[b], y[a] })
	lv, err := hough.NewLevels(y)
	if err != nil {
		t.Fatal(err)
	}
	return lv
}

// TestWindowTiersFor checks the number of tiers at the edges of its rule.
func TestWindowTiersFor(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{1, 2}, {1000, 2}, {4500, 2}, {4501, 3}, {13500, 3}, {13501, 4},
		{40500, 4}, {40501, 5}, {121500, 5}, {121501, 6}, {10_000_000, maxWindowTiers},
	} {
		if got := windowTiersFor(tc.n); got != tc.want {
			t.Errorf("windowTiersFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestRestoreFewerTiers checks that a chain state saved when every column
// had two tiers restores into a column that now has more: the saved tiers'
// factors carry over and the others start afresh; a state with more factors
// than any column has tiers is refused.
func TestRestoreFewerTiers(t *testing.T) {
	const n, p, k = 5000, 3, 1
	rng := rand.New(rand.NewPCG(3, 3))
	cols, _ := simulateFactorCopula(rng, n, p, k, 3, 0)
	d := factorTestData(t, cols)
	cs, err := newFactorSampler(d, &Spec{Columns: cols, Model: FactorModel{K: k}, Method: Interweave}, rng)
	if err != nil {
		t.Fatal(err)
	}
	s := cs.(*factorSampler)
	h := s.cols[1].hmc
	if h.tiers != 3 {
		t.Fatalf("%d rows: %d tiers, want 3", n, h.tiers)
	}
	st := s.state()
	for j := range st.Joint {
		st.Joint[j].Beta = []float64{1.5, 3.5}
	}
	if err := s.restore(st); err != nil {
		t.Fatalf("restore of two tiers' factors: %v", err)
	}
	if got := h.beta[:h.tiers]; !slices.Equal(got, []float64{1.5, 3.5, 2.5}) {
		t.Errorf("factors after restore: %v, want [1.5 3.5 2.5]", got)
	}
	st.Joint[1].Beta = make([]float64, maxWindowTiers+1)
	for i := range st.Joint[1].Beta {
		st.Joint[1].Beta[i] = 2
	}
	if err := s.restore(st); err == nil {
		t.Errorf("restored %d tiers' factors", maxWindowTiers+1)
	}
}
