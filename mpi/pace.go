//go:build mpi

package mpi

import (
	"runtime"
	"time"
)

// The Go runtime and a blocking MPI library disagree about one thing. While
// the main goroutine spends its time in cgo calls (MPI_Recv polling for a
// message, call after call), it is never rescheduled, so its P's scheduler
// tick does not advance. After 10 ms on one tick the runtime's monitor
// thread (sysmon, runtime/proc.go: retake) treats the goroutine as running
// too long and, since it sits in a cgo call, takes its P away; the tick
// still does not advance, so sysmon does it again at every wake-up, every
// 20 us (80 us with the kernel's timer slack), for as long as the calls go
// on. Each retake deschedules the rank. Measured on 2 CPUs with Open MPI
// 4.1 (which binds a rank to one core, so GOMAXPROCS is 1): a 64 KiB
// PingPong had about 14,000 context switches a second per rank, against
// 900 for the same loop in C, and ran 30-40% slower.
//
// pace keeps the tick moving: every yieldPeriod the main goroutine yields
// the processor once (runtime.Gosched), which reschedules it. A timer
// cannot ask for the yield, because with GOMAXPROCS 1 the only P is the one
// held in the cgo call and no timer runs; so pace reads the monotonic clock
// itself, every 8th call while calls are short and at every call once they
// are long. Costs: one counter increment per call, a clock read (about 25
// ns) per 8 short calls, and one hand-over of the locked main thread (a few
// microseconds) per yieldPeriod.

// yieldPeriod is the interval between yields: well under the runtime's 10 ms
// slice (forcePreemptNS in runtime/proc.go), with margin for a long call.
const yieldPeriod = 5 * time.Millisecond

// shortCalls is how many calls pace lets pass between clock reads while
// they are short (8 of them within yieldPeriod/8).
const shortCalls = 8

// pacer is pace's state; only the main goroutine touches it.
var pacer struct {
	origin time.Time     // clock origin
	calls  int           // calls since the last clock read
	every  int           // calls between clock reads: shortCalls or 1
	read   time.Duration // last clock read, since origin
	yield  time.Duration // last yield, since origin
}

func init() {
	pacer.origin = time.Now()
	pacer.every = shortCalls
}

// pace yields the processor once per yieldPeriod of MPI calls. It must be
// called on the main goroutine, after each MPI call (check does).
func pace() {
	p := &pacer
	if p.calls++; p.calls < p.every {
		return
	}
	p.calls = 0
	now := time.Since(p.origin)
	p.every = shortCalls
	if now-p.read > yieldPeriod/8 {
		p.every = 1
	}
	p.read = now
	if now-p.yield >= yieldPeriod {
		p.yield = now
		runtime.Gosched()
	}
}
