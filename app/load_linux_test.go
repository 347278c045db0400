package app

import (
	"context"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the time thread tid of this process has spent on a CPU
// (the first field of its schedstat), seconds; ok is false once the
// thread has exited.
func threadCPU(t *testing.T, tid int) (sec float64, ok bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		t.Fatalf("schedstat of thread %d: %q", tid, b)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return float64(ns) / 1e9, true
}

// loadCPU is the summed CPU time of the threads tids, seconds.
func loadCPU(t *testing.T, tids []int) float64 {
	t.Helper()
	var sum float64
	for _, tid := range tids {
		s, ok := threadCPU(t, tid)
		if !ok {
			t.Fatalf("load thread %d exited while the load runs", tid)
		}
		sum += s
	}
	return sum
}

// processCPU is the process's CPU time, all threads (getrusage), seconds.
func processCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// until polls cond every 50 ms until it holds, failing after 60 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 60 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gone reports whether none of the threads tids is left in this process,
// but for its main thread, which stays.
func gone(tids []int) bool {
	for _, tid := range tids {
		if tid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid)); err == nil {
			return false
		}
	}
	return true
}

// TestStartLoad: k load threads are k OS threads of this process that
// consume CPU time, with GOMAXPROCS raised by k while they run; a trace's
// CPU time (schedSample) leaves their CPU out while the process's
// getrusage counts it; stop ends them, their threads exit (but for the
// main thread, handed back to Go) and GOMAXPROCS is restored; a context
// that ends stops them too.
func TestStartLoad(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	if stop := StartLoad(context.Background(), 0); runtime.GOMAXPROCS(0) != procs {
		t.Errorf("--load 0 changed GOMAXPROCS from %d to %d", procs, runtime.GOMAXPROCS(0))
	} else {
		stop()
	}

	stop := StartLoad(context.Background(), 2)
	if got := runtime.GOMAXPROCS(0); got != procs+2 {
		t.Errorf("GOMAXPROCS %d with 2 load threads, want %d", got, procs+2)
	}
	set, _ := loadThreads.snapshot()
	var tids []int
	for tid := range set {
		if tid == syscall.Gettid() {
			t.Errorf("load thread %d is the caller's thread", tid)
		}
		tids = append(tids, tid)
	}
	if len(tids) != 2 {
		t.Fatalf("load threads %v, want 2 distinct thread ids", tids)
	}
	for _, tid := range tids {
		if _, ok := threadCPU(t, tid); !ok {
			t.Fatalf("load thread %d is not a thread of this process", tid)
		}
	}

	// While the test sleeps, the load threads accumulate 200 ms of CPU
	// (however long a loaded host takes to give it to them): getrusage
	// counts it, schedSample leaves it out.
	load0, proc0 := loadCPU(t, tids), processCPU(t)
	sample0, _, _ := schedSample()
	until(t, "200 ms of CPU time in the load threads", func() bool { return loadCPU(t, tids)-load0 >= 0.2 })
	sample1, _, _ := schedSample()
	load1, proc1 := loadCPU(t, tids), processCPU(t)
	burned := load1 - load0
	if got := proc1 - proc0; got < 0.9*burned {
		t.Errorf("getrusage counted %.3f s of the process's CPU while its load threads used %.3f s", got, burned)
	}
	// schedSample's CPU is the process's less the load threads': the
	// other threads' (this test's polling, the runtime's) is small.
	got, others := sample1-sample0, (proc1-proc0)-burned
	if got >= burned/2 {
		t.Errorf("schedSample counted %.3f s of CPU while the load threads used %.3f s and the test slept: want their time left out", got, burned)
	}
	if math.Abs(got-others) > 0.02 {
		t.Errorf("schedSample counted %.3f s of CPU, the process's threads but the load's %.3f s", got, others)
	}

	stop()
	stop() // a second stop does nothing
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after stop, want %d", got, procs)
	}
	if set, _ := loadThreads.snapshot(); len(set) != 0 {
		t.Errorf("load threads %v registered after stop", set)
	}
	until(t, "the load threads' OS threads exiting after stop", func() bool { return gone(tids) })

	// A context that ends stops the load without stop.
	ctx, cancel := context.WithCancel(context.Background())
	stop = StartLoad(ctx, 1)
	set, _ = loadThreads.snapshot()
	tids = tids[:0]
	for tid := range set {
		tids = append(tids, tid)
	}
	cancel()
	until(t, "the load thread exiting when its context ends", func() bool { return gone(tids) })
	stop()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after the second load, want %d", got, procs)
	}
}
