package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
// write; the test runs alone, as it is not parallel.)
func TestWriteFitFileStreamsTheDraws(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 8), n = 2000, levels = 4, seed = 4, missing = 0.1)\n"+
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
	if info.Size() < 1<<20 || allocated > uint64(info.Size())/4 {
		t.Errorf("writing a fit file of %d bytes allocated %d bytes, want at most a quarter of it", info.Size(), allocated)
	}
}
