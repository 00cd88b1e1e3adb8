//go:build unix

package session

import (
	"os"
	"syscall"
)

// unblockFIFO opens the named pipe at path for writing and closes it, so
// that an open waiting for a writer returns (openData). Without O_NONBLOCK
// it would itself wait for a reader; with it, it fails when there is none.
func unblockFIFO(path string) {
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}
