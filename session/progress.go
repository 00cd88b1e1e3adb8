package session

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/copulang/copulang/inference"
)

// progressEvery is the shortest interval between two progress updates of a
// fit, so a notebook front end is refreshed a few times a second at most.
const progressEvery = 250 * time.Millisecond

// ProgressWriter is implemented by outputs that show the progress of fits
// and other long statements (check's replications, compare's refits)
// themselves (the CLI prints it on its terminal line, or as lines at a
// steady rate; the kernel writes a console's as a line of stdout rewritten
// in place); other outputs receive it as a display updated in place.
type ProgressWriter interface {
	FitProgress(p FitProgress)
}

// ProgressMirror is implemented by outputs that show the progress of long
// statements as a display updated in place and want its states as well,
// to show them elsewhere: the kernel sends them as text to consoles it
// cannot tell from a notebook (jupyter console --simple-prompt), which
// ignore the display's updates. MirrorProgress gets each state the
// display shows after its first (which such a front end shows as it is),
// once the display has shown it; the first state then carries no
// noLiveProgressNote.
type ProgressMirror interface {
	MirrorProgress(p FitProgress)
}

// FitProgress is one state of a running fit or other long statement, sent
// a few times a second.
type FitProgress struct {
	// Text is the state in one line, as the display's text/plain shows it;
	// its elapsed time moves even while one iteration runs long.
	Text string
	// Phase is, for a fit, "starting", "warm-up", "sampling", "done",
	// "interrupted" or "failed"; for another statement "starting",
	// "running", then one of the last three.
	Phase string
	// Final is true for the last state.
	Final bool
}

// Line is the state's text in at most width runes, for a terminal's line,
// which a longer text would wrap (after which a carriage return goes back
// to its last row only). What goes first is a fit's elapsed time when the
// time left follows it, which says more while it runs; then the method
// after the job's name ("with gibbs, switching to hmc where predicted
// faster (auto)", 56 runes, which the plan printed before the fit has
// said); then, of the clauses after the last colon (the job's name, and
// compare's model and fold) but for the first (the count done), their
// explanations in parentheses, the longest first, then whole clauses, the
// longest first and the time left last; then runes of the job's
// name, before that first clause; then runes of the whole, the last an
// ellipsis. The time left counts as taking leftRoom runes at least. A
// clause is not cut within while one can go whole: cut to 79
// columns, "about 829ms left" read "about 829m…", an auto fit kept its
// method and lost its phase and time left, and a check that reuses an
// earlier check's statistics kept its explanation ("only income and degree
// (the pairs' statistics kept from an earlier check)") and lost its time
// left.
func (p FitProgress) Line(width int) string {
	text := p.Text
	fits := func() bool {
		n := utf8.RuneCountInString(text)
		if at := strings.LastIndex(text, ", about "); at >= 0 && strings.HasSuffix(text, " left") {
			n += max(0, leftRoom-utf8.RuneCountInString(text[at+len(", "):]))
		}
		return n <= width
	}
	if fits() {
		return text
	}
	if at := strings.Index(text, " elapsed, about "); at >= 0 {
		if from := strings.LastIndex(text[:at], ", "); from >= 0 {
			text = text[:from] + text[at+len(" elapsed"):]
		}
	}
	name := strings.LastIndex(text, ": ") + 1 // clauses start after the job's name and part
	if with := strings.Index(text, " with "); !fits() && with >= 0 && with < name-1 {
		text = text[:with] + text[name-1:]
		name = with + 1
	}
	if !fits() {
		head, clauses := text[:name], splitClauses(text[name:])
		for len(clauses) > 1 && !fits() {
			if i, aside := longestAside(clauses); aside > 0 {
				clauses[i] = clauses[i][:len(clauses[i])-aside]
			} else {
				i := dropFirst(clauses)
				clauses = slices.Delete(clauses, i, i+1)
			}
			text = head + strings.Join(clauses, ", ")
		}
	}
	if fits() || width < 1 {
		return text
	}
	// The first clause, the count of iterations or units done, is what
	// moves: the job's name and method give way to it, cut within, while
	// enough of them is left to tell the job (minHead). Cut at the end, an
	// auto fit's "fit survey with gibbs, switching to hmc where predicted
	// faster (auto): 624/1600 iterations (39%)" read "…(auto): 624/160…",
	// and a long model's name hid the count altogether.
	if name > 0 {
		head, tail := []rune(text[:name-1]), text[name-1:]
		if keep := width - utf8.RuneCountInString(tail) - 1; keep >= minHead && keep < len(head) {
			return strings.TrimRight(string(head[:keep]), " ") + "…" + tail
		}
	}
	return string([]rune(text)[:width-1]) + "…"
}

// splitClauses splits a state's text after its job's name at its commas
// outside parentheses ("only income and degree (the pairs' statistics kept
// from an earlier check)" is one clause, as is "interweave(T = pi / 2)").
func splitClauses(text string) []string {
	var clauses []string
	depth, from := 0, 0
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '(':
			depth++
		case text[i] == ')' && depth > 0:
			depth--
		case depth == 0 && strings.HasPrefix(text[i:], ", "):
			clauses = append(clauses, text[from:i])
			from = i + len(", ")
			i++
		}
	}
	return append(clauses, text[from:])
}

// longestAside returns the clause, but for the first, that ends in the
// longest explanation in parentheses (" (the pairs' statistics kept from an
// earlier check)"), and that explanation's length in bytes, 0 if none does:
// a clause gives its explanation up before itself ("only income and
// degree").
func longestAside(clauses []string) (at, length int) {
	for i, c := range clauses[1:] {
		if !strings.HasSuffix(c, ")") {
			continue
		}
		depth := 0
		for j := len(c) - 1; j > 0; j-- {
			if c[j] == ')' {
				depth++
			} else if c[j] == '(' {
				if depth--; depth == 0 {
					if c[j-1] == ' ' && len(c)-j+1 > length {
						at, length = i+1, len(c)-j+1
					}
					break
				}
			}
		}
	}
	return at, length
}

// dropFirst returns the index of the clause a state too long for its line
// drops first, of at least two: the longest but for the first (the count
// done) and the time left, which says most after the count; the time left
// when nothing else is left to drop.
func dropFirst(clauses []string) int {
	at, left := -1, -1
	for i, c := range clauses[1:] {
		i++
		if strings.HasPrefix(c, "about ") && strings.HasSuffix(c, " left") {
			left = i
			continue
		}
		if at < 0 || utf8.RuneCountInString(c) > utf8.RuneCountInString(clauses[at]) {
			at = i
		}
	}
	if at < 0 {
		return left
	}
	return at
}

// leftRoom is the runes that Line counts a state's time left as taking at
// least ("about 999ms left", "about 9m59s left"), so that what it keeps does
// not come and go as the estimate's digits do: cut to 79 columns, a check's
// "replicating" showed beside "about 7s left" and not beside "about 6.9s
// left", every other state.
const leftRoom = len("about 999ms left")

// minHead is the fewest runes of a progress state's job and method that
// Line keeps before its count: "fit survey".
const minHead = 10

// fitProgress sends the states of one fit to an output: to its
// ProgressWriter, or as a display (the first state) updated in place.
type fitProgress struct {
	jobProgress
	job, method string  // "fit m" or "extend m", and what it runs
	more        bool    // an extension: its iterations are "more iterations"
	base        etaBase // the first state with iterations done
}

// etaBase is where the estimate of the time left starts: the fit's rate is
// measured from its first state with iterations done, so that the time
// before the first iteration (reading the data, starting values) is not
// taken for the cost of iterations. At 20,000 × 40 that time is 13 times an
// iteration, and an estimate over the whole elapsed time said "about 3m42s
// left" of a 17 s fit.
type etaBase struct {
	done float64       // steps (or units of work) done then
	at   time.Duration // elapsed then
	ok   bool
}

// update shows the progress p; state is "" while the fit runs, else
// "starting", "done", "interrupted" or "failed".
func (f *fitProgress) update(p inference.Progress, state string) {
	switch state {
	case "starting":
		// An ess target's rounds each start their own count and clock.
		f.base = etaBase{}
	case "":
		f.base.observe(p)
	}
	if p.Schedule != nil {
		// An adaptive fit names its choice once made, not "gibbs,
		// switching to hmc where predicted faster" to its end.
		f.method = scheduleRan(p.Schedule) + " (auto)"
	}
	f.send(progressBundle(f.job, f.method, f.more, p, state, f.base), progressPhase(p, state), state != "" && state != "starting")
}

// observe makes p the base if it is the first state with steps done.
func (b *etaBase) observe(p inference.Progress) {
	b.observeWork(float64(p.AllDone), p.Elapsed)
}

// observeWork makes (done, elapsed) the base if it is the first state with
// work done.
func (b *etaBase) observeWork(done float64, elapsed time.Duration) {
	if !b.ok && done > 0 {
		*b = etaBase{done: done, at: elapsed, ok: true}
	}
}

// timeLeft estimates the time the rest of a fit takes at its rate since
// base; ok is false until a state after base has more iterations done.
func timeLeft(p inference.Progress, base etaBase) (left time.Duration, ok bool) {
	return workLeft(base, float64(p.AllDone), float64(p.AllTotal), p.Elapsed)
}

// workLeft estimates the time left of a job with done of total units of
// work done after elapsed, at its rate since base; ok is false until a
// state after base has more done.
func workLeft(base etaBase, done, total float64, elapsed time.Duration) (time.Duration, bool) {
	if !base.ok || done <= base.done || done >= total {
		return 0, false
	}
	return time.Duration(float64(elapsed-base.at) * (total - done) / (done - base.done)), true
}

// progressPhase names the phase of a fit: its state when it has one, else
// warm-up or sampling.
func progressPhase(p inference.Progress, state string) string {
	switch {
	case state != "":
		return state
	case p.Warmup:
		return "warm-up"
	}
	return "sampling"
}

// progressBundle renders the state of a running fit or extension (job, as
// "fit m"; more for an extension) as one line of text and an HTML progress
// bar; the time left is estimated from base (timeLeft).
func progressBundle(job, method string, more bool, p inference.Progress, state string, base etaBase) MimeBundle {
	frac := 0.0
	if p.AllTotal > 0 {
		frac = float64(p.AllDone) / float64(p.AllTotal)
	}
	phase := progressPhase(p, state)
	eta := ""
	if left, ok := timeLeft(p, base); ok && state == "" {
		eta = fmt.Sprintf(", about %s left", roundDuration(left))
	}
	noun := "iteration"
	if more {
		noun = "more iteration"
	}
	iterations := noun + "s"
	text := fmt.Sprintf("%s with %s: %d/%d %s (%.0f%%), %s, %s elapsed%s",
		job, method, p.AllDone, p.AllTotal, iterations, 100*frac, phase, roundDuration(p.Elapsed), eta)
	if state == "starting" && p.AllDone == 0 {
		// The first state says what will run, not "0/N (0%)": jupyter
		// console --simple-prompt ignores the updates of a display, so
		// there this line stays, above the later states that the kernel
		// sends it as text (ProgressMirror).
		what := plural(p.AllTotal, noun)
		// An extension's chains start at Done of Total.
		if each := p.Total - p.Done; each > 0 && p.AllTotal > each && p.AllTotal%each == 0 {
			what = fmt.Sprintf("%s × %s", plural(p.AllTotal/each, "chain"), plural(each, noun))
		}
		text = fmt.Sprintf("%s with %s: starting, %s", job, method, what)
	}
	return barBundle(text, p.AllDone, p.AllTotal)
}

// barBundle shows a line of progress text after an HTML progress bar.
func barBundle(text string, done, total int) MimeBundle {
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="copulang-progress"><progress value="%d" max="%d" style="width: 24em"></progress> <span>%s</span></div>`,
		done, max(total, 1), html.EscapeString(text))
	return MimeBundle{"text/plain": text, "text/html": b.String()}
}

// jobProgress sends the states of a long statement other than a fit to an
// output: to its ProgressWriter, or as a display (the first state) updated
// in place.
type jobProgress struct {
	out   Output
	id    string // the display id
	shown bool
}

// show shows the state b in phase "starting", "running", or, the last,
// "done", "interrupted" or "failed".
func (j *jobProgress) show(b MimeBundle, phase string) {
	j.send(b, phase, phase == "done" || phase == "interrupted" || phase == "failed")
}

// send shows the state b in phase, the last if final.
func (j *jobProgress) send(b MimeBundle, phase string, final bool) {
	if pw, ok := j.out.(ProgressWriter); ok {
		text, _ := b["text/plain"].(string)
		pw.FitProgress(FitProgress{Text: text, Phase: phase, Final: final})
		return
	}
	mirror, mirrored := j.out.(ProgressMirror)
	first := !j.shown
	if first {
		j.shown = true
		shown := b
		if !final && !mirrored {
			shown = withNoLiveProgressNote(b)
		}
		j.out.Display(shown, j.id)
	} else {
		j.out.UpdateDisplay(b, j.id)
	}
	if mirrored && !first {
		text, _ := b["text/plain"].(string)
		mirror.MirrorProgress(FitProgress{Text: text, Phase: phase, Final: final})
	}
}

// noLiveProgressNote ends the text/plain of a progress display's first
// state. A front end that updates displays in place replaces it within
// progressEvery (and a notebook shows the HTML, not the text); one that
// ignores the updates, as jupyter console --simple-prompt does, keeps this
// first state until the statement's report, and the note says so rather
// than leave "starting" to look stuck. Consoles the kernel recognises take
// the progress themselves (ProgressWriter) and never see it; nor do outputs
// that mirror the progress elsewhere (ProgressMirror), as the kernel's do
// for every other client, which give such a front end live progress.
const noLiveProgressNote = " (no live progress here: the report follows when it ends)"

// withNoLiveProgressNote returns b with noLiveProgressNote after its text.
func withNoLiveProgressNote(b MimeBundle) MimeBundle {
	text, ok := b["text/plain"].(string)
	if !ok {
		return b
	}
	noted := maps.Clone(b)
	noted["text/plain"] = text + noLiveProgressNote
	return noted
}

// inBackground runs work on its own goroutine and, until it returns, shows
// status() on j every progressEvery; status must be safe to call while
// work runs. A panic in work becomes an error.
func inBackground(j *jobProgress, status func() MimeBundle, work func() error) error {
	j.show(status(), "starting")
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("internal error: %v", r)
			}
		}()
		done <- work()
	}()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			j.show(status(), "running")
		}
	}
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
