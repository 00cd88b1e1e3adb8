package session

import (
	"slices"
	"testing"
)

// TestScoreCache checks the bound of the scores a session keeps: the oldest
// go first once the numbers held pass the limit, replacing a key's scores
// makes them the newest, and scores larger than the limit alone are kept.
func TestScoreCache(t *testing.T) {
	scores := func(n int) keptScore { return keptScore{lp: make([]float64, n)} }
	for _, tc := range []struct {
		name string
		puts []string // key:size as "a3"
		want []string // keys held, oldest first
		size int
	}{
		{"under the limit", []string{"a3", "b3", "c4"}, []string{"a", "b", "c"}, 10},
		{"oldest dropped", []string{"a3", "b3", "c4", "d2"}, []string{"b", "c", "d"}, 9},
		{"replacing renews", []string{"a3", "b3", "a3", "c5"}, []string{"a", "c"}, 8},
		{"one too large kept alone", []string{"a3", "b12"}, []string{"b"}, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := scoreCache{limit: 10}
			for _, p := range tc.puts {
				n := 0
				for _, d := range p[1:] {
					n = 10*n + int(d-'0')
				}
				c.put(p[:1], scores(n))
			}
			if !slices.Equal(c.order, tc.want) || c.size != tc.size || len(c.byKey) != len(tc.want) {
				t.Errorf("holds %v (%d numbers, %d keys), want %v (%d numbers)", c.order, c.size, len(c.byKey), tc.want, tc.size)
			}
			for _, k := range tc.want {
				if _, ok := c.get(k); !ok {
					t.Errorf("get(%q) missed", k)
				}
			}
		})
	}
}
