package tcp

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport/internal/busypoll"
)

// Timing of the poller goroutine: it sleeps at most quietSlice while the
// rank polls for itself, and at most sleepSlice in poll(2) otherwise.
const (
	quietSlice = time.Millisecond
	sleepSlice = 100 * time.Millisecond
)

// Progress reads the sockets and delivers frames on the calling goroutine
// until done() returns true or nothing has arrived for the busy-poll
// budget (Options.Spin; transport.Progresser). A rank waiting for a
// message thus reads it itself, without a hand-off from another goroutine
// through the Go scheduler. When it gives up, the poller goroutine reads
// for the rank while it sleeps.
func (e *Endpoint) Progress(done func() bool) {
	if e.spin <= 0 || e.closing.Load() || !e.started.Load() {
		return
	}
	e.blocked.Store(false)
	e.fg.Add(1)
	// Every look costs a system call anyway; yielding the CPU between two
	// (sched_yield, which returns at once on an idle CPU) lets the rank
	// this one waits for run when they share a CPU, also with a host
	// loaded by other processes (docs/runtime-progress.md has the
	// measurement: about half the time of pure spinning's median).
	if busypoll.Until(done, e.pollFn, e.spin, true) {
		// The rank will most likely be back soon: the poller stays quiet.
		e.fgRecent.Store(true)
		e.fg.Add(-1)
		return
	}
	e.askPoller()
	e.fg.Add(-1)
	e.kickQuiet()
}

// askPoller marks the rank as sleeping until the poller delivers (a
// Progress call gave up, or a Send waits for room in a socket buffer) and
// ends the poller's quiet sleep.
func (e *Endpoint) askPoller() {
	e.blocked.Store(true)
	e.kickQuiet()
}

// kickQuiet ends the poller's quiet sleep (or the next one).
func (e *Endpoint) kickQuiet() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// wakePoller ends the poller's sleep, quiet or in poll(2).
func (e *Endpoint) wakePoller() {
	e.kickQuiet()
	unix.Write(e.wakeW, []byte{1})
}

// tryPoll reads every socket once if no other goroutine is reading them,
// and returns the number of frames delivered.
func (e *Endpoint) tryPoll() int {
	if !e.polling.CompareAndSwap(false, true) {
		return 0
	}
	n := 0
	if len(e.peerList) == 1 {
		n = e.pollPeer(e.peerList[0])
	} else if k, err := unix.Poll(e.rfds, 0); err == nil && k > 0 {
		for i, pf := range e.rfds {
			if pf.Revents != 0 {
				n += e.pollPeer(e.peerList[i])
			}
		}
	}
	e.polling.Store(false)
	return n
}

// pollLoop is the poller goroutine: it reads the sockets while no Progress
// call does, sleeping in poll(2) on all of them (and the wake-up pipe) when
// they are empty. While a Progress call polls, or one has just found what
// it waited for (the rank is between two calls), it sleeps for at most
// quietSlice instead, so a busy rank's input wakes no second thread. Once
// Close has begun it reads and discards until stopped.
func (e *Endpoint) pollLoop() {
	defer close(e.done)
	e.quiet = time.NewTimer(quietSlice)
	defer e.quiet.Stop()
	for !e.stop.Load() {
		if !e.closing.Load() && (e.fg.Load() > 0 || (e.fgRecent.Swap(false) && !e.blocked.Load())) {
			e.quiet.Reset(quietSlice)
			e.quietN.Add(1)
			select {
			case <-e.kick:
			case <-e.quiet.C:
			}
			continue
		}
		if e.tryPoll() > 0 {
			// A delivery may have readied the goroutine waiting for it:
			// let it run on this thread now rather than on another one.
			runtime.Gosched()
			continue
		}
		e.waitInput()
	}
}

// waitInput sleeps in poll(2) until a socket of a peer whose stream goes
// on is readable, the wake-up pipe is written, or sleepSlice passes.
func (e *Endpoint) waitInput() {
	e.pfds = append(e.pfds[:0], unix.PollFd{Fd: int32(e.wakeR), Events: unix.POLLIN})
	for _, p := range e.peerList {
		if !p.ended.Load() {
			e.pfds = append(e.pfds, unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN})
		}
	}
	n, err := unix.Poll(e.pfds, int(sleepSlice/time.Millisecond))
	if err == nil && n > 0 && e.pfds[0].Revents != 0 {
		var b [64]byte
		unix.Read(e.wakeR, b[:])
	}
	if n > 0 && e.polling.Load() {
		runtime.Gosched() // a Progress call reads them: do not spin against it
	}
}
