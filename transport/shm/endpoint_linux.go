package shm

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
)

// Timing of sleeps: a sleeping thread wakes at least every sleepSlice to
// re-check what it waits for, and checks peers' liveness every
// livenessEvery.
const (
	sleepSlice    = 10 * time.Millisecond
	livenessEvery = 10 * time.Millisecond
	quietSlice    = time.Millisecond
	streamSlice   = 100 * time.Microsecond
	closeTimeout  = 2 * time.Second
)

// Endpoint is one rank's shared-memory attachment; it implements
// transport.Endpoint and transport.Progresser. Create it with Prepare and
// Pending.Attach.
type Endpoint struct {
	rank, size     int
	own            view
	in             []*inPeer  // by source rank; nil for self and ranks not on this host
	inList         []*inPeer  // the non-nil entries of in
	nextIn         int        // index in inList where the next pass over the rings starts (see pollAll)
	out            []*outPeer // by destination rank; nil likewise
	outList        []*outPeer // the non-nil entries of out
	live           []*liveness
	spin           time.Duration
	cmaMin         int
	paths          []CopyPath // by source rank, from the start-up probe
	oversubscribed bool
	verify         bool // checksum every frame sent (Options.Verify)

	startMu sync.Mutex
	started bool
	h       transport.Handler
	fh      transport.FailureHandler

	polling    atomic.Uint32 // 1: held by whoever consumes the rings (see releaseToken)
	fg         atomic.Int32  // goroutines polling in Progress
	parked     atomic.Bool   // the poller goroutine sleeps
	fgRecent   atomic.Bool   // a Progress call found what it waited for since the poller last looked
	blocked    atomic.Bool   // the last Progress call gave up: the rank sleeps until the poller delivers
	closing    atomic.Bool
	killed     *atomic.Bool // Kill: ended without a goodbye, as a crashed process (inProcess)
	closeOnce  sync.Once
	pollerDone chan struct{}
	kick       chan struct{} // wakes the poller from a quiet sleep (capacity 1)
}

var (
	_ transport.Endpoint     = (*Endpoint)(nil)
	_ transport.Progresser   = (*Endpoint)(nil)
	_ transport.SendStarter  = (*Endpoint)(nil)
	_ transport.InlineReader = (*Endpoint)(nil)
)

// Rank returns this endpoint's rank.
func (e *Endpoint) Rank() int { return e.rank }

// Size returns the number of ranks in the job.
func (e *Endpoint) Size() int { return e.size }

// Local reports whether rank r is reached through shared memory.
func (e *Endpoint) Local(r int) bool { return r >= 0 && r < e.size && e.out[r] != nil }

// SingleCopy reports whether this rank reads payloads from rank src with
// process_vm_readv (decided at start-up by a probe read).
func (e *Endpoint) SingleCopy(src int) bool {
	return e.Local(src) && e.own.cmaFrom(src).Load() == 1
}

// CopyPath says how this rank reads large payloads from rank src:
// PathSingle when by process_vm_readv, else why they are copied through
// the ring (PathNone when src is not on this host).
func (e *Endpoint) CopyPath(src int) CopyPath {
	if src < 0 || src >= len(e.paths) {
		return PathNone
	}
	return e.paths[src]
}

// Start begins delivering frames to h from a poller goroutine, which
// sleeps on the segment's futex until a producer rings it whenever the
// rings are empty (see pollLoop), while the rank's own waits poll them
// (Progress). If h implements
// transport.FailureHandler it learns of peers whose process ended without
// closing its endpoint.
func (e *Endpoint) Start(h transport.Handler) error {
	if h == nil {
		return errors.New("shm: Start with a nil Handler")
	}
	e.startMu.Lock()
	defer e.startMu.Unlock()
	if e.closing.Load() {
		return transport.ErrClosed
	}
	if e.started {
		return errors.New("shm: Start called twice")
	}
	e.h = h
	e.fh, _ = h.(transport.FailureHandler)
	e.started = true
	go e.pollLoop()
	return nil
}

// tryPoll consumes the rings once if no one else is and completes the
// started sends the receivers have acknowledged; it returns the number of
// frames delivered and sends completed.
func (e *Endpoint) tryPoll() int { return e.tryPollUntil(nil) }

// tryPollUntil is tryPoll ending its pass over the rings as soon as stop
// (if not nil) holds after a frame was delivered: the frames after the one
// that readied the polling goroutine's request wait for the next poll, so
// that the goroutine first does what the request needs. A rendezvous
// sender whose CTS has come in thus announces or streams its Data before
// it reads the peer's Data that follows the CTS in the ring, and the two
// transfers overlap (see "Who copies when" in docs/runtime-progress.md).
func (e *Endpoint) tryPollUntil(stop func() bool) int {
	n := 0
	if e.inputWaiting() && e.polling.CompareAndSwap(0, 1) {
		if !e.closing.Load() {
			n = e.pollAll(stop)
		}
		releaseToken(&e.polling)
	}
	if !e.closing.Load() {
		n += e.reap()
	}
	return n
}

// inputWaiting reports whether a ring may hold a frame not yet consumed (a
// mark at the head the consumer has published; in the middle of a streamed
// frame that is payload, so only a hint) or a peer's process has ended
// (its end is reported by pollAll); it reads the rings without taking
// e.polling, so that a look at empty rings writes nothing shared.
func (e *Endpoint) inputWaiting() bool {
	for _, p := range e.inList {
		if markAt(p.data, p.hdr.head.Load()).Load() != 0 {
			return true
		}
		if l := e.live[p.rank]; l.exited.Load() && l.failed.Load() == nil {
			return true
		}
	}
	return false
}

// pending reports whether any ring holds bytes not yet consumed (as far as
// the consumer has published) or a started send is acknowledged but not
// completed; it may be called without e.polling.
func (e *Endpoint) pending() bool {
	for _, p := range e.inList {
		if p.hdr.tail.Load() != p.hdr.head.Load() && e.live[p.rank].failed.Load() == nil {
			return true
		}
	}
	return e.acksReady()
}

// pollLoop is the poller goroutine: it consumes the rings while no
// Progress call does. It never spins (a spinning poller would compete for
// the CPU with the rank's own polling): with nothing to do it sleeps on the
// segment's futex, asking producers to wake it, except while a Progress
// call polls or one has just found what it waited for (the rank is between
// two calls): then it sleeps for at most quietSlice without asking, so a
// busy rank costs its peers no futex wake-ups. Once a Progress call has
// given up (the rank sleeps until the poller delivers) the poller never
// sleeps without asking: park re-checks this after announcing itself, so
// a Progress call giving up at that moment is not missed either.
//
// The quiet sleep waits on a channel and a timer of the Go runtime, not
// in a system call: a thread blocked in a system call for longer than
// 20 µs holding its Go processor makes the runtime's monitor thread
// (sysmon) take the processor back, and sysmon then keeps waking every
// 20 µs instead of backing off to 10 ms, a context switch each time on
// the CPUs the polling ranks use.
func (e *Endpoint) pollLoop() {
	defer close(e.pollerDone)
	lastCheck := time.Now()
	quiet := time.NewTimer(quietSlice)
	defer quiet.Stop()
	for !e.closing.Load() {
		if now := time.Now(); now.Sub(lastCheck) >= livenessEvery {
			lastCheck = now
			e.checkPeers()
		}
		if e.fg.Load() > 0 || (e.fgRecent.Swap(false) && !e.blocked.Load()) {
			e.park(false, quiet)
			continue
		}
		if e.tryPoll() > 0 {
			// A delivery may have readied the goroutine waiting for it:
			// let it run on this thread now rather than on another one
			// woken for it.
			runtime.Gosched()
			continue
		}
		e.park(true, nil)
	}
}

// park sleeps the poller. Asking (ask, or the rank sleeps waiting for it:
// blocked), it sleeps on the segment's futex until a producer rings the
// bell, sleepSlice passes or Close; producers ring only while want is
// set: by the poller here when no Progress call polls, and by a Progress
// call that gives up. Otherwise it sleeps quietly until quiet fires or
// something of this process kicks it (kickPoller: a Progress call giving
// up, askPoller, Close). parked is set before blocked and fg are read
// here, and Progress sets blocked and lowers fg before it reads parked,
// so at least one side sets want and wakes the poller.
func (e *Endpoint) park(ask bool, quiet *time.Timer) {
	c := e.own.ctl()
	e.parked.Store(true)
	if !ask && !e.blocked.Load() {
		quiet.Reset(quietSlice)
		select {
		case <-quiet.C:
		case <-e.kick:
		}
		e.parked.Store(false)
		return
	}
	if e.fg.Load() == 0 {
		c.want.Store(1)
	}
	s := c.bell.seq.Load()
	if (e.fg.Load() == 0 && e.pending()) || e.closing.Load() {
		c.want.Store(0)
		e.parked.Store(false)
		return
	}
	futexWaitOn(&c.bell.seq, s, sleepSlice)
	c.clearWant()
	e.parked.Store(false)
}

// Progress delivers frames and completes acknowledged started sends on the
// calling goroutine until done() returns true or nothing has arrived for
// Options.Spin (transport.Progresser). A rank waiting for a message or an
// acknowledgement thus gets it without a hand-off between goroutines.
func (e *Endpoint) Progress(done func() bool) {
	if e.spin <= 0 || e.closing.Load() {
		return
	}
	c := e.own.ctl()
	// Flags are written only when they change: a store is a full barrier
	// (XCHG) on the path of every message.
	if e.blocked.Load() {
		e.blocked.Store(false)
	}
	e.fg.Add(1)
	if e.parked.Load() {
		c.clearWant()
	}
	ok := busypoll.Until(done, func() int { return e.tryPollUntil(done) }, e.spin, e.oversubscribed)
	if ok {
		// The rank got what it waited for and will most likely be back
		// soon: the poller stays quiet meanwhile.
		if !e.fgRecent.Load() {
			e.fgRecent.Store(true)
		}
		e.fg.Add(-1)
		return
	}
	// The rank will sleep until the poller delivers: it must ask to be
	// woken (see park).
	e.blocked.Store(true)
	if e.fg.Add(-1) == 0 && e.parked.Load() {
		c.want.Store(1)
		e.kickPoller()
		if e.pending() {
			c.bell.seq.Add(1)
			futexWakeAll(&c.bell.seq)
		}
	}
}

// kickPoller ends a quiet sleep of the poller (see park), now or, if it
// is not sleeping, its next one.
func (e *Endpoint) kickPoller() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// polled is busypoll.Until(done, poll) for the spin budget, with the
// calling goroutine counted among those polling the rank's rings (fg), as
// in Progress: the poller goroutine meanwhile neither competes with it for
// the rings and the CPU nor asks producers to wake it (which would cost
// them a futex wake-up per frame or fragment). It reports whether done
// held; the caller that goes on to sleep calls askPoller.
func (e *Endpoint) polled(done func() bool, poll func() int) bool {
	if e.spin <= 0 {
		return done()
	}
	e.fg.Add(1)
	if e.parked.Load() {
		e.own.ctl().clearWant()
	}
	ok := busypoll.Until(done, poll, e.spin, e.oversubscribed)
	e.fg.Add(-1)
	return ok
}

// askPoller marks the rank as sleeping on something only the poller can
// bring about (see park) and wakes a parked poller, so that incoming frames
// are delivered while the rank waits outside Progress.
func (e *Endpoint) askPoller() {
	e.blocked.Store(true)
	if e.fg.Load() == 0 && e.parked.Load() {
		c := e.own.ctl()
		c.want.Store(1)
		e.kickPoller()
		c.bell.seq.Add(1)
		futexWakeAll(&c.bell.seq)
	}
}

// checkPeers checks every peer's liveness.
func (e *Endpoint) checkPeers() {
	for _, p := range e.inList {
		e.checkPeer(p.rank)
	}
}

// checkPeer notes that peer's process has ended. Whatever it wrote before
// ending is still delivered: the failure is reported by the consumer once
// the peer's ring holds no complete frame and no goodbye came (pollAll),
// here at once if no one else is consuming.
func (e *Endpoint) checkPeer(peer int) {
	l := e.live[peer]
	if l.exited.Load() || l.failed.Load() != nil || e.out[peer].gone.Load() || !l.dead() {
		return
	}
	l.exited.Store(true)
	e.tryPoll()
}

// peerFailed records and reports (once) that peer failed, and fails the
// sends to it that await its acknowledgement.
func (e *Endpoint) peerFailed(peer int, cause error) {
	perr := &transport.PeerError{Peer: peer, Err: cause}
	if !e.live[peer].failed.CompareAndSwap(nil, perr) {
		return
	}
	e.failStarted(peer, perr)
	if e.fh != nil && !e.closing.Load() {
		e.fh.PeerFailed(peer, perr)
	}
}

// Close says goodbye to every peer (waiting up to 2 s for ring space),
// stops the poller, fails the started sends not yet acknowledged with
// transport.ErrClosed and releases the peers' process handles. After Close
// no frames are delivered and Send returns transport.ErrClosed. The
// mappings stay until the process exits (a concurrent caller may still be
// touching them). Close is idempotent and returns nil.
func (e *Endpoint) Close() error {
	e.closeOnce.Do(e.close)
	return nil
}

// Kill ends the endpoint as the crash of its process would
// (transporttest.Killer): no goodbye to any peer, nothing delivered after
// it, and Send returns transport.ErrClosed. A peer in another process
// learns of a rank's end from the rank's process (its pidfd), which Kill
// does not end; a peer in this process (an in-process job: NewJob, or
// ranks prepared and attached side by side) watches the rank's Kill
// instead, since their shared process never ends for one of them. Such a
// peer finds it dead at its next liveness check (every livenessEvery),
// delivers the frames it wrote before, and reports it once, Sends to it
// failing with a *transport.PeerError. Close after Kill does nothing.
func (e *Endpoint) Kill() {
	e.killed.Store(true)
	e.closeOnce.Do(e.close)
}

func (e *Endpoint) close() {
	e.startMu.Lock()
	e.closing.Store(true)
	started := e.started
	e.startMu.Unlock()
	c := e.own.ctl()
	e.kickPoller()
	c.bell.seq.Add(1)
	futexWakeAll(&c.bell.seq)
	if started {
		<-e.pollerDone
	}
	deadline := time.Now().Add(closeTimeout)
	for _, p := range e.out {
		if p == nil {
			continue
		}
		p.mu.Lock()
		if p.err == nil && !p.gone.Load() && e.live[p.rank].failed.Load() == nil && !e.killed.Load() {
			var hb [transport.HeaderSize]byte
			h := transport.Header{Kind: kindGoodbye, Source: int32(e.rank)}
			h.Encode(hb[:])
			e.write(p, hb[:], nil, deadline)
		}
		p.closed = true
		p.mu.Unlock()
	}
	for !e.polling.CompareAndSwap(0, 1) {
		runtime.Gosched() // a Progress call finishing its frame
	}
	for _, p := range e.outList {
		e.failStarted(p.rank, transport.ErrClosed)
	}
	for _, l := range e.live {
		if l != nil && l.pidfd >= 0 {
			unix.Close(l.pidfd)
			l.pidfd = -1
		}
	}
}
