package hough

// eventHeap is an indexed binary min-heap of event times keyed by a small
// integer id (a tournament tree or a pair of adjacent levels). Ties are broken
// by id, so equal event times fire in a fixed order (sampling.md §2.6 rule 5).
type eventHeap struct {
	ids  []int32   // heap order
	pos  []int32   // pos[id] = index in ids, or -1
	keys []float64 // keys[id]
}

func newEventHeap(nid int) eventHeap {
	h := eventHeap{ids: make([]int32, 0, nid), pos: make([]int32, nid), keys: make([]float64, nid)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

// reset empties the heap without releasing memory.
func (h *eventHeap) reset() {
	for _, id := range h.ids {
		h.pos[id] = -1
	}
	h.ids = h.ids[:0]
}

func (h *eventHeap) less(i, j int) bool {
	a, b := h.ids[i], h.ids[j]
	ka, kb := h.keys[a], h.keys[b]
	return ka < kb || (ka == kb && a < b)
}

func (h *eventHeap) swap(i, j int) {
	h.ids[i], h.ids[j] = h.ids[j], h.ids[i]
	h.pos[h.ids[i]] = int32(i)
	h.pos[h.ids[j]] = int32(j)
}

// set inserts id with the given key or changes its key.
func (h *eventHeap) set(id int, key float64) {
	i := int(h.pos[id])
	if i >= 0 && h.keys[id] == key {
		return
	}
	h.keys[id] = key
	if i < 0 {
		i = len(h.ids)
		h.ids = append(h.ids, int32(id))
		h.pos[id] = int32(i)
	}
	h.up(i)
	h.down(i)
}

func (h *eventHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *eventHeap) down(i int) {
	n := len(h.ids)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h.swap(i, c)
		i = c
	}
}

// min returns the id with the smallest key and that key; the heap must not be empty.
func (h *eventHeap) min() (int, float64) {
	id := h.ids[0]
	return int(id), h.keys[id]
}
