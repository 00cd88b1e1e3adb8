package inference

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

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
		chol: make([]float64, p*p), e: make([]float64, p),
		z: make([][]float64, p), codes: make([][]int32, p),
		keys: make([]rankedRow, n),
	}
	for j, lv := range levels {
		r.z[j] = make([]float64, n)
		r.codes[j] = make([]int32, n)
		for _, i := range lv.Missing {
			r.codes[j][i] = -1
		}
	}
	return r
}

// draw replaces codes with a data set replicated from c (p×p); it reports
// false if c is not positive definite.
func (r *replicator) draw(rng *rand.Rand, c []float64) bool {
	p := r.p
	copy(r.chol, c)
	if !cholLower(r.chol, p) {
		return false
	}
	for i := 0; i < r.n; i++ {
		for k := range r.e {
			r.e[k] = rng.NormFloat64()
		}
		for j := 0; j < p; j++ {
			row := r.chol[j*p : j*p+j+1]
			sum := 0.0
			for k, l := range row {
				sum += l * r.e[k]
			}
			r.z[j][i] = sum
		}
	}
	for j, lv := range r.levels {
		keys := r.keys[:len(lv.Order)]
		zj := r.z[j]
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
