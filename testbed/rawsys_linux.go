package testbed

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawPpoll is ppoll(2) on fds with timeout, made without telling the Go
// runtime, as rawRead and rawWrite are. A system call made through the
// runtime (unix.Ppoll) marks the goroutine's P as in a system call; while
// the forwarder sleeps the runtime's monitor thread (sysmon) takes that P,
// finds every P idle and sleeps deeply, and the next such call wakes it,
// after which it polls every 20 usec for a millisecond or more: on a
// testbed of spinning ranks that was one more thread woken, and timer
// interrupts every few tens of microseconds, per frame crossing
// (docs/testbed.md, "Accuracy measured"). Made directly, the loop's
// thread keeps its P (RunForwarder makes GOMAXPROCS at least 2 so the
// other goroutines have one); the runtime still preempts the loop every
// 10 ms (a signal ends the wait with EINTR). It returns the number of
// ready descriptors or the error.
func rawPpoll(fds []unix.PollFd, timeout time.Duration) (int, error) {
	ts := unix.NsecToTimespec(int64(timeout))
	n, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return int(n), e
	}
	return int(n), nil
}

// rawRead is read(2) of fd into b without telling the Go runtime, for a
// non-blocking descriptor: the bytes read, or the error (EAGAIN when none).
func rawRead(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// rawWrite is write(2) of b to fd without telling the Go runtime, for a
// non-blocking descriptor. A write to a TAP device runs the receiving
// node's network stack in the caller's context, microseconds per frame.
func rawWrite(fd int, b []byte) error {
	_, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return e
	}
	return nil
}
