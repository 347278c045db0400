//go:build !linux

package app

// schedSample is NaN, NaN where the process's CPU time and run delay are
// not read (see the Linux version).
func schedSample() (cpu, runDelay float64) { return nan, nan }
