package hough

import (
	"math"
	"testing"
)

// TestCalendar drives the calendar queue as the kinetic search does — keys
// set, moved and dropped, events taken in time order, each taken event given
// a later key, segments restarted — and compares every answer with a brute
// force search over the same keys: the earliest key below the end of the
// segment, lowest id first among equal keys.
func TestCalendar(t *testing.T) {
	for _, n := range []int{1, 2, 7, 64, 300} {
		rng := newRNG(uint64(n))
		q := newCalendar(n)
		ref := make([]uint64, n)
		kT := 1.0
		check := func(now float64) {
			t.Helper()
			want, wantKey := int32(-1), infKey
			end := keyOf(kT)
			for id, k := range ref {
				if k < end && k < wantKey {
					want, wantKey = int32(id), k
				}
			}
			got, gotKey := q.min()
			if got != want || gotKey != wantKey {
				t.Fatalf("n=%d at %v: min = %d (%v), want %d (%v)", n, now, got, keyTime(gotKey), want, keyTime(wantKey))
			}
		}
		for seg := 0; seg < 3; seg++ {
			q.reset(kT)
			for id := range ref {
				ref[id] = infKey
			}
			now := 0.0
			for step := 0; step < 40*n; step++ {
				id := int32(rng.IntN(n))
				var key uint64
				switch r := rng.Float64(); {
				case r < 0.1:
					key = infKey
				case r < 0.15:
					key = keyOf(kT + rng.Float64()) // beyond the segment
				case r < 0.2:
					key = keyOf(now) // due now (§2.6 rule 2)
				case r < 0.25 && step > 0:
					key = ref[rng.IntN(n)] // a tie, or a repeat
					if key != infKey && keyTime(key) < now {
						key = keyOf(now)
					}
				default:
					key = keyOf(now + (kT-now)*rng.Float64())
				}
				q.set(id, key)
				ref[id] = key
				check(now)
				if rng.Float64() < 0.3 {
					// Take the next event and give it a later key, as an event does.
					got, k := q.min()
					if got < 0 {
						continue
					}
					now = keyTime(k)
					next := keyOf(now + (kT-now)*rng.Float64()*rng.Float64())
					if rng.Float64() < 0.2 {
						next = infKey
					}
					q.set(got, next)
					ref[got] = next
					check(now)
				}
			}
		}
	}
}

// TestCalendarEnd checks that a key at the end of the segment or later is
// never due, and that a key just below it is.
func TestCalendarEnd(t *testing.T) {
	q := newCalendar(3)
	q.reset(0.5)
	q.set(0, keyOf(0.5))
	q.set(1, keyOf(math.Nextafter(0.5, 0)))
	q.set(2, keyOf(0.75))
	if id, k := q.min(); id != 1 || keyTime(k) != math.Nextafter(0.5, 0) {
		t.Fatalf("min = %d, %v; want 1", id, keyTime(k))
	}
	q.set(1, infKey)
	if id, _ := q.min(); id != -1 {
		t.Fatalf("min = %d after dropping the only due key; want -1", id)
	}
}

// newCalendar returns an empty queue for ids 0..n−1 with about one bucket
// per id.
func newCalendar(n int) calendar {
	var q calendar
	q.layout(n)
	return q
}
