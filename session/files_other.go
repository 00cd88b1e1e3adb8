//go:build !unix

package session

// unblockFIFO does nothing where there are no named pipes to wait on
// (openData).
func unblockFIFO(path string) {}
