package inference

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"

	"github.com/copulang/copulang/hough"
)

// replicator draws replicated data sets from a copula correlation C with the
// observed marginals, which is how the extended rank likelihood leaves
// them: rows z_i ~ N(0, C); each column's missing cells stay missing, and
// its observed rows are ranked by their replicated z, the r-th smallest
// getting the level of the r-th smallest observed value. Every replicated
// column therefore has exactly the observed level counts, and a check of
// replicated against observed data is purely about dependence. Under the
// generative model with those counts fixed (sampling.md §6c C1), this is
// the exact posterior predictive distribution of the data given C.
//
// A replicator keeps its workspace between draws and is not safe for
// concurrent use.
type replicator struct {
	levels []*hough.Levels
	n, p   int
	chol   []float64
	e      []float64
	z      [][]float64 // z[j][i]
	keys   []rankedRow
	// codes[j][i] is the replicated level of row i in column j, −1 where
	// the data are missing.
	codes [][]int32
	// windows[j], when not nil, are where column j's cuts can fall
	// (levelWindows); near[w] collects the rows in window w of a draw.
	windows []*levelWindows
	near    [][]rankedRow
	all     []int // 0..p−1: the columns draw makes
}

// rankedRow is a row of one column with its replicated latent value.
type rankedRow struct {
	z   float64
	row int32
}

func newReplicator(levels []*hough.Levels) *replicator {
	p, n := len(levels), levels[0].N
	r := &replicator{
		levels: levels, n: n, p: p,
		chol: make([]float64, p*p), e: make([]float64, p*replicateBlock),
		z: make([][]float64, p), codes: make([][]int32, p),
		keys: make([]rankedRow, n),
	}
	r.windows = make([]*levelWindows, p)
	for j, lv := range levels {
		r.z[j] = make([]float64, n)
		r.codes[j] = make([]int32, n)
		for _, i := range lv.Missing {
			r.codes[j][i] = -1
		}
		r.all = append(r.all, j)
		r.windows[j] = newLevelWindows(lv)
		if lw := r.windows[j]; lw != nil && len(lw.first) > len(r.near) {
			r.near = append(r.near, make([][]rankedRow, len(lw.first)-len(r.near))...)
		}
	}
	return r
}

// Where a column's levels are cut in its replicated latent values is known
// in advance up to sampling error: the r-th smallest of n_obs draws of
// N(0, 1) (C has a unit diagonal) lies near Φ⁻¹(r/n_obs), within a few
// √(q(1−q)/n_obs)/φ(Φ⁻¹(q)), q = r/n_obs. So instead of partitioning all of
// a column's rows at its cuts, assignLevels gives every row outside the
// windows around the cuts its level by comparisons, and partitions only
// the rows inside a window (windows that overlap are merged, and a merged
// window is partitioned at each of its cuts). The levels are exactly
// partitionAt's (the rows of a level are the same; rows with equal z,
// which continuous draws almost never give, may be split between two
// levels differently); a draw whose cut falls outside its window is
// partitioned in full.
const (
	// windowMinRows is the fewest observed rows for which a column uses
	// windows; below, partitioning costs little.
	windowMinRows = 1000
	// windowMaxLevels is the most levels it does so for: every row is
	// compared with two bounds per window.
	windowMaxLevels = 16
	// windowSDs is a window's half-width in standard errors of the cut's
	// order statistic: a draw falls outside with probability about 6e−7.
	windowSDs = 5
)

// levelWindows is where the cuts of one column's replicated levels can
// fall: windows lo[0] < hi[0] < lo[1] < … (bounds, interleaved), window w
// holding cuts first[w]..last[w] (cut c separates levels c−1 and c). The
// rows between window w−1 and window w are of level last[w−1] (level 0
// below the first window).
type levelWindows struct {
	bounds      []float64
	first, last []int
}

// newLevelWindows returns the windows of column lv, or nil if the column
// is partitioned in full: too few rows, or one level, or too many.
func newLevelWindows(lv *hough.Levels) *levelWindows {
	nObs, L := len(lv.Order), lv.NumLevels()
	if nObs < windowMinRows || L < 2 || L > windowMaxLevels {
		return nil
	}
	lw := &levelWindows{}
	for c := 1; c < L; c++ {
		q := float64(lv.Start[c]) / float64(nObs)
		x := normalQuantile(q)
		h := windowSDs * math.Sqrt(q*(1-q)/float64(nObs)) / (math.Exp(-x*x/2) / math.Sqrt(2*math.Pi))
		if nb := len(lw.bounds); nb > 0 && x-h <= lw.bounds[nb-1] {
			lw.bounds[nb-1] = max(lw.bounds[nb-1], x+h)
			lw.last[len(lw.last)-1] = c
			continue
		}
		lw.bounds = append(lw.bounds, x-h, x+h)
		lw.first, lw.last = append(lw.first, c), append(lw.last, c)
	}
	return lw
}

// assignLevels sets the replicated level of every observed row of column j
// from its latent values z, using the column's windows; it reports false,
// leaving the codes undefined, when a cut falls outside its window.
func (r *replicator) assignLevels(j int, z []float64) bool {
	lv, lw, codes := r.levels[j], r.windows[j], r.codes[j]
	bounds := lw.bounds
	near := r.near[:len(lw.first)]
	for w := range near {
		near[w] = near[w][:0]
	}
	var certain [windowMaxLevels]int32 // rows between windows, by the window above
	z = z[:len(lv.Level)]
	codes = codes[:len(z)]
	for i, obs := range lv.Level { // in row order: z and codes are read and written in turn
		if obs < 0 {
			continue
		}
		v := z[i]
		// k, the bounds at or below v, is even between windows and odd
		// inside one; counted from the sign of v − b, without a branch that
		// random z would mispredict.
		k := len(bounds)
		for _, b := range bounds {
			k -= int(math.Float64bits(v-b) >> 63)
		}
		if k&1 == 0 {
			level := 0
			if k > 0 {
				level = lw.last[k/2-1]
			}
			codes[i] = int32(level)
			certain[k/2]++
		} else {
			near[k/2] = append(near[k/2], rankedRow{v, int32(i)})
		}
	}
	// Window w holds cuts first[w]..last[w]: after partitioning its rows at
	// them (ranks counted from the rows below the window), the rows before
	// cut first[w] are of level first[w]−1, and so on.
	below := int32(0)
	for w, rows := range near {
		below += certain[w]
		c0, c1 := lw.first[w], lw.last[w]
		if lv.Start[c0] < below || int(lv.Start[c1]-below) > len(rows) {
			return false
		}
		partitionAt(rows, lv.Start[c0:c1+1], below)
		level, next := int32(c0-1), c0
		for t, row := range rows {
			for next <= c1 && below+int32(t) >= lv.Start[next] {
				level++
				next++
			}
			codes[row.row] = level
		}
		below += int32(len(rows))
	}
	return true
}

// replicateBlock is how many rows draw sums at once.
const replicateBlock = 256

// draw replaces codes with a data set replicated from c (p×p); it reports
// false if c is not positive definite.
func (r *replicator) draw(rng *rand.Rand, c []float64) bool {
	return r.drawColumns(rng, c, nil)
}

// drawColumns is draw for the columns cols only (ascending; every column
// when nil), leaving the codes of the others as they were. It draws every
// normal variate draw does, in the same order, so that it consumes rng as
// draw does, and the columns it makes are draw's bit for bit: column j of z
// is Σ_{k≤j} L_jk e_k, summed in the same order and blocks, which needs no
// other column of z, and its levels come from its own z alone. A two-way
// table of a check therefore costs the n·p normal variates of a
// replication, and O(n·j) for each of its columns j, instead of O(n·p²)
// and the ranking of every column.
func (r *replicator) drawColumns(rng *rand.Rand, c []float64, cols []int) bool {
	p := r.p
	if cols == nil {
		cols = r.all
	}
	copy(r.chol, c)
	if !cholLower(r.chol, p) {
		return false
	}
	// Rows in blocks: the normal draws are made row by row as before, then
	// each column of the block is Σ_k L_jk e_k in the same order of k,
	// summed for the block's rows at once (floats.AddScaled).
	e := r.e
	for i0 := 0; i0 < r.n; i0 += replicateBlock {
		nb := min(replicateBlock, r.n-i0)
		for t := range nb {
			for k := range p {
				e[k*replicateBlock+t] = rng.NormFloat64()
			}
		}
		for _, j := range cols {
			zj := r.z[j][i0 : i0+nb]
			clear(zj)
			for k, l := range r.chol[j*p : j*p+j+1] {
				floats.AddScaled(zj, l, e[k*replicateBlock:k*replicateBlock+nb])
			}
		}
	}
	for _, j := range cols {
		lv, zj := r.levels[j], r.z[j]
		if r.windows[j] != nil && r.assignLevels(j, zj) {
			continue
		}
		keys := r.keys[:len(lv.Order)]
		for t, i := range lv.Order {
			keys[t] = rankedRow{zj[i], i}
		}
		partitionAt(keys, lv.Start[1:lv.NumLevels()], 0)
		codes := r.codes[j]
		for l := 0; l < lv.NumLevels(); l++ {
			for _, k := range keys[lv.Start[l]:lv.Start[l+1]] {
				codes[k.row] = int32(l)
			}
		}
	}
	return true
}

// partitionAt reorders keys so that, for every cut c in cuts (ascending
// positions relative to base), keys[:c−base] hold the c−base smallest z:
// enough to give each level its rows, without sorting within a level. It
// selects the middle cut by quickselect and recurses on both sides, in
// O(n log L) expected time for L levels (a full sort when every value is a
// level).
func partitionAt(keys []rankedRow, cuts []int32, base int32) {
	for len(cuts) > 0 && len(keys) > 1 {
		if len(keys) <= 12 {
			insertionSortRows(keys)
			return
		}
		mid := len(cuts) / 2
		k := int(cuts[mid] - base)
		if k > 0 && k < len(keys) {
			quickselectRows(keys, k)
		}
		partitionAt(keys[:k], cuts[:mid], base)
		keys, cuts, base = keys[k:], cuts[mid+1:], cuts[mid]
	}
}

// quickselectRows reorders keys so that keys[:k] hold the k smallest z
// (Hoare partitioning around a median of three).
func quickselectRows(keys []rankedRow, k int) {
	lo, hi := 0, len(keys)-1
	for hi-lo > 12 {
		m := lo + (hi-lo)/2
		if keys[m].z < keys[lo].z {
			keys[m], keys[lo] = keys[lo], keys[m]
		}
		if keys[hi].z < keys[lo].z {
			keys[hi], keys[lo] = keys[lo], keys[hi]
		}
		if keys[hi].z < keys[m].z {
			keys[hi], keys[m] = keys[m], keys[hi]
		}
		pivot := keys[m].z
		i, j := lo, hi
		for i <= j {
			for keys[i].z < pivot {
				i++
			}
			for keys[j].z > pivot {
				j--
			}
			if i <= j {
				keys[i], keys[j] = keys[j], keys[i]
				i++
				j--
			}
		}
		// Now keys[lo..j] ≤ pivot ≤ keys[i..hi], and j < i.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // k lies between the two parts, all equal to the pivot
		}
	}
	insertionSortRows(keys[lo : hi+1])
}

func insertionSortRows(keys []rankedRow) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j].z < keys[j-1].z; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// observedCodes returns the level codes of the data: codes[j][i] is the
// level of row i in column j, −1 where missing (hough.Levels.Level).
func observedCodes(levels []*hough.Levels) [][]int32 {
	out := make([][]int32, len(levels))
	for j, lv := range levels {
		out[j] = lv.Level
	}
	return out
}

// replicaRNG is the random stream of replication s: like the chains'
// streams it depends only on the seed and s (with constants of its own), so
// results do not depend on how replications are spread over goroutines.
func replicaRNG(seed uint64, s int) *rand.Rand {
	return rand.New(rand.NewPCG(splitMix64(seed^0xbb67ae8584caa73b), splitMix64(seed+uint64(s+1)*0x3c6ef372fe94f82b)))
}

// safeJob runs job(w, s), turning a panic (a bug) into an error so that one
// replica cannot end the process.
func safeJob[W any](job func(w W, s int) error, w W, s int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("inference: internal error in replica %d: %v", s+1, p)
		}
	}()
	return job(w, s)
}

// forEachReplica runs job(worker, s) for s = 0..total-1 on up to GOMAXPROCS
// goroutines; worker is in 0..workers-1, so that each goroutine can keep its
// own workspace (newWorker builds it). It stops early, returning ctx.Err(),
// when ctx is cancelled, and returns the first error of a job otherwise.
// progress, if not nil, is called after each finished job, serialised.
func forEachReplica[W any](ctx context.Context, total int, newWorker func() W, job func(w W, s int) error, progress func(done, total int)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), total))
	var (
		next, done atomic.Int64
		mu         sync.Mutex
		firstErr   error
		wg         sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for {
				s := int(next.Add(1) - 1)
				if s >= total {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = safeJob(job, w, s)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					next.Store(int64(total)) // stop the others
					mu.Unlock()
					return
				}
				d := int(done.Add(1))
				if progress != nil {
					progress(d, total)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}
