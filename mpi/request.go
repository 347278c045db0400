//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"runtime"

	"github.com/mpbench/mpbench/comm"
)

// Request is an outstanding MPI_Isend or MPI_Irecv. The Go buffer it was
// started with stays pinned (runtime.Pinner) and is used in place by the
// library until Wait or Test reports completion; then it is unpinned. No copy
// is made in either direction.
type Request struct {
	h    C.MPI_Request
	pin  runtime.Pinner
	recv bool
	tag  int // tag the receive asked for (comm.AnyTag allowed)
	done bool
	out  [3]C.int // a receive's source, tag and count (mpb_status)
	st   comm.Status
	err  error
}

var _ comm.Request = (*Request)(nil)

// start pins buf and runs the C call that starts the operation.
func start(op string, buf []byte, recv bool, tag int, call func(r *Request) C.int) (*Request, error) {
	r := &Request{recv: recv, tag: tag}
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
	if err := check(op, call(r)); err != nil {
		r.pin.Unpin()
		return nil, err
	}
	return r, nil
}

// Isend starts sending buf to dest with tag (MPI_Isend on MPI_BYTE). buf must
// not be modified until the request completes.
func (c *Comm) Isend(buf []byte, dest, tag int) (comm.Request, error) {
	if err := c.dest("Isend", dest); err != nil {
		return nil, err
	}
	t, err := sendTag("Isend", tag)
	if err != nil {
		return nil, err
	}
	n, err := count("Isend", len(buf))
	if err != nil {
		return nil, err
	}
	r, err := start("MPI_Isend", buf, false, tag, func(r *Request) C.int {
		return C.mpb_isend(ptr(buf), n, C.int(dest), t, c.h, &r.h)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Irecv starts a receive matching (source, tag) into buf (MPI_Irecv on
// MPI_BYTE); source may be comm.AnySource and tag comm.AnyTag. buf must not
// be read until the request completes.
func (c *Comm) Irecv(buf []byte, source, tag int) (comm.Request, error) {
	src, err := c.source("Irecv", source)
	if err != nil {
		return nil, err
	}
	t, err := recvTag("Irecv", tag)
	if err != nil {
		return nil, err
	}
	n, err := count("Irecv", len(buf))
	if err != nil {
		return nil, err
	}
	r, err := start("MPI_Irecv", buf, true, tag, func(r *Request) C.int {
		return C.mpb_irecv(ptr(buf), n, src, t, c.h, &r.h)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// finish records the outcome of a completed request and unpins its buffer.
func (r *Request) finish(op string, rc C.int) {
	r.done = true
	r.pin.Unpin()
	if r.err = check(op, rc); r.err == nil && r.recv {
		r.st = status(&r.out, r.tag)
	}
}

// recvFlag is 1 for a receive: mpb_wait and mpb_test then store its status.
func (r *Request) recvFlag() C.int {
	if r.recv {
		return 1
	}
	return 0
}

// Wait blocks until the operation completes (MPI_Wait) and returns its
// status (the zero Status for sends). A receive of a message longer than its
// buffer fails with an error wrapping comm.ErrTruncate. Waiting again
// returns the same result.
func (r *Request) Wait() (comm.Status, error) {
	if !r.done {
		r.finish("MPI_Wait", C.mpb_wait(&r.h, r.recvFlag(), &r.out[0]))
	}
	return r.st, r.err
}

// Test reports whether the operation has completed (MPI_Test), without
// blocking; once done it returns the same status and error as Wait.
func (r *Request) Test() (bool, comm.Status, error) {
	if !r.done {
		var flag C.int
		rc := C.mpb_test(&r.h, r.recvFlag(), &flag, &r.out[0])
		if rc == success && flag == 0 {
			pace()
			return false, comm.Status{}, nil
		}
		r.finish("MPI_Test", rc)
	}
	return true, r.st, r.err
}
