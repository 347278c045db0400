package comm

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// reqKind says whether a request sends or receives.
type reqKind uint8

const (
	reqSend reqKind = iota + 1
	reqRecv
)

// action is protocol work a request still has to do on its owner's side.
type action uint8

const (
	actNone action = iota
	actCTS         // receive matched an RTS: send the CTS
	actData        // send got its CTS: send the Data frame
)

// request is the runtime's state of one send or receive (MPI_Request).
// Fields below the line are guarded by engine.mu.
type request struct {
	e      *engine
	c      *communicator // for translating world ranks into c's ranks
	kind   reqKind
	buf    []byte
	peer   int    // send: destination world rank; receive: wanted source world rank or AnySource
	ctx    uint32 // transport context
	tag    int32  // wire tag; AnyTag for a wildcard receive
	cookie uint64 // rendezvous cookie (sender's)

	// blocking: the owner is inside a blocking call (Send, Recv,
	// Sendrecv, Barrier) and runs pending actions itself; otherwise an
	// action found while the owner is not waiting is run by another
	// waiting goroutine of the rank or a new goroutine (see trigger).
	blocking bool
	own      *waker // the request's own
	w        *waker // the one its owner waits with (own, or shared in Sendrecv)

	// ---- guarded by engine.mu
	next, prev *request // posted-receive queue links
	waiting    bool     // the owner is in wait for it and has not been woken
	joined     bool     // among engine.waiters
	act        action
	claimed    bool // act is being run
	msrc       int  // receive: world rank of the matched message's sender
	mtag       int32
	mlen       int
	done       bool
	st         Status
	err        error
}

// waker is how the owner of requests learns that one of them needs it:
// it completed or got a protocol action. The owner polls note while it
// drives progress (so a completion found by its own poll costs one store
// and one load, no channel operation), and only once it is about to park
// does it ask for a token on ch.
type waker struct {
	note   atomic.Uint32 // noteEvent or noteDone: something happened since the owner last looked
	ch     chan struct{} // a token for a parked owner (capacity 1)
	ready  func() bool   // w.noted, bound once (no allocation per wait)
	parked bool          // the owner parks on ch (guarded by engine.mu)
}

// Values of waker.note besides 0: a request of the wait completed
// (noteDone, set by finish) or got something else to do (noteEvent).
const (
	noteEvent = 1
	noteDone  = 2
)

func newWaker() *waker {
	w := &waker{ch: make(chan struct{}, 1)}
	w.ready = w.noted
	return w
}

// clearNote clears the note before the owner looks at its requests (W2).
// Caller holds e.mu and owns w: every other write of the note (wake) holds
// e.mu too, and only the owner reads it without e.mu, so a plain store
// suffices, ordered for the wakers by the critical section it is in. An
// atomic Store is an XCHG on amd64, a full barrier on every receive.
func (w *waker) clearNote() { *(*uint32)(unsafe.Pointer(&w.note)) = 0 }

// noted reports whether something happened since the owner last looked;
// it is the done condition of transport.Progresser.Progress while the
// owner waits.
func (w *waker) noted() bool { return w.note.Load() != 0 }

// reqPool holds requests of blocking calls; they never escape to users.
var reqPool = sync.Pool{New: func() any {
	w := newWaker()
	return &request{own: w, w: w}
}}

// getReq returns a pooled request for a blocking call.
func getReq() *request {
	r := reqPool.Get().(*request)
	r.blocking = true
	return r
}

// putReq returns a completed pooled request to the pool.
func putReq(r *request) {
	own := r.own
	*r = request{own: own, w: own}
	reqPool.Put(r)
}

// ownedRequest is a non-blocking call's request with its waker in the
// same allocation.
type ownedRequest struct {
	request
	wk waker
}

// newReq returns a request for a non-blocking call (Isend, Irecv), owned
// by the caller until garbage collected: one allocation, the waker's
// poll function made by its first wait that polls and its channel by its
// first that parks (block), so a request that completes before its Wait
// costs one allocation, one that is polled for two (four before).
func newReq() *request {
	r := &ownedRequest{}
	r.own, r.w = &r.wk, &r.wk
	return &r.request
}

// newRequest returns a request of kind for buf with peer (send: destination
// world rank; receive: source world rank or AnySource), context ctx and wire
// tag (or AnyTag). Blocking calls get a pooled request; w, if not nil,
// replaces its waker (Sendrecv waits on two requests at once).
func (e *engine) newRequest(c *communicator, kind reqKind, buf []byte, peer int, ctx uint32, tag int32, blocking bool, w *waker) *request {
	var r *request
	if blocking {
		r = getReq()
	} else {
		r = newReq()
	}
	r.e, r.c, r.kind, r.buf, r.peer, r.ctx, r.tag = e, c, kind, buf, peer, ctx, tag
	if w != nil {
		r.w = w
	}
	return r
}

// Wait blocks until r completes and returns its status and error; later
// calls return the same again.
func (r *request) Wait() (Status, error) {
	r.e.wait(r, nil, false)
	return r.st, r.err
}

// Test reports whether r has completed, without blocking; once done it
// returns r's status and error.
func (r *request) Test() (bool, Status, error) {
	r.e.mu.Lock()
	done := r.done
	r.e.mu.Unlock()
	if !done {
		return false, Status{}, nil
	}
	return true, r.st, r.err
}

// doneRequest is a send that completed when it was started (eager sends):
// Wait and Test return a zero Status and nil at once.
type doneRequest struct{}

func (doneRequest) Wait() (Status, error)       { return Status{}, nil }
func (doneRequest) Test() (bool, Status, error) { return true, Status{}, nil }

// wait blocks the owner until a and b (b may be nil) are done, running
// their pending protocol actions on the way. Both must share a waker.
// aJoined says that startRecv already registered a as a waiter with its
// note cleared and waiting set (a posted receive, no action possible
// yet): with no b, the owner then polls at once instead of taking e.mu
// to find what it already knows.
//
// Wake-up invariants (no wake-up is ever lost, some are spurious):
//
//   - W1. done, act, claimed, waiting and the waker's parked change only
//     under e.mu.
//   - W2. The owner clears the waker's note under e.mu, in the critical
//     section where it then looks at its requests (clearNote); seeing one not done and without an unclaimed action,
//     it sets waiting in that critical section and then drives progress
//     until the note is set. Whoever later finishes or triggers the
//     request holds e.mu, sees waiting and sets the note, so the owner's
//     poll ends. An owner whose poll gives up parks only after seeing,
//     under e.mu, that the note is still clear, and sets parked in that
//     critical section; the waker then also puts a token in ch (capacity
//     1), which the owner takes. The owner re-checks its requests after
//     every note or token, so a stale one costs one loop, never a missed
//     completion.
//   - W3. One goroutine runs an action: the one that sets claimed under e.mu
//     (the owner here, runQueued, or startRecv for a queued RTS).
//   - W4. An action of a non-blocking request whose owner is not waiting is
//     queued for the rank's other waiting goroutines when there are any (one
//     of them is woken; all check the queue before they park), else run on a
//     new goroutine; a waiter that leaves last hands what is still queued to
//     a new goroutine. So no rank's progress depends on another rank calling
//     Wait, and a rank that waits does its rendezvous steps itself.
//   - W5. finish removes a request from the waiters and sets noteDone in
//     its critical section, after done, st and err. A wait for one request
//     (no b) whose note reads noteDone after block returns is therefore
//     over: it returns without looking under e.mu again. (Only finish sets
//     noteDone, and every wait clears the note before its request can be
//     woken, in its first look or in startRecv, so the note cannot be
//     stale. With b, a's completion alone does not end the wait: it
//     looks.)
//   - W6. finish leaves a waiter joined, and wakes it with noteEvent
//     instead of noteDone, while a rendezvous send of the rank awaits its
//     CTS (rdvSend), or when it is the last waiter and actions are queued:
//     its owner then looks, as a wait does before it leaves, so it runs
//     queued actions itself and, until it leaves under e.mu, is a waiter
//     that a CTS arriving meanwhile wakes (trigger). Had finish removed
//     it, a CTS delivered by the same poll (the frames after the one that
//     completed the wait) would find no waiter and start a goroutine for
//     its Data step, which on a host whose CPUs all poll must first get
//     one: Exchange at rendezvous sizes (two Isends whose CTS arrive
//     while the owner waits in Recv) started about one per iteration and
//     ran 1.45x slower at 128 and 256 KiB. Small messages, with no
//     rendezvous in flight, keep W5's exit without the lock.
func (e *engine) wait(a, b *request, aJoined bool) {
	join := !aJoined || b != nil // registrations the first look still makes
	for look := join; ; look = true {
		if look && e.look(a, b, join && !aJoined, join && b != nil) {
			return
		}
		join = false
		e.block(a.w)
		if b == nil && a.w.note.Load() == noteDone {
			return // W5
		}
	}
}

// look runs the pending actions of a wait's requests (and actions queued
// for the rank's waiters), after registering a and b as waiters if asked
// to. It reports whether a and b (b may be nil) are done, having removed
// them from the waiters; otherwise it has set waiting on those not done
// and cleared their waker's note before looking (W2).
func (e *engine) look(a, b *request, joinA, joinB bool) bool {
	for {
		e.mu.Lock()
		a.w.clearNote()
		if joinA {
			e.join(a)
			joinA = false
		}
		if joinB {
			e.join(b)
			joinB = false
		}
		r := a
		if !r.claimable() {
			r = b
		}
		if !r.claimable() {
			r = e.nextQueued()
		}
		if r.claimable() {
			act := r.claim()
			e.mu.Unlock()
			e.run(r, act)
			continue
		}
		if a.done && (b == nil || b.done) {
			e.leave(a, b)
			e.mu.Unlock()
			return true
		}
		a.waiting = !a.done
		if b != nil {
			b.waiting = !b.done
		}
		e.mu.Unlock()
		return false
	}
}

// block drives progress until w's note is set; if the transport's poll
// gives up first (its spin budget passed), the owner parks on w's channel
// (W2).
func (e *engine) block(w *waker) {
	yieldPoint("wait: before polling")
	if w.ready == nil {
		w.ready = w.noted // a non-blocking request's first wait (see newReq)
	}
	if e.prog != nil {
		e.prog.Progress(w.ready)
	} else {
		spinWait(w.ready)
	}
	if w.noted() {
		return
	}
	e.mu.Lock()
	if w.noted() {
		e.mu.Unlock()
		return
	}
	if w.ch == nil {
		// A non-blocking request's first park (see newReq): a wake
		// reads ch only under e.mu after seeing parked.
		w.ch = make(chan struct{}, 1)
	}
	w.parked = true
	e.mu.Unlock()
	yieldPoint("wait: before parking")
	<-w.ch
}

// join registers r as one of the rank's waiters (requests whose owner is
// in wait). Caller holds e.mu.
func (e *engine) join(r *request) {
	e.waiters = append(e.waiters, r)
	r.joined = true
}

// leave removes a wait's requests from the waiters (see unjoin). Caller
// holds e.mu.
func (e *engine) leave(a, b *request) {
	e.unjoin(a)
	if b != nil {
		e.unjoin(b)
	}
}

// unjoin removes r from the waiters if it is one; if no waiter is left
// and actions are still queued, a new goroutine runs them (W4). Caller
// holds e.mu.
func (e *engine) unjoin(r *request) {
	if !r.joined {
		return
	}
	r.joined = false
	if i := slices.Index(e.waiters, r); i >= 0 {
		e.waiters = slices.Delete(e.waiters, i, i+1)
	}
	if len(e.waiters) == 0 && len(e.queued) > 0 {
		go e.runQueued()
	}
}

// nextQueued takes the first queued request whose action is still
// unclaimed, dropping those done or claimed meanwhile; nil if none.
// Caller holds e.mu.
func (e *engine) nextQueued() *request {
	for len(e.queued) > 0 {
		r := e.queued[0]
		e.queued[0] = nil
		e.queued = e.queued[1:]
		if len(e.queued) == 0 {
			e.queued = nil
		}
		if r.claimable() {
			return r
		}
	}
	return nil
}

// runQueued runs queued actions until none is left (W4).
func (e *engine) runQueued() {
	for {
		yieldPoint("runQueued: start")
		e.mu.Lock()
		r := e.nextQueued()
		if r == nil {
			e.mu.Unlock()
			return
		}
		act := r.claim()
		e.mu.Unlock()
		e.run(r, act)
	}
}

// claimable reports whether r (which may be nil) has a protocol action no
// goroutine has taken yet. Caller holds e.mu.
func (r *request) claimable() bool { return r != nil && !r.done && r.act != actNone && !r.claimed }

// claim takes claimable r's action for the calling goroutine, which must
// run it (W3). Caller holds e.mu.
func (r *request) claim() action {
	r.claimed = true
	return r.act
}

// waitSpins bounds spinWait: about 20-50 usec of yielding on an idle
// processor, longer than a wake-up round trip between two ranks'
// goroutines and shorter than a time slice.
const waitSpins = 256

// spinWait yields the processor until ready reports true or waitSpins
// yields have passed. Parking the owner on its channel at once costs a
// futex sleep and wake of its OS thread whenever its processor has nothing
// else to run, tens of usec per message on a virtual machine; in a chain
// of small messages (a pipeline broadcast's 16 KiB segments, each waking
// the next rank) that wake-up, not the copy, set the time. Yielding keeps
// the thread running while other ranks' goroutines still get the
// processor; MPI libraries poll for the same reason.
func spinWait(ready func() bool) {
	for i := 0; i < waitSpins && !ready(); i++ {
		runtime.Gosched()
	}
}

// wake signals r's owner if it waits: sets the note it polls to note
// (noteEvent or noteDone) and, if it parks, puts a token in its channel.
// Caller holds e.mu.
func (r *request) wake(note uint32) {
	if !r.waiting {
		return
	}
	r.waiting = false
	w := r.w
	parked := w.parked
	w.parked = false
	// Nothing of r or w is touched after the note unless the owner is
	// parked: an owner that polls may see noteDone, return without e.mu
	// (W5) and put r, with w, back in a pool shared by every rank of the
	// process.
	setNote(&w.note, note)
	if parked {
		select {
		case w.ch <- struct{}{}:
		default:
		}
	}
}

// finish completes r with st and err unless it is already done, and
// removes it from the waiters (W5) unless its owner must look once more
// (W6). Caller holds e.mu.
func (r *request) finish(st Status, err error) {
	if r.done {
		return
	}
	r.done = true
	r.st, r.err = st, err
	r.act = actNone
	e := r.e
	if r.joined && (len(e.rdvSend) > 0 || (len(e.waiters) == 1 && len(e.queued) > 0)) {
		r.wake(noteEvent) // W6
		return
	}
	e.unjoin(r)
	r.wake(noteDone)
}

// trigger gives r protocol work to do: its owner does it if it is in a
// blocking call or waiting, else a waiting goroutine of the rank or a new
// goroutine does (W4). Caller holds e.mu.
func (e *engine) trigger(r *request, act action) {
	r.act, r.claimed = act, false
	if r.blocking || r.waiting {
		r.wake(noteEvent)
		return
	}
	e.queued = append(e.queued, r)
	if len(e.waiters) == 0 {
		go e.runQueued()
		return
	}
	for _, w := range e.waiters {
		if w.waiting {
			w.wake(noteEvent)
			return
		}
	}
}

// cancel fails receive r with err if no message is being copied into it:
// it is still posted, or matched to an RTS whose Data has not begun (the
// sender then gets a cancelling CTS, so it does not wait forever).
// Otherwise r completes normally.
func (e *engine) cancel(r *request, err error) {
	e.mu.Lock()
	if r.done {
		e.mu.Unlock()
		return
	}
	q := e.queue(r.ctx)
	if r.prev != nil || q.postedHead == r {
		q.unlinkPosted(r)
		r.finish(Status{}, err)
		e.mu.Unlock()
		return
	}
	key := rdvKey{r.msrc, r.cookie}
	if r.mlen == 0 || e.rdvRecv[key] != r {
		e.mu.Unlock()
		return
	}
	delete(e.rdvRecv, key)
	r.finish(Status{}, err)
	e.mu.Unlock()
	_ = e.sendCTS(r.msrc, r.ctx, r.mtag, 0, r.cookie) // a failed sender needs no answer
}
