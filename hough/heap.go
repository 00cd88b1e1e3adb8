package hough

import "math"

// eventHeap is the event queue of the envelope search: the earliest of a
// small number of event times keyed by an integer id (a pair of adjacent
// levels). It is a tournament tree over the ids whose nodes hold
// the winning key next to its id, so changing a key costs at most
// ⌈log₂ ids⌉ comparisons without indirect loads, stops as soon as a node is
// unchanged, and reading the minimum is O(1). Ties are broken by the lower
// id, so equal event times fire in a fixed order (sampling.md §2.6 rule 5).
// An id that was never set has time +Inf. Times are K = tan(t/2) ≥ 0 or +Inf,
// held as keyOf keys so that comparisons are integer ones.
type eventHeap struct {
	size  int         // number of leaves, a power of two ≥ the number of ids
	nodes []heapEntry // node i has children 2i, 2i+1; leaf of id at size+id
}

type heapEntry struct {
	key uint64
	id  int32
}

// layout readies h for ids 0..nid−1, every time +Inf, reusing its memory
// where it is large enough.
func (h *eventHeap) layout(nid int) {
	size := 1
	for size < nid {
		size *= 2
	}
	h.size = size
	h.nodes = resize(h.nodes, 2*size)
	h.reset()
}

// reset sets every key to +Inf without releasing memory.
func (h *eventHeap) reset() {
	for id := 0; id < h.size; id++ {
		h.nodes[h.size+id] = heapEntry{infKey, int32(id)}
	}
	for i := h.size - 1; i >= 1; i-- {
		h.nodes[i] = h.nodes[2*i] // all keys equal: the left (lower id) wins
	}
}

// set inserts id with the event time t or changes its time.
func (h *eventHeap) set(id int, t float64) {
	key := keyOf(t)
	nodes := h.nodes
	i := h.size + id
	if nodes[i].key == key {
		return
	}
	nodes[i].key = key
	for i > 1 {
		i /= 2
		w := nodes[2*i]
		if r := nodes[2*i+1]; r.key < w.key {
			w = r
		}
		if nodes[i] == w {
			return // unchanged here, so unchanged above
		}
		nodes[i] = w
	}
}

// min returns the id with the earliest time (the lowest such id) and that time.
func (h *eventHeap) min() (int, float64) {
	e := h.nodes[1]
	return int(e.id), keyTime(e.key)
}

// keyOf returns the ordering key of a time K ≥ 0 (possibly −0) or +Inf: its
// IEEE bits with the sign cleared, which order non-negative floats as the
// floats are ordered, so the event queues compare keys as integers, without
// branching.
func keyOf(k float64) uint64 { return math.Float64bits(k) &^ (1 << 63) }

// keyTime returns the time whose key is key.
func keyTime(key uint64) float64 { return math.Float64frombits(key) }

// infKey is keyOf(+Inf), the key of a certificate that never fails.
const infKey uint64 = 0x7ff0000000000000
