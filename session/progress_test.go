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
			texts = append(texts, progressBundle("fit m", "hmc", false, p, "", etaBase{})["text/plain"].(string))
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

// TestProgressTimeLeftFromFirstIterations: the time left is estimated at
// the fit's rate since its first state with iterations done, so a slow
// start (reading the data, starting values) does not inflate it. Here the
// first iteration ends after 2 s and each further one takes 100 ms.
func TestProgressTimeLeftFromFirstIterations(t *testing.T) {
	out := &progressLines{}
	f := &fitProgress{jobProgress: jobProgress{out: out}, job: "fit m", method: "gibbs"}
	state := func(done int, elapsed time.Duration) string {
		f.update(inference.Progress{AllDone: done, AllTotal: 100, Elapsed: elapsed}, "")
		return out.texts[len(out.texts)-1]
	}
	if got := state(0, time.Second); strings.Contains(got, "left") {
		t.Errorf("before any iteration: %q estimates the time left", got)
	}
	if got := state(1, 2*time.Second); strings.Contains(got, "left") {
		t.Errorf("at the first iteration: %q estimates the time left", got)
	}
	// 11 done at 3 s: 10 iterations in 1 s, 89 to go: about 8.9 s, where
	// the elapsed time alone would say 3 s × 89/11 = 24 s.
	if got := state(11, 3*time.Second); !strings.Contains(got, "about 8.9s left") {
		t.Errorf("after 10 more iterations in 1 s: %q, want about 8.9s left", got)
	}
	if got := state(100, 12*time.Second); strings.Contains(got, "left") {
		t.Errorf("all done: %q estimates the time left", got)
	}
}

// progressLines is an output that shows progress itself, as the CLI does,
// and keeps every state's text.
type progressLines struct {
	recorder
	texts []string
}

func (o *progressLines) FitProgress(p FitProgress) { o.texts = append(o.texts, p.Text) }
