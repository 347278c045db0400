//go:build !linux

package app

// schedSample is NaN, NaN, NaN where the process's CPU time, blocking
// count and run delay are not read (see the Linux version).
func schedSample() (cpu, sleeps, runDelay float64) { return nan, nan, nan }
