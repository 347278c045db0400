// Package hybrid combines endpoints of several transports into one
// transport.Endpoint that reaches each peer rank through the transport
// chosen for it, e.g. shared memory for ranks on the same host and TCP for
// the others.
package hybrid

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mpbench/mpbench/transport"
)

// Endpoint dispatches every Send to the endpoint that reaches the
// destination; all underlying endpoints deliver to the one Handler. It
// implements transport.Endpoint, and transport.Progresser when one of the
// underlying endpoints does.
type Endpoint struct {
	rank, size int
	routes     []transport.Endpoint // by peer rank; nil for self
	parts      []transport.Endpoint // distinct endpoints of routes
	names      []string             // transport name of each part
	prog       transport.Progresser
}

var (
	_ transport.Endpoint    = (*Endpoint)(nil)
	_ transport.Progresser  = (*Endpoint)(nil)
	_ transport.SendStarter = (*Endpoint)(nil)
)

// Part is one underlying endpoint with its transport name ("shm", "tcp").
type Part struct {
	Name     string
	Endpoint transport.Endpoint
}

// New returns the endpoint of rank (of size ranks) that sends to peer r
// through parts[route[r]].Endpoint. len(route) must be size; route[rank] is
// ignored. Every part must have the same rank and size. Parts that no
// route uses are closed at once.
func New(rank, size int, parts []Part, route []int) (*Endpoint, error) {
	if len(route) != size {
		return nil, fmt.Errorf("hybrid: %d routes for %d ranks", len(route), size)
	}
	e := &Endpoint{rank: rank, size: size, routes: make([]transport.Endpoint, size)}
	used := make([]bool, len(parts))
	for r, i := range route {
		if r == rank {
			continue
		}
		if i < 0 || i >= len(parts) {
			return nil, fmt.Errorf("hybrid: rank %d routed to part %d of %d", r, i, len(parts))
		}
		used[i] = true
		e.routes[r] = parts[i].Endpoint
	}
	for i, p := range parts {
		if p.Endpoint.Rank() != rank || p.Endpoint.Size() != size {
			return nil, fmt.Errorf("hybrid: part %s is rank %d of %d, want %d of %d", p.Name, p.Endpoint.Rank(), p.Endpoint.Size(), rank, size)
		}
		if !used[i] && len(parts) > 1 {
			p.Endpoint.Close()
			continue
		}
		e.parts = append(e.parts, p.Endpoint)
		e.names = append(e.names, p.Name)
		if pr, ok := p.Endpoint.(transport.Progresser); ok && e.prog == nil {
			e.prog = pr
		}
	}
	return e, nil
}

// Name is the transports in use joined by "+", e.g. "shm", "shm+tcp".
func (e *Endpoint) Name() string { return strings.Join(e.names, "+") }

// Parts returns the underlying endpoints in use, in the order of Name
// (transport.Combined).
func (e *Endpoint) Parts() []transport.Endpoint { return e.parts }

var _ transport.Combined = (*Endpoint)(nil)

// Rank returns this endpoint's rank.
func (e *Endpoint) Rank() int { return e.rank }

// Size returns the number of ranks in the job.
func (e *Endpoint) Size() int { return e.size }

// Start starts every underlying endpoint with h.
func (e *Endpoint) Start(h transport.Handler) error {
	for _, p := range e.parts {
		if err := p.Start(h); err != nil {
			return err
		}
	}
	return nil
}

// Send sends through the endpoint that reaches dst.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	if dst < 0 || dst >= e.size || dst == e.rank {
		return fmt.Errorf("hybrid: send from rank %d to rank %d: want a peer rank in 0..%d other than itself", e.rank, dst, e.size-1)
	}
	return e.routes[dst].Send(dst, h, payload)
}

// StartSend starts the send through the endpoint that reaches dst if it is
// a transport.SendStarter; otherwise it sends at once and reports done.
func (e *Endpoint) StartSend(dst int, h transport.Header, payload []byte, c transport.Completion) (bool, error) {
	if dst >= 0 && dst < e.size && dst != e.rank {
		if s, ok := e.routes[dst].(transport.SendStarter); ok {
			return s.StartSend(dst, h, payload, c)
		}
	}
	return true, e.Send(dst, h, payload)
}

// DeferFrom is the smallest DeferFrom of the underlying endpoints that
// start sends (math.MaxInt if none does).
func (e *Endpoint) DeferFrom() int {
	n := math.MaxInt
	for _, p := range e.parts {
		if s, ok := p.(transport.SendStarter); ok {
			n = min(n, s.DeferFrom())
		}
	}
	return n
}

// Progress polls the underlying endpoint that offers it (shared memory);
// frames from the others still arrive on their own goroutines, and done
// sees them.
func (e *Endpoint) Progress(done func() bool) {
	if e.prog != nil {
		e.prog.Progress(done)
	}
}

// Close closes every underlying endpoint and returns the first error.
func (e *Endpoint) Close() error {
	var errs []error
	for _, p := range e.parts {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}
