//go:build !unix

package main

// processCPUSeconds returns 0: CPU time is measured on Unix systems only.
func processCPUSeconds() float64 { return 0 }
