package comm

import (
	"fmt"

	"github.com/mpbench/mpbench/internal/bufpool"
	"github.com/mpbench/mpbench/transport"
)

// The eager and rendezvous protocols.
//
// Eager (length <= eager limit): the sender writes one Eager frame and is
// done. The receiver copies the payload straight into a matching posted
// receive, or into a pooled buffer queued as an unexpected message.
//
// Rendezvous (longer): the sender registers the send under a fresh cookie
// and writes an RTS announcing the length. The receiver matches the RTS in
// arrival order like any message (so an eager message and a following
// rendezvous one from the same sender match in send order) and, once a
// receive matches, registers it under (sender, cookie) and answers CTS. The
// sender then writes Data, which the receiver reads directly into the
// receive buffer. Deliver never writes Data or CTS itself: those are
// written by the request's owner while it waits, or by a goroutine started
// for a non-blocking request, because a transport Send may block until the
// peer reads and two ranks doing so from their reader goroutines would
// deadlock. A CTS with Length 0 for a non-empty message tells the sender
// the receiver dropped it (truncation); the send then completes.

// deliverEager handles an Eager frame. A payload of at most e.inline
// bytes, which the transport's read only copies, is read in the critical
// section that matches it (M1 holds all the same: the message goes from
// the transport straight into its receive or the unexpected queue).
func (e *engine) deliverEager(h transport.Header, read func([]byte) error) error {
	src, n := int(h.Source), int(h.Length)
	e.mu.Lock()
	q := e.queue(h.Context)
	if r := q.takePosted(src, h.Tag); r != nil {
		if n <= e.inline {
			st, err, rerr := r.take(src, h.Tag, n, read)
			r.finish(st, err)
			e.mu.Unlock()
			return rerr
		}
		e.mu.Unlock()
		return e.receiveFrame(r, src, h.Tag, n, read)
	}
	m := getMessage()
	m.kind, m.src, m.tag, m.n = msgEager, src, h.Tag, n
	if n <= e.inline {
		var err error
		if n > 0 {
			m.bufp = bufpool.Get(n)
			err = read(*m.bufp)
		}
		if err != nil {
			putMessage(m)
		} else {
			q.pushUnexpected(m)
		}
		e.mu.Unlock()
		return err
	}
	e.mu.Unlock()
	yieldPoint("eager: payload read unlocked")
	m.bufp = bufpool.Get(n)
	if err := read(*m.bufp); err != nil {
		putMessage(m)
		return err
	}
	// A receive may have been posted while the payload was read.
	e.mu.Lock()
	if r := q.takePosted(src, h.Tag); r != nil {
		e.mu.Unlock()
		st, err := r.copyIn(src, h.Tag, *m.bufp)
		putMessage(m)
		e.mu.Lock()
		r.finish(st, err)
		e.mu.Unlock()
		return nil
	}
	q.pushUnexpected(m)
	e.mu.Unlock()
	return nil
}

// receiveFrame reads an n-byte payload from src with tag into the matched
// receive r (owned by the caller, out of all queues) and completes r.
func (e *engine) receiveFrame(r *request, src int, tag int32, n int, read func([]byte) error) error {
	st, err, rerr := r.take(src, tag, n, read)
	yieldPoint("receive: before completing")
	e.mu.Lock()
	r.finish(st, err)
	e.mu.Unlock()
	return rerr
}

// take reads an n-byte payload from src with tag into receive r (read(nil)
// discards one that does not fit) and returns r's status and error, and
// the read's error (fatal for the transport).
func (r *request) take(src int, tag int32, n int, read func([]byte) error) (st Status, err, rerr error) {
	if n > len(r.buf) {
		if n > 0 {
			rerr = read(nil)
		}
		return Status{}, r.truncErr(src, tag, n), rerr
	}
	if n > 0 {
		rerr = read(r.buf[:n])
	}
	return r.status(src, tag, n), rerr, rerr
}

// copyIn copies a message from src with tag and payload p into receive r
// (owned by the caller) and returns its status and error.
func (r *request) copyIn(src int, tag int32, p []byte) (Status, error) {
	if len(p) > len(r.buf) {
		return Status{}, r.truncErr(src, tag, len(p))
	}
	copy(r.buf, p)
	return r.status(src, tag, len(p)), nil
}

// status is the Status of receive r matching an n-byte message from world
// rank src with wire tag.
func (r *request) status(src int, tag int32, n int) Status {
	return Status{Source: r.c.local[src], Tag: userTag(r.ctx, tag), Count: n}
}

// truncErr is the error of receive r matching an n-byte message.
func (r *request) truncErr(src int, tag int32, n int) error {
	return fmt.Errorf("comm: receive of a %d-byte message from rank %d tag %d into a %d-byte buffer: %w",
		n, r.c.local[src], userTag(r.ctx, tag), len(r.buf), ErrTruncate)
}

// deliverRTS handles a rendezvous announcement.
func (e *engine) deliverRTS(h transport.Header) {
	src := int(h.Source)
	e.mu.Lock()
	q := e.queue(h.Context)
	if r := q.takePosted(src, h.Tag); r != nil {
		if e.matchRTS(r, src, h.Tag, int(h.Length), h.Cookie) {
			e.trigger(r, actCTS)
		} else {
			go e.sendCTS(src, h.Context, h.Tag, 0, h.Cookie)
		}
		e.mu.Unlock()
		return
	}
	m := getMessage()
	m.kind, m.src, m.tag, m.n, m.cookie = msgRTS, src, h.Tag, int(h.Length), h.Cookie
	q.pushUnexpected(m)
	e.mu.Unlock()
}

// matchRTS matches receive r (out of all queues) with an RTS. If the
// message fits, it registers r for the Data and returns true: the caller
// must have the CTS sent. Otherwise it fails r with ErrTruncate and
// returns false: the caller must send a cancelling CTS. Caller holds e.mu.
func (e *engine) matchRTS(r *request, src int, tag int32, n int, cookie uint64) bool {
	r.msrc, r.mtag, r.mlen, r.cookie = src, tag, n, cookie
	if n > len(r.buf) {
		r.finish(Status{}, r.truncErr(src, tag, n))
		return false
	}
	e.rdvRecv[rdvKey{src, cookie}] = r
	return true
}

// sendCTS writes a CTS accepting n bytes (0: cancelled) to world rank dst.
func (e *engine) sendCTS(dst int, ctx uint32, tag int32, n int, cookie uint64) error {
	h := transport.Header{Kind: transport.CTS, Context: ctx, Source: int32(e.rank), Tag: tag, Length: uint64(n), Cookie: cookie}
	return e.ep.Send(dst, h, nil)
}

// deliverCTS handles a receiver's clear-to-send.
func (e *engine) deliverCTS(h transport.Header) {
	yieldPoint("cts: before matching")
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.rdvSend[h.Cookie]
	if r == nil || r.peer != int(h.Source) {
		return // the send already failed
	}
	delete(e.rdvSend, h.Cookie)
	if h.Length == 0 {
		r.finish(Status{}, nil) // the receiver truncated and dropped it
		return
	}
	e.trigger(r, actData)
}

// deliverData handles the payload of a rendezvous message.
func (e *engine) deliverData(h transport.Header, read func([]byte) error) error {
	src, n := int(h.Source), int(h.Length)
	key := rdvKey{src, h.Cookie}
	e.mu.Lock()
	r := e.rdvRecv[key]
	delete(e.rdvRecv, key)
	e.mu.Unlock()
	yieldPoint("data: taken, before reading")
	if r == nil || n != r.mlen {
		if r != nil {
			e.mu.Lock()
			r.finish(Status{}, fmt.Errorf("comm: rendezvous from rank %d announced %d bytes but sent %d", r.c.local[src], r.mlen, n))
			e.mu.Unlock()
		}
		if n > 0 {
			return read(nil)
		}
		return nil
	}
	return e.receiveFrame(r, src, r.mtag, n, read)
}

// run performs a protocol action of r on the calling goroutine.
func (e *engine) run(r *request, act action) {
	switch act {
	case actCTS:
		yieldPoint("run: before sending CTS")
		if err := e.sendCTS(r.msrc, r.ctx, r.mtag, r.mlen, r.cookie); err != nil {
			e.mu.Lock()
			key := rdvKey{r.msrc, r.cookie}
			if e.rdvRecv[key] == r {
				delete(e.rdvRecv, key)
			}
			r.finish(Status{}, r.c.sendErr(r.msrc, err))
			e.mu.Unlock()
		}
	case actData:
		yieldPoint("run: before sending Data")
		h := transport.Header{Kind: transport.Data, Context: r.ctx, Source: int32(e.rank), Tag: r.tag, Length: uint64(len(r.buf)), Cookie: r.cookie}
		if done, err := e.send(r, h); done {
			e.mu.Lock()
			r.finish(Status{}, err)
			e.mu.Unlock()
		}
	}
}

// send writes the frame h carrying r.buf to r.peer, through StartSend if
// the transport has it. It reports done with the send's error, or that
// the transport will finish r through SendDone.
func (e *engine) send(r *request, h transport.Header) (bool, error) {
	var err error
	if e.start != nil {
		var done bool
		if done, err = e.start.StartSend(r.peer, h, r.buf, r); !done && err == nil {
			return false, nil
		}
	} else {
		err = e.ep.Send(r.peer, h, r.buf)
	}
	if err != nil {
		err = r.c.sendErr(r.peer, err)
	}
	return true, err
}

// SendDone finishes send r whose frame the transport moved after
// StartSend returned (transport.Completion).
func (r *request) SendDone(err error) {
	if err != nil {
		err = r.c.sendErr(r.peer, err)
	}
	yieldPoint("send done: before completing")
	e := r.e // r belongs to its owner again once finished (W5)
	e.mu.Lock()
	r.finish(Status{}, err)
	e.mu.Unlock()
}

// sendErr wraps a transport error of a send to world rank dst.
func (c *communicator) sendErr(dst int, err error) error {
	return fmt.Errorf("comm: send to rank %d: %w", c.local[dst], err)
}

// startSend starts sending buf to world rank dst on context ctx with wire
// tag. It returns nil if the send is already complete (eager, or matched
// locally), else the pending request, pooled if blocking, waking w (nil:
// its own waker).
func (e *engine) startSend(c *communicator, buf []byte, dst int, ctx uint32, tag int32, blocking bool, w *waker) (*request, error) {
	if dst == e.rank {
		return e.sendSelf(c, buf, ctx, tag, blocking, w), nil
	}
	if len(buf) <= e.eager {
		h := transport.Header{Kind: transport.Eager, Context: ctx, Source: int32(e.rank), Tag: tag, Length: uint64(len(buf))}
		if len(buf) < e.deferFrom {
			if err := e.ep.Send(dst, h, buf); err != nil {
				return nil, c.sendErr(dst, err)
			}
			return nil, nil
		}
		// A pooled request, returned at once unless the transport
		// completes the send later; a non-blocking one then simply stays
		// with its owner.
		r := e.newRequest(c, reqSend, buf, dst, ctx, tag, true, w)
		r.blocking = blocking
		done, err := e.send(r, h)
		if !done {
			return r, nil
		}
		putReq(r)
		return nil, err
	}
	r := e.newRequest(c, reqSend, buf, dst, ctx, tag, blocking, w)
	r.cookie = e.cookies.Add(1)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	if err := e.failed[dst]; err != nil {
		e.mu.Unlock()
		return nil, c.peerErr(dst, err)
	}
	e.rdvSend[r.cookie] = r
	e.mu.Unlock()
	yieldPoint("send: registered, before RTS")
	h := transport.Header{Kind: transport.RTS, Context: ctx, Source: int32(e.rank), Tag: tag, Length: uint64(len(buf)), Cookie: r.cookie}
	if err := e.ep.Send(dst, h, nil); err != nil {
		e.mu.Lock()
		if e.rdvSend[r.cookie] == r {
			delete(e.rdvSend, r.cookie)
		}
		r.finish(Status{}, c.sendErr(dst, err))
		e.mu.Unlock()
	}
	return r, nil
}

// sendSelf sends buf to the calling rank: into a matching posted receive,
// else as an unexpected message, buffered if eager-sized, else referring
// to buf and completing when a receive takes it (returned request).
func (e *engine) sendSelf(c *communicator, buf []byte, ctx uint32, tag int32, blocking bool, w *waker) *request {
	e.mu.Lock()
	q := e.queue(ctx)
	if r := q.takePosted(e.rank, tag); r != nil {
		e.mu.Unlock()
		st, err := r.copyIn(e.rank, tag, buf)
		e.mu.Lock()
		r.finish(st, err)
		e.mu.Unlock()
		return nil
	}
	m := getMessage()
	m.kind, m.src, m.tag, m.n = msgEager, e.rank, tag, len(buf)
	var s *request
	switch {
	case len(buf) > e.eager:
		s = e.newRequest(c, reqSend, buf, e.rank, ctx, tag, blocking, w)
		m.kind, m.sreq = msgSelf, s
	case len(buf) > 0:
		m.bufp = bufpool.Get(len(buf))
		copy(*m.bufp, buf)
	}
	q.pushUnexpected(m)
	e.mu.Unlock()
	return s
}

// startRecv posts receive r (filled in by the caller, not yet shared):
// it takes the earliest matching unexpected message, or queues r. With
// join (the caller waits for r next), a queued r is also registered as
// the rank's waiter in the same critical section, with its waker's note
// cleared, and startRecv reports that it did so (see wait). It reports
// done when r completed here (an eager or local message was waiting, a
// truncated RTS, or the source failed): r was then never shared, so its
// owner may return its status without waiting, or taking e.mu again.
func (e *engine) startRecv(r *request, join bool) (joined, done bool) {
	e.mu.Lock()
	q := e.queue(r.ctx)
	m := q.takeUnexpected(r.peer, r.tag)
	if m == nil {
		if err := e.recvFailure(r); err != nil {
			r.finish(Status{}, err)
			done = true
		} else {
			q.pushPosted(r)
			if join {
				r.w.clearNote()
				e.join(r)
				r.waiting = true
				joined = true
			}
		}
		e.mu.Unlock()
		return joined, done
	}
	switch m.kind {
	case msgEager:
		var p []byte
		if m.bufp != nil {
			p = *m.bufp
		}
		if len(p) > inlineCopy {
			e.mu.Unlock()
		}
		st, err := r.copyIn(m.src, m.tag, p)
		if len(p) > inlineCopy {
			e.mu.Lock()
		}
		r.finish(st, err)
		e.mu.Unlock()
	case msgSelf:
		e.mu.Unlock()
		st, err := r.copyIn(m.src, m.tag, m.sreq.buf)
		e.mu.Lock()
		m.sreq.finish(Status{}, nil)
		r.finish(st, err)
		e.mu.Unlock()
	case msgRTS:
		ok := e.matchRTS(r, m.src, m.tag, m.n, m.cookie)
		if ok {
			r.claimed = true
		}
		e.mu.Unlock()
		yieldPoint("recv: matched an RTS, before CTS")
		if ok {
			e.run(r, actCTS)
		} else {
			_ = e.sendCTS(m.src, r.ctx, m.tag, 0, m.cookie) // the sender's failure is its own
		}
		putMessage(m)
		return false, !ok
	}
	putMessage(m)
	return false, true
}
