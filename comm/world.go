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

// Config tunes the native runtime.
type Config struct {
	// EagerLimit is the largest message in bytes sent with the eager
	// protocol; longer messages use rendezvous (RTS, CTS, Data).
	// 0 means DefaultEagerLimit; negative values are rejected.
	EagerLimit int
}

// World is the world communicator of one rank: every rank of the job, in
// transport rank order, over one transport.Endpoint. It implements Comm;
// communicators made from it by Split share its endpoint and matching
// engine.
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

// Each communicator owns three matching contexts (transport.Header.Context
// = id<<2 | kind): user messages with tags 0..MaxTag, messages with
// reserved negative tags (collectives), and runtime-internal traffic
// (Barrier, Split), so the three never match each other (MPI's separate
// point-to-point and collective contexts).
const (
	ctxUser     = 0
	ctxReserved = 1
	ctxRuntime  = 2
	ctxKinds    = 4
	maxCommID   = 1<<30 - 1
)

// communicator is one group of ranks with its own contexts; it implements
// Comm.
type communicator struct {
	e     *engine
	id    uint32
	rank  int
	size  int
	world []int // communicator rank -> world rank
	local []int // world rank -> communicator rank, -1 if not a member
}

// newCommunicator returns the communicator with id whose ranks are the
// world ranks members (in rank order); the calling rank must be a member.
func newCommunicator(e *engine, id uint32, members []int) *communicator {
	c := &communicator{e: e, id: id, size: len(members), world: members, local: make([]int, e.size), rank: -1}
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
func (c *communicator) ctx(kind uint32) uint32 { return c.id*ctxKinds | kind }

// Rank returns the calling rank's rank in c.
func (c *communicator) Rank() int { return c.rank }

// Size returns the number of ranks in c.
func (c *communicator) Size() int { return c.size }
