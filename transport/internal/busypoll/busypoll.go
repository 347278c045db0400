// Package busypoll is the wait strategy of a rank that drives its own
// progress: poll the input without blocking for a bounded time, yielding
// the CPU between two looks when ranks outnumber CPUs, before the caller
// falls back to a blocking wait. Transports that implement
// transport.Progresser (shm, tcp) share it.
package busypoll

import (
	"runtime"
	"time"
)

// Budget is the default busy-poll time of a rank when local ranks share
// this host: 500 µs when they do not outnumber its CPUs (a rank then has a
// CPU to itself; a shorter spin lets a pair of ranks fall into waking each
// other through the kernel for every message), else 1 ms during which the
// rank yields its CPU between two looks (see Until).
func Budget(local int) time.Duration {
	if Oversubscribed(local) {
		return time.Millisecond
	}
	return 500 * time.Microsecond
}

// Oversubscribed reports whether local ranks on this host outnumber its
// CPUs (runtime.NumCPU).
func Oversubscribed(local int) bool { return local > runtime.NumCPU() }

// Until calls poll, which returns how much it delivered or completed,
// until done() reports true or budget passes with poll finding nothing;
// it reports whether done() was reached. When oversubscribed, the CPU is
// given up (sched_yield, as Open MPI does when oversubscribed) after
// every empty look, so the rank being waited for may run, instead of
// spinning out a time slice. The clock is read every 64 looks (8 when
// oversubscribed), and the Go processor is yielded every 1024 looks so
// that the process's other goroutines run without waiting for
// preemption. It is not yielded at every look when oversubscribed: each
// runtime.Gosched wakes an idle processor's thread to look for work (and
// may move the rank to that thread), which costs the ranks a context
// switch and a futex call per look on the CPUs they share (see
// docs/runtime-progress.md, "Oversubscribed").
func Until(done func() bool, poll func() int, budget time.Duration, oversubscribed bool) bool {
	var last time.Time // start of the current idle stretch, read lazily
	for i := 0; ; i++ {
		if done() {
			return true
		}
		if poll() > 0 {
			last = time.Time{}
			continue
		}
		if oversubscribed {
			Yield()
		}
		if i&63 == 63 || (oversubscribed && i&7 == 7) {
			now := time.Now()
			if last.IsZero() {
				last = now
			} else if now.Sub(last) > budget {
				return false
			}
			if i&1023 == 1023 {
				runtime.Gosched()
			}
		}
	}
}
