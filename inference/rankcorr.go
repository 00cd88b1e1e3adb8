package inference

// Rank correlations for posterior predictive checks: Kendall's τ_b and
// Spearman's ρ with average ranks, on pairwise-complete rows. The exported
// functions take data values; the check itself works on level codes, for
// which both statistics follow from the two-way table of the pair in
// O(n + L_x·L_y) (pairStat).

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// RankStat is a rank correlation statistic.
type RankStat int

const (
	// Spearman is Spearman's ρ: the Pearson correlation of the average
	// ranks (ties share the mean of their ranks).
	Spearman RankStat = iota
	// Kendall is Kendall's τ_b: (concordant − discordant pairs) over
	// sqrt((n₀ − n_x)(n₀ − n_y)), n₀ = n(n−1)/2 and n_x, n_y the pairs tied
	// in x and in y.
	Kendall
)

var rankStatNames = [...]string{Spearman: "spearman", Kendall: "kendall"}

// RankStats returns every rank statistic, in order.
func RankStats() []RankStat { return []RankStat{Spearman, Kendall} }

// String returns the statistic's name in the language: spearman or kendall.
func (s RankStat) String() string {
	if s >= 0 && int(s) < len(rankStatNames) {
		return rankStatNames[s]
	}
	return "unknown"
}

// ParseRankStat returns the statistic of the given name, as String writes it.
func ParseRankStat(name string) (RankStat, bool) {
	for s, n := range rankStatNames {
		if n == name {
			return RankStat(s), true
		}
	}
	return 0, false
}

// RankCorrelation returns the statistic of x and y over the rows where both
// are observed (not NaN); NaN when fewer than two such rows remain or
// either is constant on them. It panics if x and y differ in length.
func RankCorrelation(stat RankStat, x, y []float64) float64 {
	switch stat {
	case Spearman:
		return SpearmanRho(x, y)
	case Kendall:
		return KendallTauB(x, y)
	}
	panic(fmt.Sprintf("inference: RankCorrelation: unknown statistic %d", stat))
}

// completePairs returns the (x, y) pairs of the rows where both are
// observed.
func completePairs(x, y []float64) []xyPair {
	if len(x) != len(y) {
		panic(fmt.Sprintf("inference: rank correlation of columns of %d and %d rows", len(x), len(y)))
	}
	out := make([]xyPair, 0, len(x))
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			out = append(out, xyPair{x[i], y[i]})
		}
	}
	return out
}

type xyPair struct{ x, y float64 }

// KendallTauB is Kendall's τ_b of x and y on pairwise-complete rows,
// computed by Knight's (1966) O(n log n) algorithm: sort by x then y, count
// the pairs tied in x and in both, count the discordant pairs as the swaps
// of a merge sort of y, then the pairs tied in y:
//
//	τ_b = (n₀ − n_x − n_y + n_xy − 2·swaps) / sqrt((n₀ − n_x)(n₀ − n_y)).
//
// It is R's cor(x, y, method = "kendall", use = "pairwise.complete.obs").
func KendallTauB(x, y []float64) float64 {
	pairs := completePairs(x, y)
	n := len(pairs)
	if n < 2 {
		return math.NaN()
	}
	slices.SortFunc(pairs, func(a, b xyPair) int {
		if c := cmp.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.y, b.y)
	})
	var tiedX, tiedXY int64
	runX, runXY := int64(1), int64(1)
	for i := 1; i <= n; i++ {
		if i < n && pairs[i].x == pairs[i-1].x {
			runX++
			if pairs[i].y == pairs[i-1].y {
				runXY++
			} else {
				tiedXY += runXY * (runXY - 1) / 2
				runXY = 1
			}
			continue
		}
		tiedX += runX * (runX - 1) / 2
		tiedXY += runXY * (runXY - 1) / 2
		runX, runXY = 1, 1
	}
	ys := make([]float64, n)
	for i, pr := range pairs {
		ys[i] = pr.y
	}
	swaps := mergeCountSwaps(ys, make([]float64, n))
	var tiedY int64
	run := int64(1)
	for i := 1; i <= n; i++ {
		if i < n && ys[i] == ys[i-1] {
			run++
			continue
		}
		tiedY += run * (run - 1) / 2
		run = 1
	}
	n0 := int64(n) * int64(n-1) / 2
	return tauB(n0-tiedX-tiedY+tiedXY-2*swaps, n0, tiedX, tiedY)
}

// tauB is (concordant − discordant) / sqrt((n₀ − n_x)(n₀ − n_y)), NaN when
// either column is constant.
func tauB(concMinusDisc, n0, tiedX, tiedY int64) float64 {
	den := float64(n0-tiedX) * float64(n0-tiedY)
	if !(den > 0) {
		return math.NaN()
	}
	return float64(concMinusDisc) / math.Sqrt(den)
}

// mergeCountSwaps sorts a ascending (buf is scratch of the same length)
// and returns the number of pairs i < j with a[i] > a[j], the swaps a
// bubble sort would make; ties are not swaps.
func mergeCountSwaps(a, buf []float64) int64 {
	n := len(a)
	src, dst := a, buf
	var swaps int64
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j] < src[i] {
					dst[k] = src[j]
					swaps += int64(mid - i)
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if n > 0 && &src[0] != &a[0] {
		copy(a, src)
	}
	return swaps
}

// SpearmanRho is Spearman's ρ of x and y on pairwise-complete rows: the
// Pearson correlation of their average ranks among those rows. It is R's
// cor(x, y, method = "spearman", use = "pairwise.complete.obs").
func SpearmanRho(x, y []float64) float64 {
	pairs := completePairs(x, y)
	n := len(pairs)
	if n < 2 {
		return math.NaN()
	}
	xs, ys := make([]float64, n), make([]float64, n)
	for i, pr := range pairs {
		xs[i], ys[i] = pr.x, pr.y
	}
	rx, ry := averageRanks(xs), averageRanks(ys)
	return pearson(rx, ry)
}

// averageRanks returns the 1-based ranks of x, ties sharing the mean of
// their ranks.
func averageRanks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	ranks := make([]float64, len(x))
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && x[idx[end]] == x[idx[start]] {
			end++
		}
		mid := float64(start+end+1) / 2 // mean of the ranks start+1..end
		for _, i := range idx[start:end] {
			ranks[i] = mid
		}
		start = end
	}
	return ranks
}

// pearson is the Pearson correlation of x and y, NaN if either is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if !(sxx > 0 && syy > 0) {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// pairStats computes a rank statistic of two level-coded columns (codes in
// 0..levels-1, −1 for a missing cell) on their pairwise-complete rows. It
// builds the pair's two-way table when that is small (the usual case for
// ordinal data) and otherwise sorts the rows by counting their codes; it
// keeps its scratch between calls and is not safe for concurrent use.
type pairStats struct {
	stat   RankStat
	table  []int64
	suf    []int64
	rows   []int64
	cols   []int64
	xs     []float64
	ys     []float64
	ranks  []float64 // byCounting: the average rank of each level, x's then y's
	order  []int32   // byCounting: complete rows sorted by y, then by (x, y)
	byY    []int32
	starts []int64
}

// maxTableCells is the largest two-way table pairStats builds; beyond it a
// pair is computed from its rows (byCounting).
const maxTableCells = 1 << 16

// of returns the statistic of columns x (lx levels) and y (ly levels).
func (ps *pairStats) of(x, y []int32, lx, ly int) float64 {
	if cells := lx * ly; cells > maxTableCells || cells > 4*len(x)+64 {
		return ps.byCounting(x, y, lx, ly)
	}
	t := growZeroed(&ps.table, lx*ly)
	for i, a := range x {
		if b := y[i]; a >= 0 && b >= 0 {
			t[int(a)*ly+int(b)]++
		}
	}
	return ps.ofTable(t, lx, ly)
}

// ofTable returns the statistic of the two-way table t (lx×ly).
func (ps *pairStats) ofTable(t []int64, lx, ly int) float64 {
	switch ps.stat {
	case Kendall:
		return ps.kendallTable(t, lx, ly)
	default:
		return ps.spearmanTable(t, lx, ly)
	}
}

// levelBits is a level-coded column as one bit set per level: bit i of
// level a is set when row i has code a (a missing row has none). The
// two-way table of two such columns is a popcount of the ANDs of their
// sets, W = ⌈n/64⌉ words per cell, instead of n dependent increments.
type levelBits struct {
	levels, words int
	bits          []uint64 // level a is bits[a*words : (a+1)*words]
}

// maxBitCells is the largest two-way table counted from bit sets: a table
// of c cells costs c·n/64 AND-popcounts, about 0.65 ns each, and counting
// row by row about 0.87 ns a row, so the two break even near 85 cells
// (BenchmarkPairTable, n = 20,000).
const maxBitCells = 64

// set makes lb the bit sets of codes (0..levels−1, −1 missing).
func (lb *levelBits) set(codes []int32, levels int) {
	lb.levels, lb.words = levels, (len(codes)+63)/64
	lb.bits = growZeroed(&lb.bits, levels*lb.words)
	for i, c := range codes {
		if c >= 0 {
			lb.bits[int(c)*lb.words+i>>6] |= 1 << (i & 63)
		}
	}
}

// ofBits returns the statistic of two columns given as bit sets of the
// same rows; the table has at most maxBitCells cells.
func (ps *pairStats) ofBits(x, y *levelBits) float64 {
	lx, ly, w := x.levels, y.levels, x.words
	t := growZeroed(&ps.table, lx*ly)
	for a := range lx {
		xa := x.bits[a*w : (a+1)*w]
		for b := range ly {
			yb := y.bits[b*w : (b+1)*w][:len(xa)]
			n := 0
			for k, u := range xa {
				n += bits.OnesCount64(u & yb[k])
			}
			t[a*ly+b] = int64(n)
		}
	}
	return ps.ofTable(t, lx, ly)
}

// byCounting is the statistic of columns x (lx levels) and y (ly levels)
// from their pairwise-complete rows, for tables too large to build
// (continuous data, whose every value is a level). The codes are ranks
// already, so the rows are ordered by counting them, O(m + lx + ly) for m
// complete rows, where sorting them as RankCorrelation does took 30 ms a
// pair at 50,000 rows (BenchmarkPairManyLevels). It gives RankCorrelation's
// value of the codes as numbers, bit for bit: Spearman's ρ is pearson of
// the same average ranks in the same row order, and Kendall's τ_b comes
// from the same counts of ties and swaps (Knight's algorithm on the rows
// sorted by (x, y), an order in which only equal pairs may differ).
func (ps *pairStats) byCounting(x, y []int32, lx, ly int) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("inference: rank correlation of columns of %d and %d rows", len(x), len(y)))
	}
	countX, countY := growZeroed(&ps.rows, lx), growZeroed(&ps.cols, ly)
	m := 0
	for i, a := range x {
		if b := y[i]; a >= 0 && b >= 0 {
			countX[a]++
			countY[b]++
			m++
		}
	}
	if m < 2 {
		return math.NaN()
	}
	if ps.stat == Kendall {
		return ps.kendallByCounting(x, y, countX, countY, m)
	}
	// The average rank of level a among the complete rows is that of the
	// rows below it, start+1..end, as averageRanks computes it.
	ranks := growFloat(&ps.ranks, lx+ly)
	rankX, rankY := ranks[:lx], ranks[lx:]
	for _, c := range []struct {
		counts []int64
		ranks  []float64
	}{{countX, rankX}, {countY, rankY}} {
		below := int64(0)
		for a, n := range c.counts {
			c.ranks[a] = float64(below+below+n+1) / 2
			below += n
		}
	}
	xs, ys := growFloat(&ps.xs, m), growFloat(&ps.ys, m)
	k := 0
	for i, a := range x {
		if b := y[i]; a >= 0 && b >= 0 {
			xs[k], ys[k] = rankX[a], rankY[b]
			k++
		}
	}
	return pearson(xs, ys)
}

// kendallByCounting is Kendall's τ_b of byCounting's columns, whose m
// complete rows have level counts countX and countY: the rows are put in
// (x, y) order by two counting sorts (by y, then stably by x), and the
// ties and swaps counted as KendallTauB counts them.
func (ps *pairStats) kendallByCounting(x, y []int32, countX, countY []int64, m int) float64 {
	starts := growZeroed(&ps.starts, max(len(countX), len(countY))+1)
	byY := growInt32(&ps.byY, m)
	cumulate(starts, countY)
	for i, b := range y {
		if a := x[i]; a >= 0 && b >= 0 {
			byY[starts[b]] = int32(i)
			starts[b]++
		}
	}
	order := growInt32(&ps.order, m)
	cumulate(starts, countX)
	for _, i := range byY {
		a := x[i]
		order[starts[a]] = i
		starts[a]++
	}
	var tiedX, tiedY, tiedXY int64
	for _, n := range countX {
		tiedX += n * (n - 1) / 2
	}
	for _, n := range countY {
		tiedY += n * (n - 1) / 2
	}
	ys := growFloat(&ps.ys, m)
	run := int64(1)
	for k, i := range order {
		ys[k] = float64(y[i])
		if k > 0 && x[i] == x[order[k-1]] && y[i] == y[order[k-1]] {
			run++
			continue
		}
		tiedXY += run * (run - 1) / 2
		run = 1
	}
	tiedXY += run * (run - 1) / 2
	swaps := mergeCountSwaps(ys, growFloat(&ps.xs, m))
	n0 := int64(m) * int64(m-1) / 2
	return tauB(n0-tiedX-tiedY+tiedXY-2*swaps, n0, tiedX, tiedY)
}

// cumulate sets starts[a] to the sum of counts[:a], for every level a of
// counts: where a counting sort puts level a's first row.
func cumulate(starts, counts []int64) {
	below := int64(0)
	for a, n := range counts {
		starts[a] = below
		below += n
	}
}

// margins fills the row and column totals of t (lx×ly) and returns the
// grand total.
func (ps *pairStats) margins(t []int64, lx, ly int) (rows, cols []int64, total int64) {
	rows, cols = growZeroed(&ps.rows, lx), growZeroed(&ps.cols, ly)
	for a := range lx {
		for b := range ly {
			v := t[a*ly+b]
			rows[a] += v
			cols[b] += v
			total += v
		}
	}
	return rows, cols, total
}

// spearmanTable is Spearman's ρ from the two-way table: every row of
// x-level a has the average rank R_a = (rows below a) + (n_a + 1)/2, and ρ is
// the Pearson correlation of (R_a, S_b) weighted by the counts.
func (ps *pairStats) spearmanTable(t []int64, lx, ly int) float64 {
	rows, cols, total := ps.margins(t, lx, ly)
	if total < 2 {
		return math.NaN()
	}
	mean := float64(total+1) / 2
	rankX := growFloat(&ps.xs, lx)
	rankY := growFloat(&ps.ys, ly)
	var varX, varY float64
	below := int64(0)
	for a, na := range rows {
		rankX[a] = float64(below) + float64(na+1)/2 - mean
		varX += float64(na) * rankX[a] * rankX[a]
		below += na
	}
	below = 0
	for b, nb := range cols {
		rankY[b] = float64(below) + float64(nb+1)/2 - mean
		varY += float64(nb) * rankY[b] * rankY[b]
		below += nb
	}
	if !(varX > 0 && varY > 0) {
		return math.NaN()
	}
	cov := 0.0
	for a := range lx {
		ra := rankX[a]
		for b := range ly {
			if v := t[a*ly+b]; v != 0 {
				cov += float64(v) * ra * rankY[b]
			}
		}
	}
	return cov / math.Sqrt(varX*varY)
}

// kendallTable is Kendall's τ_b from the two-way table, with the suffix
// sums S[a][b] = Σ_{a'≥a, b'≥b} n_{a'b'}: a cell (a, b) is concordant with
// the S[a+1][b+1] rows above and to the right of it and discordant with the
// S[a+1][0] − S[a+1][b] rows above and to the left.
func (ps *pairStats) kendallTable(t []int64, lx, ly int) float64 {
	rows, cols, total := ps.margins(t, lx, ly)
	if total < 2 {
		return math.NaN()
	}
	w := ly + 1
	suf := growZeroed(&ps.suf, (lx+1)*w)
	for a := lx - 1; a >= 0; a-- {
		for b := ly - 1; b >= 0; b-- {
			suf[a*w+b] = t[a*ly+b] + suf[(a+1)*w+b] + suf[a*w+b+1] - suf[(a+1)*w+b+1]
		}
	}
	var cd int64
	for a := 0; a < lx-1; a++ {
		above := (a + 1) * w
		for b := range ly {
			if v := t[a*ly+b]; v != 0 {
				cd += v * (suf[above+b+1] - (suf[above] - suf[above+b]))
			}
		}
	}
	var tiedX, tiedY int64
	for _, na := range rows {
		tiedX += na * (na - 1) / 2
	}
	for _, nb := range cols {
		tiedY += nb * (nb - 1) / 2
	}
	return tauB(cd, total*(total-1)/2, tiedX, tiedY)
}

// growZeroed returns (*buf)[:n] zeroed, growing *buf if needed.
func growZeroed[T int64 | uint64](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// growInt32 returns (*buf)[:n], growing *buf if needed (contents undefined).
func growInt32(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	return (*buf)[:n]
}

// growFloat returns (*buf)[:n], growing *buf if needed (contents undefined).
func growFloat(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}
