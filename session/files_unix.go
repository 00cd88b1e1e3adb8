//go:build unix

package session

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// unblockFIFO opens the named pipe at path for writing and closes it, so
// that an open waiting for a writer returns (openData). Without O_NONBLOCK
// it would itself wait for a reader; with it, it fails when there is none.
func unblockFIFO(path string) {
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

// lockDir takes an exclusive advisory lock (flock) on the directory dir
// and returns the function that releases it. The fit files of a directory
// are written under it, so that two kernels, or a kernel and a CLI run,
// that add scores to one file do not each write the file they read and
// lose the other's scores. The lock is on the directory, not the file,
// since a write replaces the file (rename); it leaves no file behind.
// It waits for the lock while ctx lets it.
func lockDir(ctx context.Context, dir string) (func(), error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrPermission) {
		// A directory that can be written but not read (-wx): written
		// without the lock, as before it.
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
				d.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			d.Close()
			// A file system without locks (some network ones) is written
			// as before: rename still keeps every write whole.
			if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) {
				return func() {}, nil
			}
			return nil, err
		}
		select {
		case <-ctx.Done():
			d.Close()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// processGone reports whether no process has the id pid on this machine:
// kill(pid, 0) fails with ESRCH. A process of another user (EPERM) is
// there.
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// syncDir makes the entries of the directory dir durable (fsync), so that
// a file renamed into it is found there after a power cut. A file system
// that cannot sync a directory (EINVAL) is left as it is.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}
