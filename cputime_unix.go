//go:build unix

package main

import "syscall"

// processCPUSeconds returns the CPU time, user and system, that this process
// has used so far, or 0 if the system does not say.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
