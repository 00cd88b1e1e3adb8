package hough

import "math"

// eventHeap is the event queue of a trajectory: the earliest of a small
// number of event times keyed by an integer id (a tournament tree or a pair
// of adjacent levels). It is a tournament tree over the ids, so changing a
// key costs ⌈log₂ ids⌉ comparisons and reading the minimum is O(1). Ties are
// broken by the lower id, so equal event times fire in a fixed order
// (sampling.md §2.6 rule 5). An id that was never set has time +Inf.
type eventHeap struct {
	size int       // number of leaves, a power of two ≥ the number of ids
	keys []float64 // keys[id]
	win  []int32   // win[i] = id winning node i; leaves at size..2·size−1
}

func newEventHeap(nid int) eventHeap {
	size := 1
	for size < nid {
		size *= 2
	}
	h := eventHeap{size: size, keys: make([]float64, size), win: make([]int32, 2*size)}
	h.reset()
	return h
}

// reset sets every key to +Inf without releasing memory.
func (h *eventHeap) reset() {
	inf := math.Inf(1)
	for id := range h.keys {
		h.keys[id] = inf
		h.win[h.size+id] = int32(id)
	}
	for i := h.size - 1; i >= 1; i-- {
		h.win[i] = h.win[2*i] // all keys equal: the left (lower id) wins
	}
}

// set inserts id with the given key or changes its key.
func (h *eventHeap) set(id int, key float64) {
	h.keys[id] = key
	for i := (h.size + id) / 2; i >= 1; i /= 2 {
		l, r := h.win[2*i], h.win[2*i+1]
		if h.keys[r] < h.keys[l] {
			l = r
		}
		h.win[i] = l
	}
}

// min returns the id with the smallest key (the lowest such id) and that key.
func (h *eventHeap) min() (int, float64) {
	if h.size == 1 {
		return 0, h.keys[0]
	}
	id := h.win[1]
	return int(id), h.keys[id]
}
