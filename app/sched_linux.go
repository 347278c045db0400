package app

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// schedSample returns the calling process's CPU time (user + system, all
// threads, getrusage RUSAGE_SELF) and the time its threads have spent
// runnable but waiting for a CPU (the second field of
// /proc/self/task/*/schedstat, summed over the threads; Linux's
// Documentation/scheduler/sched-stats.rst), both in seconds since the
// process started. runDelay is NaN where schedstat cannot be read (a
// kernel without CONFIG_SCHED_INFO). Threads that have exited drop out of
// the sum, so a difference of two samples can be short by their part.
func schedSample() (cpu, runDelay float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return cpu, nan
	}
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			return cpu, nan
		}
		v, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			return cpu, nan
		}
		ns += v
	}
	return cpu, float64(ns) / 1e9
}
