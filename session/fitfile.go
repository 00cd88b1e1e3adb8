package session

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// This file holds what `fit m, file = "m.fit"` does with its file: read a
// fit of the same data, model and settings instead of sampling it again,
// and write the fit it sampled otherwise (the habit of brms's file
// argument), so that re-running a notebook or script, or a kernel restart,
// does not cost the fit again.

// fitFileMagic starts every fit file, so that a file of anything else is
// never read as one, nor overwritten.
const fitFileMagic = "copulang fit\n"

// fitFileFormat is the version of the layout after the magic line: 1, the
// fitFile with its Result inside; 2, the fitFile without it (ResultSize
// says its length) and then the Result's bytes as they are. Both are read.
// Gob reads a []byte field by growing it in steps, which took a survey's
// fit (a 65 MB Result) more than a second. (The Result likewise carries its
// imputations after its gob; the rest of its gob, 39 MB there, is still
// read in steps.) 3, format 2 and then the CRC-32C (Castagnoli) of every
// byte before it, 4 bytes little-endian: the header's Sum covers the draws
// and scores only, so a change of the report's text or of the time written
// was read and shown as written. 4, format 3 with the extensions of the
// fit (extend) after its draws, each a Result of its own (fileExtension);
// a file without extensions is written in format 3, which copulangs that
// do not know format 4 read. 5, format 4 whose extensions may hold only
// the draws that the fit and the extensions before them do not
// (fileExtension.After, inference.Result.EncodeAfter): in format 4 each
// held all the draws, so that a fit extended three times kept its first
// draws four times over. A copulang that reads formats up to 4 refuses
// format 5 (and writes the fit again), and an extension's bytes of either
// kind are refused as the other (inference.ReadResultAfter). A file of
// format 4 that compare adds scores to is written in format 4 again; one
// that an extension is added to, in format 5 or 6. 6, format 5 whose fit
// and extensions before the last may be kept without their chains' states
// (fitFile.StatesDropped, fileExtension.StatesDropped;
// inference.WithoutStates): only the last one's are continued, and those
// of a survey's fit are most of its bytes (80 of the 91 MB an extension
// of 50 iterations added at 50,000 × 40), so an extension written drops
// those of the fit or extension before it. A fit or extension without
// them is read as it was written, draw for draw; one extended otherwise
// than by the file's next extension (a notebook's extend statement
// edited) has its chains made again first (restoreChains). A copulang
// that reads formats up to 5 refuses format 6 and does not overwrite it
// (laterFormatError). All six are read, as a stream: a survey's fit file
// (over 100 MB) is never held whole in memory.
const fitFileFormat = 6

// readableFormat reports whether this copulang reads fit files of format.
func readableFormat(format int) bool { return format >= 1 && format <= fitFileFormat }

// castagnoli is the CRC-32C table of the fit file's checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fitFile is what follows the magic line (gob): what the fit was made
// from, how its ESS target went, and its draws (which, from format 2,
// follow it).
type fitFile struct {
	Format int
	Saved  time.Time
	// Data is a digest of the model's data: names and values of its columns
	// in the model's order, and whether a truth is attached.
	Data string
	// Model is the model's declaration: its prior, with parameters.
	Model string
	// DataColumns, DataRows and DataColumnSums (a digest of each column's
	// values) describe the data, and ModelKind the model in words, for
	// the note that says how a fit asked differs from the file's: Data
	// and Model are digests, which say only that it does. A file written
	// before they were kept has none (gob leaves them empty).
	DataColumns    []string
	DataRows       int
	DataColumnSums []string
	ModelKind      string
	// Settings are the fit's settings and the sampler the plan chose, as
	// "name = value".
	Settings []string
	// Until ends the report's headline when the fit had an ESS target;
	// UntilWarning is the warning it gave at its limit ("" if none).
	Until, UntilWarning string
	Result              []byte // inference.Result.MarshalBinary; in the file, format 1 only
	ResultSize          int    // format 2: the length of the Result after the fitFile
	// Scores are the held-out scores compare computed with this fit's
	// settings, by scoreKey (scores.go). A file written before they were
	// kept has none: gob leaves the field empty.
	Scores []fileScore
	// Version is the copulang that sampled the fit: a later one reads the
	// fit as it is, and says so. A file written before it was recorded
	// has none (gob leaves the field empty).
	Version string
	// draws are the fit's draws as read (decodeFitAt): a section of the
	// file, or, in format 1, Result.
	draws drawBytes
	// Extensions (format 4) are the extensions of the fit that `extend`
	// ran on it, in order, each with its draws (of format 5, only those
	// the fit and the extensions before it do not hold), which follow
	// the fit's draws in the file, in that order: a notebook run again
	// reads the fit and then each extension, where it extends as before,
	// instead of sampling the extension again.
	Extensions []fileExtension
	// Sum is the checksum of the draws and the scores (fitSum). The
	// draws are checked against the spec when read, but most one-bit
	// changes of them (34 of 61 tried) give draws as valid, and different:
	// a damaged or edited file would have been read as the fit written. A
	// file written before the checksum has none and is read without it
	// (gob leaves the field empty, and an older copulang ignores it).
	Sum string
	// StatesDropped (format 6) says that the fit's draws are kept without
	// its chains' states, which an extension after it holds.
	StatesDropped bool
}

// fileExtension is an extension of a file's fit, kept after its draws.
type fileExtension struct {
	// Statement is the extend statement's settings (extendKey): what,
	// after the same fit and the extensions before it, makes the same
	// draws.
	Statement string
	// Size is the length of its Result's bytes (MarshalBinary).
	Size int
	// Saved is when it was written; Version is the copulangs that sampled
	// the fit and extended it ("0.1.0, extended by 0.2.0").
	Saved   time.Time
	Version string
	// Until and UntilWarning say how an ess target went, as the fit's.
	Until, UntilWarning string
	// After (format 5) says that its Result's bytes are EncodeAfter's,
	// after the fit and the extensions before it: the draws those hold
	// are not repeated. Without it (format 4) they are MarshalBinary's,
	// with all the draws.
	After bool
	// StatesDropped (format 6) says that its Result's bytes are kept
	// without its chains' states, which an extension after it holds.
	StatesDropped bool
	// Draws is the digest of the extended fit's draws (drawsDigest), by
	// which a session that wrote or read the extension knows it is the
	// one the file still holds before it writes another after it; a file
	// written before it was recorded has none (gob leaves it empty).
	Draws string
	// draws are its Result's bytes: read from the file, or to be written.
	draws drawBytes
}

// fitSum is the checksum of the draws result and f's scores: CRC-32C
// (Castagnoli), which finds every burst of damage up to 32 bits and any
// other with probability 1 − 2⁻³² (and costs about 10 ms for a 65 MB fit);
// it is no defence against a file forged on purpose, which the file never
// claims. The draws are encoded into it as they would be written, not
// made first.
func fitSum(f *fitFile, result drawBytes) (string, error) {
	h := crc32.New(castagnoli)
	if _, err := result.WriteTo(h); err != nil {
		return "", err
	}
	return scoresSum(h, f), nil
}

// scoresSum is fitSum of f, given h, the CRC-32C of its draws: h with
// f's scores added.
func scoresSum(h hash.Hash32, f *fitFile) string {
	var b [8]byte
	for _, sc := range f.Scores {
		binary.LittleEndian.PutUint64(b[:], uint64(len(sc.Key)))
		h.Write(b[:])
		h.Write([]byte(sc.Key))
		binary.LittleEndian.PutUint64(b[:], uint64(len(sc.LP)))
		h.Write(b[:])
		for _, v := range sc.LP {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("crc32c %08x", h.Sum32())
}

// drawBytes are the draws of a fit file, to be written: a Result's
// Encoding, encoded as it is written, or the bytes of a file read.
type drawBytes interface {
	Size() int
	WriteTo(w io.Writer) (int64, error)
}

// storedDraws are the draws of a fit file read: a Result's bytes, to be
// decoded (reader) or written back as they are.
type storedDraws interface {
	drawBytes
	reader() io.Reader
	section() *io.SectionReader
}

// readBytes are draws read from a file into memory.
type readBytes []byte

func (b readBytes) Size() int { return len(b) }

func (b readBytes) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

func (b readBytes) reader() io.Reader { return bytes.NewReader(b) }

func (b readBytes) section() *io.SectionReader {
	return io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b)))
}

// fileSection are draws of a fit file that is open: size bytes at off,
// read from the file when they are decoded or written.
type fileSection struct {
	file      io.ReaderAt
	off, size int64
}

func (s fileSection) Size() int { return int(s.size) }

func (s fileSection) WriteTo(w io.Writer) (int64, error) { return io.Copy(w, s.reader()) }

func (s fileSection) reader() io.Reader { return s.section() }

func (s fileSection) section() *io.SectionReader { return io.NewSectionReader(s.file, s.off, s.size) }

// fitOrigin is what a fit's file fingerprints: its data, model and
// settings; and, to say how another differs, its data's columns, rows
// and each column's digest, and its model in words.
type fitOrigin struct {
	data, model string
	settings    []string
	columns     []string
	rows        int
	columnSums  []string
	kind        string
}

// originOf fingerprints a fit of model m with settings x, plan and spec.
func originOf(m *Model, x *compiler.Fit, plan *compiler.InferencePlan, spec inference.Spec) fitOrigin {
	h := sha256.New()
	writeColumns(h, spec)
	fmt.Fprintf(h, "truth %v\n", spec.KeepWarmup)
	sums := make([]string, len(spec.Columns))
	for k := range spec.Columns {
		c := sha256.New()
		writeColumns(c, inference.Spec{Names: spec.Names[k : k+1], Columns: spec.Columns[k : k+1]})
		sums[k] = fmt.Sprintf("%x", c.Sum(nil)[:8])
	}
	return fitOrigin{
		data:       fmt.Sprintf("%x", h.Sum(nil)),
		model:      fmt.Sprintf("%#v", m.Decl.Model),
		columns:    slices.Clone(spec.Names),
		rows:       m.Data.N(),
		columnSums: sums,
		kind:       modelKind(m.Decl.Model),
		settings: []string{
			fmt.Sprintf("method = %s", x.Method),
			fmt.Sprintf("T = %v", x.TravelTime),
			fmt.Sprintf("sampler = %v, columns on exact HMC %v, adaptive %v", plan.Method, plan.ColumnHMC, plan.Adapt),
			fmt.Sprintf("iter = %d", x.Iter),
			fmt.Sprintf("warmup = %d", x.Warmup),
			fmt.Sprintf("chains = %d", x.Chains),
			fmt.Sprintf("seed = %d", x.Seed),
			fmt.Sprintf("thin = %d", x.Thin),
			fmt.Sprintf("ess = %d", x.ESS),
		},
	}
}

// writeColumns writes the names and values of spec's columns to h.
func writeColumns(h io.Writer, spec inference.Spec) {
	var word [8]byte
	for k, col := range spec.Columns {
		fmt.Fprintf(h, "%q %d\n", spec.Names[k], len(col))
		for _, v := range col {
			if math.IsNaN(v) {
				v = math.NaN() // one bit pattern for every missing cell
			}
			binary.LittleEndian.PutUint64(word[:], math.Float64bits(v))
			h.Write(word[:])
		}
	}
}

// differs says how a file's origin f differs from the fit's, or "".
func (o fitOrigin) differs(f *fitFile) string {
	switch {
	case f.Data != o.data:
		return "other data" + o.dataChange(f)
	case f.Model != o.model && f.ModelKind != "" && f.ModelKind != o.kind:
		return fmt.Sprintf("another model (%s; this fit asks %s)", f.ModelKind, o.kind)
	case f.Model != o.model:
		return "another model (its prior or factors differ)"
	}
	var was, now []string
	for k, s := range o.settings {
		if k >= len(f.Settings) || f.Settings[k] != s {
			if k < len(f.Settings) {
				was = append(was, f.Settings[k])
			}
			now = append(now, s)
		}
	}
	if len(f.Settings) != len(o.settings) && len(now) == 0 {
		return "other settings"
	}
	if len(now) > 0 {
		return fmt.Sprintf("other settings (%s; this fit asks %s)", strings.Join(was, ", "), strings.Join(now, ", "))
	}
	return ""
}

// dataChange says, in brackets after "other data", how the data of the
// fit in f differ from o's: columns the one has and the other lacks,
// their order, the number of rows, or the columns whose values differ;
// "" when f does not say (a file written before it described its data),
// or what differs is only whether a truth is attached.
func (o fitOrigin) dataChange(f *fitFile) string {
	if len(f.DataColumns) == 0 || len(f.DataColumnSums) != len(f.DataColumns) {
		return ""
	}
	var parts []string
	gone := slices.DeleteFunc(slices.Clone(f.DataColumns), func(c string) bool { return slices.Contains(o.columns, c) })
	added := slices.DeleteFunc(slices.Clone(o.columns), func(c string) bool { return slices.Contains(f.DataColumns, c) })
	if len(gone) > 0 {
		parts = append(parts, fmt.Sprintf("with %s, which this fit's data lack", andList(columnTexts(gone))))
	}
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("without %s, which this fit's data have", andList(columnTexts(added))))
	}
	if len(gone) == 0 && len(added) == 0 && !slices.Equal(f.DataColumns, o.columns) {
		parts = append(parts, "the same columns in another order")
	}
	if f.DataRows != o.rows {
		parts = append(parts, fmt.Sprintf("%d rows; this fit's data have %d", f.DataRows, o.rows))
	} else {
		var changed []string
		for k, c := range o.columns {
			if i := slices.Index(f.DataColumns, c); i >= 0 && f.DataColumnSums[i] != o.columnSums[k] {
				changed = append(changed, columnText(c))
			}
		}
		if len(changed) > 0 {
			parts = append(parts, fmt.Sprintf("other values of %s", andList(changed)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// savedFit is a fit read from its file.
type savedFit struct {
	res     *inference.Result
	saved   time.Time
	version string // of the copulang that sampled it; "" if not recorded
	until   string
	warn    string
	scores  []fileScore
	// extensions are the settings of the extensions the file holds
	// after the fit (fileExtension.Statement).
	extensions []string
}

// readFitFile reads the fit that path holds for origin and spec. It returns
// the fit when the file holds this one; nil and why not (for a note) when
// there is no such file, or it holds another fit or one it cannot read,
// which the new fit will overwrite; and an error when path is not a fit
// file at all, which must not be overwritten.
// When read is not nil it counts the bytes read from the file, which is
// read about twice through: its checksums, then its draws.
func readFitFile(path, shown string, x *compiler.Fit, origin fitOrigin, spec inference.Spec, read *atomic.Int64) (*savedFit, string, error) {
	if info, err := os.Stat(path); err == nil && !info.IsDir() && !info.Mode().IsRegular() {
		// A device (/dev/zero) would be read without end, a pipe block.
		return nil, "", fmt.Errorf("cannot read %s: it is not a regular file", shown)
	}
	file, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("cannot read %s: %w", shown, err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %s: %w", shown, err)
	}
	head := make([]byte, len(fitFileMagic))
	if n, err := file.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, "", fmt.Errorf("cannot read %s: %w", shown, err)
	} else if string(head[:n]) != fitFileMagic {
		return nil, "", fmt.Errorf("%s is not a copulang fit file, so fit will not overwrite it: choose another file name, or remove the file", shown)
	}
	// The draws are decoded from the file as they are read, never held as
	// bytes: a survey's fit file of 112 MB took the peak memory of a run
	// that read it to 323 MB.
	var from io.ReaderAt = file
	if read != nil {
		from = countedReaderAt{file, read}
	}
	f, err := decodeFitAt(from, info.Size())
	if err != nil {
		if err := laterFitFile(path, shown); err != nil {
			// A later copulang's header need not decode as this one's.
			return nil, "", err
		}
		return nil, fmt.Sprintf("%s is a fit file that cannot be read (%v): fitting again and overwriting it", shown, err), nil
	}
	if f.Format > fitFileFormat {
		return nil, "", laterFormatError(f, shown)
	}
	if !readableFormat(f.Format) {
		return nil, fmt.Sprintf("%s is a fit file of format %d, and this copulang reads formats 1 to %d: fitting again and overwriting it", shown, f.Format, fitFileFormat), nil
	}
	if why := origin.differs(f); why != "" {
		return nil, fmt.Sprintf("%s holds a fit of %s: fitting again and overwriting it", shown, why), nil
	}
	res, err := readDraws(f.draws, spec, nil)
	if err == nil {
		err = statesKept(madeByFit(res, x), f.StatesDropped)
	}
	if err != nil {
		return nil, fmt.Sprintf("%s holds a fit that cannot be read (%v): fitting again and overwriting it", shown, err), nil
	}
	var extensions []string
	for _, e := range f.Extensions {
		extensions = append(extensions, e.Statement)
	}
	return &savedFit{res: res, saved: f.Saved, version: f.Version, until: f.Until, warn: f.UntilWarning, scores: f.Scores, extensions: extensions}, "", nil
}

// countedReaderAt is r counting the bytes read from it in n.
type countedReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.Add(int64(k))
	return k, err
}

// laterFormatError says that the fit file f (shown as shown) is of a
// format this copulang does not read. A later copulang wrote it, perhaps
// after hours of sampling, so it is not this one's to replace.
func laterFormatError(f *fitFile, shown string) error {
	by := ""
	if f.Version != "" {
		by = " (" + f.Version + ")"
	}
	return fmt.Errorf("%s was written by a later copulang%s, in fit file format %d, and this one reads formats 1 to %d, so fit will not overwrite it: run it with that copulang, give this fit another file, or remove the file", shown, by, f.Format, fitFileFormat)
}

// laterFitFile returns laterFormatError if the fit file at path is of a
// format after this copulang's, reading only its header's format and
// version, so that a later header that does not decode as this
// copulang's fitFile (a field of another type) is known as later too;
// nil otherwise, the fit reading the rest (readFitFile).
func laterFitFile(path, shown string) error {
	file, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	if _, err := file.Seek(int64(len(fitFileMagic)), io.SeekStart); err != nil {
		return nil
	}
	// Gob leaves out the fields the value decoded into does not name.
	var head struct {
		Format  int
		Version string
	}
	if err := gob.NewDecoder(bufio.NewReader(file)).Decode(&head); err != nil || head.Format <= fitFileFormat {
		return nil
	}
	return laterFormatError(&fitFile{Format: head.Format, Version: head.Version}, shown)
}

// readDraws decodes the draws d of a fit file of spec as they are read:
// the fit's, with base nil, or an extension's after base, the fit with the
// extensions before it, when the extension holds only the draws base
// does not (fileExtension.After).
func readDraws(d drawBytes, spec inference.Spec, base *inference.Result) (*inference.Result, error) {
	stored, ok := d.(storedDraws)
	if !ok {
		return nil, errors.New("draws not read from a file")
	}
	if base != nil {
		return inference.ReadResultAfter(base, stored.reader(), int64(d.Size()), spec)
	}
	return inference.ReadResult(stored.reader(), int64(d.Size()), spec)
}

// statesKept is err, why a fit or extension read is not the one its
// statement makes, or nil when that is only that its chains' states are
// not there and its file says it dropped them (dropped).
func statesKept(err error, dropped bool) error {
	if dropped && errors.Is(err, inference.ErrNoChainStates) {
		return nil
	}
	return err
}

// madeByFit says why res is not a fit that the fit statement x writes, or
// nil: that is a finished run, of x's iter or, with an ESS target, of at
// least that and at most compiler.ESSLimit times it, whose chains all ran
// to its end and can be continued.
func madeByFit(res *inference.Result, x *compiler.Fit) error {
	iterOK := res.Iter == x.Iter
	if x.ESS > 0 {
		iterOK = res.Iter >= x.Iter && res.Iter <= compiler.ESSLimit*x.Iter
	}
	switch {
	case res.Interrupted || res.KeptDraws() == 0:
		return errors.New("an interrupted fit")
	case !iterOK:
		return fmt.Errorf("a fit of %d iterations after warm-up", res.Iter)
	case slices.ContainsFunc(res.Iterations, func(it int) bool { return it != res.Warmup+res.Iter }):
		return fmt.Errorf("chains of %v iterations", res.Iterations)
	}
	return res.Extendable()
}

// writeFitFile writes res, made with origin by copulang version, to path
// (shown as shown) with the scores compare computed with its settings, and
// returns the time it records. The draws are encoded as they are written,
// not made first. A file at path that fit would not overwrite when it
// starts (readFitFile: not a fit file, or one of a later format) is not
// overwritten now either: one may have been written there while the fit
// sampled (overwritableFit).
func writeFitFile(ctx context.Context, files fileSystem, path, shown string, origin fitOrigin, version string, res *inference.Result, until, untilWarning string, scores []fileScore) (time.Time, error) {
	enc, err := res.Encode()
	if err != nil {
		return time.Time{}, err
	}
	f := fitFile{
		Format: fitFileFormat, Saved: time.Now().UTC().Truncate(time.Second),
		Data: origin.data, Model: origin.model, Settings: origin.settings, Version: version,
		DataColumns: origin.columns, DataRows: origin.rows, DataColumnSums: origin.columnSums, ModelKind: origin.kind,
		Until: until, UntilWarning: untilWarning, Scores: scores,
	}
	return f.Saved, lockedWrite(ctx, path, func() error {
		if err := overwritableFit(path, shown); err != nil {
			return err
		}
		return writeFitBytes(files, path, &f, enc)
	})
}

// overwritableFit says why a new fit must not replace the file at path
// (shown as shown), as readFitFile would refuse it: it is not a regular
// file, not a fit file, or a fit file of a later copulang's format. No
// file there, or a fit file this copulang reads (another fit's, a damaged
// one), may be replaced.
func overwritableFit(path, shown string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", shown, pathErr(err))
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", shown)
	}
	if err := fitFileHeader(path, shown); err != nil {
		return err
	}
	return laterFitFile(path, shown)
}

// lockedWrite runs write, which writes the fit file at path, under the
// lock of path's directory (lockDir), having removed the temporary files
// that writes to path by processes now gone left behind
// (removeStaleTemporaries).
func lockedWrite(ctx context.Context, path string, write func() error) error {
	unlock, err := lockDir(ctx, filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("cannot lock the directory of %s: %w", filepath.Base(path), err)
	}
	defer unlock()
	removeStaleTemporaries(path)
	return write()
}

// removeStaleTemporaries removes the temporary files of writes to path
// (path.tmp-PID-N, writeFitBytes) whose process is gone: one killed while
// it wrote left its file, of up to the fit's size, beside path for good.
// Only files of that name whose PID is not this process's and names no
// process on this machine are removed. (On a network file system written
// from two machines a PID may name a process of the other one: the lock
// of the directory keeps such a write from being under way meanwhile,
// where the file system has locks.)
func removeStaleTemporaries(path string) {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := temporaryOf(e.Name(), base)
		if ok && e.Type().IsRegular() && pid != os.Getpid() && processGone(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// temporaryOf returns the PID of a temporary file of writes to a file
// named base (base.tmp-PID-N), and whether name is one.
func temporaryOf(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, base+".tmp-")
	if !ok {
		return 0, false
	}
	pidText, try, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != pidText {
		return 0, false
	}
	if n, err := strconv.Atoi(try); err != nil || n < 0 || strconv.Itoa(n) != try {
		return 0, false
	}
	return pid, true
}

// writeFitBytes writes f, whose draws are result, to path in the current
// format (whatever f.Format was read as; 3 when f has no extensions): the
// magic line, f without its draws, then the draws, those of its
// extensions, then the checksum of it all. It writes through files to a
// temporary file next to path first, synced and renamed over path once
// complete (writeTemporary, renameInPlace), so that neither a failure nor
// a power cut leaves half a file. The caller holds the lock of path's
// directory (lockedWrite).
func writeFitBytes(files fileSystem, path string, f *fitFile, result drawBytes) error {
	tmp, err := writeFitTemporary(files, path, f, result)
	if err != nil {
		return err
	}
	return renameInPlace(files, tmp, path)
}

// writeFitTemporary writes what writeFitBytes writes to a temporary file
// next to path (writeTemporary), and returns its name.
func writeFitTemporary(files fileSystem, path string, f *fitFile, result drawBytes) (string, error) {
	var buf bytes.Buffer
	buf.WriteString(fitFileMagic)
	head := *f
	sum, err := fitSum(f, result)
	if err != nil {
		return "", err
	}
	head.Format, head.Result, head.ResultSize, head.Sum = 3, nil, result.Size(), sum
	if len(f.Extensions) > 0 {
		head.Format = 4
		head.Extensions = slices.Clone(f.Extensions)
		for i, e := range head.Extensions {
			head.Extensions[i].Size = e.draws.Size()
			if e.After {
				head.Format = max(head.Format, 5)
			}
			if e.StatesDropped {
				head.Format = 6
			}
		}
		if f.StatesDropped {
			head.Format = 6
		}
	}
	if err := gob.NewEncoder(&buf).Encode(&head); err != nil {
		return "", err
	}
	return writeTemporary(files, path, func(out io.Writer) error {
		crc := crc32.New(castagnoli)
		w := io.MultiWriter(out, crc)
		_, err := w.Write(buf.Bytes())
		if err == nil {
			_, err = result.WriteTo(w)
		}
		for _, e := range f.Extensions {
			if err == nil {
				_, err = e.draws.WriteTo(w)
			}
		}
		if err == nil {
			_, err = out.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
		}
		return err
	})
}

// decodeFitFile decodes the contents of a fit file, which start with the
// magic line; in formats 2 to 5, f.Result is part of data, not a copy, and
// so are the extensions' draws.
func decodeFitFile(data []byte) (*fitFile, error) {
	f, err := decodeFitAt(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	if s, ok := f.draws.(fileSection); ok {
		f.Result = data[s.off : s.off+s.size]
		f.draws = readBytes(f.Result)
	}
	for i, e := range f.Extensions {
		s := e.draws.(fileSection)
		f.Extensions[i].draws = readBytes(data[s.off : s.off+s.size])
	}
	return f, nil
}

// decodeFitAt decodes the fit file of size bytes that r reads, which
// starts with the magic line, reading it through once to check its
// checksums: its draws, and its extensions', are left in r (f.draws,
// fileSection), to be decoded as they are read (readDraws). A fit file of
// format 1 holds its draws in its gob (f.Result; f.draws too).
func decodeFitAt(r io.ReaderAt, size int64) (*fitFile, error) {
	var f fitFile
	head := make([]byte, len(fitFileMagic))
	if n, err := r.ReadAt(head, 0); n < len(head) || string(head) != fitFileMagic {
		return nil, fmt.Errorf("it does not start as a fit file (%v)", err)
	}
	// A CountingReader is an io.ByteReader, so the decoder reads no
	// further than the fitFile, and says how far that is.
	cr := inference.NewCountingReader(io.NewSectionReader(r, int64(len(fitFileMagic)), size-int64(len(fitFileMagic))), 0)
	if err := gob.NewDecoder(cr).Decode(&f); err != nil {
		return nil, err
	}
	if f.Format > fitFileFormat {
		// A layout this copulang does not know: readFitFile says so.
		return &f, nil
	}
	if len(f.Extensions) > 0 && f.Format < 4 {
		return nil, fmt.Errorf("extensions in a fit file of format %d", f.Format)
	}
	if f.Format < 2 {
		if f.Sum != "" {
			if sum, err := fitSum(&f, readBytes(f.Result)); err != nil || sum != f.Sum {
				return nil, errors.New("its checksum does not match its contents: the file was damaged or edited")
			}
		}
		f.draws = readBytes(f.Result)
		return &f, nil
	}
	start := int64(len(fitFileMagic)) + cr.Count()
	end := size
	// The header's Sum covers the fit's draws, which follow it.
	drawsEnd := start + int64(f.ResultSize)
	if f.ResultSize < 0 || drawsEnd > size {
		drawsEnd = start
	}
	drawsSum := crc32.New(castagnoli)
	if f.Format >= 3 {
		if end -= 4; end < start {
			return nil, errors.New("it ends before its checksum")
		}
		crc := crc32.New(castagnoli)
		copied := func(w io.Writer, from, to int64) error {
			_, err := io.Copy(w, io.NewSectionReader(r, from, max(min(to, end)-from, 0)))
			return err
		}
		if err := errors.Join(copied(crc, 0, start), copied(io.MultiWriter(crc, drawsSum), start, drawsEnd), copied(crc, drawsEnd, end)); err != nil {
			return nil, err
		}
		var last [4]byte
		if _, err := r.ReadAt(last[:], end); err != nil {
			return nil, err
		}
		if crc.Sum32() != binary.LittleEndian.Uint32(last[:]) {
			return nil, errors.New("its checksum does not match its contents: the file was damaged or edited")
		}
	} else if _, err := io.Copy(drawsSum, io.NewSectionReader(r, start, drawsEnd-start)); err != nil {
		return nil, err
	}
	total, want := end-start, int64(f.ResultSize)
	for _, e := range f.Extensions {
		if e.Size < 0 || want < 0 || int64(e.Size) > total || want > total {
			return nil, fmt.Errorf("an extension of %d bytes in a fit file of %d bytes of draws", e.Size, total)
		}
		want += int64(e.Size)
	}
	if f.Result != nil || want != total || f.ResultSize < 0 {
		return nil, fmt.Errorf("a fit file of %d bytes of draws, want %d", total, want)
	}
	f.draws = fileSection{file: r, off: start, size: int64(f.ResultSize)}
	at := start + int64(f.ResultSize)
	if f.StatesDropped && f.Format < 6 {
		return nil, fmt.Errorf("a fit without its chains' states in a fit file of format %d", f.Format)
	}
	for i, e := range f.Extensions {
		if e.After && f.Format < 5 {
			return nil, fmt.Errorf("an extension of its new draws only in a fit file of format %d", f.Format)
		}
		if e.StatesDropped && f.Format < 6 {
			return nil, fmt.Errorf("an extension without its chains' states in a fit file of format %d", f.Format)
		}
		f.Extensions[i].draws = fileSection{file: r, off: at, size: int64(e.Size)}
		at += int64(e.Size)
	}
	if f.Sum != "" && scoresSum(drawsSum, &f) != f.Sum {
		return nil, errors.New("its checksum does not match its contents: the file was damaged or edited")
	}
	return &f, nil
}

// fileScore is one model's scores as its fit file keeps them: the
// pointwise log scores and, per fold, the chain totals of its refit
// (inference.CrossValidation.ChainTotals), from which compare estimates
// their Monte Carlo error. A file written before the chain totals were
// kept has none (gob leaves the field empty, and an older copulang
// ignores it): compare then shows no Monte Carlo error for those scores,
// and says why. The header's Sum (fitSum) does not cover them; the
// checksum that ends a file of format 3 does.
type fileScore struct {
	Key         string
	LP          []float64
	ChainTotals [][]float64
}

// keptFile is the fit file that holds a model's fit, as it was when read
// or written: compare adds scores to it only while it still holds that fit.
type keptFile struct {
	path, shown string
	saved       time.Time
	origin      fitOrigin
	// extensions are the extensions that made the session's fit from the
	// file's, all of them kept in the file after it (nil for the fit
	// itself).
	extensions []keptExtension
	// files writes the file (nil: osFiles).
	files fileSystem
}

// fileSystem is what kf's file is written with.
func (kf *keptFile) fileSystem() fileSystem {
	if kf.files == nil {
		return osFiles{}
	}
	return kf.files
}

// keptExtension is an extension of a fit kept in its file: its extend
// statement's settings (extendKey) and the digest of the extended fit's
// draws (fileExtension.Draws; "" for an extension read from a file that
// did not record it).
type keptExtension struct {
	statement, draws string
}

// keptAs is how a file that keeps e is read back by keptFile.
func (e fileExtension) keptAs() keptExtension {
	return keptExtension{statement: e.Statement, draws: e.Draws}
}

// drawsDigest is the digest of res's draws that a fileExtension records
// (Draws): "crc32c " and inference.Result.DrawsSum in hexadecimal.
func drawsDigest(res *inference.Result) string {
	return fmt.Sprintf("crc32c %08x", res.DrawsSum())
}

// readKept reads the fit file of kf, which must still hold the fit it
// held when kf was made, and the extensions kf names after it. The draws
// are left in the file (decodeFitAt), which the caller closes (close)
// once it has read or copied them.
func readKept(kf *keptFile) (f *fitFile, close func(), err error) {
	file, err := os.Open(kf.path)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			file.Close()
		}
	}()
	info, err := file.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() || fitFileHeader(kf.path, kf.shown) != nil {
		return nil, nil, errors.New("it is no longer a fit file")
	}
	if f, err = decodeFitAt(file, info.Size()); err != nil {
		return nil, nil, err
	}
	if !readableFormat(f.Format) || !f.Saved.Equal(kf.saved) || kf.origin.differs(f) != "" || len(f.Extensions) < len(kf.extensions) {
		return nil, nil, errors.New("it holds another fit now")
	}
	// An extension of the same statement written since by another writer
	// may hold other draws (another copulang's sampler): one written after
	// it, continuing this session's, would not be read after it.
	for i, e := range kf.extensions {
		if f.Extensions[i].keptAs() != e {
			return nil, nil, errors.New("it holds another extension of the fit now")
		}
	}
	return f, func() { file.Close() }, nil
}

// rewriteKept writes f, read from kf's file by readKept (close closes
// it), to that file again: its draws are copied from the file read into
// a temporary file, which is renamed over it once the file read is closed.
func rewriteKept(kf *keptFile, f *fitFile, close func()) error {
	tmp, err := writeFitTemporary(kf.fileSystem(), kf.path, f, f.draws)
	close()
	if err != nil {
		return err
	}
	return renameInPlace(kf.fileSystem(), tmp, kf.path)
}

// keepExtension adds ext, an extension of the fit of kf (with its
// extensions), to kf's file after them, in place of any other that
// followed them there, and returns the file as it keeps the extended fit.
func keepExtension(ctx context.Context, kf *keptFile, ext fileExtension) (*keptFile, error) {
	err := lockedWrite(ctx, kf.path, func() error {
		f, close, err := readKept(kf)
		if err != nil {
			return err
		}
		f.Extensions = append(f.Extensions[:len(kf.extensions)], ext)
		if err := dropStates(f); err != nil {
			close()
			return err
		}
		return rewriteKept(kf, f, close)
	})
	if err != nil {
		return nil, err
	}
	now := *kf
	now.extensions = append(slices.Clone(kf.extensions), ext.keptAs())
	return &now, nil
}

// dropStates leaves out the chains' states of f's fit and of its
// extensions but the last (inference.WithoutStates), which are copied
// from the file as they are written: only the last one's are continued.
// Draws of an earlier layout, which keeps the states inside its gob, are
// kept as they are.
func dropStates(f *fitFile) error {
	strip := func(d drawBytes, dropped *bool) (drawBytes, error) {
		stored, ok := d.(storedDraws)
		if *dropped || !ok {
			return d, nil
		}
		sr := stored.section()
		e, err := inference.WithoutStates(sr, sr.Size())
		if err != nil || e == nil {
			return d, err
		}
		*dropped = true
		return e, nil
	}
	var err error
	if f.draws, err = strip(f.draws, &f.StatesDropped); err != nil {
		return err
	}
	for i := range f.Extensions[:len(f.Extensions)-1] {
		e := &f.Extensions[i]
		if e.draws, err = strip(e.draws, &e.StatesDropped); err != nil {
			return err
		}
	}
	return nil
}

// keepScores adds scores under key to the fit file of kf, which must
// still hold the fit it held when kf was made. It reads and writes the file
// under the lock of its directory, so that scores another process adds
// meanwhile are kept too.
func keepScores(ctx context.Context, kf *keptFile, key string, lp []float64, chainTotals [][]float64) error {
	return lockedWrite(ctx, kf.path, func() error {
		f, close, err := readKept(&keptFile{path: kf.path, shown: kf.shown, saved: kf.saved, origin: kf.origin})
		if err != nil {
			return err
		}
		for i, sc := range f.Scores {
			if sc.Key == key {
				f.Scores = append(f.Scores[:i], f.Scores[i+1:]...)
				break
			}
		}
		f.Scores = append(f.Scores, fileScore{Key: key, LP: lp, ChainTotals: chainTotals})
		return rewriteKept(kf, f, close)
	})
}
