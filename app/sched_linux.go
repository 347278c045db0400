package app

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// schedSample returns the calling process's CPU time (user + system,
// getrusage RUSAGE_SELF), the number of times its threads have blocked
// (voluntary context switches, ru_nvcsw: a wait in futex, poll or read that
// gave up the CPU; a thread that polls and yields makes none) and the time
// its threads have spent runnable but waiting for a CPU (the second field
// of /proc/self/task/*/schedstat, summed over the threads; Linux's
// Documentation/scheduler/sched-stats.rst), all counted since the process
// started, times in seconds. The running load threads of StartLoad are
// left out of the CPU time (their time on a CPU, schedstat's first field,
// is subtracted) and of the run delay; they never block, so they add no
// sleeps. runDelay is NaN where schedstat cannot be read (a kernel without
// CONFIG_SCHED_INFO), and so is cpu then if load threads run. Threads that
// have exited drop out of the sums, so a difference of two samples can be
// short by their part.
//
// The files stay open between samples (one pread each), and the task list
// is read again only when /proc/self/stat's thread count or the set of
// load threads changes, so that a sample costs a few microseconds per
// thread.
func schedSample() (cpu, sleeps, runDelay float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		sleeps = float64(ru.Nvcsw)
	}
	runDelay, loadCPU := sched.read()
	return cpu - loadCPU, sleeps, runDelay
}

// gettid is the calling OS thread's id.
func gettid() int { return syscall.Gettid() }

// sched holds the process's open schedstat files.
var sched schedFiles

// schedFiles are /proc/self/stat and the open schedstat file of every
// thread, as of the last thread count seen.
type schedFiles struct {
	mu      sync.Mutex
	stat    *os.File
	threads int
	loadGen int          // loadThreads' generation when the tasks were opened
	load    map[int]bool // the load threads then
	tasks   []*os.File
	tids    []int // the thread id of each of tasks
	buf     [512]byte
}

// read returns the sum of the threads' run delays and the load threads'
// time on a CPU (schedstat's first field), in seconds, both NaN when they
// cannot be read (the second 0 while no load thread runs).
func (s *schedFiles) read() (runDelay, loadCPU float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	load, gen := loadThreads.snapshot()
	if len(load) > 0 {
		loadCPU = nan
	}
	if s.stat == nil {
		f, err := os.Open("/proc/self/stat")
		if err != nil {
			return nan, loadCPU
		}
		s.stat = f
		s.loadGen = gen - 1
	}
	if n := s.threadCount(); n != s.threads || n < 0 || gen != s.loadGen {
		s.reopen()
		s.threads, s.loadGen, s.load = n, gen, load
	}
	var delay, onCPU int64
	var loads int
	for i, f := range s.tasks {
		k, err := f.ReadAt(s.buf[:], 0)
		if k == 0 && err != nil {
			continue // the thread exited
		}
		fl := bytes.Fields(s.buf[:k])
		if len(fl) < 2 {
			return nan, loadCPU
		}
		if s.load[s.tids[i]] {
			v, err := strconv.ParseInt(string(fl[0]), 10, 64)
			if err != nil {
				return nan, loadCPU
			}
			onCPU += v
			loads++
			continue
		}
		v, err := strconv.ParseInt(string(fl[1]), 10, 64)
		if err != nil {
			return nan, loadCPU
		}
		delay += v
	}
	if len(s.tasks) == 0 {
		return nan, loadCPU
	}
	if loads == len(s.load) {
		loadCPU = float64(onCPU) / 1e9
	}
	return float64(delay) / 1e9, loadCPU
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
	s.tasks, s.tids = s.tasks[:0], s.tids[:0]
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, err := os.Open("/proc/self/task/" + e.Name() + "/schedstat"); err == nil {
			s.tasks = append(s.tasks, f)
			s.tids = append(s.tids, tid)
		}
	}
}
