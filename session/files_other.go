//go:build !unix

package session

import "context"

// unblockFIFO does nothing where there are no named pipes to wait on
// (openData).
func unblockFIFO(path string) {}

// lockDir does nothing where flock is not there: a write of a fit file is
// still whole (rename), but two processes adding scores to one file at
// once may lose one's.
func lockDir(ctx context.Context, dir string) (func(), error) { return func() {}, nil }

// processGone reports false: without a way to ask whether a process is
// there, no temporary file is taken for a dead process's.
func processGone(pid int) bool { return false }

// syncDir does nothing: elsewhere a directory is not opened to be synced
// (Windows makes a rename durable with the file system's own journal).
func syncDir(dir string) error { return nil }
