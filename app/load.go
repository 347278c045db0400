package app

import (
	"context"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// StartLoad starts k CPU-consuming threads inside the calling rank's
// process, each consuming a CPU with floating-point arithmetic until the
// returned stop is called or ctx ends. This is how the study emulated
// slower processors (section 4.3.3, figures 4.120-4.123): the kernel
// shares the rank's CPUs between the application's threads and the load,
// so with k load threads on the rank's one CPU the application gets about
// 1/(k+1) of it, and its compute and communication times, read on its own
// clock, grow accordingly.
//
// Each load thread is a goroutine locked to an OS thread
// (runtime.LockOSThread) for its whole life, so that the kernel, not Go's
// scheduler, shares the CPUs between it and the application; StartLoad
// raises GOMAXPROCS by k so that the load threads hold Ps of their own and
// the application's goroutines keep the ones they had, and stop lowers it
// by k again. The threads inherit the rank's CPU binding (MPBENCH_BIND).
// StartLoad returns once every load thread runs; while they run their
// thread ids are registered, so that a trace's CPU time and run delay
// (Span.CPU, Span.RunDelay) leave them out. stop ends the busy loops and
// waits for their goroutines to return; each returns still locked, so its
// OS thread exits with it (no load thread outlives stop), except one that
// ran on the process's main thread, which Go would park for ever and is
// handed back to Go's scheduler instead. stop may be called more than
// once. k = 0 starts nothing.
func StartLoad(ctx context.Context, k int) (stop func()) {
	if k <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + k)
	var done, ready sync.WaitGroup
	done.Add(k)
	ready.Add(k)
	for i := 0; i < k; i++ {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			tid := gettid()
			loadThreads.add(tid)
			ready.Done()
			burn(ctx.Done())
			loadThreads.remove(tid)
			if tid == os.Getpid() {
				// The process's main thread: Go parks it for ever
				// rather than let it exit, so give it back.
				runtime.UnlockOSThread()
			}
			// Others return locked, and their threads exit.
		}()
	}
	ready.Wait()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			done.Wait()
			runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) - k)
		})
	}
}

// loadThreads is the set of OS thread ids of the running load threads.
var loadThreads threadSet

// threadSet is a set of thread ids with a generation number that changes
// with every addition or removal.
type threadSet struct {
	mu   sync.Mutex
	tids map[int]bool
	gen  int
}

// add puts tid in the set.
func (s *threadSet) add(tid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tids == nil {
		s.tids = map[int]bool{}
	}
	s.tids[tid] = true
	s.gen++
}

// remove takes tid out of the set.
func (s *threadSet) remove(tid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tids, tid)
	s.gen++
}

// snapshot returns a copy of the set and its generation.
func (s *threadSet) snapshot() (map[int]bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[int]bool, len(s.tids))
	for t := range s.tids {
		m[t] = true
	}
	return m, s.gen
}

// burnSink keeps burn's arithmetic from being optimised away.
var burnSink atomic.Uint64

// burn consumes one CPU with floating-point arithmetic until quit is
// closed; it looks at quit every 2^20 multiply-adds (a few milliseconds).
func burn(quit <-chan struct{}) {
	x := 1.0
	for {
		for i := 0; i < 1<<20; i++ {
			x = x*1.0000001 + 1e-9
		}
		burnSink.Store(math.Float64bits(x))
		select {
		case <-quit:
			return
		default:
		}
	}
}
