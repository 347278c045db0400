package app

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// schedSample returns the calling process's CPU time (user + system, all
// threads, getrusage RUSAGE_SELF), the number of times its threads have
// blocked (voluntary context switches, ru_nvcsw: a wait in futex, poll or
// read that gave up the CPU; a thread that polls and yields makes none)
// and the time its threads have spent runnable but waiting for a CPU (the
// second field of /proc/self/task/*/schedstat, summed over the threads;
// Linux's Documentation/scheduler/sched-stats.rst), all counted since the
// process started, times in seconds. runDelay is NaN where schedstat cannot be read (a
// kernel without CONFIG_SCHED_INFO). Threads that have exited drop out of
// the sum, so a difference of two samples can be short by their part.
//
// The files stay open between samples (one pread each), and the task list
// is read again only when /proc/self/stat's thread count changes, so that
// a sample costs a few microseconds per thread.
func schedSample() (cpu, sleeps, runDelay float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		sleeps = float64(ru.Nvcsw)
	}
	return cpu, sleeps, sched.runDelay()
}

// sched holds the process's open schedstat files.
var sched schedFiles

// schedFiles are /proc/self/stat and the open schedstat file of every
// thread, as of the last thread count seen.
type schedFiles struct {
	mu      sync.Mutex
	stat    *os.File
	threads int
	tasks   []*os.File
	buf     [512]byte
}

// runDelay is the sum of the threads' run delays in seconds, NaN when it
// cannot be read.
func (s *schedFiles) runDelay() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stat == nil {
		f, err := os.Open("/proc/self/stat")
		if err != nil {
			return nan
		}
		s.stat = f
	}
	if n := s.threadCount(); n != s.threads || n < 0 {
		s.reopen()
		s.threads = n
	}
	var ns int64
	for _, f := range s.tasks {
		k, err := f.ReadAt(s.buf[:], 0)
		if k == 0 && err != nil {
			continue // the thread exited
		}
		fl := bytes.Fields(s.buf[:k])
		if len(fl) < 2 {
			return nan
		}
		v, err := strconv.ParseInt(string(fl[1]), 10, 64)
		if err != nil {
			return nan
		}
		ns += v
	}
	if len(s.tasks) == 0 {
		return nan
	}
	return float64(ns) / 1e9
}

// threadCount is field 20 of /proc/self/stat (num_threads), -1 when
// unreadable. The fields are counted after the command name's closing
// parenthesis, which may itself hold spaces.
func (s *schedFiles) threadCount() int {
	k, _ := s.stat.ReadAt(s.buf[:], 0)
	b := s.buf[:k]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 18 {
		return -1
	}
	n, err := strconv.Atoi(string(f[17]))
	if err != nil {
		return -1
	}
	return n
}

// reopen closes the task files and opens those of the current threads.
func (s *schedFiles) reopen() {
	for _, f := range s.tasks {
		f.Close()
	}
	s.tasks = s.tasks[:0]
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		if f, err := os.Open("/proc/self/task/" + e.Name() + "/schedstat"); err == nil {
			s.tasks = append(s.tasks, f)
		}
	}
}
