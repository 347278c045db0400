//go:build !linux

package app

// schedSample is NaN, NaN, NaN where the process's CPU time, blocking
// count and run delay are not read (see the Linux version).
func schedSample() (cpu, sleeps, runDelay float64) { return nan, nan, nan }

// gettid is 0 where thread ids are not read: load threads are not
// registered by id (schedSample does not read per-thread times).
func gettid() int { return 0 }
