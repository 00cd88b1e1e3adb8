package session

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/copulang/copulang/inference"
)

// progressEvery is the shortest interval between two progress updates of a
// fit, so a notebook front end is refreshed a few times a second at most.
const progressEvery = 250 * time.Millisecond

// progressBundle renders the state of a running fit as one line of text and
// an HTML progress bar.
func progressBundle(model, method string, p inference.Progress, state string) MimeBundle {
	frac := 0.0
	if p.AllTotal > 0 {
		frac = float64(p.AllDone) / float64(p.AllTotal)
	}
	phase := "sampling"
	if p.Warmup {
		phase = "warm-up"
	}
	if state != "" {
		phase = state
	}
	eta := ""
	if frac > 0 && frac < 1 && state == "" {
		left := time.Duration(float64(p.Elapsed) * (1 - frac) / frac)
		eta = fmt.Sprintf(", about %s left", roundDuration(left))
	}
	text := fmt.Sprintf("fit %s with %s: %d/%d iterations (%.0f%%), %s, %s elapsed%s",
		model, method, p.AllDone, p.AllTotal, 100*frac, phase, roundDuration(p.Elapsed), eta)
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="copulang-progress"><progress value="%d" max="%d" style="width: 24em"></progress> <span>%s</span></div>`,
		p.AllDone, max(p.AllTotal, 1), html.EscapeString(text))
	return MimeBundle{"text/plain": text, "text/html": b.String()}
}

// roundDuration prints a duration to a useful precision.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
