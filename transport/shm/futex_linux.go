package shm

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations (linux/futex.h). FUTEX_PRIVATE_FLAG is deliberately not
// used: the words live in memory shared between processes.
const (
	futexWait = 0
	futexWake = 1
)

// futexWaitOn sleeps while *w == val, at most d (d > 0). It returns on a
// wake-up, a timeout, a signal, or at once if *w != val.
func futexWaitOn(w *atomic.Uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWait, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWakeAll wakes every thread (of any process) sleeping on w.
func futexWakeAll(w *atomic.Uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWake, uintptr(1<<31-1), 0, 0, 0)
}

// ring wakes the bell's sleepers, if any.
func (b *bell) ring() {
	if b.sleepers.Load() != 0 {
		b.seq.Add(1)
		futexWakeAll(&b.seq)
	}
}

// sleep waits until cond() is true, the bell rings or d passes.
func (b *bell) sleep(cond func() bool, d time.Duration) {
	b.sleepers.Add(1)
	s := b.seq.Load()
	if !cond() {
		futexWaitOn(&b.seq, s, d)
	}
	b.sleepers.Add(^uint32(0))
}
