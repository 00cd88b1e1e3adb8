package session

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copulang/copulang/inference"
)

// resultBytes is MarshalBinary of r: every draw, imputation, latent mean,
// statistic and chain state it holds, bit for bit, with its Elapsed set to
// elapsed (the one thing two runs of the same draws do not share).
func resultBytes(t *testing.T, r *inference.Result, elapsed bool) []byte {
	t.Helper()
	saved := r.Elapsed
	if !elapsed {
		r.Elapsed = 0
	}
	defer func() { r.Elapsed = saved }()
	b, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// statelessBytes is the encoding b of a Result without its chains'
// states (inference.WithoutStates).
func statelessBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	e, err := inference.WithoutStates(bytes.NewReader(b), int64(len(b)))
	if err != nil || e == nil {
		t.Fatalf("WithoutStates: %v, %v", e, err)
	}
	var buf bytes.Buffer
	if _, err := e.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFitFileExtensionsReadBackBitForBit: a fit extended one, two and
// three times (by iterations, by as many as it ran, to an ESS target),
// thinned, with missing cells whose imputations are kept, of a full model
// and of a factor model whose loadings are aligned anew over the longer
// chains, is read back by a new session extension after extension as it
// was sampled: every byte its Result encodes (draws, loadings,
// imputations, latent means, statistics and, of the last, the chains'
// states, which the file keeps for the last only) is the same. Extended again, the fit read back makes the draws the sampled one
// makes, and that extension, written after the ones read (each holding
// only its new draws), is read back by a third session as it was made.
func TestFitFileExtensionsReadBackBitForBit(t *testing.T) {
	t.Parallel()
	const fullSetup = fitFileSetup
	const factorSetup = "data d = simulate(FactorCopula(p = 5, k = 2), n = 150, levels = 4, seed = 2, missing = 0.05)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"
	for _, tc := range []struct {
		name, setup, fit string
		extends          []string
	}{
		{"full, thinned, once", fullSetup, "fit m, iter = 40, warmup = 20, chains = 2, thin = 2, seed = 5, file = \"m.fit\"\n",
			[]string{"extend m, iter = 30"}},
		{"full, thinned, three times", fullSetup, "fit m, iter = 40, warmup = 20, chains = 2, thin = 2, seed = 5, file = \"m.fit\"\n",
			[]string{"extend m, iter = 30", "extend m", "extend m, iter = 14"}},
		{"full, to an ess target", fullSetup, "fit m, iter = 40, warmup = 20, chains = 2, seed = 5, file = \"m.fit\"\n",
			[]string{"extend m, iter = 20", "extend m, ess = 300"}},
		{"factor px, thinned, twice", factorSetup, "fit m with px, iter = 40, warmup = 30, chains = 2, thin = 2, seed = 5, file = \"m.fit\"\n",
			[]string{"extend m, iter = 30", "extend m, iter = 20"}},
		{"factor, to an ess target", factorSetup, "fit m, iter = 40, warmup = 30, chains = 2, seed = 5, file = \"m.fit\"\n",
			[]string{"extend m", "extend m, ess = 200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s1 := New(Options{Dir: dir, Version: "1.0.0"})
			mustRun(t, s1, tc.setup+tc.fit)
			var sampled [][]byte
			for _, x := range tc.extends {
				if text := mustRun(t, s1, x+"\n").text(); !strings.Contains(text, "wrote the extension to m.fit") {
					t.Fatalf("%s was not written:\n%s", x, text)
				}
				sampled = append(sampled, resultBytes(t, s1.models["m"].Fit, true))
			}

			s2 := New(Options{Dir: dir, Version: "1.0.0"})
			mustRun(t, s2, tc.setup+tc.fit)
			for k, x := range tc.extends {
				text := mustRun(t, s2, x+"\n").text()
				if !strings.Contains(text, "; read from m.fit") || strings.Contains(text, "wrote the extension") {
					t.Fatalf("%s was not read from m.fit:\n%s", x, text)
				}
				want := sampled[k]
				if k < len(tc.extends)-1 {
					// The file keeps the chains' states of its last
					// extension only.
					want = statelessBytes(t, want)
				}
				if got := resultBytes(t, s2.models["m"].Fit, true); !bytes.Equal(got, want) {
					t.Fatalf("%s read back differs from the one sampled (%d bytes encoded, want %d)", x, len(got), len(sampled[k]))
				}
			}

			// Extended again, the fit read back goes on as one sampled in
			// a session of its own (another folder) does.
			const more = "extend m, iter = 10\n"
			ref := New(Options{Dir: t.TempDir(), Version: "1.0.0"})
			mustRun(t, ref, tc.setup+tc.fit+strings.Join(tc.extends, "\n")+"\n"+more)
			if text := mustRun(t, s2, more).text(); strings.Contains(text, "; read from m.fit") || !strings.Contains(text, "wrote the extension to m.fit") {
				t.Fatalf("the further extension was not sampled and written:\n%s", text)
			}
			want := resultBytes(t, s2.models["m"].Fit, true)
			if got := resultBytes(t, s2.models["m"].Fit, false); !bytes.Equal(got, resultBytes(t, ref.models["m"].Fit, false)) {
				t.Errorf("the fit read back, extended, differs from the fit sampled and extended")
			}

			// A third session reads every extension, the last written
			// after the ones the second session read.
			s3 := New(Options{Dir: dir, Version: "1.0.0"})
			mustRun(t, s3, tc.setup+tc.fit)
			for _, x := range append(append([]string{}, tc.extends...), strings.TrimSpace(more)) {
				if text := mustRun(t, s3, x+"\n").text(); !strings.Contains(text, "; read from m.fit") {
					t.Fatalf("%s was not read from m.fit by a third session:\n%s", x, text)
				}
			}
			if got := resultBytes(t, s3.models["m"].Fit, true); !bytes.Equal(got, want) {
				t.Errorf("the extension written after extensions read, read back, differs from the one made")
			}
		})
	}
}

// replacingRecorder writes contents to path when the fit's progress is
// first shown: after the fit has read its file, while it samples (as
// another kernel, a later copulang or the user may write the file during
// a fit of hours).
type replacingRecorder struct {
	recorder
	path     string
	contents []byte
	once     sync.Once
	err      error
}

func (r *replacingRecorder) Display(b MimeBundle, id string) {
	r.recorder.Display(b, id)
	if id != "" {
		r.once.Do(func() { r.err = os.WriteFile(r.path, r.contents, 0o644) })
	}
}

// TestFitFileWrittenMeanwhileIsKept: a fit checks its file before it
// samples, and refuses one that is not a fit file or that a later
// copulang wrote (fit will not overwrite it); but it wrote the file it
// sampled for without looking again, so that such a file written there
// while it sampled (a data file saved under that name, another kernel's
// fit of a later format, perhaps hours of sampling) was replaced in
// silence. The fit is kept in the session, and not written over it.
func TestFitFileWrittenMeanwhileIsKept(t *testing.T) {
	t.Parallel()
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, file = \"m.fit\"\n"
	// A fit file of the format after this copulang's.
	later := laterFormatFile(t, fit)

	for _, tc := range []struct {
		name     string
		contents []byte
		why      string
	}{
		{"a data file", []byte("a,b\n1,2\n"), "m.fit is not a copulang fit file, so fit will not overwrite it"},
		{"a fit file of a later format", later.Bytes(), "m.fit was written by a later copulang (copulang 9.0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "m.fit")
			s := New(Options{Dir: dir})
			mustRun(t, s, fitFileSetup)
			out := &replacingRecorder{path: path, contents: tc.contents}
			_, err := s.Execute(context.Background(), fit, out)
			if out.err != nil {
				t.Fatal(out.err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, tc.contents) {
				t.Errorf("%s written during the fit was overwritten (error %v):\n%s", tc.name, err, out.text())
			}
			if err == nil || !strings.Contains(errorText(err), "fit m is kept, but could not be written to m.fit: "+tc.why) {
				t.Errorf("the fit's error: %v, want it to say %q", err, tc.why)
			}
			if s.models["m"].Fit == nil {
				t.Error("the fit is not kept in the session")
			}
		})
	}
}

// TestFitFileOfALaterLayoutIsKept: a fit file of a format after this
// copulang's is never overwritten; but the format was read by decoding
// the whole header as this copulang's, so that a later copulang's header
// with a field of another type (its time written as text, say) failed to
// decode, and the file was called damaged, sampled again and overwritten.
// The format is read on its own.
func TestFitFileOfALaterLayoutIsKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, file = \"m.fit\"\n"
	// laterHeader is a later copulang's header: its Saved is text.
	type laterHeader struct {
		Format  int
		Version string
		Saved   string
		Draws   []byte
	}
	var later bytes.Buffer
	later.WriteString(fitFileMagic)
	if err := gob.NewEncoder(&later).Encode(laterHeader{Format: fitFileFormat + 1, Version: "copulang 9.0", Saved: "2031-01-01T00:00:00Z", Draws: []byte{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeFitFile(later.Bytes()); err == nil {
		t.Fatal("the later header decodes as this copulang's: the test needs one that does not")
	}
	if err := os.WriteFile(path, later.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("m.fit was written by a later copulang (copulang 9.0), in fit file format %d", fitFileFormat+1)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"a script", func() error {
			_, err := New(Options{Dir: dir}).Execute(context.Background(), fitFileSetup+fit, &recorder{})
			return err
		}},
		{"the fit's read", func() error {
			_, _, err := readFitFile(path, "m.fit", nil, fitOrigin{}, inference.Spec{}, nil)
			return err
		}},
		{"the fit's write", func() error { return overwritableFit(path, "m.fit") }},
	} {
		if err := tc.run(); err == nil || !strings.Contains(errorText(err), want) {
			t.Errorf("%s over a fit file of a later layout: %v, want %q", tc.name, err, want)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, later.Bytes()) {
		t.Errorf("the fit file of a later layout was changed")
	}
}

// TestFitFileWithExtensionsDamaged: a fit file of format 5 holding a fit
// and two extensions of its new draws, cut short at each boundary of its
// sections (the magic line, the header, the fit's draws, each extension's,
// the checksum) and a byte either side, or with one bit changed in each
// section, is refused, whether read from bytes or as a stream from the
// file; a session then samples the fit again and writes it, with its
// extensions, and reads nothing from the damaged file.
func TestFitFileWithExtensionsDamaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, thin = 2, seed = 3, file = \"m.fit\"\n"
	const extends = "extend m, iter = 20\nextend m, iter = 10\n"
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+extends)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, good)
	if f.Format != 6 || len(f.Extensions) != 2 {
		t.Fatalf("the file holds format %d with %d extensions, want 6 with 2", f.Format, len(f.Extensions))
	}
	// The sections' starts, and the file's end.
	start := len(good) - 4 - f.ResultSize - f.Extensions[0].Size - f.Extensions[1].Size
	bounds := []int{len(fitFileMagic), start, start + f.ResultSize, start + f.ResultSize + f.Extensions[0].Size,
		len(good) - 4, len(good)}
	refused := func(what string, data []byte) {
		t.Helper()
		if _, err := decodeFitFile(data); err == nil {
			t.Errorf("%s: decoded from bytes", what)
		}
		if _, err := decodeFitAt(bytes.NewReader(data), int64(len(data))); err == nil {
			t.Errorf("%s: decoded as a stream", what)
		}
	}
	for k := range bounds[:len(bounds)-1] {
		for _, at := range []int{bounds[k] - 1, bounds[k], bounds[k] + 1} {
			refused(fmt.Sprintf("cut at byte %d of %d", at, len(good)), good[:at])
		}
		for _, at := range []int{bounds[k], (bounds[k] + bounds[k+1]) / 2, bounds[k+1] - 1} {
			bad := bytes.Clone(good)
			bad[at] ^= 0x10
			refused(fmt.Sprintf("a bit of byte %d of section %d changed", at, k+1), bad)
		}
	}
	// A session given the extended fit's file cut before its second
	// extension's end samples the fit and writes it anew.
	if err := os.WriteFile(path, good[:len(good)-4-f.Extensions[1].Size/2], 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	text := mustRun(t, s, fitFileSetup+fit+extends).text()
	if !strings.Contains(text, "m.fit is a fit file that cannot be read") || strings.Contains(text, "; read from m.fit") {
		t.Errorf("a fit file cut short in its second extension:\n%s", text)
	}
	if again, err := os.ReadFile(path); err != nil || mustDecode(t, again).Format != 6 || len(mustDecode(t, again).Extensions) != 2 {
		t.Errorf("the file written again does not hold the fit and both extensions (%v)", err)
	}
}

// TestFitFileExtensionOfAnotherFitIsSampledAgain: an extension that holds
// only its new draws is read after the fit before it, from which it takes
// its first draws. In a file whose fit is not the one the extension was
// encoded after (the same settings, other draws: here two draws of a chain
// swapped, the file's checksums made anew), it is not read, which would
// join one fit's draws to another's: it is sampled again from the fit the
// file holds, replacing it, and a new session reads that one.
func TestFitFileExtensionOfAnotherFitIsSampledAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	const extend = "extend m, iter = 20\n"
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+extend)
	// The fit as sampled, with its chains' states, which the file, holding
	// an extension, keeps for that extension only.
	s0 := New(Options{Dir: t.TempDir()})
	mustRun(t, s0, fitFileSetup+fit)
	other := s0.models["m"].Fit
	other.C[0][0], other.C[0][1] = other.C[0][1], other.C[0][0]
	b, err := other.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, data)
	f.StatesDropped = false
	if err := writeFitBytes(osFiles{}, path, f, readBytes(b)); err != nil {
		t.Fatal(err)
	}

	s := New(Options{Dir: dir})
	if text := mustRun(t, s, fitFileSetup+fit).text(); !strings.Contains(text, "; read from m.fit") {
		t.Fatalf("the other fit was not read:\n%s", text)
	}
	text := mustRun(t, s, extend).text()
	if !strings.Contains(text, "holds this extension of the fit, but it cannot be read (inference: reading an extension: it continues another result than the one it is read after): extending again and replacing it") ||
		!strings.Contains(text, "wrote the extension to m.fit") {
		t.Fatalf("the extension of another fit:\n%s", text)
	}
	if got := s.models["m"].Fit.C[0][1]; !slices.Equal(got, other.C[0][1]) {
		t.Errorf("the extension sampled again does not begin with the draws of the fit the file holds")
	}
	want := resultBytes(t, s.models["m"].Fit, true)
	s2 := New(Options{Dir: dir})
	mustRun(t, s2, fitFileSetup+fit)
	if text := mustRun(t, s2, extend).text(); !strings.Contains(text, "; read from m.fit") || strings.Contains(text, "cannot be read") {
		t.Fatalf("the extension written again was not read:\n%s", text)
	}
	if !bytes.Equal(resultBytes(t, s2.models["m"].Fit, true), want) {
		t.Errorf("the extension written again, read back, differs from the one made")
	}
}

// TestKeepScoresWhileExtending: compare's scores and extend's extensions
// are both written by reading the fit file and writing it anew, each
// under the lock of its directory. Writers of scores running while a
// session extends the fit twice (each extension copying the draws of the
// file it reads into the one it writes) lose neither the scores nor the
// extensions, and a new session reads the extensions bit for bit.
func TestKeepScoresWhileExtending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	const extends = "extend m, iter = 20\nextend m, iter = 10\n"
	s := New(Options{Dir: dir})
	mustRun(t, s, fitFileSetup+fit)
	kf := s.models["m"].kept
	if kf == nil {
		t.Fatal("the fit is not kept in m.fit")
	}
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+1)
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
	var text string
	wg.Add(1)
	go func() {
		defer wg.Done()
		out := &recorder{}
		if _, err := s.Execute(context.Background(), extends, out); err != nil {
			errs <- err
		}
		text = out.text()
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if strings.Count(text, "wrote the extension to m.fit") != 2 {
		t.Fatalf("the extensions were not both written:\n%s", text)
	}
	data, err := os.ReadFile(kf.path)
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, data)
	if len(f.Scores) != writers*each || len(f.Extensions) != 2 {
		t.Errorf("the file holds %d scores and %d extensions, want %d and 2", len(f.Scores), len(f.Extensions), writers*each)
	}
	s2 := New(Options{Dir: dir})
	mustRun(t, s2, fitFileSetup+fit)
	if text := mustRun(t, s2, extends).text(); strings.Count(text, "; read from m.fit") != 2 {
		t.Fatalf("the extensions were not read:\n%s", text)
	}
	if !bytes.Equal(resultBytes(t, s2.models["m"].Fit, true), resultBytes(t, s.models["m"].Fit, true)) {
		t.Errorf("the extensions read back differ from those made")
	}
}

// TestFitFileOfAnEarlierFormatExtended: a fit read from a file of format
// 1, 2 or 3 and extended is written with its extension in format 6, its
// draws as they were but for the chains' states, which the extension
// keeps; a new session reads the fit and the extension bit
// for bit, and compare's scores added to it keep both.
func TestFitFileOfAnEarlierFormatExtended(t *testing.T) {
	t.Parallel()
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	const extend = "extend m, iter = 20\n"
	src := t.TempDir()
	mustRun(t, New(Options{Dir: src}), fitFileSetup+fit)
	data, err := os.ReadFile(filepath.Join(src, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	three := mustDecode(t, data)
	for _, format := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("format ", format), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "m.fit")
			file := data
			var b bytes.Buffer
			b.WriteString(fitFileMagic)
			head := *three
			head.Format, head.Result = format, nil
			if format == 1 {
				head.Result, head.ResultSize = three.Result, 0
			}
			if format < 3 {
				if err := gob.NewEncoder(&b).Encode(&head); err != nil {
					t.Fatal(err)
				}
				if format == 2 {
					b.Write(three.Result)
				}
				file = b.Bytes()
			}
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			s := New(Options{Dir: dir})
			if text := mustRun(t, s, fitFileSetup+fit).text(); !strings.Contains(text, "; read from m.fit") {
				t.Fatalf("the fit of format %d was not read:\n%s", format, text)
			}
			if text := mustRun(t, s, extend).text(); !strings.Contains(text, "wrote the extension to m.fit") {
				t.Fatalf("the extension was not written:\n%s", text)
			}
			want := resultBytes(t, s.models["m"].Fit, true)
			if err := keepScores(context.Background(), s.models["m"].kept, "k", []float64{-1}, nil); err != nil {
				t.Fatal(err)
			}
			written, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f := mustDecode(t, written); f.Format != 6 || len(f.Extensions) != 1 || len(f.Scores) != 1 || !f.StatesDropped || !bytes.Equal(f.Result, statelessBytes(t, three.Result)) {
				t.Fatalf("the file written: format %d, %d extensions, %d scores, the fit's draws kept without its chains' states: %v", f.Format, len(f.Extensions), len(f.Scores), f.StatesDropped && bytes.Equal(f.Result, statelessBytes(t, three.Result)))
			}
			s2 := New(Options{Dir: dir})
			mustRun(t, s2, fitFileSetup+fit)
			if text := mustRun(t, s2, extend).text(); !strings.Contains(text, "; read from m.fit") {
				t.Fatalf("the extension was not read:\n%s", text)
			}
			if !bytes.Equal(resultBytes(t, s2.models["m"].Fit, true), want) {
				t.Errorf("the extension read back differs from the one made")
			}
		})
	}
}

// TestHostileLengthsAllocateLittle: a fit file is read as a stream, so a
// length it gives is bounded by the bytes that are there before anything
// is allocated for it: a header, or a fit's draws, whose gob says a
// message of 4 GB follows, in a file of a few bytes, is refused having
// allocated at most gob's first chunk of such a message (10 MB, which it
// grows only as the message's bytes come), not 4 GB. (Measured by the
// allocations; the test is not parallel, so runs alone.)
func TestHostileLengthsAllocateLittle(t *testing.T) {
	// A gob message count of 2³² (gob's unsigned integer: the negated
	// byte count, then the bytes, big-endian), and a few bytes.
	huge := []byte{0xfb, 0x01, 0x00, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 7, 8}
	spec := inference.Spec{Columns: [][]float64{{1, 2, 1, 2}, {2, 1, 1, 2}}, Chains: 1, Iter: 1, Thin: 1}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"header", func() error {
			_, err := decodeFitFile(append([]byte(fitFileMagic), huge...))
			return err
		}},
		{"draws", func() error {
			_, err := readDraws(readBytes(huge), spec, nil)
			return err
		}},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := tc.read()
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: a message of 4 GB in %d bytes was read", tc.name, len(huge))
		}
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: refusing a message of 4 GB in %d bytes allocated %d bytes", tc.name, len(huge), allocated)
		if allocated > 16<<20 {
			t.Errorf("%s: refusing a message of 4 GB in %d bytes allocated %d bytes", tc.name, len(huge), allocated)
		}
	}
}

// TestFitFileExtensionEditedMakesTheChainsAgain: a fit file keeps the
// chains' states of its last extension only, so a notebook whose second
// extend statement was edited reads the fit and the first extension,
// which have no chains to continue: the fit is sampled again to the first
// extension's end, its draws are found the same, and the edited extension
// continues those chains as a session that sampled it all does, bit for
// bit (chain states included), and is written in place of the file's
// second, which a new session reads. A fit that cannot be made again (its
// draws, two swapped here, are not what this copulang samples) is an
// error that says what to do, and the file is kept.
func TestFitFileExtensionEditedMakesTheChainsAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, thin = 2, seed = 3, file = \"m.fit\"\n"
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+"extend m, iter = 20\nextend m, iter = 10\n")
	s := New(Options{Dir: dir})
	mustRun(t, s, fitFileSetup+fit+"extend m, iter = 20\n")
	text := mustRun(t, s, "extend m, iter = 16\n").text()
	for _, want := range []string{
		"note: m.fit holds another extension of this fit (`extend m, iter = 10`; this one is `extend m, iter = 16`): extending and replacing it",
		"note: m.fit keeps the chains' states of its last extension only, and this fit, read from it, is not that one: sampling its 70 iterations per chain again to continue them",
		"wrote the extension to m.fit",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("the edited extension says:\n%s\nwant %q", text, want)
		}
	}
	ref := New(Options{Dir: t.TempDir()})
	mustRun(t, ref, fitFileSetup+fit+"extend m, iter = 20\nextend m, iter = 16\n")
	if !bytes.Equal(resultBytes(t, s.models["m"].Fit, false), resultBytes(t, ref.models["m"].Fit, false)) {
		t.Errorf("the edited extension of chains made again differs from the one sampled in a session of its own")
	}
	want := resultBytes(t, s.models["m"].Fit, true)
	s2 := New(Options{Dir: dir})
	mustRun(t, s2, fitFileSetup+fit+"extend m, iter = 20\n")
	if text := mustRun(t, s2, "extend m, iter = 16\n").text(); !strings.Contains(text, "; read from m.fit") {
		t.Fatalf("the edited extension was not read back:\n%s", text)
	}
	if !bytes.Equal(resultBytes(t, s2.models["m"].Fit, true), want) {
		t.Errorf("the edited extension read back differs from the one made")
	}

	// The fit the file holds, two of its draws swapped (checksums made
	// anew): its extension is not read after it, and it cannot be made
	// again to be extended.
	s0 := New(Options{Dir: dir})
	mustRun(t, s0, fitFileSetup+fit)
	other := s0.models["m"].Fit
	other.C[0][0], other.C[0][1] = other.C[0][1], other.C[0][0]
	b, err := other.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, data)
	if !f.StatesDropped {
		t.Fatal("the file keeps the chains' states of the fit")
	}
	if err := writeFitBytes(osFiles{}, path, f, readBytes(b)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s3 := New(Options{Dir: dir})
	mustRun(t, s3, fitFileSetup+fit)
	_, err = s3.Execute(context.Background(), "extend m, iter = 20\n", &recorder{})
	if err == nil || !strings.Contains(err.Error(), "chain 1's draw 1 of C differs; the fit keeps its draws, as read from m.fit") ||
		!strings.Contains(err.Error(), "remove m.fit, or name another file, to fit m again and extend it so") {
		t.Errorf("a fit that cannot be made again, extended: %v", err)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the file was changed (%v)", err)
	}
}

// TestFitFileExtensionReplacedMeanwhileIsNotBuiltOn: a session that
// wrote (or read) an extension of the fit its file keeps writes the next
// after it, having checked that the file still holds that extension. The
// check compared the statements only, so that when another writer had
// replaced the extension meanwhile by one of the same statement and other
// draws (another copulang's sampler; here two of its draws swapped), the
// next was written after it, promising a read that a new session could not
// make (it continues other draws: sampled again). It is now kept in the
// session only, and says why; the same extension written again with the
// same draws (another kernel running the same notebook) is built on as
// before.
func TestFitFileExtensionReplacedMeanwhileIsNotBuiltOn(t *testing.T) {
	t.Parallel()
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, seed = 3, file = \"m.fit\"\n"
	const extend = "extend m, iter = 20\n"
	for _, tc := range []struct {
		name    string
		swapped bool
	}{{"the same draws", false}, {"other draws", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "m.fit")
			s := New(Options{Dir: dir})
			mustRun(t, s, fitFileSetup+fit)
			fit0 := s.models["m"].Fit
			mustRun(t, s, extend)
			// Another writer's extension of the same statement, written
			// a second later.
			ext := s.models["m"].Fit
			n := len(ext.C[0])
			if tc.swapped {
				ext.C[0][n-1], ext.C[0][n-2] = ext.C[0][n-2], ext.C[0][n-1]
			}
			enc, err := ext.EncodeAfter(fit0)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := enc.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			digest := drawsDigest(ext)
			if tc.swapped {
				ext.C[0][n-1], ext.C[0][n-2] = ext.C[0][n-2], ext.C[0][n-1]
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := mustDecode(t, data)
			f.Extensions[0].draws = readBytes(b.Bytes())
			f.Extensions[0].Saved = f.Extensions[0].Saved.Add(time.Second)
			f.Extensions[0].Draws = digest
			if err := writeFitBytes(osFiles{}, path, f, f.draws); err != nil {
				t.Fatal(err)
			}

			text := mustRun(t, s, "extend m, iter = 10\n").text()
			wrote := strings.Contains(text, "wrote the extension to m.fit")
			if tc.swapped && (wrote || !strings.Contains(text, "note: the extension is kept in the session but not written to m.fit: it holds another extension of the fit now")) {
				t.Errorf("an extension after one the file no longer holds:\n%s", text)
			}
			if !tc.swapped && !wrote {
				t.Errorf("an extension after the same one written again:\n%s", text)
			}
			if !wrote {
				return
			}
			s2 := New(Options{Dir: dir})
			mustRun(t, s2, fitFileSetup+fit+extend)
			if text := mustRun(t, s2, "extend m, iter = 10\n").text(); !strings.Contains(text, "; read from m.fit") {
				t.Errorf("the extension written was not read back:\n%s", text)
			}
		})
	}
}
