package session

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
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
	// An ess target's next round starts its own count and clock: the
	// estimate starts again from its first iterations (it said "about
	// -1m10.3s left" with the first round's base).
	round := func(done int, elapsed time.Duration) string {
		f.update(inference.Progress{AllDone: done, AllTotal: 2000, Elapsed: elapsed}, "")
		return out.texts[len(out.texts)-1]
	}
	f.update(inference.Progress{AllTotal: 2000}, "starting")
	if got := round(100, 400*time.Millisecond); strings.Contains(got, "left") {
		t.Errorf("a second round's first state: %q estimates the time left", got)
	}
	if got := round(300, 1200*time.Millisecond); !strings.Contains(got, "about 6.8s left") {
		t.Errorf("a second round, 200 iterations in 0.8 s: %q, want about 6.8s left", got)
	}
}

// progressLines is an output that shows progress itself, as the CLI does,
// and keeps every state's text.
type progressLines struct {
	recorder
	texts []string
}

func (o *progressLines) FitProgress(p FitProgress) { o.texts = append(o.texts, p.Text) }

// TestRefitsLeft: compare's time left weighs each model's refits by its
// fit's time, at the rate since its first state with iterations done. Two
// models whose fits took 10 s and 1 s, two folds each (22 units): the first
// state, a tenth into the first refit (1 unit) after 3 s of start-up, sets
// the base; halfway through it (5 units) at 7 s the rate is one unit a
// second, so 17 s are left; halfway through the second model's last fold
// (21.5 units) at 23.5 s, 0.5 s.
func TestRefitsLeft(t *testing.T) {
	w := []float64{10, 1}
	var base etaBase
	for _, tc := range []struct {
		at, fold int
		p        inference.Progress
		elapsed  time.Duration
		want     time.Duration
		ok       bool
	}{
		{0, 0, inference.Progress{AllTotal: 100}, time.Second, 0, false},
		{0, 0, inference.Progress{AllDone: 10, AllTotal: 100}, 3 * time.Second, 0, false},
		{0, 0, inference.Progress{AllDone: 50, AllTotal: 100}, 7 * time.Second, 17 * time.Second, true},
		{1, 1, inference.Progress{AllDone: 50, AllTotal: 100}, 23500 * time.Millisecond, 500 * time.Millisecond, true},
		{1, 1, inference.Progress{AllDone: 100, AllTotal: 100}, 24 * time.Second, 0, false},
	} {
		done, total := refitWork(w, 2, tc.at, tc.fold, tc.p)
		base.observeWork(done, tc.elapsed)
		got, ok := workLeft(base, done, total, tc.elapsed)
		if ok != tc.ok || ok && (got-tc.want).Abs() > time.Millisecond {
			t.Errorf("refit %d fold %d at %v: %v, %v; want %v, %v", tc.at, tc.fold, tc.elapsed, got, ok, tc.want, tc.ok)
		}
	}
}

// TestStartingStateSaysWhatRuns: the first state of a fit or an extension
// says what will run; jupyter console, which ignores the updates of a
// display, keeps that line until the report (it read "0/6000 iterations
// (0%), starting, 0s elapsed" there).
func TestStartingStateSaysWhatRuns(t *testing.T) {
	for _, tc := range []struct {
		more bool
		p    inference.Progress
		want string
	}{
		{false, inference.Progress{Total: 1500, AllTotal: 6000}, "fit m with gibbs: starting, 4 chains × 1500 iterations"},
		{false, inference.Progress{Total: 1, AllTotal: 1}, "fit m with gibbs: starting, 1 iteration"},
		{true, inference.Progress{Done: 1500, Total: 1800, AllTotal: 600}, "fit m with gibbs: starting, 2 chains × 300 more iterations"},
	} {
		b := progressBundle("fit m", "gibbs", tc.more, tc.p, "starting", etaBase{})
		if got := b["text/plain"]; got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// lastUpdate records the last display update besides what recorder records.
type lastUpdate struct {
	recorder
	last MimeBundle
}

func (r *lastUpdate) UpdateDisplay(b MimeBundle, id string) { r.updates++; r.last = b }

// TestFinalProgressNamesWhatRan: the last state of an adaptive fit's
// progress, which nbconvert and a saved notebook keep, names what auto
// chose after warm-up, as the report does; it kept "gibbs, switching to
// hmc where predicted faster" beside a report saying Gibbs was kept.
func TestFinalProgressNamesWhatRan(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, fitFileSetup)
	out := &lastUpdate{}
	if _, err := s.Execute(context.Background(), "fit m, iter = 40, warmup = 20, chains = 2, seed = 1", out); err != nil {
		t.Fatal(err)
	}
	if !s.models["m"].Plan.Adapt {
		t.Fatal("the plan does not adapt: the test does not test")
	}
	final, _ := out.last["text/plain"].(string)
	if want := "fit m with gibbs (auto): 120/120 iterations (100%), done"; !strings.HasPrefix(final, want) || !strings.Contains(out.text(), "fit m with gibbs (auto): 2 chains") {
		t.Errorf("the progress ends %q, want it to start %q; report:\n%s", final, want, out.text())
	}
}

// TestProgressNamesTheScheduleOnceChosen: an adaptive fit's progress names
// what it runs once the schedule is chosen, as its last state and report
// do; it said "gibbs, switching to hmc where predicted faster" to the end
// of sampling though Gibbs had been kept after 50 warm-up iterations.
func TestProgressNamesTheScheduleOnceChosen(t *testing.T) {
	out := &progressLines{}
	f := &fitProgress{jobProgress: jobProgress{out: out}, job: "fit m", method: "gibbs, switching to hmc where predicted faster (auto)"}
	f.update(inference.Progress{AllDone: 40, AllTotal: 400, Warmup: true, Elapsed: time.Second}, "")
	if got := out.texts[len(out.texts)-1]; !strings.HasPrefix(got, "fit m with gibbs, switching to hmc where predicted faster (auto): 40/400") {
		t.Errorf("before the choice: %q", got)
	}
	for _, c := range []struct {
		hmc  []bool
		want string
	}{
		{[]bool{false, false, false}, "fit m with gibbs (auto): 120/400"},
		{[]bool{true, false, true}, "fit m with hmc for 2 columns, gibbs for 1 (auto): 120/400"},
	} {
		f.update(inference.Progress{AllDone: 120, AllTotal: 400, Elapsed: 2 * time.Second, Schedule: &inference.Schedule{HMC: c.hmc}}, "")
		if got := out.texts[len(out.texts)-1]; !strings.HasPrefix(got, c.want) {
			t.Errorf("after the choice %v: %q, want it to start %q", c.hmc, got, c.want)
		}
	}
}

// TestReadingALargeFitFileShowsProgress: a fit read from a large file
// shows how far the reading has got and then how long it took, where it
// showed nothing for the seconds a survey's fit file takes (157 MB, 3 to
// 4 s); a small file shows nothing, and a file of another fit says it
// does not hold this one. The size from which it shows is lowered here.
func TestReadingALargeFitFileShowsProgress(t *testing.T) {
	dir := t.TempDir()
	const model = "data d = simulate(FullCopula(p = 3), n = 200, levels = 4, seed = 1)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }\n"
	const fit = `fit m with gibbs, iter = 100, warmup = 20, chains = 2, seed = 1, file = "m.fit"`
	s := New(Options{Dir: dir})
	mustRun(t, s, model+fit)
	info, err := os.Stat(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(from int64, code string) []string {
		s := New(Options{Dir: dir})
		s.readProgressFrom = from
		out := &progressLines{}
		if _, err := s.Execute(context.Background(), model+code, out); err != nil {
			t.Fatal(err)
		}
		var reading []string
		for _, text := range out.texts {
			if strings.Contains(text, "m.fit (") {
				reading = append(reading, text)
			}
		}
		return reading
	}
	if got := run(info.Size()+1, fit); len(got) != 0 {
		t.Errorf("a file under the size shows %q", got)
	}
	got := run(info.Size(), fit)
	if len(got) < 2 || !strings.HasPrefix(got[0], "fit m: reading m.fit (") || !strings.Contains(got[0], "%") {
		t.Fatalf("reading shows %q, want a state that says how far it has got, then one that says it is done", got)
	}
	if last := got[len(got)-1]; !regexp.MustCompile(`^fit m: read m\.fit \(\d+ MB\) in \S+$`).MatchString(last) {
		t.Errorf("the last state is %q", last)
	}
	other := run(info.Size(), strings.Replace(fit, "seed = 1", "seed = 2", 1))
	if len(other) == 0 || !strings.HasSuffix(other[len(other)-1], "it does not hold this fit") {
		t.Errorf("a file of another fit shows %q", other)
	}
}

// TestFirstProgressStateSaysTheReportFollows: a front end that ignores the
// updates of a display (jupyter console --simple-prompt) keeps the first
// state of a fit's progress until the report, so its text says that no
// live progress shows there and the report follows; it read "starting"
// alone, which looked stuck for the minutes of a survey's fit. The HTML a
// notebook shows, the updates (and so the last state, which a saved
// notebook keeps), a statement whose first state is its last, and an
// output that shows progress itself (the CLI, a console) are unchanged.
func TestFirstProgressStateSaysTheReportFollows(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, fitFileSetup)
	out := &lastUpdate{}
	if _, err := s.Execute(context.Background(), "fit m with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1", out); err != nil {
		t.Fatal(err)
	}
	if len(out.displays) == 0 || out.updates == 0 {
		t.Fatalf("%d displays, %d updates: the fit showed no progress", len(out.displays), out.updates)
	}
	first, _ := out.displays[0]["text/plain"].(string)
	if want := "fit m with gibbs: starting, 2 chains × 60 iterations" + noLiveProgressNote; first != want {
		t.Errorf("the first state reads %q, want %q", first, want)
	}
	if html, _ := out.displays[0]["text/html"].(string); strings.Contains(html, "no live progress") {
		t.Errorf("the first state's HTML has the note: %s", html)
	}
	if last, _ := out.last["text/plain"].(string); strings.Contains(last, "no live progress") || !strings.Contains(last, "done") {
		t.Errorf("the last state reads %q", last)
	}

	once := &recorder{}
	j := &jobProgress{out: once, id: "x"}
	j.show(MimeBundle{"text/plain": "read m.fit in 1s"}, "done")
	if got := once.displays[0]["text/plain"]; got != "read m.fit in 1s" {
		t.Errorf("a first state that is the last reads %q", got)
	}

	lines := &progressLines{}
	if _, err := s.Execute(context.Background(), "fit m with gibbs, iter = 40, warmup = 20, chains = 2, seed = 2", lines); err != nil {
		t.Fatal(err)
	}
	if len(lines.texts) == 0 || strings.Contains(strings.Join(lines.texts, "\n"), "no live progress") {
		t.Errorf("an output that shows progress itself got %q", lines.texts)
	}
}

// mirroring is an output that shows progress as a display and mirrors
// it (ProgressMirror), as the kernel's output for a client it cannot tell
// from a notebook does.
type mirroring struct {
	lastUpdate
	shown    []string // the display's text/plain, state by state
	mirrored []FitProgress
}

func (r *mirroring) Display(b MimeBundle, id string) {
	r.lastUpdate.Display(b, id)
	text, _ := b["text/plain"].(string)
	r.shown = append(r.shown, text)
}

func (r *mirroring) UpdateDisplay(b MimeBundle, id string) {
	r.lastUpdate.UpdateDisplay(b, id)
	text, _ := b["text/plain"].(string)
	r.shown = append(r.shown, text)
}

func (r *mirroring) MirrorProgress(p FitProgress) { r.mirrored = append(r.mirrored, p) }

// TestProgressMirrorGetsEveryState: an output that mirrors progress gets
// each state the display shows after its first, in order, with its phase,
// the last alone final; the display is shown and updated as for any output,
// but its first state carries no note that no live progress shows, since
// the mirror gives it where the updates are ignored.
func TestProgressMirrorGetsEveryState(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, fitFileSetup)
	out := &mirroring{}
	if _, err := s.Execute(context.Background(), "fit m with gibbs, iter = 40, warmup = 20, chains = 2, seed = 1", out); err != nil {
		t.Fatal(err)
	}
	if len(out.displays) != 1 || out.updates == 0 {
		t.Fatalf("%d displays and %d updates, want one display updated", len(out.displays), out.updates)
	}
	if len(out.mirrored) != len(out.shown)-1 {
		t.Fatalf("%d states mirrored of %d shown, want all but the first", len(out.mirrored), len(out.shown))
	}
	for i, p := range out.mirrored {
		if p.Text != out.shown[i+1] {
			t.Errorf("state %d mirrored as %q, shown as %q", i+1, p.Text, out.shown[i+1])
		}
		if last := i == len(out.mirrored)-1; p.Final != last {
			t.Errorf("state %d (%q) final = %v", i, p.Text, p.Final)
		}
	}
	if last := out.mirrored[len(out.mirrored)-1]; last.Phase != "done" {
		t.Errorf("the last state's phase is %q, want done", last.Phase)
	}
	once := &mirroring{}
	j := &jobProgress{out: once, id: "x"}
	j.show(MimeBundle{"text/plain": "read m.fit in 1s"}, "done")
	if len(once.shown) != 1 || len(once.mirrored) != 0 {
		t.Errorf("a first state that is the last: shown %q, mirrored %v, want shown alone", once.shown, once.mirrored)
	}
	if want := "fit m with gibbs: starting, 2 chains × 60 iterations"; out.shown[0] != want {
		t.Errorf("the first state reads %q, want %q", out.shown[0], want)
	}
}

// TestProgressLineFitsTheWidth: a state longer than a terminal's line loses
// a fit's elapsed time before its time left, then explanations in
// parentheses, then whole clauses, the longest first and the time left
// last, and is cut within a clause only when nothing else is left; cut at
// 79 runes, "about 829ms left" read "about 829m…", as 829 minutes, and a
// check reusing an earlier check's statistics lost its time left.
func TestProgressLineFitsTheWidth(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  string
	}{
		{"fit m with gibbs: 7443/9000 iterations (83%), sampling, 4s elapsed, about 829ms left", 100,
			"fit m with gibbs: 7443/9000 iterations (83%), sampling, 4s elapsed, about 829ms left"},
		{"fit m with gibbs: 7443/9000 iterations (83%), sampling, 4s elapsed, about 829ms left", 79,
			"fit m with gibbs: 7443/9000 iterations (83%), sampling, about 829ms left"},
		{"fit survey with interweave(T = pi / 2): 7443/90000 iterations (8%), sampling, 4s elapsed, about 3m12s left", 79,
			"fit survey: 7443/90000 iterations (8%), sampling, about 3m12s left"},
		{"fit survey with interweave(T = pi / 2): 7443/90000 iterations (8%), sampling, 4s elapsed, about 3m12s left", 40,
			"fit survey: 7443/90000 iterations (8%)"},
		// auto's method and a long model's name give way to the count, and
		// the method to the phase and the time left: cut at the end, they
		// read "…(auto): 624/160…" and "…with gibbs, swi…"; then
		// "fit survey with gibbs, switching to hmc where predi…: 624/1600
		// iterations (39%)".
		{"fit survey with gibbs, switching to hmc where predicted faster (auto): 624/1600 iterations (39%), sampling, 262ms elapsed, about 410ms left", 79,
			"fit survey: 624/1600 iterations (39%), sampling, about 410ms left"},
		{"fit a_model_with_a_rather_long_descriptive_name_for_the_survey with gibbs, switching to hmc where predicted faster (auto): 624/3600 iterations (17%), warm-up, 2s elapsed", 79,
			"fit a_model_with_a_rather_long_descriptive_name_for…: 624/3600 iterations (17%)"},
		{"fit a_model_with_a_rather_long_descriptive_name_for_the_survey_of_many_many_columns_indeed: 624/3600 iterations (17%)", 40,
			"fit a_model_…: 624/3600 iterations (17%)"},
		{"fit a_model_with_a_rather_long_descriptive_name: 624/3600 iterations (17%)", 30,
			"fit a_model_with_a_rather_lon…"},
		{"fit m with gibbs: 7443/9000 iterations (83%), sampling, 1m4s elapsed", 60,
			"fit m: 7443/9000 iterations (83%), sampling, 1m4s elapsed"},
		{"compare: refitting a (1 of 2), fold 1 of 5: 123/3000 iterations, about 5s left", 60,
			"compare: refitting a (1 of 2), fold 1…: 123/3000 iterations"},
		{"compare: refitting a (1 of 2), fold 1 of 5: 123/3000 iterations, about 5s left", 70,
			"compare: refitting a (1 of 2), fold 1 of 5: 123/3000 iterations"},
		// The time left goes after the phase, and explanations first, the
		// longest first: a check reusing an earlier check's statistics
		// kept "only income and degree (the pairs' statistics kept from
		// an earlier check)" and lost its phase and time left, then was
		// cut within it.
		{"fit survey with interweave(T = pi / 2): 7443/90000 iterations (8%), sampling, 4s elapsed, about 3m12s left", 60,
			"fit survey: 7443/90000 iterations (8%), about 3m12s left"},
		{"check m: 1234/4000 replicated data sets, only income and degree (the pairs' statistics kept from an earlier check), replicating, about 3s left", 79,
			"check m: 1234/4000 replicated data sets, replicating, about 3s left"},
		{"check m: 1/40 replicated data sets, every column (p_adj and the verdict are over all 28 pairs), replicating, about 3s left", 79,
			"check m: 1/40 replicated data sets, every column, replicating, about 3s left"},
		// The time left counts as "about 999ms left" at least: a check's
		// phase came and went with the estimate's digits, every other
		// state.
		{"check survey_model: 1064/3200 replicated data sets, replicating, about 7s left", 79,
			"check survey_model: 1064/3200 replicated data sets, about 7s left"},
		{"check survey_model: 1018/3200 replicated data sets, replicating, about 6.9s left", 79,
			"check survey_model: 1018/3200 replicated data sets, about 6.9s left"},
		{"check m: 12/4000 replicated data sets, every column (p_adj and the verdict are over all 28 pairs), replicating, about 1m3s left", 79,
			"check m: 12/4000 replicated data sets, replicating, about 1m3s left"},
		{"check survey: nothing to replicate, every pair's statistics kept from an earlier check of this fit, starting", 79,
			"check survey: nothing to replicate, starting"},
		{"check m: 12/400 replicated data sets, only Y1 and Y2 (the pairs' statistics kept from an earlier check), replicating, about 3s left", 100,
			"check m: 12/400 replicated data sets, only Y1 and Y2, replicating, about 3s left"},
	} {
		got := FitProgress{Text: tc.text}.Line(tc.width)
		if got != tc.want || len([]rune(got)) > tc.width {
			t.Errorf("%q in %d: %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}
