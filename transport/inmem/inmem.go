// Package inmem is a transport whose ranks are goroutines of one process.
//
// It is the test transport of package comm: New(n) returns n connected
// endpoints. A Send delivers the frame synchronously to the destination's
// Handler on the sending goroutine, under a lock held per (source,
// destination) pair, so frames from one source arrive in send order and the
// payload is copied exactly once, from the sender's buffer straight into the
// buffer the Handler's read supplies. Send therefore returns once the
// payload may be reused, and never waits for the receiver to post a receive
// (Handlers never block on other ranks' progress).
//
// Fault injection: Kill makes a rank fail as if its process had died; its
// peers' Handlers that implement transport.FailureHandler are told, and
// Sends to it fail with a *transport.PeerError.
package inmem

import (
	"errors"
	"fmt"
	"sync"

	"github.com/mpbench/mpbench/transport"
)

// ErrKilled is the cause in the *transport.PeerError a peer sees after
// Kill.
var ErrKilled = errors.New("inmem: rank killed")

// Endpoint is one rank of an in-memory job. It implements
// transport.Endpoint.
type Endpoint struct {
	rank  int
	job   *job
	pairs []pair // pairs[src]: frames from src to this rank

	started chan struct{} // closed by Start
	startMu sync.Mutex
	handler transport.Handler

	stateMu sync.Mutex
	closed  bool
	killed  bool
}

// pair serialises the delivery of frames from one source to one
// destination and carries the payload of the frame being delivered.
type pair struct {
	mu      sync.Mutex
	payload []byte
	read    func(dst []byte) error // p.readPayload, bound once
	reads   int
}

type job struct {
	eps []*Endpoint
}

// New returns n connected endpoints; endpoint i has rank i. n must be at
// least 1; New panics otherwise (a programmer error).
func New(n int) []transport.Endpoint {
	if n < 1 {
		panic(fmt.Sprintf("inmem: New(%d): need at least 1 rank", n))
	}
	j := &job{eps: make([]*Endpoint, n)}
	out := make([]transport.Endpoint, n)
	for i := range j.eps {
		e := &Endpoint{rank: i, job: j, pairs: make([]pair, n), started: make(chan struct{})}
		for s := range e.pairs {
			p := &e.pairs[s]
			p.read = p.readPayload
		}
		j.eps[i] = e
		out[i] = e
	}
	return out
}

// readPayload copies the current frame's payload into dst (len(dst) must
// equal the payload length) or discards it if dst is nil.
func (p *pair) readPayload(dst []byte) error {
	p.reads++
	if p.reads > 1 {
		return errors.New("inmem: payload read twice")
	}
	if dst == nil {
		return nil
	}
	if len(dst) != len(p.payload) {
		return fmt.Errorf("inmem: read buffer of %d bytes for a payload of %d bytes", len(dst), len(p.payload))
	}
	copy(dst, p.payload)
	return nil
}

// Rank returns this endpoint's rank.
func (e *Endpoint) Rank() int { return e.rank }

// Size returns the number of ranks in the job.
func (e *Endpoint) Size() int { return len(e.job.eps) }

// Start installs h and begins delivery; Sends to this rank made before
// Start wait for it.
func (e *Endpoint) Start(h transport.Handler) error {
	if h == nil {
		return errors.New("inmem: Start with a nil Handler")
	}
	e.startMu.Lock()
	defer e.startMu.Unlock()
	if e.handler != nil {
		return errors.New("inmem: Start called twice")
	}
	e.handler = h
	close(e.started)
	return nil
}

// alive reports whether e can send and receive: not closed, not killed.
func (e *Endpoint) alive() error {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	switch {
	case e.killed:
		return ErrKilled
	case e.closed:
		return transport.ErrClosed
	}
	return nil
}

// Send delivers one frame to rank dst. Payload-carrying kinds (Eager, Data,
// Control) carry payload, whose length must equal h.Length. Errors: dst out
// of range or equal to Rank; transport.ErrClosed if e is closed or killed;
// a *transport.PeerError if dst is closed or killed, or if dst's Handler
// returned an error for the frame.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	if dst < 0 || dst >= len(e.job.eps) || dst == e.rank {
		return fmt.Errorf("inmem: send from rank %d to rank %d: destination must be another rank in 0..%d", e.rank, dst, len(e.job.eps)-1)
	}
	if err := e.alive(); err != nil {
		return transport.ErrClosed
	}
	carries := h.Kind == transport.Eager || h.Kind == transport.Data || h.Kind == transport.Control
	if carries && uint64(len(payload)) != h.Length {
		return fmt.Errorf("inmem: %v frame announces %d bytes but carries %d", h.Kind, h.Length, len(payload))
	}
	d := e.job.eps[dst]
	<-d.started
	if err := d.alive(); err != nil {
		return &transport.PeerError{Peer: dst, Err: err}
	}
	p := &d.pairs[e.rank]
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.alive() != nil {
		// Killed meanwhile: peers were told, no frame may follow.
		return transport.ErrClosed
	}
	p.payload, p.reads = payload, 0
	if !carries {
		p.payload = nil
	}
	err := d.handler.Deliver(h, p.read)
	p.payload = nil
	if err == nil && carries && h.Length > 0 && p.reads != 1 {
		err = fmt.Errorf("inmem: handler of rank %d read a %v payload %d times, want 1", dst, h.Kind, p.reads)
	}
	if err != nil {
		return &transport.PeerError{Peer: dst, Err: err}
	}
	return nil
}

// Close releases the endpoint; later Sends from it fail with
// transport.ErrClosed and Sends to it with a *transport.PeerError. An
// orderly Close is not reported to peers as a failure.
func (e *Endpoint) Close() error {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	e.closed = true
	return nil
}

// Kill makes this rank fail as if its process had died: it stops sending
// and receiving, and every other started rank whose Handler implements
// transport.FailureHandler gets PeerFailed(rank, *PeerError{rank,
// ErrKilled}). Frames being delivered concurrently may still arrive.
func (e *Endpoint) Kill() {
	e.stateMu.Lock()
	if e.killed {
		e.stateMu.Unlock()
		return
	}
	e.killed = true
	e.stateMu.Unlock()
	for _, d := range e.job.eps {
		if d == e || d.alive() != nil {
			continue
		}
		select {
		case <-d.started:
		default:
			continue
		}
		// Wait for an in-progress delivery from e to finish so no frame
		// from e follows the failure notice.
		p := &d.pairs[e.rank]
		p.mu.Lock()
		if fh, ok := d.handler.(transport.FailureHandler); ok {
			fh.PeerFailed(e.rank, &transport.PeerError{Peer: e.rank, Err: ErrKilled})
		}
		p.mu.Unlock()
	}
}
