package comm

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/mpbench/mpbench/transport"
)

// engine is one rank's matching and protocol state, shared by all
// communicators of that rank. It implements transport.Handler and
// transport.FailureHandler.
//
// Locking: mu guards the queues, the rendezvous tables, failure state and
// the guarded fields of requests. It is never held across a transport
// Send or a payload read that may wait (only eager payloads of at most
// inline bytes, which the transport's read copies from memory, are read
// under it), so Deliver never waits on another rank.
//
// Matching invariants (all under mu; the interleaving tests check them by
// making goroutines yield at every point where mu is released):
//
//   - M1. A message is in exactly one place: a context's unexpected queue,
//     in flight on the goroutine delivering it (deliverEager reading its
//     payload between two critical sections), or matched to one receive. A
//     receive is in exactly one place: the posted queue, rdvRecv (matched to
//     an RTS, awaiting Data), or owned by the one goroutine copying into it.
//   - M2. No posted receive matches an unexpected message of its context:
//     every push onto one list is in the critical section that searched the
//     other (startRecv: takeUnexpected then pushPosted; deliverEager and
//     deliverRTS: takePosted then pushUnexpected), and an eager payload read
//     outside mu searches the posted list again before it is queued.
//   - M3. Frames from one source are delivered one at a time in send order
//     (transport contract), so the unexpected queue holds each source's
//     messages in send order and its in-flight message precedes all its
//     later ones: MPI's non-overtaking rule, RTS and eager alike.
//   - M4. A request in the posted queue, rdvSend or rdvRecv is not done, and
//     every path that finishes one removes it first (PeerFailed, close,
//     cancel, run, deliverCTS, deliverData). A send whose frame the
//     transport is still moving (SendStarter.StartSend returned pending) is
//     in none of them and is finished only by its SendDone, which the
//     transport calls exactly once. Once an owner's wait returns, neither
//     the engine nor the transport holds a reference to the request, so
//     pooled requests are never completed in a later life.
//   - M5. A send is in rdvSend before its RTS is written and a receive is in
//     rdvRecv before its CTS is written, so a CTS always finds its send and
//     Data always finds its receive, whichever goroutine runs first.
type engine struct {
	ep        transport.Endpoint
	prog      transport.Progresser  // ep's, if it delivers on waiting goroutines
	start     transport.SendStarter // ep's, if some of its sends complete later
	deferFrom int                   // start's DeferFrom: shorter payloads go through ep.Send
	inline    int                   // eager payloads read while holding mu (see inlineCopy)
	rank      int
	size      int
	eager     int

	cookies atomic.Uint64 // last rendezvous cookie used by this rank

	mu      sync.Mutex
	queues  map[uint32]*matchQueue // by transport context
	lastCtx uint32                 // context of lastQ
	lastQ   *matchQueue            // the queues last looked up (see queue)
	rdvSend map[uint64]*request    // sends whose RTS awaits a CTS, by cookie
	rdvRecv map[rdvKey]*request    // receives whose CTS awaits Data
	waiters []*request             // requests of the waits in progress (see wait)
	queued  []*request             // non-blocking requests whose action awaits a waiter
	failed  []error                // by world rank: why the peer failed, nil if alive
	closed  bool
	nextID  uint32 // smallest communicator id this rank has not used
}

// inlineCopy is the longest payload copied while holding mu: a buffered
// eager message into its receive, or an eager payload out of a transport
// whose read of it only copies (transport.InlineReader). Its critical
// section then matches and completes the message in one, where a longer
// copy releases mu (two), so that the rank's other goroutines never wait
// for more than a short copy.
const inlineCopy = 4 << 10

// rdvKey names a rendezvous at the receiver: sender's world rank and the
// sender's cookie.
type rdvKey struct {
	src    int
	cookie uint64
}

func newEngine(ep transport.Endpoint, eager int) *engine {
	prog, _ := ep.(transport.Progresser)
	start, _ := ep.(transport.SendStarter)
	deferFrom := math.MaxInt
	if start != nil {
		deferFrom = start.DeferFrom()
	}
	inline := 0
	if ir, ok := ep.(transport.InlineReader); ok {
		inline = min(ir.InlineBytes(), inlineCopy)
	}
	return &engine{
		inline:    inline,
		ep:        ep,
		prog:      prog,
		start:     start,
		deferFrom: deferFrom,
		rank:      ep.Rank(),
		size:      ep.Size(),
		eager:     eager,
		queues:    make(map[uint32]*matchQueue),
		rdvSend:   make(map[uint64]*request),
		rdvRecv:   make(map[rdvKey]*request),
		failed:    make([]error, ep.Size()),
		nextID:    worldID + 1,
	}
}

// queue returns the matching queues of context ctx, creating them (a
// message may arrive before the local rank created its communicator).
// The last context looked up is answered without the map: a receive and
// the message that matches it look up the same one, and a map lookup
// costs more than the rest of matching a short message. Queues are never
// removed, so the cached one stays valid. Caller holds e.mu.
func (e *engine) queue(ctx uint32) *matchQueue {
	if q := e.lastQ; q != nil && e.lastCtx == ctx {
		return q
	}
	q := e.queues[ctx]
	if q == nil {
		q = new(matchQueue)
		e.queues[ctx] = q
	}
	e.lastCtx, e.lastQ = ctx, q
	return q
}

// Deliver handles one incoming frame (transport.Handler).
func (e *engine) Deliver(h transport.Header, read func(dst []byte) error) error {
	src := int(h.Source)
	if src < 0 || src >= e.size || src == e.rank {
		return fmt.Errorf("comm: rank %d got a %v frame from invalid source rank %d", e.rank, h.Kind, src)
	}
	switch h.Kind {
	case transport.Eager:
		return e.deliverEager(h, read)
	case transport.RTS:
		e.deliverRTS(h)
	case transport.CTS:
		e.deliverCTS(h)
	case transport.Data:
		return e.deliverData(h, read)
	case transport.Control:
		if h.Length > 0 {
			return read(nil)
		}
	default:
		return fmt.Errorf("comm: rank %d got a frame of unknown kind %d from rank %d", e.rank, h.Kind, src)
	}
	return nil
}

// PeerFailed fails every pending operation that involves world rank peer
// (transport.FailureHandler): receives from it, wildcard receives on
// communicators containing it, rendezvous sends to it awaiting a CTS and
// receives awaiting its Data. Later operations involving peer fail at
// once.
func (e *engine) PeerFailed(peer int, cause error) {
	if peer < 0 || peer >= e.size {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed[peer] != nil {
		return
	}
	e.failed[peer] = cause
	for _, q := range e.queues {
		for r := q.postedHead; r != nil; {
			next := r.next
			if r.peer == peer || (r.peer == AnySource && r.c.local[peer] >= 0) {
				q.unlinkPosted(r)
				r.finish(Status{}, r.c.peerErr(peer, cause))
			}
			r = next
		}
	}
	for k, r := range e.rdvSend {
		if r.peer == peer {
			delete(e.rdvSend, k)
			r.finish(Status{}, r.c.peerErr(peer, cause))
		}
	}
	for k, r := range e.rdvRecv {
		if k.src == peer {
			delete(e.rdvRecv, k)
			r.finish(Status{}, r.c.peerErr(peer, cause))
		}
	}
}

// peerErr is the error of an operation on c that failed because world
// rank peer failed.
func (c *communicator) peerErr(peer int, cause error) error {
	return fmt.Errorf("comm: rank %d (world rank %d) failed: %w", c.local[peer], peer, cause)
}

// recvFailure returns why a receive r cannot be posted: the world is
// closed, its source failed, or (for AnySource) some member of its
// communicator failed; nil if it can. Caller holds e.mu.
func (e *engine) recvFailure(r *request) error {
	if e.closed {
		return ErrClosed
	}
	if r.peer != AnySource {
		if err := e.failed[r.peer]; err != nil {
			return r.c.peerErr(r.peer, err)
		}
		return nil
	}
	for _, w := range r.c.world {
		if err := e.failed[w]; err != nil {
			return r.c.peerErr(w, err)
		}
	}
	return nil
}

// close fails all pending operations with ErrClosed and closes the
// endpoint.
func (e *engine) close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for _, q := range e.queues {
		for r := q.postedHead; r != nil; {
			next := r.next
			q.unlinkPosted(r)
			r.finish(Status{}, ErrClosed)
			r = next
		}
		for m := q.unexpHead; m != nil; {
			next := m.next
			q.unlinkUnexpected(m)
			if m.sreq != nil {
				m.sreq.finish(Status{}, ErrClosed)
			}
			putMessage(m)
			m = next
		}
	}
	for k, r := range e.rdvSend {
		delete(e.rdvSend, k)
		r.finish(Status{}, ErrClosed)
	}
	for k, r := range e.rdvRecv {
		delete(e.rdvRecv, k)
		r.finish(Status{}, ErrClosed)
	}
	e.mu.Unlock()
	return e.ep.Close()
}
