package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteKendall is τ_b by counting every pair, O(n²).
func bruteKendall(x, y []float64) float64 {
	var conc, disc, tx, ty, n0 float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if math.IsNaN(x[i]) || math.IsNaN(y[i]) || math.IsNaN(x[j]) || math.IsNaN(y[j]) {
				continue
			}
			n0++
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx*dy > 0:
				conc++
			default:
				disc++
			}
		}
	}
	return (conc - disc) / math.Sqrt((n0-tx)*(n0-ty))
}

// bruteSpearman ranks by counting (rank = #below + (#equal+1)/2), O(n²).
func bruteSpearman(x, y []float64) float64 {
	var xs, ys []float64
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	rank := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			below, equal := 0.0, 0.0
			for j := range v {
				if v[j] < v[i] {
					below++
				} else if v[j] == v[i] {
					equal++
				}
			}
			out[i] = below + (equal+1)/2
		}
		return out
	}
	return pearson(rank(xs), rank(ys))
}

// TestRankCorrelationsAgainstR pins both statistics to R 4.x's cor() on
// data with ties and missing values.
func TestRankCorrelationsAgainstR(t *testing.T) {
	nan := math.NaN()
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, nan, 8, 9, 7}
	y := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, nan, 9, 0}
	a := []float64{1, 1, 2, 2, 3, 3, 3, 1}
	b := []float64{1, 2, 2, 2, 3, 1, 3, 1}
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		// cor(x, y, method = ..., use = "pairwise.complete.obs")
		{"kendall x y", KendallTauB(x, y), 0.12862393885688161},
		{"spearman x y", SpearmanRho(x, y), 0.16289997706146769},
		{"kendall a b", KendallTauB(a, b), 0.52380952380952384},
		{"spearman a b", SpearmanRho(a, b), 0.53333333333333333},
	} {
		if math.Abs(c.got-c.want) > 1e-14 {
			t.Errorf("%s = %.17g, R gives %.17g", c.name, c.got, c.want)
		}
	}
}

// randomCodes returns a level-coded column with the given number of levels
// and a share of missing cells, and the same column as values.
// correlatedCodes returns two columns of n rows with lx and ly levels
// (randomCodes, a tenth missing), y made to follow x in about half the
// rows so that the statistics are not all near 0.
func correlatedCodes(rng *rand.Rand, n, lx, ly int) (cx []int32, x []float64, cy []int32, y []float64) {
	cx, x = randomCodes(rng, n, lx, 0.1)
	cy, y = randomCodes(rng, n, ly, 0.1)
	for i := range y {
		if cx[i] >= 0 && cy[i] >= 0 && rng.IntN(2) == 0 {
			cy[i] = int32(int(cx[i]) * ly / lx)
			y[i] = float64(cy[i])
		}
	}
	return cx, x, cy, y
}

func randomCodes(rng *rand.Rand, n, levels int, missing float64) ([]int32, []float64) {
	codes := make([]int32, n)
	vals := make([]float64, n)
	for i := range codes {
		if rng.Float64() < missing {
			codes[i], vals[i] = -1, math.NaN()
			continue
		}
		codes[i] = int32(rng.IntN(levels))
		vals[i] = float64(codes[i])
	}
	return codes, vals
}

// TestRankCorrelationRoutesAgree checks the O(n log n) and two-way-table
// routes against O(n²) counting on random level-coded columns, from
// binary to all-distinct, with missing cells.
func TestRankCorrelationRoutesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(120)
		lx, ly := 1+rng.IntN(8), 1+rng.IntN(8)
		if trial%5 == 0 {
			lx = n // mostly distinct values: the sorting route
		}
		cx, x, cy, y := correlatedCodes(rng, n, lx, ly)
		for _, stat := range RankStats() {
			brute := bruteSpearman(x, y)
			if stat == Kendall {
				brute = bruteKendall(x, y)
			}
			ps := &pairStats{stat: stat}
			sorted := RankCorrelation(stat, x, y)
			table := ps.of(cx, cy, lx, ly)
			same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
			if !same(sorted, brute) || !same(table, brute) {
				t.Fatalf("trial %d %v n=%d lx=%d ly=%d: sorting %v, table %v, counting %v", trial, stat, n, lx, ly, sorted, table, brute)
			}
			if lx*ly <= 1000 {
				// The bit sets give the same table, hence the same value.
				var bx, by levelBits
				bx.set(cx, lx)
				by.set(cy, ly)
				if fromBits := ps.ofBits(&bx, &by); !(fromBits == table || math.IsNaN(fromBits) && math.IsNaN(table)) {
					t.Fatalf("trial %d %v n=%d lx=%d ly=%d: bit sets %v, table %v", trial, stat, n, lx, ly, fromBits, table)
				}
			}
		}
	}
}

// TestPairStatsManyLevelsIsRankCorrelation checks that the route of a pair
// too large for a two-way table, byCounting, gives RankCorrelation's value of its
// codes bit for bit, from continuous against binary to continuous against
// continuous, with missing cells and ties, so that a check's statistics do
// not depend on the route.
func TestPairStatsManyLevelsIsRankCorrelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 100; trial++ {
		n := 100 + rng.IntN(2000)
		lx := n/2 + rng.IntN(n) // many levels, some of them tied or unused
		ly := []int{2, 5, 10, n}[trial%4]
		cx, x, cy, y := correlatedCodes(rng, n, lx, ly)
		for _, stat := range RankStats() {
			ps := &pairStats{stat: stat}
			want := RankCorrelation(stat, x, y)
			for _, swap := range []bool{false, true} {
				got := ps.byCounting(cx, cy, lx, ly)
				if swap {
					got, want = ps.byCounting(cy, cx, ly, lx), RankCorrelation(stat, y, x)
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("trial %d %v n=%d lx=%d ly=%d swapped %v: pairStats %v, RankCorrelation %v", trial, stat, n, lx, ly, swap, got, want)
				}
			}
		}
	}
}

// TestPairStatsManyLevelsAllocatesNothing pins the route of continuous
// columns to the pairStats' scratch: it sorted a copy of the rows, 30 ms
// and 2.8 MB a pair at 50,000 rows, which made a check of a survey with
// ten continuous columns of 50,000 rows take most of an hour.
func TestPairStatsManyLevelsAllocatesNothing(t *testing.T) {
	const n = 5000
	rng := rand.New(rand.NewPCG(3, 4))
	cont, _ := randomCodes(rng, n, n, 0.1) // 5n cells: too many for a table
	five, _ := randomCodes(rng, n, 5, 0.1)
	for _, stat := range RankStats() {
		ps := &pairStats{stat: stat}
		ps.of(cont, five, n, 5) // grows the scratch
		if allocs := testing.AllocsPerRun(10, func() { ps.of(cont, five, n, 5) }); allocs != 0 {
			t.Errorf("%v: %v allocations a pair, want 0", stat, allocs)
		}
	}
}

// TestRankCorrelationOfNormals checks the statistics' expectations for a
// bivariate normal with correlation r: E τ = (2/π) arcsin r, and E ρ_S =
// (6/π) arcsin(r/2) (+ O(1/n)), with n = 20,000 draws: the standard errors
// are about 0.004 (τ) and 0.005 (ρ_S); tolerance 4 standard errors.
func TestRankCorrelationOfNormals(t *testing.T) {
	const n, r = 20000, 0.6
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		x[i], y[i] = a, r*a+math.Sqrt(1-r*r)*b
	}
	tau := KendallTauB(x, y)
	if want := 2 / math.Pi * math.Asin(r); math.Abs(tau-want) > 4*0.004 {
		t.Errorf("τ = %.4f, want %.4f", tau, want)
	}
	rho := SpearmanRho(x, y)
	if want := 6 / math.Pi * math.Asin(r/2); math.Abs(rho-want) > 4*0.005 {
		t.Errorf("ρ_S = %.4f, want %.4f", rho, want)
	}
}

func TestRankCorrelationDegenerate(t *testing.T) {
	nan := math.NaN()
	for _, c := range [][2][]float64{
		{{1}, {2}},
		{{1, 1, 1}, {1, 2, 3}},
		{{1, nan, 3}, {nan, 2, 3}},
	} {
		for _, stat := range RankStats() {
			if v := RankCorrelation(stat, c[0], c[1]); !math.IsNaN(v) {
				t.Errorf("%v of %v, %v = %v, want NaN", stat, c[0], c[1], v)
			}
		}
	}
}

func TestParseRankStat(t *testing.T) {
	for _, s := range RankStats() {
		if got, ok := ParseRankStat(s.String()); !ok || got != s {
			t.Errorf("ParseRankStat(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseRankStat("pearson"); ok {
		t.Error("pearson parsed")
	}
}

func BenchmarkRankCorrelation(b *testing.B) {
	const n = 10000
	rng := rand.New(rand.NewPCG(3, 4))
	cx, x := randomCodes(rng, n, 5, 0.05)
	cy, y := randomCodes(rng, n, 7, 0.05)
	for _, stat := range RankStats() {
		b.Run(stat.String()+"/sorting", func(b *testing.B) {
			for range b.N {
				RankCorrelation(stat, x, y)
			}
		})
		b.Run(stat.String()+"/table", func(b *testing.B) {
			ps := &pairStats{stat: stat}
			b.ReportAllocs()
			for range b.N {
				ps.of(cx, cy, 5, 7)
			}
		})
	}
}

// BenchmarkPairTable times one pair's two-way table and statistic at
// n = 20,000 rows, counted row by row from the codes and from bit sets,
// for tables of 4 to 256 cells: where the bit sets stop paying
// (maxBitCells).
func BenchmarkPairTable(b *testing.B) {
	const n = 20000
	rng := rand.New(rand.NewPCG(3, 4))
	for _, l := range []int{2, 5, 8, 10, 16} {
		cx, _ := randomCodes(rng, n, l, 0.05)
		cy, _ := randomCodes(rng, n, l, 0.05)
		ps := &pairStats{stat: Spearman}
		b.Run(fmt.Sprintf("cells=%d/codes", l*l), func(b *testing.B) {
			for range b.N {
				ps.of(cx, cy, l, l)
			}
		})
		var bx, by levelBits
		bx.set(cx, l)
		by.set(cy, l)
		b.Run(fmt.Sprintf("cells=%d/bits", l*l), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				ps.ofBits(&bx, &by)
			}
		})
	}
}

// BenchmarkPairManyLevels times one pair's statistic at n = 50,000 rows
// when a column has too many levels for a two-way table (continuous data,
// whose every value is a level): the route a check of a survey with
// continuous columns takes for every pair that holds one.
func BenchmarkPairManyLevels(b *testing.B) {
	const n = 50000
	rng := rand.New(rand.NewPCG(3, 4))
	cont, _ := randomCodes(rng, n, n/2, 0.1)
	other, _ := randomCodes(rng, n, n/2, 0.1)
	five, _ := randomCodes(rng, n, 5, 0.1)
	for _, stat := range RankStats() {
		ps := &pairStats{stat: stat}
		b.Run(stat.String()+"/continuous×5", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				ps.of(cont, five, n/2, 5)
			}
		})
		b.Run(stat.String()+"/continuous×continuous", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				ps.of(cont, other, n/2, n/2)
			}
		})
	}
}
