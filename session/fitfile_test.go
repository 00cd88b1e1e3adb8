package session

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/inference"
)

// fitFileSetup declares a simulated data set with missing cells and a
// model of it.
const fitFileSetup = "data d = simulate(FullCopula(p = 3), n = 120, levels = 3, seed = 4, missing = 0.05)\n" +
	"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"

// TestFitFile checks fit's file setting across sessions (a kernel
// restart): the first fit samples and writes the file; a new session's
// identical fit reads it instead — the same summaries and imputations, bit
// for bit, and no sampling — and says so; the fit read back extends as the
// first one does; a fit with other settings, data or model samples again
// and overwrites the file.
func TestFitFile(t *testing.T) {
	dir := t.TempDir()
	const fit = "fit m, iter = 80, warmup = 40, chains = 2, seed = 3, file = \"m.fit\"\n"
	const after = "summary m.C\nimpute m\n"
	firstSession := New(Options{Dir: dir})
	first := mustRun(t, firstSession, fitFileSetup+fit+after)
	if text := first.text(); !strings.Contains(text, "wrote the fit to m.fit") {
		t.Fatalf("the first fit does not say it wrote the file:\n%s", text)
	}
	info, err := os.Stat(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}

	again := New(Options{Dir: dir})
	second := mustRun(t, again, fitFileSetup+fit+after)
	text := second.text()
	if !strings.Contains(text, "; read from m.fit (written ") || strings.Contains(text, "wrote the fit") {
		t.Errorf("the second fit does not say it read the file (or wrote it again):\n%s", text)
	}
	if strings.Contains(text, "starting") || strings.Contains(text, "iterations (0%)") {
		t.Errorf("the second fit showed sampling progress:\n%s", text)
	}
	if got, want := afterReport(text), afterReport(first.text()); got != want || got == "" {
		t.Errorf("summary and imputations read back:\n%s\nwant those of the fit:\n%s", got, want)
	}
	if now, _ := os.Stat(filepath.Join(dir, "m.fit")); !now.ModTime().Equal(info.ModTime()) {
		t.Error("reading the fit rewrote its file")
	}
	if show := mustRun(t, again, "show m").text(); !strings.Contains(show, "; read from m.fit") {
		t.Errorf("show m does not say where its fit was read from:\n%s", show)
	}
	const extend = "extend m, iter = 40\nsummary m.C\nimpute m\n"
	want := afterReport(mustRun(t, firstSession, extend).text())
	if got := afterReport(mustRun(t, again, extend).text()); got != want || got == "" {
		t.Errorf("extending the fit read back:\n%s\nwant as extending the fit:\n%s", got, want)
	}
	a, b := firstSession.models["m"].Fit, again.models["m"].Fit
	if !reflect.DeepEqual(a.C, b.C) || !reflect.DeepEqual(imputedValues(a), imputedValues(b)) || !reflect.DeepEqual(a.ZMean, b.ZMean) {
		t.Error("the draws of the fit read back and extended differ from those of the fit extended")
	}

	for _, tc := range []struct{ name, code, why string }{
		{"settings", fitFileSetup + strings.Replace(fit, "iter = 80", "iter = 90", 1), "other settings (iter = 80; this fit asks iter = 90)"},
		{"data", strings.Replace(fitFileSetup, "seed = 4", "seed = 5", 1) + fit, "other data (other values of Y1, Y2 and Y3)"},
		{"a column fewer", strings.Replace(fitFileSetup, "Y = d;", "Y = d[Y1, Y3];", 1) + fit, "other data (with Y2, which this fit's data lack)"},
		{"columns in another order", strings.Replace(fitFileSetup, "Y = d;", "Y = d[Y2, Y1, Y3];", 1) + fit, "other data (the same columns in another order)"},
		{"fewer rows", strings.Replace(fitFileSetup, "n = 120", "n = 110", 1) + fit, "other data (120 rows; this fit's data have 110)"},
		{"model", strings.Replace(fitFileSetup, "df = p + 2", "df = p + 3", 1) + fit, "another model (Gaussian copula, full correlation, inverse-Wishart(df = 5) prior; this fit asks Gaussian copula, full correlation, inverse-Wishart(df = 6) prior)"},
		{"model of the same kind", strings.Replace(fitFileSetup, "C ~ InverseWishart(df = p + 2)", "C ~ InverseWishart(df = p + 2, scale = 2)", 1) + fit, "another model (its prior or factors differ)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit) // the file holds the first fit again
			text := mustRun(t, New(Options{Dir: dir}), tc.code).text()
			if !strings.Contains(text, "note: m.fit holds a fit of "+tc.why+": fitting again and overwriting it") || !strings.Contains(text, "wrote the fit to m.fit") {
				t.Errorf("a fit of %s:\n%s", tc.name, text)
			}
		})
	}

	// A file written before it described its data and model says only
	// that they differ.
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit)
	data, err := os.ReadFile(filepath.Join(dir, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeFitFile(data)
	if err != nil {
		t.Fatal(err)
	}
	f.DataColumns, f.DataRows, f.DataColumnSums, f.ModelKind = nil, 0, nil, ""
	if err := writeFitBytes(osFiles{}, filepath.Join(dir, "m.fit"), f, readBytes(f.Result)); err != nil {
		t.Fatal(err)
	}
	if text := mustRun(t, New(Options{Dir: dir}), strings.Replace(fitFileSetup, "Y = d;", "Y = d[Y1, Y3];", 1)+fit).text(); !strings.Contains(text, "note: m.fit holds a fit of other data: fitting again") {
		t.Errorf("a fit of other data than an older file's:\n%s", text)
	}
}

// TestFitFileFormats: a fit file is written in format 3 (the fit's
// settings, then its draws as they are, then the checksum of both) and read
// back; files of format 2 (without the checksum) and 1 (the draws inside
// the gob), as copulang wrote before, are read as well and give the same
// output; a file cut short is damaged, said so and written again.
func TestFitFileFormats(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 40, warmup = 20, chains = 2, file = \"m.fit\"\n"
	const after = "summary m.C\nimpute m\n"
	want := afterReport(mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+after).text())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeFitFile(data)
	if err != nil || f.Format != 3 || f.ResultSize != len(f.Result) || !bytes.HasSuffix(data[:len(data)-4], f.Result) || f.ResultSize < 1000 {
		t.Fatalf("the file written: format %d, %d bytes of draws said, %d read, error %v", f.Format, f.ResultSize, len(f.Result), err)
	}

	var two bytes.Buffer
	two.WriteString(fitFileMagic)
	head := *f
	head.Format, head.Result = 2, nil
	if err := gob.NewEncoder(&two).Encode(&head); err != nil {
		t.Fatal(err)
	}
	two.Write(f.Result)
	if err := os.WriteFile(path, two.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if text := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+after).text(); !strings.Contains(text, "; read from m.fit") || afterReport(text) != want {
		t.Errorf("a fit file of format 2:\n%s\nwant it read, showing\n%s", text, want)
	}

	var old bytes.Buffer
	old.WriteString(fitFileMagic)
	f.Format, f.ResultSize = 1, 0
	if err := gob.NewEncoder(&old).Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	text := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+after).text()
	if !strings.Contains(text, "; read from m.fit") || afterReport(text) != want {
		t.Errorf("a fit file of format 1:\n%s\nwant it read, showing\n%s", text, want)
	}

	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	text = mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit).text()
	why := "m.fit is a fit file that cannot be read (its checksum does not match its contents: the file was damaged or edited)"
	if !strings.Contains(text, why) || !strings.Contains(text, "wrote the fit to m.fit") {
		t.Errorf("a fit file cut short:\n%s\nwant it to say %q and write the fit again", text, why)
	}
}

// TestFitFileChecksum: most one-bit changes of a fit file's draws gave
// draws that its checks accept (34 of 61 tried), so that a damaged file was
// read as the fit written, and a change of its header's report text or
// time written was read as written. The file ends with a checksum of all
// of it: every such change is found, said, and the fit sampled again. A
// file of format 2 carries a checksum of its draws and scores only, which
// finds edited scores; one written before that is read without it.
func TestFitFileChecksum(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 40, warmup = 20, chains = 2, file = \"m.fit\"\n"
	want := afterReport(mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+"summary m.C\n").text())
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeFitFile(good)
	if err != nil || !strings.HasPrefix(f.Sum, "crc32c ") {
		t.Fatalf("the file's checksum %q, error %v", f.Sum, err)
	}
	for at := len(good) - f.ResultSize; at < len(good); at += f.ResultSize / 40 {
		bad := slices.Clone(good)
		bad[at] ^= 1
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		text := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit).text()
		if !strings.Contains(text, "m.fit is a fit file that cannot be read (its checksum does not match its contents: the file was damaged or edited): fitting again") {
			t.Fatalf("a bit of the draws changed at byte %d of %d:\n%s", at, len(good), text)
		}
	}
	// Every one-bit change of the header is found, or changes nothing
	// that is read (a bit of gob's type descriptions may not): a change of
	// the report's text or of the time written was read as written.
	head := len(good) - f.ResultSize
	changed := 0
	for at := len(fitFileMagic); at < head; at++ {
		for bit := range 8 {
			bad := slices.Clone(good)
			bad[at] ^= 1 << bit
			g, err := decodeFitFile(bad)
			if err != nil || !readableFormat(g.Format) {
				continue
			}
			if !g.Saved.Equal(f.Saved) || !reflect.DeepEqual(withSaved(g, f.Saved), f) {
				if changed++; changed <= 3 {
					t.Errorf("bit %d of byte %d of %d (the header) changed what is read: %s, want an error or %s", bit, at, head, headerText(g), headerText(f))
				}
			}
		}
	}
	// encode is a file of f's header, with sum, and draws.
	encode := func(f *fitFile, sum string) []byte {
		var b bytes.Buffer
		b.WriteString(fitFileMagic)
		head := *f
		head.Format, head.Result, head.Sum = 2, nil, sum
		if err := gob.NewEncoder(&b).Encode(&head); err != nil {
			t.Fatal(err)
		}
		b.Write(f.Result)
		return b.Bytes()
	}
	// Edited scores are found too.
	f.Scores = []fileScore{{Key: "k", LP: []float64{-1.5, -2}}}
	sum, err := fitSum(f, readBytes(f.Result))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeFitFile(encode(f, sum)); err != nil {
		t.Fatal(err)
	}
	f.Scores[0].LP[0] = -1.25
	if _, err := decodeFitFile(encode(f, sum)); err == nil {
		t.Error("a file with an edited score was read")
	}
	// A file of before the checksum is read as it was.
	f.Scores = nil
	if err := os.WriteFile(path, encode(f, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	text := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit+"summary m.C\n").text()
	if !strings.Contains(text, "; read from m.fit") || afterReport(text) != want {
		t.Errorf("a fit file without a checksum:\n%s\nwant it read, showing\n%s", text, want)
	}
}

// headerText prints f's header, without its draws.
func headerText(f *fitFile) string {
	g := *f
	g.Result = nil
	return fmt.Sprintf("%+v", g)
}

// withSaved is a copy of f with its time written set to saved (times equal
// as instants compare unequal when their locations differ).
func withSaved(f *fitFile, saved time.Time) *fitFile {
	g := *f
	g.Saved = saved
	return &g
}

// afterReport is a cell's output from the summary's table on.
func afterReport(text string) string { return fromOffset(text, strings.Index(text, "param ")) }

// TestFitFileRefuses checks that fit never reads or overwrites a file that
// is not a fit file, rewrites a damaged fit file after saying so, and does
// not write an interrupted fit.
func TestFitFileRefuses(t *testing.T) {
	dir := t.TempDir()
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, file = \"m.fit\""
	csv := filepath.Join(dir, "m.fit")
	if err := os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, fitFileSetup)
	_, err := s.Execute(context.Background(), fit, &recorder{})
	if err == nil || !strings.Contains(errorText(err), "m.fit is not a copulang fit file, so fit will not overwrite it") {
		t.Errorf("fit over a CSV file: %v", err)
	}
	if b, _ := os.ReadFile(csv); string(b) != "a,b\n1,2\n" {
		t.Errorf("the CSV file was changed: %q", b)
	}

	if err := os.WriteFile(csv, []byte(fitFileMagic+"garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := mustRun(t, s, fit).text()
	if !strings.Contains(text, "m.fit is a fit file that cannot be read") || !strings.Contains(text, "wrote the fit to m.fit") {
		t.Errorf("fit over a damaged fit file:\n%s", text)
	}

	// An interrupted fit is kept but not written.
	if err := os.Remove(csv); err != nil {
		t.Fatal(err)
	}
	rec := &interruptingRecorder{s: s}
	if _, err := s.Execute(context.Background(), "fit m, iter = 100000000, warmup = 10, chains = 2, file = \"m.fit\"", rec); err != nil {
		t.Fatalf("cell failed after InterruptFit: %v", err)
	}
	if _, err := os.Stat(csv); err == nil || !strings.Contains(rec.text(), "note: the fit was interrupted, so it is not written to m.fit") {
		t.Errorf("an interrupted fit: file %v, output:\n%s", err, rec.text())
	}
}

// TestFitFileOfALaterFormatIsKept: a fit file of a format after this
// copulang's was written by a later one, perhaps after hours of sampling.
// It was fitted again and overwritten ("fitting again and overwriting
// it"); now the script is refused before its first statement runs, and the
// file is left as it was.
func TestFitFileOfALaterFormatIsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.fit")
	const fit = "fit m, iter = 30, warmup = 20, chains = 2, file = \"m.fit\"\n"
	later := laterFormatFile(t, fit)
	if err := os.WriteFile(path, later.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	_, err := New(Options{Dir: dir}).Execute(context.Background(), "print \"before\"\n"+fitFileSetup+fit, rec)
	want := fmt.Sprintf("m.fit was written by a later copulang (copulang 9.0), in fit file format %d, and this one reads formats 1 to %d, so fit will not overwrite it", fitFileFormat+1, fitFileFormat)
	if err == nil || !strings.Contains(errorText(err), want) {
		t.Errorf("a fit over a file of a later format: error %v, want %q", err, want)
	}
	if strings.Contains(rec.text(), "before") {
		t.Errorf("the statements before the fit ran:\n%s", rec.text())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, later.Bytes()) {
		t.Errorf("the file of a later format was changed")
	}
}

// laterFormatFile returns the fit file that the fit statement fit writes
// (of fitFileSetup's model, in a directory of its own), as a later
// copulang would write it: of the format after this one's, written by
// "copulang 9.0".
func laterFormatFile(t *testing.T, fit string) *bytes.Buffer {
	t.Helper()
	src := t.TempDir()
	mustRun(t, New(Options{Dir: src}), fitFileSetup+fit)
	data, err := os.ReadFile(filepath.Join(src, "m.fit"))
	if err != nil {
		t.Fatal(err)
	}
	f := mustDecode(t, data)
	var later bytes.Buffer
	later.WriteString(fitFileMagic)
	head := *f
	head.Format, head.Result, head.Version = fitFileFormat+1, nil, "copulang 9.0"
	if err := gob.NewEncoder(&later).Encode(&head); err != nil {
		t.Fatal(err)
	}
	later.Write(f.Result)
	return &later
}

// TestFitFileESS checks that a fit with an ESS target is read back with
// how its target went.
func TestFitFileESS(t *testing.T) {
	dir := t.TempDir()
	const fit = "fit m, iter = 100, warmup = 50, chains = 2, seed = 1, ess = 200, file = \"m.fit\""
	first := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit).text()
	second := mustRun(t, New(Options{Dir: dir}), fitFileSetup+fit).text()
	i := strings.Index(first, "fit m with")
	j := strings.Index(second, "fit m with")
	if i < 0 || j < 0 {
		t.Fatalf("no report:\n%s\n%s", first, second)
	}
	head := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
	// The read-back headline is the fit's, with where it was read from.
	if a, b := head(first[i:]), head(second[j:]); !strings.HasPrefix(b, a[:strings.Index(a, " in ")]) || !strings.Contains(b, "until the least ESS of C reached 200") || !strings.Contains(b, "; read from m.fit") {
		t.Errorf("headline read back:\n%s\nthe fit's:\n%s", b, a)
	}
}

// TestFitFileFactor checks that a factor model's fit reads back bit for
// bit, its aligned loadings included.
func TestFitFileFactor(t *testing.T) {
	dir := t.TempDir()
	const code = "data d = simulate(FactorCopula(p = 5, k = 2), n = 150, levels = 4, seed = 2)\n" +
		"model fm { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n" +
		"fit fm, iter = 60, chains = 2, file = \"fm.fit\"\nsummary fm.Lambda\nsummary fm.C\n"
	s1, s2 := New(Options{Dir: dir}), New(Options{Dir: dir})
	first := mustRun(t, s1, code).text()
	second := mustRun(t, s2, code).text()
	if !strings.Contains(second, "; read from fm.fit") {
		t.Fatalf("the second fit was not read:\n%s", second)
	}
	if !reflect.DeepEqual(s1.models["fm"].Fit.Lambda, s2.models["fm"].Fit.Lambda) {
		t.Error("the aligned loadings read back differ from those written")
	}
	if a, b := afterReport(first), afterReport(second); a != b || a == "" {
		t.Errorf("loadings and C read back:\n%s\nwant:\n%s", b, a)
	}
}

// TestFitFileKeepsScores checks that compare keeps a model's scores in its
// fit file, where a new session's compare of the same cells reads them
// instead of refitting it, giving the same table; that a fit sampled again
// with the same settings writes the scores the session kept; and that
// scores are not written into a file that another session has filled with
// another fit meanwhile.
func TestFitFileKeepsScores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const setup = fitFileSetup + "model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n" +
		"fit m2, iter = 60, warmup = 40, chains = 2, seed = 3\n"
	const fit = "fit m, iter = 60, warmup = 40, chains = 2, seed = 3, file = \"m.fit\"\n"
	const compare = "compare m, m2, holdout = 0.2, seed = 2"
	s1 := New(Options{Dir: dir})
	mustRun(t, s1, setup+fit)
	first := mustRun(t, s1, compare)
	if !strings.Contains(first.text(), "note: kept the scores of m in m.fit") {
		t.Fatalf("compare did not keep m's scores in its file:\n%s", first.text())
	}
	s2 := New(Options{Dir: dir})
	mustRun(t, s2, setup+fit)
	second := mustRun(t, s2, compare)
	if !strings.Contains(second.text(), "settings: m (read from m.fit))") || strings.Contains(second.text(), "refitting m (") {
		t.Errorf("a new session's compare did not read m's scores from its file:\n%s", second.text())
	}
	if a, b := tableRows(t, first, "model"), tableRows(t, second, "model"); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("compare with m's scores read back: %v, want %v", b, a)
	}

	// The file is removed; m is fitted again with the same settings: the
	// scores s2 holds for them go into the new file.
	if err := os.Remove(filepath.Join(dir, "m.fit")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s2, fit)
	s3 := New(Options{Dir: dir})
	mustRun(t, s3, setup+fit)
	if third := mustRun(t, s3, compare).text(); !strings.Contains(third, "(read from m.fit)") {
		t.Errorf("the file written after a compare lacks its scores:\n%s", third)
	}

	// Another session writes another fit of m to the file: s3's scores of
	// other cells are not added to it.
	mustRun(t, New(Options{Dir: dir}), fitFileSetup+strings.Replace(fit, "seed = 3", "seed = 4", 1))
	if out := mustRun(t, s3, "compare m, m2, holdout = 0.2, seed = 9").text(); !strings.Contains(out, "note: the scores of m are not kept in m.fit: it holds another fit now") {
		t.Errorf("compare wrote into a file that holds another fit now:\n%s", out)
	}
}

// TestFitFileKeepsScoresOfAnExtendedFit: compare of a fit read from its
// file and extended (a notebook's fit, extend and compare cells) keeps its
// scores in that file too, keyed by the extended fit's settings, so that
// the notebook run again (a new session reads the fit and extends it the
// same way) compares without refitting it. Compare refitted it at every
// run: the extension dropped the file, where the scores had nowhere to go.
func TestFitFileKeepsScoresOfAnExtendedFit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const setup = fitFileSetup + "model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n" +
		"fit m2, iter = 60, warmup = 40, chains = 2, seed = 3\n"
	const fit = "fit m, iter = 60, warmup = 40, chains = 2, seed = 3, file = \"m.fit\"\nextend m, iter = 30\n"
	const compare = "compare m, m2, holdout = 0.2, seed = 2"
	s1 := New(Options{Dir: dir})
	mustRun(t, s1, setup+fit)
	first := mustRun(t, s1, compare)
	if !strings.Contains(first.text(), "note: kept the scores of m in m.fit, where a later compare of the same cells, after the same extension, reads them") {
		t.Fatalf("compare did not keep the extended m's scores in its file:\n%s", first.text())
	}
	s2 := New(Options{Dir: dir})
	read := mustRun(t, s2, setup+fit).text()
	if !strings.Contains(read, "; read from m.fit") {
		t.Fatalf("the fit was not read back from its file after compare kept scores in it:\n%s", read)
	}
	second := mustRun(t, s2, compare)
	if !strings.Contains(second.text(), "settings: m (read from m.fit))") || strings.Contains(second.text(), "refitting m (") {
		t.Errorf("a new session's compare of the fit extended again did not read m's scores from its file:\n%s", second.text())
	}
	if a, b := tableRows(t, first, "model"), tableRows(t, second, "model"); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("compare with the extended m's scores read back: %v, want %v", b, a)
	}
	// Without the extension the refits' settings differ (iter = 60, not
	// 90): the scores read are not those, and m is refitted.
	s3 := New(Options{Dir: dir})
	mustRun(t, s3, setup+strings.TrimSuffix(fit, "extend m, iter = 30\n"))
	if third := mustRun(t, s3, compare).text(); strings.Contains(third, "settings: m (read from m.fit)") || !strings.Contains(third, "refitting m (") {
		t.Errorf("compare of the fit not extended used the extended fit's scores:\n%s", third)
	}
}

// TestFitFileOfTwoModelsWarns: two fits of different models that name one
// file (a fit cell copied without changing its file) overwrite each other
// at every run of the notebook, and neither is ever read back: only a note
// that the file held another model said so, at every run, as it says
// after an edit of the model. The second fit warns, naming the model whose
// fit the session keeps there; fits in files of their own, or the same
// model fitted again with other settings, do not.
func TestFitFileOfTwoModelsWarns(t *testing.T) {
	const setup = fitFileSetup + "model m2 { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n"
	const warning = "warning: m.fit holds the fit of model m, which this session keeps there: two fits that name one file overwrite each other, so every run of this notebook or script samples both again; name another file for m2's fit\n"
	for _, tc := range []struct {
		name, cell string
		warns      bool
	}{
		{"one file", "fit m, iter = 20, warmup = 10, chains = 1, file = \"m.fit\"\nfit m2, iter = 20, warmup = 10, chains = 1, file = \"m.fit\"\n", true},
		{"one file by two paths", "fit m, iter = 20, warmup = 10, chains = 1, file = \"m.fit\"\nfit m2, iter = 20, warmup = 10, chains = 1, file = \"./m.fit\"\n", true},
		{"a file each", "fit m, iter = 20, warmup = 10, chains = 1, file = \"m.fit\"\nfit m2, iter = 20, warmup = 10, chains = 1, file = \"m2.fit\"\n", false},
		{"one model fitted again", "fit m, iter = 20, warmup = 10, chains = 1, file = \"m.fit\"\nfit m, iter = 30, warmup = 10, chains = 1, file = \"m.fit\"\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for run := range 2 {
				out := mustRun(t, New(Options{Dir: dir}), setup+tc.cell)
				got := strings.Replace(out.stderr.String(), "./m.fit", "m.fit", 1)
				if strings.Contains(got, warning) != tc.warns {
					t.Errorf("run %d: warned %v, want %v:\n%s", run+1, !tc.warns, tc.warns, out.text())
				}
			}
		})
	}
}

// FuzzDecodeFitFile checks that decoding whatever follows the magic line
// never panics, and that a format-2 file it accepts has as its draws the
// bytes that end the file, as many as it says.
func FuzzDecodeFitFile(f *testing.F) {
	dir := f.TempDir()
	mustRunF := func(code string) {
		if _, err := New(Options{Dir: dir}).Execute(context.Background(), code, &recorder{}); err != nil {
			f.Fatal(err)
		}
	}
	// A fit file of format 5, with an extension of its new draws after
	// the fit.
	mustRunF(fitFileSetup + "fit m, iter = 6, warmup = 4, chains = 2, file = \"m4.fit\"\nextend m, iter = 2")
	four, err := os.ReadFile(filepath.Join(dir, "m4.fit"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(four[len(fitFileMagic):])
	mustRunF(fitFileSetup + "fit m, iter = 6, warmup = 4, chains = 2, file = \"m.fit\"")
	data, err := os.ReadFile(filepath.Join(dir, "m.fit"))
	if err != nil {
		f.Fatal(err)
	}
	body := data[len(fitFileMagic):]
	f.Add(body)
	f.Add(body[:len(body)-3])
	f.Add(body[:len(body)/3])
	f.Add([]byte{})
	// The same fit in format 2, without the checksum after the draws.
	ff, err := decodeFitFile(data)
	if err != nil {
		f.Fatal(err)
	}
	var two bytes.Buffer
	head := *ff
	head.Format, head.Result = 2, nil
	if err := gob.NewEncoder(&two).Encode(&head); err != nil {
		f.Fatal(err)
	}
	two.Write(ff.Result)
	f.Add(two.Bytes())
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(fitFileMagic), body...)
		ff, err := decodeFitFile(data)
		if err != nil || ff.Format < 2 || ff.Format > fitFileFormat {
			return
		}
		end := len(data)
		if ff.Format >= 3 {
			end -= 4
		}
		draws := slices.Clone(ff.Result)
		for _, e := range ff.Extensions {
			b, _ := e.draws.(readBytes)
			if len(b) != e.Size {
				t.Fatalf("an extension of %d bytes said and %d taken", e.Size, len(b))
			}
			draws = append(draws, b...)
		}
		if len(ff.Result) != ff.ResultSize || !bytes.HasSuffix(data[:end], draws) {
			t.Fatalf("format %d with %d bytes of draws said and %d taken", ff.Format, ff.ResultSize, len(ff.Result))
		}
	})
}

// FuzzReadFitFile runs a fit that names a damaged fit file, whole files
// (FuzzDecodeFitFile takes only the header's decoder), of format 3 and of
// format 5 with the extension the fit is then extended by, and then uses
// the fit as a notebook would: whatever the bytes, the file is read, refused
// or refitted over, never a panic, which the session would report as an
// InternalError or an internal error in the sampler.
func FuzzReadFitFile(f *testing.F) {
	const fit = "fit m, iter = 6, warmup = 4, chains = 2, file = \"m.fit\"\n"
	dir := f.TempDir()
	if _, err := New(Options{Dir: dir}).Execute(context.Background(), fitFileSetup+fit, &recorder{}); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, "m.fit"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	for _, at := range []int{len(good) - 1, len(good) - 200, len(good) / 2, len(fitFileMagic) + 40} {
		bad := slices.Clone(good)
		bad[at] ^= 0x5a
		f.Add(bad)
	}
	f.Add(good[:len(good)-8])
	// The fit with the extension the body runs after it, of its new draws
	// only, the fit kept without its chains' states (format 6), which the
	// body reads (and, damaged, samples again after making the fit's
	// chains again).
	dir5 := f.TempDir()
	if _, err := New(Options{Dir: dir5}).Execute(context.Background(), fitFileSetup+fit+"extend m, iter = 2\n", &recorder{}); err != nil {
		f.Fatal(err)
	}
	five, err := os.ReadFile(filepath.Join(dir5, "m.fit"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(five)
	for _, at := range []int{len(five) - 5, len(five) - 300, len(five) - 3000} {
		bad := slices.Clone(five)
		bad[at] ^= 0x5a
		f.Add(bad)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "m.fit"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		out := &recorder{}
		_, err := New(Options{Dir: dir}).Execute(context.Background(),
			fitFileSetup+fit+"summary m.C\nimpute m\nextend m, iter = 2\ncheck m, draws = 20, reps = 19\n", out)
		var se *Error
		if errors.As(err, &se) && se.Name == "InternalError" || err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%v\n%s", err, out.text())
		}
	})
}

// imputedValues is every imputation of r, [chain][draw][cell].
func imputedValues(r *inference.Result) [][][]float64 {
	out := make([][][]float64, len(r.C))
	for c := range out {
		for d := range r.ImputedDraws(c) {
			v := make([]float64, len(r.Missing))
			r.ImputedTo(v, c, d)
			out[c] = append(out[c], v)
		}
	}
	return out
}

// TestFitFileRecordsItsCopulang: a fit file records the copulang that
// sampled it, and a fit read from it says so (written … by copulang
// 1.0.0); read by another copulang, or from a file that did not record
// one, it says in a note that the draws are read as they are and how to
// sample them anew — it used to be read in silence, whatever copulang had
// made it. The export of the fit names the copulang that sampled it, and
// after an extension the one that extended it.
func TestFitFileRecordsItsCopulang(t *testing.T) {
	dir := t.TempDir()
	const fit = "fit m, iter = 20, warmup = 10, chains = 2, seed = 3, file = \"m.fit\"\n"
	const export = "export m to \"draws.csv\"\n"
	provenanceOf := func(t *testing.T) string {
		t.Helper()
		for _, row := range readCSV(t, filepath.Join(dir, "draws.provenance.csv")) {
			if row[0] == "copulang" {
				return row[1]
			}
		}
		t.Fatal("no copulang row in draws.provenance.csv")
		return ""
	}
	mustRun(t, New(Options{Dir: dir, Version: "1.0.0"}), fitFileSetup+fit)
	same := mustRun(t, New(Options{Dir: dir, Version: "1.0.0"}), fitFileSetup+fit).text()
	if !strings.Contains(same, " by copulang 1.0.0)\n") || strings.Contains(same, "note: m.fit was sampled by") {
		t.Errorf("the same copulang read the fit with:\n%s", same)
	}
	later := New(Options{Dir: dir, Version: "1.1.0"})
	text := mustRun(t, later, fitFileSetup+fit+export).text()
	const note = "note: m.fit was sampled by copulang 1.0.0, and this is copulang 1.1.0: its draws are read as they are, since a fit is identified by its model, data and settings; remove m.fit to sample the fit with this copulang\n"
	if !strings.Contains(text, " by copulang 1.0.0)\n") || !strings.Contains(text, note) {
		t.Errorf("a later copulang read the fit with:\n%s\nwant the note %q", text, note)
	}
	if got := provenanceOf(t); got != "1.0.0" {
		t.Errorf("the export of the fit read says copulang %q, want 1.0.0", got)
	}
	mustRun(t, later, "extend m, iter = 10\n"+export)
	if got := provenanceOf(t); got != "1.0.0, extended by 1.1.0" {
		t.Errorf("the export of the fit extended says copulang %q", got)
	}

	mustRun(t, New(Options{Dir: dir}), fitFileSetup+strings.Replace(fit, "seed = 3", "seed = 4", 1))
	text = mustRun(t, New(Options{Dir: dir, Version: "1.1.0"}), fitFileSetup+strings.Replace(fit, "seed = 3", "seed = 4", 1)).text()
	if !strings.Contains(text, "note: m.fit was sampled by a copulang that did not record its version, and this is copulang 1.1.0") {
		t.Errorf("a fit file without a version was read with:\n%s", text)
	}
}
