package hough

// calendar is the event queue of the kinetic search: a calendar queue
// (Brown 1988) of certificates, each known by an integer id and due at a
// time K = tan(t/2) in the current segment [0, kT). The segment is cut into
// buckets of equal length, each holding a doubly linked list of the ids due
// in it. Setting, moving or dropping a certificate costs O(1), and because
// events are taken in time order, finding the next one costs O(1) amortised:
// a cursor only moves forward over the buckets, and a bucket holds about one
// certificate. A tournament that is its own priority queue instead pays a
// walk to its root for every certificate it changes.
//
// Certificates due at or after the end of the segment are not kept: they
// can only change before they would fire. Equal keys are taken lowest id
// first, so the order of events is fixed (sampling.md §2.6 rule 5).
type calendar struct {
	e     []calEntry // per id
	head  []int32    // per bucket: its first id, or −1
	scale float64    // buckets per unit of K
	end   uint64     // the key of the end of the segment
	cur   int        // no queued id lies in a bucket before cur

	// latestFirst, in tests only, takes a bucket's latest certificate
	// instead of its earliest: a planted ordering bug.
	latestFirst bool
}

// calEntry is a certificate: its key (keyOf of its time; infKey if not
// queued), its bucket (−1 if not queued) and its neighbours there (−1 at the
// ends).
type calEntry struct {
	key                uint64
	next, prev, bucket int32
}

// layout empties q and readies it for ids 0..n−1 with about one bucket per
// id, reusing its memory where it is large enough.
func (q *calendar) layout(n int) {
	nb := 1
	for nb < n {
		nb *= 2
	}
	q.e = resize(q.e, n)
	for i := range q.e {
		q.e[i] = calEntry{key: infKey, bucket: -1}
	}
	q.head = resize(q.head, nb)
	for b := range q.head {
		q.head[b] = -1
	}
	q.cur = 0
}

// reset empties the queue and starts a segment ending at K = kT.
func (q *calendar) reset(kT float64) {
	for b := q.cur; b < len(q.head); b++ {
		for id := q.head[b]; id >= 0; {
			e := &q.e[id]
			id = e.next
			e.key, e.bucket = infKey, -1
		}
		q.head[b] = -1
	}
	q.cur = 0
	q.end = keyOf(kT)
	q.scale = float64(len(q.head)) / kT
}

// set gives certificate id the key (infKey: never due), queueing, moving or
// dropping it.
func (q *calendar) set(id int32, key uint64) {
	e := &q.e[id]
	if key == e.key {
		return
	}
	e.key = key
	if b := e.bucket; b >= 0 {
		if e.prev >= 0 {
			q.e[e.prev].next = e.next
		} else {
			q.head[b] = e.next
		}
		if e.next >= 0 {
			q.e[e.next].prev = e.prev
		}
		e.bucket = -1
	}
	if key >= q.end {
		return
	}
	b := min(max(int(keyTime(key)*q.scale), q.cur), len(q.head)-1)
	n := q.head[b]
	e.next, e.prev, e.bucket = n, -1, int32(b)
	if n >= 0 {
		q.e[n].prev = id
	}
	q.head[b] = id
}

// min returns the earliest queued certificate (the lowest id among equal
// keys) and its key, or −1 and infKey if none is due before the end of the
// segment. It leaves the certificate queued.
func (q *calendar) min() (int32, uint64) {
	b := q.cur
	for b < len(q.head) && q.head[b] < 0 {
		b++
	}
	if b == len(q.head) {
		return -1, infKey // the cursor stays: a later key may still go before b
	}
	q.cur = b
	best, bestKey := int32(-1), infKey
	for id := q.head[b]; id >= 0; id = q.e[id].next {
		if k := q.e[id].key; k < bestKey || k == bestKey && id < best {
			best, bestKey = id, k
		}
	}
	if q.latestFirst {
		for id := q.head[b]; id >= 0; id = q.e[id].next {
			if k := q.e[id].key; k > bestKey {
				best, bestKey = id, k
			}
		}
	}
	return best, bestKey
}
