package coll

import (
	"fmt"
	"sync"

	"github.com/mpbench/mpbench/comm"
)

// Collective traffic must never match a user's point-to-point messages.
// The comm.Comm interface documents only tags 0..MaxTag for users (negative
// tags are the runtime's), so coll does not rely on negative tags.
// mpbench's runtime's *comm.World implements Private: CollectiveComm is a view
// with the same group and its own contexts, made without communication. Any
// other communicator is duplicated once with Split(0, rank) (same group,
// same rank order, a new message space: MPI_Comm_dup) on the first
// collective call that needs it, and the duplicate is cached for the
// communicator's lifetime. As every collective, that first call must be
// made by all ranks in the same order (MPI-3.1 5.12). Communicators of size
// 1 never communicate and need neither.

// Private is implemented by communicators that provide a message space
// reserved for collectives (for example by sending with the runtime's
// negative tags). CollectiveComm returns a communicator with the same group
// and rank order whose messages never match the receiver's own.
type Private interface {
	CollectiveComm() (comm.Comm, error)
}

var privates sync.Map // comm.Comm -> comm.Comm

// private returns the communicator on which collectives over c send.
func private(c comm.Comm) (comm.Comm, error) {
	if p, ok := c.(Private); ok {
		return p.CollectiveComm()
	}
	if v, ok := privates.Load(c); ok {
		return v.(comm.Comm), nil
	}
	d, err := c.Split(0, c.Rank())
	if err != nil {
		return nil, fmt.Errorf("coll: duplicating the communicator for collective traffic: %w", err)
	}
	if d == nil || d.Size() != c.Size() || d.Rank() != c.Rank() {
		return nil, fmt.Errorf("coll: duplicating the communicator for collective traffic: Split(0, rank) did not keep the group")
	}
	privates.Store(c, d)
	return d, nil
}

// Forget drops the cached collective duplicate of c, if any, so that it can
// be garbage collected; call it when c is no longer used. The next
// collective on c (on every rank) makes a new duplicate.
func Forget(c comm.Comm) {
	privates.Delete(c)
}

// Tags used on the private communicator, one per collective family, so that
// a trace or a mismatch names the collective.
const (
	tagBcast = iota + 1
	tagReduce
	tagAllreduce
	tagGather
	tagScatter
	tagAllgather
	tagAlltoall
	tagReduceScatter
	tagBarrier
)
