//go:build unix

package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/copulang/copulang/compiler"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptWhileLoading: an interrupt stops a load that is still
// reading its file, here a pipe whose writer never stops (as a very large
// file, or load("/dev/zero")), and the cell fails with KeyboardInterrupt.
// The file used to be read to its end, whatever the interrupt, before the
// cell could notice it.
func TestInterruptWhileLoading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "endless.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	// If the cell never opened the pipe, open and close its reading end,
	// so that the writer below does not stay blocked in OpenFile.
	t.Cleanup(func() {
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // writes rows until the reader goes away
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.WriteString("a,b\n")
		row := []byte(strings.Repeat("1,2\n", 1024))
		for i := 0; ; i++ {
			if _, err := w.Write(row); err != nil {
				return
			}
			if i == 100 {
				cancel() // the kernel's interrupt, while the file is read
			}
		}
	}()
	s := New(Options{Dir: dir})
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(ctx, `data d = load("endless.csv")`, &recorder{})
		done <- err
	}()
	awaitInterrupted(t, done, 20*time.Second, "the load went on reading after the interrupt")
	if _, err := s.Execute(context.Background(), "1 + 1", &recorder{}); err != nil {
		t.Fatalf("the session after an interrupted load: %v", err)
	}
}

// TestInterruptWhileLoadRereads: a load statement reads its file again
// when it changed after the cell was checked; an interrupt during that
// reading is a KeyboardInterrupt too, not an error about the file.
func TestInterruptWhileLoadRereads(t *testing.T) {
	s := New(Options{Dir: "testdata"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.load(ctx, &compiler.LoadData{Name: "d", Path: "gss.csv"}, &recorder{})
	var se *Error
	if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
		t.Fatalf("load under a cancelled context: %v, want a KeyboardInterrupt", err)
	}
	if err := s.load(context.Background(), &compiler.LoadData{Name: "d", Path: "gss.csv"}, &recorder{}); err != nil {
		t.Fatalf("load: %v", err)
	}
}

// TestInterruptWhileOpeningPipe: an interrupt stops a load of a named
// pipe that no program writes, whose open waits for a writer, and leaves
// no goroutine blocked in that open. The open used to block before the
// reading, which an interrupt stops, had begun: `copulang run` hung and the
// kernel's next cell timed out.
func TestInterruptWhileOpeningPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.csv"), 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	for _, at := range []string{"check", "run"} {
		t.Run(at, func(t *testing.T) {
			s := New(Options{Dir: dir})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				if at == "check" { // the cell's check reads its data files
					_, err := s.Execute(ctx, `data d = load("fifo.csv")`, &recorder{})
					done <- err
					return
				}
				done <- s.load(ctx, &compiler.LoadData{Name: "d", Path: "fifo.csv"}, &recorder{})
			}()
			time.Sleep(100 * time.Millisecond) // the open waits for a writer
			cancel()
			awaitInterrupted(t, done, 5*time.Second, "the load still waits for a writer after the interrupt")
			if stack := blockedIn("session.openData"); stack != "" {
				t.Fatalf("a goroutine is left in openData:\n%s", stack)
			}
		})
	}
}

// TestInterruptWhilePipeIsSilent: an interrupt stops a load of a named
// pipe whose writer has written a line and then nothing more, without
// closing it: the read that waits for more returns.
func TestInterruptWhilePipeIsSilent(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wrote := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			wrote <- nil
			return
		}
		w.WriteString("a,b\n1,2\n")
		wrote <- w
	}()
	done := make(chan error, 1)
	go func() {
		done <- New(Options{Dir: dir}).load(ctx, &compiler.LoadData{Name: "d", Path: "fifo.csv"}, &recorder{})
	}()
	w := <-wrote
	if w == nil {
		t.Fatal("cannot open the pipe for writing")
	}
	defer w.Close()
	time.Sleep(100 * time.Millisecond) // the load waits for more
	cancel()
	awaitInterrupted(t, done, 5*time.Second, "the load still waits for the writer after the interrupt")
}

// blockedIn returns the stacks of the goroutines in function fn (waiting
// a second for those about to end), or "".
func blockedIn(fn string) string {
	var found string
	for range 100 {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		found = ""
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, fn) {
				found += g + "\n\n"
			}
		}
		if found == "" {
			return ""
		}
		time.Sleep(10 * time.Millisecond)
	}
	return found
}

// TestInterruptWhileOpeningRemovedPipe: an interrupt stops a load whose
// named pipe was removed while its open waited for a writer. Nothing can
// open that pipe by its path to release the open any more, so the load
// gives up after 2 s and leaves it waiting; it kept the cell waiting
// forever. (The test releases it through a second link.)
func TestInterruptWhileOpeningRemovedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "fifo.csv"), filepath.Join(dir, "link")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	if err := os.Link(fifo, link); err != nil {
		t.Skipf("cannot link the named pipe: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- New(Options{Dir: dir}).load(ctx, &compiler.LoadData{Name: "d", Path: "fifo.csv"}, &recorder{})
	}()
	time.Sleep(100 * time.Millisecond) // the open waits for a writer
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	cancel()
	awaitInterrupted(t, done, 10*time.Second, "the load still waits after the interrupt")
	// Release the open left waiting, so that no test after this one finds it.
	for deadline := time.Now().Add(5 * time.Second); blockedIn("session.openData") != "" && time.Now().Before(deadline); {
		unblockFIFO(link)
		time.Sleep(10 * time.Millisecond)
	}
	if stack := blockedIn("session.openData"); stack != "" {
		t.Fatalf("the open left waiting was not released:\n%s", stack)
	}
}

// awaitInterrupted waits up to within for an interrupted load's error on
// done, which must be a KeyboardInterrupt; late says what failed if none
// comes in time.
func awaitInterrupted(t *testing.T, done <-chan error, within time.Duration, late string) {
	t.Helper()
	select {
	case err := <-done:
		var se *Error
		if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
			t.Fatalf("interrupted load: %v, want a KeyboardInterrupt", err)
		}
	case <-time.After(within):
		t.Fatal(late)
	}
}

// TestWriteFileFollowsLinksAndWritesPipes: written into place, a file
// named through a symbolic link replaces the file the link names (the
// link stays), and a named pipe, which cannot be renamed over, is written
// as it is (export m to "/dev/stdout" keeps working).
func TestWriteFileFollowsLinksAndWritesPipes(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.csv", link); err != nil {
		t.Skip(err)
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteFile(link, text("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "new\n" {
		t.Errorf("the file the link names holds %q (%v), want %q", b, err, "new\n")
	}

	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip(err)
	}
	read := make(chan string)
	go func() {
		b, _ := os.ReadFile(pipe)
		read <- string(b)
	}()
	if err := WriteFile(pipe, text("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if got := <-read; got != "through the pipe\n" {
		t.Errorf("read %q from the pipe", got)
	}
	if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", fi, err)
	}
}

// TestExportRemovesStaleTemporaries: an export killed while it wrote
// leaves its temporary file (draws.csv.tmp-PID-N) beside the file; the
// next export to that path removes those of processes that are gone, as a
// fit file's write does, and not those of live processes.
func TestExportRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := cmd.Process.Pid
	if !processGone(dead) {
		t.Fatalf("process %d, which exited, is not gone", dead)
	}
	stale := fmt.Sprintf("d.csv.tmp-%d-0", dead)
	live := "d.csv.tmp-1-0" // init's
	for _, name := range []string{stale, live} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half an export"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, New(Options{Dir: dir}), "data d = simulate(FullCopula(p = 2), n = 20, levels = 3, seed = 1)\nexport d to \"d.csv\"")
	if _, err := os.Stat(filepath.Join(dir, stale)); !os.IsNotExist(err) {
		t.Errorf("%s, of a process that is gone, was not removed (%v)", stale, err)
	}
	if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
		t.Errorf("%s, of a live process, was removed: %v", live, err)
	}
}

// TestExportToAPipeWritesNoSidecars: export, export of data and impute to
// a path that is not a file (a named pipe, /dev/stdout) write their CSV
// there and no sidecar beside it (as root, export to /dev/stdout wrote
// /dev/stdout.provenance.csv), and say so.
func TestExportToAPipeWritesNoSidecars(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 60, levels = 3, seed = 1, missing = 0.1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 10, warmup = 5, chains = 2, seed = 1")
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct{ stmt, header, says string }{
		{`export m to "pipe"`, "chain,draw,C.1.2", "wrote 20 draws of m to " + pipe + ", which is not a file, so without the sidecars"},
		{`export d to "pipe"`, "Y1,Y2,Y3", "wrote 60 rows of d to " + pipe + ", which is not a file, so without the sidecar"},
		{`impute m to "pipe"`, "row,column", ", which is not a file, so without the sidecar that says what made them"},
	} {
		read := make(chan string)
		go func() {
			b, _ := os.ReadFile(pipe)
			read <- string(b)
		}()
		out := mustRun(t, s, tt.stmt)
		if got := <-read; !strings.HasPrefix(got, tt.header) {
			t.Errorf("%s: read %.40q from the pipe, want %s first", tt.stmt, got, tt.header)
		}
		if !strings.Contains(out.stdout.String(), tt.says) {
			t.Errorf("%s says %q, want %q", tt.stmt, out.stdout.String(), tt.says)
		}
		for _, side := range []string{ColumnsPath(pipe), ProvenancePath(pipe)} {
			if _, err := os.Lstat(side); err == nil {
				t.Errorf("%s wrote %s beside the pipe", tt.stmt, side)
			}
		}
	}
}

// TestRewrittenFilesKeepTheirPermissions: a file written again into place
// (an export, a fit file) keeps the permission bits it had, as writing
// it in place with os.Create would. Renaming a new file over it gave the
// new file's (0644 after the usual umask): an export a user had made
// private (0600) became readable to everyone.
func TestRewrittenFilesKeepTheirPermissions(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = simulate(FullCopula(p = 2), n = 30, levels = 3, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }")
	for _, tc := range []struct {
		name, code string
		perm       os.FileMode
	}{
		{"d.csv", `export d to "d.csv"`, 0o600},
		{"group.csv", `export d to "group.csv"`, 0o640},
		{"m.fit", `fit m with gibbs, iter = 10, warmup = 5, chains = 1, seed = 2, file = "m.fit"`, 0o600},
	} {
		path := filepath.Join(dir, tc.name)
		if strings.HasSuffix(tc.name, ".fit") {
			// A fit file is only overwritten by a fit.
			mustRun(t, s, `fit m with gibbs, iter = 10, warmup = 5, chains = 1, seed = 1, file = "m.fit"`)
		} else if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, tc.perm); err != nil {
			t.Fatal(err)
		}
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mustRun(t, s, tc.code)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.perm {
			t.Errorf("%s: %s has mode %v after it was written again, want %v", tc.code, tc.name, got, tc.perm)
		}
		if after, _ := os.ReadFile(path); string(after) == string(before) {
			t.Errorf("%s: %s was not written", tc.code, tc.name)
		}
	}
}
