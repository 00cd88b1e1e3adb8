package hough

import (
	"math"
	"testing"
)

// TestKeyOrder checks that keyOf orders times K ≥ 0 and +Inf as the floats
// are ordered, with −0 equal to +0.
func TestKeyOrder(t *testing.T) {
	if got := keyOf(math.Inf(1)); got != infKey {
		t.Fatalf("keyOf(+Inf) = %#x, want infKey %#x", got, infKey)
	}
	if keyOf(math.Copysign(0, -1)) != keyOf(0) {
		t.Fatal("keyOf(−0) != keyOf(+0)")
	}
	rng := newRNG(5)
	vals := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, 1e-300, 1e-12, 0.5, 1, 1 + 1e-16, 2, math.MaxFloat64, math.Inf(1)}
	for range 200 {
		vals = append(vals, rng.Float64(), math.Abs(rng.NormFloat64())*1e-10, math.Exp(10*rng.NormFloat64()))
	}
	for _, x := range vals {
		for _, y := range vals {
			if (x < y) != (keyOf(x) < keyOf(y)) || (x == y) != (keyOf(x) == keyOf(y)) {
				t.Fatalf("keys of %v and %v order differently from the values", x, y)
			}
		}
	}
}

// TestEventHeap checks the event queue against a linear scan after every
// change, ties going to the lower id.
func TestEventHeap(t *testing.T) {
	const nid = 13
	h := newEventHeap(nid)
	keys := make([]float64, nid)
	for i := range keys {
		keys[i] = math.Inf(1)
	}
	rng := newRNG(6)
	for step := range 5000 {
		id := rng.IntN(nid)
		switch rng.IntN(4) {
		case 0:
			keys[id] = math.Inf(1)
		case 1:
			keys[id] = float64(rng.IntN(3)) / 4 // frequent ties
		default:
			keys[id] = rng.Float64()
		}
		h.set(id, keys[id])
		want := 0
		for i, k := range keys {
			if k < keys[want] {
				want = i
			}
		}
		if got, key := h.min(); got != want || key != keys[want] {
			t.Fatalf("step %d: min() = (%d, %v), want (%d, %v)", step, got, key, want, keys[want])
		}
		if step%1000 == 999 {
			h.reset()
			for i := range keys {
				keys[i] = math.Inf(1)
			}
		}
	}
}

// newEventHeap returns an event heap for ids 0..nid−1, every time +Inf.
func newEventHeap(nid int) eventHeap {
	var h eventHeap
	h.layout(nid)
	return h
}
