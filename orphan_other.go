//go:build !unix

package main

// processGone reports false: where processes cannot be probed, the kernel
// watches only its parent id.
func processGone(pid int) bool { return false }
