package session

import (
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/inference"
)

// TestProgressElapsedMovesInALongIteration: while the sampler makes no
// report (one long iteration), the progress shown every tick still says
// how long the fit has run (issue 17: the elapsed time froze).
func TestProgressElapsedMovesInALongIteration(t *testing.T) {
	done := make(chan int, 1)
	time.AfterFunc(1500*time.Millisecond, func() { done <- 7 })
	// The sampler's last report: iteration 3 of 10, at 100 ms.
	last := inference.Progress{Done: 3, Total: 10, AllDone: 3, AllTotal: 10, Elapsed: 100 * time.Millisecond}
	var texts []string
	var elapsed []time.Duration
	got := forwardProgress(done, 100*time.Millisecond, time.Now(), func() inference.Progress { return last },
		func(p inference.Progress) {
			texts = append(texts, progressBundle("fit m", "hmc", false, p, "")["text/plain"].(string))
			elapsed = append(elapsed, p.Elapsed)
		})
	if got != 7 {
		t.Errorf("forwardProgress returned %d, want what done delivered", got)
	}
	if len(texts) < 5 {
		t.Fatalf("%d updates in 1.5 s at 100 ms", len(texts))
	}
	for i := 1; i < len(elapsed); i++ {
		if elapsed[i] <= elapsed[i-1] {
			t.Errorf("update %d: elapsed %v after %v", i, elapsed[i], elapsed[i-1])
		}
	}
	first, end := texts[0], texts[len(texts)-1]
	if first == end || !strings.Contains(end, "3/10 iterations") || strings.Contains(end, "100ms elapsed") || elapsed[len(elapsed)-1] < time.Second {
		t.Errorf("first update %q, last %q", first, end)
	}
}
