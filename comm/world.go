package comm

import (
	"errors"
	"fmt"

	"github.com/mpbench/mpbench/transport"
)

// DefaultEagerLimit is the eager threshold in bytes used when
// Config.EagerLimit is 0: messages of at most this many bytes are sent
// eagerly, longer ones by rendezvous.
const DefaultEagerLimit = 65536

// Config tunes mpbench's runtime (a World).
type Config struct {
	// EagerLimit is the largest message in bytes sent with the eager
	// protocol; longer messages use rendezvous (RTS, CTS, Data).
	// 0 means DefaultEagerLimit; negative values are rejected.
	EagerLimit int
}

// World is the world communicator of one rank: every rank of the job, in
// transport rank order, over one transport.Endpoint. It implements Comm
// (see the method notes in p2p.go, barrier.go, split.go, clock.go), plus
// CollectiveComm (package coll's Private) and Close. Communicators made
// from it by Split share its endpoint and matching engine and are safe for
// use from several goroutines, as is the World.
type World struct {
	*communicator
}

// NewWorld starts the runtime on ep (it calls ep.Start) and returns the
// world communicator, whose rank and size are ep's. Errors: a negative
// Config.EagerLimit, or ep.Start failing.
func NewWorld(ep transport.Endpoint, cfg Config) (*World, error) {
	if cfg.EagerLimit < 0 {
		return nil, fmt.Errorf("comm: eager limit %d bytes: want 0 (default %d) or a positive byte count", cfg.EagerLimit, DefaultEagerLimit)
	}
	if cfg.EagerLimit == 0 {
		cfg.EagerLimit = DefaultEagerLimit
	}
	e := newEngine(ep, cfg.EagerLimit)
	members := make([]int, e.size)
	for i := range members {
		members[i] = i
	}
	c := newCommunicator(e, worldID, members)
	if err := ep.Start(e); err != nil {
		return nil, fmt.Errorf("comm: starting transport: %w", err)
	}
	return &World{c}, nil
}

// Close fails every pending operation with ErrClosed and closes the
// endpoint. Operations after Close fail with ErrClosed.
func (w *World) Close() error {
	return w.e.close()
}

// ErrClosed is returned by operations on, or pending at, a closed World.
var ErrClosed = errors.New("comm: world closed")

// worldID is the communicator id of the world communicator; Split gives
// new communicators ids above it.
const worldID = 0

// Each communicator owns six matching contexts (transport.Header.Context
// = id*ctxKinds + kind): user messages with tags 0..MaxTag, messages with
// reserved negative tags, runtime-internal traffic (Barrier, Split), and
// the same three again for its collective view (CollectiveComm), so none
// of them match each other (MPI's separate point-to-point and collective
// contexts).
const (
	ctxUser         = 0
	ctxReserved     = 1
	ctxRuntime      = 2
	ctxCollUser     = 3
	ctxCollReserved = 4
	ctxCollRuntime  = 5
	ctxKinds        = 8
	maxCommID       = 1<<29 - 1
)

// kinds are the contexts a communicator (or a collective view) uses.
type kinds struct{ user, reserved, runtime uint32 }

var (
	plainKinds = kinds{ctxUser, ctxReserved, ctxRuntime}
	viewKinds  = kinds{ctxCollUser, ctxCollReserved, ctxCollRuntime}
)

// communicator is one group of ranks with its own contexts; it implements
// Comm.
type communicator struct {
	e     *engine
	id    uint32
	kinds kinds
	rank  int
	size  int
	world []int // communicator rank -> world rank
	local []int // world rank -> communicator rank, -1 if not a member

	// view: c's collective view (plain communicators) or c's duplicate
	// made by Split (views); created on first CollectiveComm, guarded by
	// e.mu.
	view *communicator
}

// newCommunicator returns the communicator with id whose ranks are the
// world ranks members (in rank order); the calling rank must be a member.
func newCommunicator(e *engine, id uint32, members []int) *communicator {
	c := &communicator{e: e, id: id, kinds: plainKinds, size: len(members), world: members, local: make([]int, e.size), rank: -1}
	for i := range c.local {
		c.local[i] = -1
	}
	for r, w := range members {
		c.local[w] = r
		if w == e.rank {
			c.rank = r
		}
	}
	return c
}

// ctx returns the transport context id of one of c's contexts.
func (c *communicator) ctx(kind uint32) uint32 { return c.id*ctxKinds + kind }

// CollectiveComm returns a communicator with c's group and rank order
// whose messages never match c's own (MPI_Comm_dup without the collective
// call): package coll runs its collectives on it (coll.Private). For a
// plain communicator it is a view on c's reserved collective contexts,
// made without communication. For such a view it is a duplicate made by
// Split(0, Rank()) on the first call, which like any collective must then
// be made by all ranks in the same order. Later calls return the same
// communicator.
func (c *communicator) CollectiveComm() (Comm, error) {
	e := c.e
	e.mu.Lock()
	v := c.view
	if v == nil && c.kinds == plainKinds {
		cp := *c
		cp.kinds, cp.view = viewKinds, nil
		v = &cp
		c.view = v
	}
	e.mu.Unlock()
	if v != nil {
		return v, nil
	}
	d, err := c.Split(0, c.rank)
	if err != nil {
		return nil, fmt.Errorf("comm: duplicating a collective view: %w", err)
	}
	e.mu.Lock()
	c.view = d.(*communicator)
	e.mu.Unlock()
	return d, nil
}

// Rank returns the calling rank's rank in c.
func (c *communicator) Rank() int { return c.rank }

// Size returns the number of ranks in c.
func (c *communicator) Size() int { return c.size }
