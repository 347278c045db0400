//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// ptr is the address of b's first byte, or nil for an empty slice (MPI
// accepts any address, NULL included, with a count of 0).
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// addr is the address of b's first byte as an integer, or 0 for an empty
// slice, for the blocking calls. Passing an address instead of a pointer
// skips cgo's check of pointer arguments (10-30 ns a pointer here, a third
// of a small message's cost in mpbench). It is safe where the memory stays
// put and alive for the whole call: Go's heap does not move objects, a
// goroutine's stack is neither moved nor shrunk while it is in a cgo call,
// and each caller ends with runtime.KeepAlive on what it passed.
func addr(b []byte) C.uintptr_t {
	if len(b) == 0 {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// outAddr is the address of c.out for the blocking receives (see addr).
func (c *Comm) outAddr() C.uintptr_t {
	return C.uintptr_t(uintptr(unsafe.Pointer(&c.out)))
}

// count checks that n bytes fit the library's int count argument.
func count(op string, n int) (C.int, error) {
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("mpi: %s: %d bytes exceed the largest count the library takes (%d)", op, n, math.MaxInt32)
	}
	return C.int(n), nil
}

// dest checks a destination rank.
func (c *Comm) dest(op string, r int) error {
	if r < 0 || r >= c.size {
		return fmt.Errorf("mpi: %s: destination rank %d outside 0..%d: %w", op, r, c.size-1, comm.ErrRank)
	}
	return nil
}

// source checks a source rank and maps comm.AnySource to MPI_ANY_SOURCE.
func (c *Comm) source(op string, r int) (C.int, error) {
	if r == comm.AnySource {
		return C.mpb_any_source(), nil
	}
	if r < 0 || r >= c.size {
		return 0, fmt.Errorf("mpi: %s: source rank %d outside 0..%d or comm.AnySource: %w", op, r, c.size-1, comm.ErrRank)
	}
	return C.int(r), nil
}

// libTag maps a tag 0..comm.MaxTag to the library's tag space 0..TagUB. When
// the library's MPI_TAG_UB is below comm.MaxTag (MPICH 4 has 2^28-1), tags
// are folded modulo TagUB+1: small tags keep their value and the tags just
// below comm.MaxTag, which mpbench's runner uses for control messages, land
// just below TagUB. Two tags congruent modulo TagUB+1 are then one tag.
func libTag(t int) C.int {
	if tagUB > 0 && t > tagUB {
		t %= tagUB + 1
	}
	return C.int(t)
}

// sendTag checks a send tag and maps it with libTag.
func sendTag(op string, t int) (C.int, error) {
	if t < 0 || t > comm.MaxTag {
		return 0, fmt.Errorf("mpi: %s: tag %d outside 0..%d: %w", op, t, comm.MaxTag, comm.ErrTag)
	}
	return libTag(t), nil
}

// recvTag checks a receive tag and maps comm.AnyTag to MPI_ANY_TAG, other
// tags with libTag.
func recvTag(op string, t int) (C.int, error) {
	if t == comm.AnyTag {
		return C.mpb_any_tag(), nil
	}
	return sendTag(op, t)
}

// status converts a completed receive's status as mpb_status stored it:
// out holds source, tag and the byte count. tag is the tag the receive asked
// for: unless it is comm.AnyTag it is reported as is, undoing libTag's
// folding; a wildcard receive reports the library's (possibly folded) tag.
func status(out *[3]C.int, tag int) comm.Status {
	if tag == comm.AnyTag {
		tag = int(out[1])
	}
	return comm.Status{Source: int(out[0]), Tag: tag, Count: int(out[2])}
}

// Send sends buf to rank dest with tag (MPI_Send on MPI_BYTE, standard
// mode); it returns when buf may be reused.
func (c *Comm) Send(buf []byte, dest, tag int) error {
	if err := c.dest("Send", dest); err != nil {
		return err
	}
	t, err := sendTag("Send", tag)
	if err != nil {
		return err
	}
	n, err := count("Send", len(buf))
	if err != nil {
		return err
	}
	rc := C.mpb_send(addr(buf), n, C.int(dest), t, c.h)
	runtime.KeepAlive(buf)
	return check("MPI_Send", rc)
}

// Recv receives a message matching (source, tag) into buf (MPI_Recv on
// MPI_BYTE); source may be comm.AnySource and tag comm.AnyTag. A message
// longer than buf fails with an error wrapping comm.ErrTruncate.
func (c *Comm) Recv(buf []byte, source, tag int) (comm.Status, error) {
	src, err := c.source("Recv", source)
	if err != nil {
		return comm.Status{}, err
	}
	t, err := recvTag("Recv", tag)
	if err != nil {
		return comm.Status{}, err
	}
	n, err := count("Recv", len(buf))
	if err != nil {
		return comm.Status{}, err
	}
	rc := C.mpb_recv(addr(buf), n, src, t, c.h, c.outAddr())
	runtime.KeepAlive(buf)
	runtime.KeepAlive(c)
	if err := check("MPI_Recv", rc); err != nil {
		return comm.Status{}, err
	}
	return status(&c.out, tag), nil
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source in
// one call (MPI_Sendrecv on MPI_BYTE), so that rings of Sendrecv calls cannot
// deadlock. source may be comm.AnySource and recvtag comm.AnyTag.
func (c *Comm) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (comm.Status, error) {
	if err := c.dest("Sendrecv", dest); err != nil {
		return comm.Status{}, err
	}
	stag, err := sendTag("Sendrecv", sendtag)
	if err != nil {
		return comm.Status{}, err
	}
	src, err := c.source("Sendrecv", source)
	if err != nil {
		return comm.Status{}, err
	}
	rt, err := recvTag("Sendrecv", recvtag)
	if err != nil {
		return comm.Status{}, err
	}
	sn, err := count("Sendrecv", len(sendbuf))
	if err != nil {
		return comm.Status{}, err
	}
	rn, err := count("Sendrecv", len(recvbuf))
	if err != nil {
		return comm.Status{}, err
	}
	rc := C.mpb_sendrecv(addr(sendbuf), sn, C.int(dest), stag, addr(recvbuf), rn, src, rt, c.h, c.outAddr())
	runtime.KeepAlive(sendbuf)
	runtime.KeepAlive(recvbuf)
	runtime.KeepAlive(c)
	if err := check("MPI_Sendrecv", rc); err != nil {
		return comm.Status{}, err
	}
	return status(&c.out, recvtag), nil
}
