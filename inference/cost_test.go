package inference

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIterationCostFitsTheMeasurements compares IterationCost with the CPU
// times it was fitted to (testdata/cost_measured.csv, see the coefficients'
// comment): every estimate must stay within the factors stated there.
func TestIterationCostFitsTheMeasurements(t *testing.T) {
	rows := readTestCSV(t, "testdata/cost_measured.csv")
	bounds := map[string][2]float64{"gibbs": {0.80, 1.23}, "hmc": {0.71, 1.21}, "px": {0.84, 1.18}, "interweave": {0.75, 1.18}}
	seen := map[string]int{}
	ranges := map[string][2]float64{}
	for _, r := range rows[1:] {
		m, ok := ParseMethod(r[0])
		if !ok {
			t.Fatalf("method %q", r[0])
		}
		num := func(i int) int { v, _ := strconv.Atoi(r[i]); return v }
		n, p, k := num(1), num(2), num(3)
		cpu, _ := strconv.ParseFloat(r[6], 64)
		missing, _ := strconv.ParseFloat(r[9], 64)
		c := Cost{Method: m, N: n, P: p, TravelTime: math.Pi / 2}
		if m == PX || m == Interweave {
			c.K = k
		}
		// levels is one count for every column, or each column's (mixed).
		levels := strings.Fields(r[4])
		for j := range p {
			l, err := strconv.Atoi(levels[min(j, len(levels)-1)])
			if err != nil || len(levels) != 1 && len(levels) != p {
				t.Fatalf("%v: levels %q", r[:4], r[4])
			}
			c.Observed = append(c.Observed, int(math.Round(float64(n)*(1-missing))))
			c.Levels = append(c.Levels, l)
		}
		ratio := IterationCost(c).Seconds() / cpu
		if b := bounds[r[0]]; ratio < b[0]-0.005 || ratio > b[1]+0.005 {
			t.Errorf("%v, missing %v: estimate/measured = %.2f, outside [%.2f, %.2f]", r[:5], missing, ratio, b[0], b[1])
		}
		seen[r[0]]++
		lo, hi := ratio, ratio
		if rg, ok := ranges[r[0]]; ok {
			lo, hi = min(lo, rg[0]), max(hi, rg[1])
		}
		ranges[r[0]] = [2]float64{lo, hi}
	}
	for m, rg := range ranges {
		t.Logf("%s: estimate/measured %.2f–%.2f over %d rows", m, rg[0], rg[1], seen[m])
	}
	if len(seen) != 4 {
		t.Errorf("measurements of %v, want the four methods", seen)
	}
}

// TestFitDuration: chains beyond the cores share them; fewer take one
// chain's time; columns left to Gibbs cost less than exact-HMC ones.
func TestFitDuration(t *testing.T) {
	c := Cost{Method: HMC, N: 1000, P: 4, Observed: []int{1000, 1000, 1000, 1000}, Levels: []int{5, 5, 5, 5}, TravelTime: math.Pi / 2}
	one := FitDuration(c, 1, 100, 2)
	if two := FitDuration(c, 2, 100, 2); two != one {
		t.Errorf("2 chains on 2 cores take %v, one chain %v", two, one)
	}
	if four := FitDuration(c, 4, 100, 2); four != 2*one {
		t.Errorf("4 chains on 2 cores take %v, want twice %v", four, one)
	}
	mixed := c
	mixed.ColumnHMC = []bool{true, false, true, false}
	if IterationCost(mixed) >= IterationCost(c) {
		t.Errorf("two Gibbs columns cost %v, all HMC %v", IterationCost(mixed), IterationCost(c))
	}
	if IterationCost(c) <= 0 || IterationCost(c) > time.Second {
		t.Errorf("IterationCost = %v", IterationCost(c))
	}
}

// TestBounceShare checks BounceShare against the bounces exact HMC makes on
// equicorrelated columns: within 10% for 2, 5 and 10 levels and R² from 0.14
// to 0.89 (the measurements behind it were within 6%; 20 trajectories per
// column here, so the count's own noise is about 1%).
func TestBounceShare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs exact HMC on 6 data sets")
	}
	const n, p = 600, 4
	for _, levels := range []int{2, 5, 10} {
		for _, rho := range []float64{0.2, 0.85} {
			cols, err := Equicorrelated(n, p, levels, rho, 1)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Spec{Columns: cols, Method: HMC, Iter: 20, Warmup: 20, Chains: 1, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats[0]
			got := float64(st.Bounces) / float64(st.Iterations) / p
			expected := float64(n*(levels-1)) / 4 // n·(L − 1)·T/(2π) at T = π/2
			want := expected * BounceShare(levels, EquicorrelatedR2(p, rho))
			if r := got / want; r < 0.9 || r > 1.1 {
				t.Errorf("%d levels, rho %.2f: %.0f bounces per column, predicted %.0f (ratio %.2f)", levels, rho, got, want, r)
			}
		}
	}
}

// readTestCSV reads a committed measurement table from testdata.
func readTestCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
