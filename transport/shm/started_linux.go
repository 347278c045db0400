package shm

import (
	"slices"

	"github.com/mpbench/mpbench/transport"
)

// startedSend is a single-copy frame whose header is in the ring and whose
// payload the receiver has not finished reading: payload stays referenced
// (and so alive and unmoved) until the acknowledgement counter reaches
// ticket, then c (nil for a synchronous Send) is told.
type startedSend struct {
	ticket  uint32
	payload []byte
	c       transport.Completion
}

// acked reports whether the receiver has acknowledged ticket.
func (p *outPeer) acked(ticket uint32) bool { return int32(p.hdr.acks.Load()-ticket) >= 0 }

// push queues a started send; caller holds p.mu, so tickets are queued in
// order.
func (p *outPeer) push(s startedSend) {
	p.pendMu.Lock()
	p.pend = append(p.pend, s)
	p.npend.Store(int32(len(p.pend)))
	p.pendMu.Unlock()
}

// unpush removes the send with ticket if it is still queued and reports
// whether it was (false: someone completed it already).
func (p *outPeer) unpush(ticket uint32) bool {
	p.pendMu.Lock()
	defer p.pendMu.Unlock()
	i := slices.IndexFunc(p.pend, func(s startedSend) bool { return s.ticket == ticket })
	if i < 0 {
		return false
	}
	p.pend = slices.Delete(p.pend, i, i+1)
	p.npend.Store(int32(len(p.pend)))
	return true
}

// take removes the queued sends that are acknowledged (all of them if
// failed) and returns them; the caller tells their completions outside
// pendMu.
func (p *outPeer) take(buf []startedSend, all bool) []startedSend {
	if p.npend.Load() == 0 {
		return buf
	}
	p.pendMu.Lock()
	n := 0
	for n < len(p.pend) && (all || p.acked(p.pend[n].ticket)) {
		n++
	}
	buf = append(buf, p.pend[:n]...)
	clear(p.pend[:n])
	p.pend = p.pend[n:]
	if len(p.pend) == 0 {
		p.pend = nil
	}
	p.npend.Store(int32(len(p.pend)))
	p.pendMu.Unlock()
	return buf
}

// ackReady reports whether the oldest queued send of p is acknowledged.
func (p *outPeer) ackReady() bool {
	if p.npend.Load() == 0 {
		return false
	}
	p.pendMu.Lock()
	defer p.pendMu.Unlock()
	return len(p.pend) > 0 && p.acked(p.pend[0].ticket)
}

// complete tells the completions of sends taken from the queues.
func complete(done []startedSend, err error) {
	for i := range done {
		if c := done[i].c; c != nil {
			c.SendDone(err)
		}
		done[i] = startedSend{}
	}
}

// reap completes every acknowledged started send; it returns how many it
// completed. Any goroutine may call it.
func (e *Endpoint) reap() int {
	n := 0
	for _, p := range e.outList {
		if p.npend.Load() != 0 {
			n += p.reap()
		}
	}
	return n
}

// reap completes p's acknowledged started sends and returns how many. It
// is apart from Endpoint.reap, which every poll calls, so that a poll
// finding no started send does not clear the buffer.
func (p *outPeer) reap() int {
	var buf [8]startedSend
	done := p.take(buf[:0], false)
	complete(done, nil)
	return len(done)
}

// acksReady reports whether some started send is acknowledged but not yet
// completed.
func (e *Endpoint) acksReady() bool {
	for _, p := range e.outList {
		if p.ackReady() {
			return true
		}
	}
	return false
}

// failStarted completes the started sends to peer that are not
// acknowledged with err (the peer failed or left), after those that are.
func (e *Endpoint) failStarted(peer int, err error) {
	p := e.out[peer]
	if p == nil || p.npend.Load() == 0 {
		return
	}
	complete(p.take(nil, false), nil)
	complete(p.take(nil, true), err)
}
