package session

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/copulang/copulang/inference"
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
	if _, err := writeFitFile(context.Background(), osFiles{}, path, "m.fit", fitOrigin{}, "test", m.Fit, "", "", nil); err != nil {
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

	// The notebook's extension edited: it is sampled (the fit's chains
	// made again, as the file keeps the last extension's only), replacing
	// the one the file held, which a later run reads.
	s4 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s4, fitFileSetup+fit)
	other := mustRun(t, s4, "extend m, iter = 50\nsummary m.C\n").text()
	if !strings.Contains(other, "note: m.fit holds another extension of this fit (`extend m, iter = 40`; this one is `extend m, iter = 50`): extending and replacing it") ||
		!strings.Contains(other, "note: m.fit keeps the chains' states of its last extension only") || !strings.Contains(other, "wrote the extension to m.fit") {
		t.Errorf("another extension of the fit:\n%s", other)
	}
	s5 := New(Options{Dir: dir, Version: "1.0.0"})
	mustRun(t, s5, fitFileSetup+fit)
	if got := mustRun(t, s5, "extend m, iter = 50\nsummary m.C\n").text(); !strings.Contains(got, "; read from m.fit") || lastTable(got) != lastTable(other) {
		t.Errorf("the replacing extension was not read back:\n%s", got)
	}
}

// TestFitFileKeepsExtensionWhenESSIsMet: an extend to an ess target that
// the fit already meets extends nothing, so the other extension its file
// holds at that place stays, and says so; it said "extending and
// replacing it" (found by a review).
func TestFitFileKeepsExtensionWhenESSIsMet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const fit = "fit m, iter = 600, warmup = 100, chains = 2, seed = 3, file = \"m.fit\"\n"
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+"extend m, iter = 40\n")
	s := New(Options{Dir: dir})
	mustRun(t, s, fitFileSetup+fit)
	text := mustRun(t, s, "extend m, ess = 200\n").text()
	want := "note: m.fit holds another extension of this fit (`extend m, iter = 40`; this one is `extend m, ess = 200`): the ess target is met without extending, so the file keeps it"
	if !strings.Contains(text, want) || strings.Contains(text, "replacing") || strings.Contains(text, "wrote the extension") {
		t.Errorf("an ess target met, the file holding another extension:\n%s\nwant %q", text, want)
	}
	s2 := New(Options{Dir: dir})
	mustRun(t, s2, fitFileSetup+fit)
	if got := mustRun(t, s2, "extend m, iter = 40\n").text(); !strings.Contains(got, "; read from m.fit") {
		t.Errorf("the file's extension was not read after the ess target met:\n%s", got)
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
	// It says so: it was silent, and the file kept the fit alone.
	const notWritten = "note: the extension is kept in the session but not written to m.fit: it continues draws the file does not hold"
	if text := mustRun(t, s, "extend m, iter = 10").text(); strings.Contains(text, "wrote the extension") || !strings.Contains(text, notWritten) {
		t.Errorf("an extension of the stopped extension:\n%s", text)
	}
	// The kernel's interrupt cancels the cell: the extension says, as a
	// fit does, that it is not written (it said nothing), and the next
	// one that it is not either.
	s = New(Options{Dir: dir})
	mustRun(t, s, setup)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := &cancellingRecorder{cancel: cancel}
	if _, err := s.Execute(ctx, "extend m, iter = 100000000", cancelled); err == nil || !strings.Contains(errorText(err), "interrupted extend m") {
		t.Fatalf("the extension was not interrupted: %v", err)
	}
	if text := cancelled.text(); !strings.Contains(text, "note: the extension was interrupted, so it is not written to m.fit, which keeps the fit before it") {
		t.Errorf("the interrupted extension:\n%s", text)
	}
	if text := mustRun(t, s, "extend m, iter = 10").text(); strings.Contains(text, "wrote the extension") || !strings.Contains(text, notWritten) {
		t.Errorf("an extension of the interrupted extension:\n%s", text)
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

// TestReadFitFileStreamsTheDraws: a fit file was read whole into memory
// before its draws were decoded, so that reading a survey's fit of 50,000
// rows and 40 columns (a file of 112 MB) took the peak memory of the run
// to 323 MB (216 MB since). The draws are decoded from the file as
// they are read: the bytes allocated while a session reads the fit are
// those of what is decoded (the Result, the samplers its chains' states
// are restored into, the data's levels), 1.8 times the file's 3 MB here,
// against 2.7 times before. (Measured by the allocations, not the time;
// the test runs alone, as it is not parallel.)
func TestReadFitFileStreamsTheDraws(t *testing.T) {
	dir := t.TempDir()
	const setup = "data d = simulate(FullCopula(p = 8), n = 6000, levels = 4, seed = 4, missing = 0.1)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	const fit = "fit m, iter = 100, warmup = 20, chains = 2, seed = 1, file = \"m.fit\"\n"
	mustRun(t, New(Options{Dir: dir}), setup+fit)
	info, err := os.Stat(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, setup)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	text := mustRun(t, s, fit).text()
	runtime.ReadMemStats(&after)
	if !strings.Contains(text, "; read from m.fit") {
		t.Fatalf("the fit was not read from its file:\n%s", text)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a fit file of %d bytes allocated %d bytes", info.Size(), allocated)
	if info.Size() < 1<<20 || allocated > uint64(info.Size())*22/10 {
		t.Errorf("reading a fit file of %d bytes allocated %d bytes, want at most 2.2 times it", info.Size(), allocated)
	}
}

// TestFitFileKeepsOnlyNewDrawsOfExtensions: each extension kept in a fit
// file held all the draws of the extended fit, so that a fit extended
// twice held its first draws three times over. An extension holds only
// what the fit and the extensions before it do not (its new draws, its
// imputations, and the chains' states it ends in): the file grows by
// those, and a new session reads the fit and both extensions back, bit
// for bit. A file of format 4, whose extensions hold all their draws, is
// still read; an extension of either kind marked as the other is never
// read as it (it is sampled again, with a note).
func TestFitFileKeepsOnlyNewDrawsOfExtensions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const setup = "data d = simulate(FullCopula(p = 8), n = 200, levels = 4, seed = 4, missing = 0.05)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	const fit = "fit m, iter = 200, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	size := func() int64 {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	s1 := New(Options{Dir: dir})
	mustRun(t, s1, setup+fit)
	fitBytes, err := s1.models["m"].Fit.MarshalBinary() // with its chains' states
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int64{size()}
	var results []*inference.Result
	var whole [][]byte // each extension's bytes as format 4 kept them
	for _, more := range []int{100, 50} {
		text := mustRun(t, s1, fmt.Sprintf("extend m, iter = %d\n", more)).text()
		if !strings.Contains(text, "wrote the extension to m.fit") {
			t.Fatalf("the extension was not written:\n%s", text)
		}
		r := s1.models["m"].Fit
		b, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		results, whole, sizes = append(results, r), append(whole, b), append(sizes, size())
		// The new draws of C (8 bytes an entry), the imputations' level
		// codes (a byte each), the latent means (n × p values) and a few
		// kB of what the run did besides. The chains' states it ends in
		// (each chain's latent values and their running sums, n × p
		// values each) replace those of the fit or extension before it,
		// which are dropped: the file keeps the last one's only.
		newDraws := 2 * more * (8*r.P*r.P + len(r.Missing))
		means, states := 8*r.N*r.P, 8*2*2*r.N*r.P
		grew := sizes[len(sizes)-1] - sizes[len(sizes)-2]
		t.Logf("extend m, iter = %d: the file grew by %d bytes; new draws %d, latent means %d, states %d; the extended fit's bytes %d", more, grew, newDraws, means, states, len(b))
		if grew > int64(newDraws+means+8<<10) || grew < int64(newDraws) {
			t.Errorf("extend m, iter = %d: the file grew by %d bytes, want the %d of the new draws and imputations, the %d of the latent means and a few kB (the %d of the chains' states replacing those before)", more, grew, newDraws, means, states)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := decodeFitFile(data); err != nil || f.Format != 6 || len(f.Extensions) != 2 || !f.Extensions[0].After || !f.Extensions[1].After ||
		!f.StatesDropped || !f.Extensions[0].StatesDropped || f.Extensions[1].StatesDropped {
		t.Fatalf("the file written: %v, %+v", err, f)
	}

	// reread reads the fit and both extensions in a new session, and
	// checks they are those sampled, bit for bit.
	reread := func(t *testing.T, what string) {
		t.Helper()
		s := New(Options{Dir: dir})
		mustRun(t, s, setup+fit)
		for k, more := range []int{100, 50} {
			text := mustRun(t, s, fmt.Sprintf("extend m, iter = %d\n", more)).text()
			if !strings.Contains(text, "; read from m.fit") || strings.Contains(text, "wrote the extension") {
				t.Fatalf("%s: extension %d was not read:\n%s", what, k+1, text)
			}
			a, b := results[k], s.models["m"].Fit
			if !reflect.DeepEqual(a.C, b.C) || !reflect.DeepEqual(imputedValues(a), imputedValues(b)) || !reflect.DeepEqual(a.ZMean, b.ZMean) ||
				!reflect.DeepEqual(a.Iterations, b.Iterations) || !reflect.DeepEqual(a.Stats, b.Stats) {
				t.Errorf("%s: extension %d read back differs from the one sampled", what, k+1)
			}
		}
		// The extensions read go on as the ones sampled do.
		got := mustRun(t, s, "extend m, iter = 10\nsummary m.C\n").text()
		want := mustRun(t, New(Options{Dir: t.TempDir()}), setup+strings.Replace(fit, `, file = "m.fit"`, "", 1)+
			"extend m, iter = 100\nextend m, iter = 50\nextend m, iter = 10\nsummary m.C\n").text()
		if lastTable(got) != lastTable(want) {
			t.Errorf("%s: the extensions read, extended by sampling:\n%s\nwant the table\n%s", what, got, lastTable(want))
		}
	}
	reread(t, "format 6")

	// rewrite writes the file again with the extensions' bytes and marks
	// given, and the fit with its chains' states.
	rewrite := func(draws [][]byte, after bool) {
		t.Helper()
		f, err := decodeFitFile(data)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Extensions {
			f.Extensions[i].draws, f.Extensions[i].After, f.Extensions[i].StatesDropped = readBytes(draws[i]), after, false
		}
		f.StatesDropped = false
		if err := writeFitBytes(osFiles{}, path, f, readBytes(fitBytes)); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := decodeFitFile(data)
	var news [][]byte
	for _, e := range f.Extensions {
		news = append(news, slices.Clone([]byte(e.draws.(readBytes))))
	}
	rewrite(whole, false)
	if got, err := os.ReadFile(path); err != nil || mustDecode(t, got).Format != 4 {
		t.Fatalf("extensions of all their draws are not written in format 4 (%v)", err)
	}
	reread(t, "format 4")

	// Marked as the other kind, an extension is not read as it.
	for _, tc := range []struct {
		name  string
		draws [][]byte
		after bool
		note  string
	}{
		{"new draws marked as all", news, false, "it holds the draws of an extension only"},
		{"all draws marked as new", whole, true, "not the draws of an extension"},
	} {
		rewrite(tc.draws, tc.after)
		s := New(Options{Dir: dir})
		mustRun(t, s, setup+fit)
		text := mustRun(t, s, "extend m, iter = 100\n").text()
		if !strings.Contains(text, "holds this extension of the fit, but it cannot be read") || !strings.Contains(text, tc.note) || strings.Contains(text, "; read from m.fit") {
			t.Errorf("%s: the extension read:\n%s\nwant it sampled again, saying %q", tc.name, text, tc.note)
		}
	}
	// A file of format 4 with an extension of new draws only is refused
	// whole.
	f, _ = decodeFitFile(data)
	f.Extensions[0].draws = readBytes(news[0])
	f.Extensions = f.Extensions[:1]
	var b bytes.Buffer
	b.WriteString(fitFileMagic)
	head := *f
	head.Format, head.Result, head.ResultSize, head.StatesDropped = 4, nil, len(f.Result), false
	head.Extensions = slices.Clone(f.Extensions)
	head.Extensions[0].Size, head.Extensions[0].StatesDropped = len(news[0]), false
	if err := gob.NewEncoder(&b).Encode(&head); err != nil {
		t.Fatal(err)
	}
	b.Write(f.Result)
	b.Write(news[0])
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(b.Bytes(), castagnoli)))
	if _, err := decodeFitFile(b.Bytes()); err == nil || !strings.Contains(err.Error(), "in a fit file of format 4") {
		t.Errorf("format 4 with an extension of new draws only: %v", err)
	}
}

// mustDecode decodes the contents of a fit file.
func mustDecode(t *testing.T, data []byte) *fitFile {
	t.Helper()
	f, err := decodeFitFile(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// recordingFiles is the fileSystem of the os package, recording the
// operations on files written into place in order (the temporary file
// named "tmp"); with failSync, a file's Sync fails.
type recordingFiles struct {
	osFiles
	failSync bool
	mu       sync.Mutex
	ops      []string
}

func (r *recordingFiles) log(op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if op == "write" && len(r.ops) > 0 && r.ops[len(r.ops)-1] == op {
		return
	}
	r.ops = append(r.ops, op)
}

// short names a temporary file "tmp", and others by their base name.
func short(name string) string {
	if _, ok := temporaryOf(filepath.Base(name), "m.fit"); ok {
		return "tmp"
	}
	return filepath.Base(name)
}

func (r *recordingFiles) CreateNew(name string, perm fs.FileMode) (syncedFile, error) {
	f, err := r.osFiles.CreateNew(name, perm)
	if err != nil {
		return nil, err
	}
	r.log("create " + short(name))
	return &recordedFile{syncedFile: f, files: r}, nil
}

func (r *recordingFiles) Rename(from, to string) error {
	r.log("rename " + short(from) + " " + short(to))
	return r.osFiles.Rename(from, to)
}

func (r *recordingFiles) Remove(name string) error {
	r.log("remove " + short(name))
	return r.osFiles.Remove(name)
}

func (r *recordingFiles) SyncDir(dir string) error {
	r.log("sync dir " + filepath.Base(dir))
	return r.osFiles.SyncDir(dir)
}

// recordedFile is a file of recordingFiles.
type recordedFile struct {
	syncedFile
	files *recordingFiles
}

func (f *recordedFile) Write(p []byte) (int, error) {
	f.files.log("write")
	return f.syncedFile.Write(p)
}

func (f *recordedFile) Sync() error {
	f.files.log("sync " + short(f.Name()))
	if f.files.failSync {
		return errors.New("input/output error")
	}
	return f.syncedFile.Sync()
}

func (f *recordedFile) Close() error {
	f.files.log("close " + short(f.Name()))
	return f.syncedFile.Close()
}

// TestFitFileSyncedBeforeAndAfterItsRename: a fit file was written to a
// temporary file and renamed over the file, but neither was synced to
// disk, so that after a power cut the file renamed could be empty or
// damaged (a file system may make the rename durable before the
// contents): the checksum refused it and the fit, perhaps of hours, was
// sampled again. Every write of a fit file (the fit, an extension, compare's
// scores) now syncs the temporary file before it is renamed, and the
// directory after. A Sync that fails leaves the file as it was and no
// temporary file, and says why.
func TestFitFileSyncedBeforeAndAfterItsRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := &recordingFiles{}
	s := New(Options{Dir: dir})
	s.files = files
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	mustRun(t, s, fitFileSetup+fit)
	mustRun(t, s, "extend m, iter = 10\n")
	if err := keepScores(context.Background(), s.models["m"].kept, "k", []float64{-1}, nil); err != nil {
		t.Fatal(err)
	}
	write := []string{"create tmp", "write", "sync tmp", "close tmp", "rename tmp m.fit", "sync dir " + filepath.Base(dir)}
	want := slices.Concat(write, write, write) // the fit, the extension, the scores
	if !slices.Equal(files.ops, want) {
		t.Errorf("writing the fit, an extension and scores did\n%s\nwant\n%s", strings.Join(files.ops, "\n"), strings.Join(want, "\n"))
	}

	before, err := os.ReadFile(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	files.failSync, files.ops = true, nil
	if text := mustRun(t, s, "extend m, iter = 5\n").text(); !strings.Contains(text, "note: the extension is kept in the session but not written to m.fit: input/output error") {
		t.Errorf("an extension whose file's Sync failed:\n%s", text)
	}
	if want := []string{"create tmp", "write", "sync tmp", "close tmp", "remove tmp"}; !slices.Equal(files.ops, want) {
		t.Errorf("a write whose Sync failed did %q, want %q", files.ops, want)
	}
	if after, err := os.ReadFile(filepath.Join(dir, "m.fit")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("a write whose Sync failed changed the file (%v)", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("a write whose Sync failed left %v (%v)", entries, err)
	}
}
