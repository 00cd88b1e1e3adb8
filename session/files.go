package session

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
)

// This file holds what the session does with files before a cell runs:
// the compiler reads the data a cell loads and tests the paths it writes
// (compiler.Files), so that a typo in a cell's last line is found before
// its first statement runs. A data file read at check time is kept until
// its load statement runs, so it is read once.

// preloaded is a data file read at check time.
type preloaded struct {
	size     int64
	modTime  time.Time
	data     *Dataset
	warnings []string
}

// loadKey identifies a load statement's file and options.
func loadKey(path string, x *compiler.LoadData) string {
	return fmt.Sprintf("%s\x00%q\x00%q\x00%v\x00%q\x00%q", path, x.Sep, x.NA, x.Order, x.OrderAll, x.Drop)
}

// loadOptionsText writes the options of a load statement as the call
// writes them, the order's keys sorted, * last ("" when it has none): an
// export's provenance gives them beside the file's digest.
func loadOptionsText(x *compiler.LoadData) string {
	quoted := func(texts []string) string {
		q := make([]string, len(texts))
		for i, t := range texts {
			q[i] = strconv.Quote(t)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	var parts []string
	if x.Sep != 0 && x.Sep != ',' {
		parts = append(parts, "sep = "+strconv.Quote(string(x.Sep)))
	}
	if len(x.NA) > 0 {
		parts = append(parts, "na = "+quoted(x.NA))
	}
	if len(x.Order) > 0 || x.OrderAll != nil {
		var keys []string
		for _, col := range slices.Sorted(maps.Keys(x.Order)) {
			keys = append(keys, columnText(col)+": "+quoted(x.Order[col]))
		}
		if x.OrderAll != nil {
			keys = append(keys, "*: "+quoted(x.OrderAll))
		}
		parts = append(parts, "order = {"+strings.Join(keys, ", ")+"}")
	}
	if len(x.Drop) > 0 {
		parts = append(parts, "drop = ["+strings.Join(columnTexts(x.Drop), ", ")+"]")
	}
	return strings.Join(parts, ", ")
}

// csvOptions are the LoadCSV options of a load statement.
func csvOptions(x *compiler.LoadData) CSVOptions {
	return CSVOptions{Sep: x.Sep, NA: x.NA, Order: x.Order, OrderAll: x.OrderAll, Drop: x.Drop}
}

// readData reads the file of a load statement, or returns the copy read
// at check time when the file has not changed since; cancelling ctx stops
// the reading.
func (s *Session) readData(ctx context.Context, x *compiler.LoadData) (*Dataset, []string, error) {
	path := s.path(x.Path)
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("cannot load data: %s", s.noFile(x.Path))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot load data: %s cannot be read: %w", x.Path, pathErr(err))
	}
	if info.IsDir() {
		return nil, nil, fmt.Errorf("cannot load data: %s is a directory", x.Path)
	}
	if device(info) {
		// /dev/zero or /dev/urandom would be read without end (a named
		// pipe is read: it ends when its writer does).
		return nil, nil, fmt.Errorf("cannot load data: %s is a device, not a file", x.Path)
	}
	key := loadKey(path, x)
	if p, ok := s.preloaded[key]; ok && p.size == info.Size() && p.modTime.Equal(info.ModTime()) {
		return p.data, p.warnings, nil
	}
	f, err := openData(ctx, path, info)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot load data: %s cannot be read: %w", x.Path, pathErr(err))
	}
	defer f.Close()
	// A pipe whose writer is silent blocks a read, which ctxReader does
	// not stop: the deadline does (a regular file has none, and needs none).
	defer context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })()
	// The file's digest goes into the provenance of what is made from
	// it (export's), where sha256sum can check it against the file.
	digest := sha256.New()
	d, warnings, err := LoadCSV(io.TeeReader(ctxReader{ctx, f}, digest), csvOptions(x))
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.Copy(digest, ctxReader{ctx, f}); err != nil {
		return nil, nil, err
	}
	d.SHA256 = fmt.Sprintf("%x", digest.Sum(nil))
	s.preloaded[key] = &preloaded{size: info.Size(), modTime: info.ModTime(), data: d, warnings: warnings}
	return d, warnings, nil
}

// noFile says that there is no file at path, as a script names it, and
// where a relative path was looked for: the script's or notebook's
// directory, which need not be the one a user thinks of.
//
// Two habits get a word more: ~ is not the home directory (R and a shell
// expand it; a script's paths are relative to the script), and a file
// whose name differs only in case (GSS.csv for gss.csv), which Windows and
// macOS would open, is named.
func (s *Session) noFile(path string) string {
	msg := "no file " + path
	if !filepath.IsAbs(path) {
		dir, err := filepath.Abs(s.path("."))
		if err != nil {
			dir = s.path(".")
		}
		msg += " (looked in " + dir + ")"
	}
	if strings.HasPrefix(path, "~") {
		return msg + "; ~ is not your home directory here: give the path from the script's directory, or the whole path"
	}
	full := s.path(path)
	if entries, err := os.ReadDir(filepath.Dir(full)); err == nil {
		base := filepath.Base(full)
		for _, e := range entries {
			if e.Name() != base && strings.EqualFold(e.Name(), base) {
				return msg + "; did you mean " + filepath.Join(filepath.Dir(path), e.Name()) + "? (names of files are case-sensitive)"
			}
		}
	}
	return msg + nearFile(full, path)
}

// nearFile suggests the file a path that is not there may have meant: one
// of a near name in the same directory (gss_hof2007.csv for
// gss_hoff2007.csv), or one of that name in a directory next to it (the
// shipped notebooks keep their data in data/). written is the path as the
// statement wrote it, which the suggestion follows.
func nearFile(full, written string) string {
	dir, base := filepath.Split(full)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return ""
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, e.Name())
		}
	}
	prefix := strings.TrimSuffix(written, filepath.Base(written))
	if near := dsl.Nearest(base, files); near != "" {
		return "; did you mean " + prefix + near + "?"
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, e.Name(), base)); err == nil && info.Mode().IsRegular() {
			return "; did you mean " + prefix + e.Name() + "/" + base + "?"
		}
	}
	return ""
}

// openData opens the data file at path, whose information is info. A
// named pipe's open waits for a writer, which may never come: cancelling
// ctx stops the wait, and openData returns once the open has returned, so
// that no goroutine stays blocked in it (unless the pipe cannot be opened
// for writing for 2 s, when it returns and leaves that open waiting).
func openData(ctx context.Context, path string, info os.FileInfo) (*os.File, error) {
	if info.Mode()&os.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
	}
	for tries := 0; ; tries++ {
		if tries == 200 {
			// The pipe cannot be opened for writing (removed, say, while
			// the open waits on it): leave that open waiting rather than
			// the cell.
			return nil, ctx.Err()
		}
		// A writer that comes and goes lets the open return; tried again
		// until it does, since one that comes before the open has begun
		// to wait finds no reader and fails.
		unblockFIFO(path)
		select {
		case o := <-done:
			if o.f != nil {
				o.f.Close()
			}
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ctxReader reads r until ctx is cancelled: an interrupt stops the
// reading of a large file (or of a pipe that never ends) between two
// reads.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ReadData implements compiler.Files: the file is read whole (and kept
// for the load statement), so that its problems are found before the cell
// runs.
func (e sessionEnv) ReadData(x *compiler.LoadData) (*compiler.DataInfo, error) {
	d, _, err := e.s.readData(e.ctx, x)
	if err != nil {
		return nil, err
	}
	info := d.Info()
	info.Name = x.Name
	return info, nil
}

// Resolve implements compiler.PathResolver: the absolute path of the
// file path names (relative to the session's directory), its links
// followed when it exists.
func (e sessionEnv) Resolve(path string) string {
	abs := e.s.path(path)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if a, err := filepath.Abs(abs); err == nil {
		return a
	}
	return filepath.Clean(abs)
}

// Writable implements compiler.Files: besides writable's reasons, a
// file that export or impute must not write over (overwritable).
func (e sessionEnv) Writable(path string) error {
	if err := writable(e.s.path(path)); err != nil {
		return err
	}
	return e.s.overwritable(path)
}

// overwritable returns why a statement that writes a file of results
// (export, impute) must not write at path (as the statement names it): a
// file that data bound in the session, or kept by one of its models, were
// loaded from, or a copulang fit file. `export m to "gss.csv"`, a slip for
// "gss_draws.csv", wrote the draws over the survey the notebook loads. A
// file that does not exist yet, or that is neither, may be written.
func (s *Session) overwritable(path string) error {
	info, err := os.Stat(s.path(path))
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	names := slices.Sorted(maps.Keys(s.data))
	for _, name := range names {
		if d := s.data[name]; d.SHA256 != "" && sameFile(info, s.path(d.Source)) {
			return fmt.Errorf("%s is the file data %s was loaded from, which this would write over: name another file", path, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.models)) {
		if d := s.models[name].Data; d.SHA256 != "" && sameFile(info, s.path(d.Source)) {
			return fmt.Errorf("%s is the file the data of model %s were loaded from, which this would write over: name another file", path, name)
		}
	}
	if fitFileHeader(s.path(path), path) == nil {
		return fmt.Errorf("%s is a copulang fit file, which this would write over: name another file", path)
	}
	return nil
}

// overwritableAll is overwritable of each of paths, which a statement
// writes: checked together, before the first is written.
func (s *Session) overwritableAll(paths ...string) error {
	for _, p := range paths {
		if err := s.overwritable(p); err != nil {
			return err
		}
	}
	return nil
}

// sameFile reports whether the file at path is the file info describes.
func sameFile(info os.FileInfo, path string) bool {
	other, err := os.Stat(path)
	return err == nil && os.SameFile(info, other)
}

// FitFile implements compiler.Files: a file at path may hold the fit (the
// fit reads it to find out) if it starts as a fit file does, and is
// refused otherwise, as the fit would refuse it (readFitFile), so that a
// mistyped name is found before the statements ahead of the fit run; with
// no file there, the fit will be written there.
func (e sessionEnv) FitFile(path string) error {
	if info, err := os.Stat(e.s.path(path)); err == nil && !info.IsDir() {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		if err := fitFileHeader(e.s.path(path), path); err != nil {
			return err
		}
		return laterFitFile(e.s.path(path), path)
	}
	return writable(e.s.path(path))
}

// fitFileHeader returns why the file at path (shown as shown) is not a
// fit file, reading no more than its first line.
func fitFileHeader(path, shown string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read: %v", shown, pathErr(err))
	}
	defer f.Close()
	head := make([]byte, len(fitFileMagic))
	if n, err := io.ReadFull(f, head); err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("%s cannot be read: %v", shown, pathErr(err))
	} else if string(head[:n]) != fitFileMagic {
		return fmt.Errorf("%s is not a copulang fit file, so fit will not overwrite it: choose another file name, or remove the file", shown)
	}
	return nil
}

// pathErr is err without the operation and path that an *os.PathError
// adds ("open x.csv: permission denied" is "permission denied"): the
// messages here name the file as the script does.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// device reports whether info is a device or a socket: a file that a read
// may never finish (/dev/zero), or that is not a file at all.
func device(info os.FileInfo) bool {
	return info.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket|os.ModeIrregular) != 0
}

// writable returns why a file cannot be written at path: its directory
// does not exist or cannot be written, or path is a directory. It writes
// and removes a temporary file to find out.
func writable(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// A relative path is looked for in the notebook's or script's
		// directory (a notebook moved without its folder of fit files, or a
		// kernel started elsewhere): say which that is, as load does.
		if abs, err := filepath.Abs(dir); err == nil && abs != dir {
			return fmt.Errorf("the directory %s does not exist (looked for %s)", dir, abs)
		}
		return fmt.Errorf("the directory %s does not exist", dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".copulang-write-test-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("the directory %s cannot be written: %v", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// fileSystem is what a file written into place (a fit file: a temporary
// file beside it, renamed over it once whole) is written with: osFiles,
// or in tests one that records the order of the operations.
type fileSystem interface {
	// CreateNew creates the file name for writing; it must not exist.
	// Its permissions are perm when perm is not 0 (those of the file it
	// is to replace), else what os.Create gives.
	CreateNew(name string, perm fs.FileMode) (syncedFile, error)
	Rename(from, to string) error
	Remove(name string) error
	// SyncDir makes what was renamed into the directory dir durable.
	SyncDir(dir string) error
}

// syncedFile is a file being written whose contents Sync makes durable.
type syncedFile interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
}

// osFiles is the fileSystem of the os package.
type osFiles struct{}

func (osFiles) CreateNew(name string, perm fs.FileMode) (syncedFile, error) {
	// With the permissions os.Create gives (after the umask), not
	// CreateTemp's 0600, unless perm says otherwise.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	if perm != 0 {
		// Chmod, unlike OpenFile's mode, is not cut by the umask.
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(name)
			return nil, err
		}
	}
	return f, nil
}

func (osFiles) Rename(from, to string) error { return os.Rename(from, to) }

func (osFiles) Remove(name string) error { return os.Remove(name) }

func (osFiles) SyncDir(dir string) error { return syncDir(dir) }

// writeTemporary writes what is to be written at path with write,
// through files, to a temporary file beside it (path.tmp-PID-N), synced
// to disk, and returns its name, for renameInPlace to rename over path: a
// failure never leaves half a file at path. The temporary file is removed
// if anything fails. A file already at path keeps its permission bits: a
// CSV a user made readable only to themselves stays so when it is written
// again (its owner is the writer's, as a rename must make it).
func writeTemporary(files fileSystem, path string, write func(io.Writer) error) (string, error) {
	var perm fs.FileMode
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		perm = info.Mode().Perm()
	}
	var tmp syncedFile
	var err error
	for try := 0; ; try++ {
		tmp, err = files.CreateNew(fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), try), perm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return "", err
		}
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		files.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// renameInPlace renames tmp, which writeTemporary wrote and synced, over
// path (a symbolic link there is replaced, not followed), or removes it,
// and syncs path's directory, so that after a power cut path is the file
// before or the file after, whole. Without the syncs a file system may
// make the rename durable before the contents (ext4's delayed allocation,
// XFS), and the file at path is then empty or damaged after the cut: the
// fit file's checksum would refuse it, and the fit, perhaps of hours,
// would be sampled again.
func renameInPlace(files fileSystem, tmp, path string) error {
	if err := files.Rename(tmp, path); err != nil {
		files.Remove(tmp)
		return err
	}
	if err := files.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s was written, but its directory could not be synced to disk: %w", filepath.Base(path), err)
	}
	return nil
}
