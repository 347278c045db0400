// Package comm is mpbench's message-passing runtime: communicators,
// point-to-point messaging with MPI matching semantics, requests, barrier,
// communicator split and a wall clock.
//
// Benchmarks (package bench) and collective algorithms (package coll) are
// written once against the Comm interface. This package's implementation,
// mpbench's own runtime, runs over any transport.Endpoint (tcp, inmem,
// shm); package mpi, the second runtime, implements Comm directly on a real
// MPI library.
//
// Semantics follow MPI-3.1 chapter 3 (point-to-point): a receive matches on
// (source, tag, communicator), either of source and tag may be a wildcard
// (AnySource, AnyTag), and two messages from one sender to one receiver on
// one communicator never overtake each other. Messages up to the eager
// threshold are sent at once (eager protocol); larger ones are announced and
// sent once the receiver has posted a matching receive (rendezvous protocol).
package comm

import "errors"

// StandardVersion is the version of the MPI standard whose semantics
// mpbench's runtime follows (MPI-3.1: point-to-point matching of chapter
// 3, communicators of chapter 6; collectives in package coll), printed
// where IMB prints the library's MPI_Get_version.
const StandardVersion = "3.1"

// AnySource as a receive's source matches a message from any rank
// (MPI_ANY_SOURCE).
const AnySource = -1

// AnyTag as a receive's tag matches any tag (MPI_ANY_TAG).
const AnyTag = -1

// Undefined as a Split color makes the calling rank take part in no new
// communicator (MPI_UNDEFINED); Split then returns a nil Comm.
const Undefined = -32766

// MaxTag is the largest tag a user may send with (MPI_TAG_UB is at least
// 32767; mpbench allows up to 2^30-1). Negative tags are reserved for the
// runtime and collectives.
const MaxTag = 1<<30 - 1

// Status describes a completed receive (MPI_Status).
type Status struct {
	Source int // rank of the sender in the receiving communicator
	Tag    int // tag the message was sent with
	Count  int // number of bytes received
}

// Request is an outstanding non-blocking operation (MPI_Request).
type Request interface {
	// Wait blocks until the operation completes and returns its status
	// (Status is the zero value for sends). Wait on a completed request
	// returns the same result again.
	Wait() (Status, error)
	// Test reports whether the operation has completed, without blocking.
	Test() (done bool, st Status, err error)
}

// Comm is a communicator: an ordered group of ranks with its own message
// space (MPI_Comm). Ranks are 0..Size()-1. Buffers are byte slices; the
// message length is len(buf). A receive into a buffer shorter than the
// arriving message fails with ErrTruncate (MPI_ERR_TRUNCATE).
// Methods of one Comm may be called from one goroutine at a time per
// request chain, as with MPI_THREAD_FUNNELED.
type Comm interface {
	// Rank is the calling process's rank in this communicator.
	Rank() int
	// Size is the number of ranks in this communicator.
	Size() int

	// Send sends buf to rank dest with tag (0 <= tag <= MaxTag) and
	// returns when buf may be reused (MPI_Send, standard mode).
	Send(buf []byte, dest, tag int) error
	// Recv receives a message matching (source, tag) into buf (MPI_Recv);
	// source may be AnySource and tag AnyTag.
	Recv(buf []byte, source, tag int) (Status, error)
	// Isend starts a send (MPI_Isend); buf must not be modified until the
	// request completes.
	Isend(buf []byte, dest, tag int) (Request, error)
	// Irecv starts a receive (MPI_Irecv); buf must not be read until the
	// request completes.
	Irecv(buf []byte, source, tag int) (Request, error)
	// Sendrecv sends sendbuf to dest and receives into recvbuf from source
	// concurrently, so that rings of Sendrecv calls cannot deadlock
	// (MPI_Sendrecv).
	Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (Status, error)

	// Barrier returns on every rank only after all ranks have entered it
	// (MPI_Barrier).
	Barrier() error
	// Split partitions the communicator by color; ranks with equal color
	// form a new communicator, ordered by (key, old rank) (MPI_Comm_split).
	// It is collective over this communicator. A rank passing Undefined gets
	// a nil Comm and a nil error.
	Split(color, key int) (Comm, error)

	// Wtime is a monotonic wall clock in seconds since an arbitrary origin
	// fixed for the process (MPI_Wtime).
	Wtime() float64
	// Wtick is the resolution of Wtime in seconds (MPI_Wtick).
	Wtick() float64
}

// Waitall waits for every request in reqs (MPI_Waitall) and returns the
// first error met, after all requests have completed or failed. Nil entries
// are skipped (MPI_REQUEST_NULL).
func Waitall(reqs []Request) error {
	var first error
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if _, err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ErrTruncate is returned when a message is longer than the receive buffer
// (MPI_ERR_TRUNCATE).
var ErrTruncate = errors.New("comm: message truncated: receive buffer shorter than message")

// ErrRank is returned for a destination or source outside 0..Size()-1.
var ErrRank = errors.New("comm: invalid rank")

// ErrTag is returned for a tag outside 0..MaxTag (or AnyTag on receives).
var ErrTag = errors.New("comm: invalid tag")
