//go:build unix

package session

import (
	"context"
	"errors"
	"github.com/copulang/copulang/compiler"
	"os"
	"path/filepath"
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
	select {
	case err := <-done:
		var se *Error
		if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
			t.Fatalf("interrupted load: %v, want a KeyboardInterrupt", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the load went on reading after the interrupt")
	}
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
