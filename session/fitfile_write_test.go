package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestKeepScoresConcurrently: compare wrote its scores into a fit file by
// reading the file, adding them and writing it back, with nothing to keep
// another writer out between the read and the write: two kernels (or a
// kernel and a CLI run) comparing the same fit each wrote the file they
// had read, and the scores of one were lost. Eight writers, each adding
// five scores to one file at once, must leave all forty in it.
func TestKeepScoresConcurrently(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, fitFileSetup+"fit m, iter = 20, warmup = 10, chains = 2, file = \"m.fit\"\n")
	kf := s.models["m"].kept
	if kf == nil {
		t.Fatal("the fit is not kept in m.fit")
	}
	const writers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				if err := keepScores(context.Background(), kf, fmt.Sprintf("key %d/%d", w, k), []float64{float64(w), float64(k)}, nil); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(kf.path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeFitFile(data)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, sc := range f.Scores {
		keys = append(keys, sc.Key)
	}
	if len(keys) != writers*each {
		t.Errorf("the file holds %d scores after %d writers added %d each: %v", len(keys), writers, each, keys)
	}
	for w := range writers {
		for k := range each {
			if key := fmt.Sprintf("key %d/%d", w, k); !slices.Contains(keys, key) {
				t.Errorf("the scores %q were lost", key)
			}
		}
	}
}

// TestStaleTemporariesRemoved: a process killed while it wrote a fit file
// left its temporary file (m.fit.tmp-PID-N, as large as the fit) beside
// the file for good. The next write to that path removes those of
// processes that are gone, and nothing else: not this process's, not a
// live process's, not those of another file, not files of other names.
func TestStaleTemporariesRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("processGone is not known here")
	}
	dir := t.TempDir()
	// A process that has exited: its PID names no process (unless reused
	// within the test, which would keep its file, failing the test
	// rather than removing what it must not).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := cmd.Process.Pid
	if !processGone(dead) {
		t.Fatalf("process %d, which exited, is not gone", dead)
	}
	stale := []string{fmt.Sprintf("m.fit.tmp-%d-0", dead), fmt.Sprintf("m.fit.tmp-%d-3", dead)}
	kept := []string{
		fmt.Sprintf("m.fit.tmp-%d-0", os.Getpid()), // this process's
		"m.fit.tmp-1-0",                         // init's, alive
		fmt.Sprintf("other.fit.tmp-%d-0", dead), // another file's
		fmt.Sprintf("m.fit.tmp-%d", dead),       // not a name writeFitBytes gives
		fmt.Sprintf("m.fit.tmp-%d-0x", dead),
		fmt.Sprintf("m.fit.tmp-0%d-0", dead),
		"m.fit.tmp-x-0",
		"notes.txt",
	}
	for _, name := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half a fit"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+"fit m, iter = 20, warmup = 10, chains = 2, file = \"m.fit\"\n")
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s, of a process that is gone, was not removed (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestWriteFitFileStreamsTheDraws: a fit file was made whole in memory
// before it was written (the Result's bytes, then the file's), so that
// writing a survey's fit of 50,000 rows and 40 columns (109 MB) raised the
// peak memory of the run from 167 to 314 MB. The draws are encoded as
// they are written: the bytes allocated while writing are a small part
// of the file's. (Measured by the allocations, not the time, of one
// write, about 8% of a 3 MB file, against over 100% before; the test runs
// alone, as it is not parallel.)
func TestWriteFitFileStreamsTheDraws(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 8), n = 6000, levels = 4, seed = 4, missing = 0.1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m, iter = 100, warmup = 20, chains = 2, seed = 1\n")
	m := s.models["m"]
	path := filepath.Join(dir, "m.fit")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := writeFitFile(context.Background(), path, fitOrigin{}, "test", m.Fit, "", "", nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("writing a fit file of %d bytes allocated %d bytes", info.Size(), allocated)
	if info.Size() < 1<<20 || allocated > uint64(info.Size())/4 {
		t.Errorf("writing a fit file of %d bytes allocated %d bytes, want at most a quarter of it", info.Size(), allocated)
	}
}

// TestFitFileKeepsExtensions: an extension of a fit kept in a file was not
// written, so that a notebook run again (Restart & Run All) read the fit
// and sampled the extension again, every time. The extension is written
// after the fit's draws: a new session reads the fit, then the extension,
// sampling nothing, with the same summaries and imputations and draws bit
// for bit, and can extend it further as the first session does; another
// extension of the fit replaces it, saying so.
func TestFitFileKeepsExtensions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const fit = "fit m, iter = 60, warmup = 30, chains = 2, seed = 3, file = \"m.fit\"\n"
	const extend = "extend m, iter = 40\nsummary m.C\nimpute m\n"
	s1 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s1, fitFileSetup+fit)
	first := mustRun(t, s1, extend)
	if text := first.text(); !strings.Contains(text, "wrote the extension to m.fit, after the fit: `extend m, iter = 40` after the same fit reads it from there") {
		t.Fatalf("the extension does not say it was written:\n%s", text)
	}

	s2 := New(Options{Dir: dir, Version: "1.0.0"})
	read := mustRun(t, s2, fitFileSetup+fit).text()
	if !strings.Contains(read, "; read from m.fit") || !strings.Contains(read, "note: m.fit holds 1 extension of this fit after it (`extend m, iter = 40`): the same extend statements read it instead of sampling again") {
		t.Fatalf("the fit read does not say its file holds an extension:\n%s", read)
	}
	second := mustRun(t, s2, extend)
	text := second.text()
	if !strings.Contains(text, "extend m with") || !strings.Contains(text, "now 100 iterations per chain after 30 warm-up; read from m.fit (written ") ||
		strings.Contains(text, "starting") || strings.Contains(text, "wrote the extension") {
		t.Errorf("the extension was not read from m.fit (or was sampled, or written again):\n%s", text)
	}
	if got, want := lastTable(text), lastTable(first.text()); got != want || got == "" {
		t.Errorf("the extension read back:\n%s\nwant as extended:\n%s", got, want)
	}
	a, b := s1.models["m"].Fit, s2.models["m"].Fit
	if !reflect.DeepEqual(a.C, b.C) || !reflect.DeepEqual(imputedValues(a), imputedValues(b)) || !reflect.DeepEqual(a.ZMean, b.ZMean) {
		t.Error("the draws of the extension read back differ from those of the extension")
	}
	if show := mustRun(t, s2, "show m").text(); !strings.Contains(show, "100 iterations") || !strings.Contains(show, "; read from m.fit") {
		t.Errorf("show m after the extension read:\n%s", show)
	}
	// A further extension is written after the first, and read after the
	// first is read; the extension read is continued as the one sampled
	// is.
	const more = "extend m, iter = 20\nsummary m.C\n"
	sampled := mustRun(t, s1, more).text()
	want := lastTable(sampled)
	if !strings.Contains(sampled, "wrote the extension to m.fit") {
		t.Errorf("the second extension was not written:\n%s", sampled)
	}
	if got := mustRun(t, s2, more).text(); lastTable(got) != want || !strings.Contains(got, "; read from m.fit") {
		t.Errorf("the extension read, extended again:\n%s\nwant the table\n%s", got, want)
	}
	// The extensions read, extended by sampling, give what extending a fit
	// sampled without its file three times gives.
	got := mustRun(t, s2, "extend m, iter = 10\nsummary m.C\n").text()
	ref := mustRun(t, New(Options{Dir: t.TempDir()}), fitFileSetup+strings.Replace(fit, `, file = "m.fit"`, "", 1)+
		"extend m, iter = 40\nextend m, iter = 20\nextend m, iter = 10\nsummary m.C\n").text()
	if strings.Contains(got, "; read from m.fit") || lastTable(got) != lastTable(ref) {
		t.Errorf("the extensions read, extended by sampling:\n%s\nwant the table\n%s", got, lastTable(ref))
	}
	s3 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s3, fitFileSetup+fit)
	mustRun(t, s3, extend)
	if got := mustRun(t, s3, more).text(); lastTable(got) != want || !strings.Contains(got, "; read from m.fit") {
		t.Errorf("the second extension was not read back:\n%s", got)
	}

	// The notebook's extension edited: it is sampled, replacing the one
	// the file held, which a later run reads.
	s4 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s4, fitFileSetup+fit)
	other := mustRun(t, s4, "extend m, iter = 50\nsummary m.C\n").text()
	if !strings.Contains(other, "note: m.fit holds another extension of this fit (`extend m, iter = 40`; this one is `extend m, iter = 50`): extending and replacing it") ||
		!strings.Contains(other, "wrote the extension to m.fit") {
		t.Errorf("another extension of the fit:\n%s", other)
	}
	s5 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s5, fitFileSetup+fit)
	if got := mustRun(t, s5, "extend m, iter = 50\nsummary m.C\n").text(); !strings.Contains(got, "; read from m.fit") || lastTable(got) != lastTable(other) {
		t.Errorf("the replacing extension was not read back:\n%s", got)
	}
}

// TestFitFileKeepsExtensionsOfEverySetting: an extension without
// settings (as many iterations as the fit ran) and one to an ESS target
// (rounds of extensions, with the target's outcome in the headline) are
// kept and read back as an extension of iterations is.
func TestFitFileKeepsExtensionsOfEverySetting(t *testing.T) {
	t.Parallel()
	const fit = "fit m, iter = 60, warmup = 30, chains = 2, seed = 3, file = \"m.fit\"\n"
	for _, extend := range []string{"extend m", "extend m, ess = 300"} {
		t.Run(extend, func(t *testing.T) {
			dir := t.TempDir()
			first := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+extend+"\nsummary m.C\n").text()
			if !strings.Contains(first, "wrote the extension to m.fit, after the fit: `"+extend+"` after the same fit reads it") {
				t.Fatalf("the extension was not written:\n%s", first)
			}
			second := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+extend+"\nsummary m.C\n").text()
			if !strings.Contains(second, "; read from m.fit (written ") || strings.Contains(second, "wrote the extension") || lastTable(second) != lastTable(first) {
				t.Errorf("the extension read back:\n%s\nwant it read, with the table\n%s", second, lastTable(first))
			}
			if strings.Contains(extend, "ess") && !strings.Contains(second, "until the least ESS of C reached 300") {
				t.Errorf("the headline of the extension read lacks its target's outcome:\n%s", second)
			}
		})
	}
}

// TestFitFileKeepsNoStoppedExtension: an extension stopped by
// InterruptFit is kept in the session but not written, and the file keeps
// the fit alone, which a new session reads; an extension of the stopped
// one is not written either, as the file holds nothing it extends.
func TestFitFileKeepsNoStoppedExtension(t *testing.T) {
	dir := t.TempDir()
	const setup = "data d = simulate(FullCopula(p = 4), n = 300, levels = 4, seed = 1)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1, file = \"m.fit\"\n"
	s := New(Options{Dir: dir})
	mustRun(t, s, setup)
	out := &interruptingRecorder{s: s}
	if _, err := s.Execute(context.Background(), "extend m, iter = 100000000", out); err != nil {
		t.Fatalf("cell failed after InterruptFit: %v", err)
	}
	if text := out.text(); !strings.Contains(text, "note: the extension was stopped, so it is not written to m.fit, which keeps the fit before it") || strings.Contains(text, "wrote the extension") {
		t.Errorf("the stopped extension:\n%s", text)
	}
	if text := mustRun(t, s, "extend m, iter = 10").text(); strings.Contains(text, "wrote the extension") {
		t.Errorf("an extension of the stopped extension was written:\n%s", text)
	}
	data, err := os.ReadFile(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := decodeFitFile(data); err != nil || f.Format != 3 || len(f.Extensions) != 0 {
		t.Errorf("the file after a stopped extension: %v", err)
	}
	if text := mustRun(t, New(Options{Dir: dir}), setup).text(); !strings.Contains(text, "; read from m.fit") || strings.Contains(text, "extension") {
		t.Errorf("the fit read after a stopped extension:\n%s", text)
	}
}
