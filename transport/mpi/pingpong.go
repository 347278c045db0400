//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime"
)

// PingPongLoop runs n repetitions of IMB's PingPong between this rank and
// peer in C, inside one call into the library (IMB_pingpong.c's loop:
// MPI_Send then MPI_Recv on the rank that starts, MPI_Recv then MPI_Send on
// the other, size bytes of MPI_BYTE with tag), and returns the loop's time
// in seconds by MPI_Wtime. Repetition i sends from slot (first+i) mod
// sendSlots of send, slots sendStride bytes apart, and receives into slot
// (first+i) mod recvSlots of recv likewise: mpbench's -off_cache layout,
// or one slot. bench's PingPong kernel uses it when the communicator
// offers it: a loop that returned to Go after every message cost Open MPI
// 0.07-0.10 usec per message at 512 B to 1 KiB and 0.2 usec at 4 KiB over
// shared memory (a quarter of the message's time), although no Go code sat
// on the round trip's critical path; run in C, mpbench and a C ping-pong
// agree. Errors: slot layouts that do not fit the buffers, a bad peer or
// tag, or an MPI error (as Send and Recv report them).
func (c *Comm) PingPongLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int, starts bool) (float64, error) {
	startsC := C.int(0)
	if starts {
		startsC = 1
	}
	return c.pairLoop("PingPongLoop", send, sendStride, sendSlots, recv, recvStride, recvSlots, size, first, n, peer, tag,
		func(sb C.uintptr_t, ss C.long, sn C.int, rb C.uintptr_t, rs C.long, rn C.int, sz, f, k, p, t C.int, secs *C.double) C.int {
			return C.mpb_pingpong(sb, ss, sn, rb, rs, rn, sz, f, k, p, t, startsC, c.h, secs)
		})
}

// PingPingLoop runs n repetitions of IMB's PingPing between this rank and
// peer in C, inside one call into the library (IMB_pingping.c's loop:
// MPI_Isend to peer, MPI_Recv from peer, MPI_Wait for the send), with
// buffers, slots, result and errors as PingPongLoop's. bench's PingPing
// kernel uses it when the communicator offers it: its Go loop crossed into
// C three times per repetition, with the sends in flight, and measured
// Open MPI over shared memory at 0.78 usec for 0 B against 0.19 for the
// same loop in C.
func (c *Comm) PingPingLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int) (float64, error) {
	return c.pairLoop("PingPingLoop", send, sendStride, sendSlots, recv, recvStride, recvSlots, size, first, n, peer, tag,
		func(sb C.uintptr_t, ss C.long, sn C.int, rb C.uintptr_t, rs C.long, rn C.int, sz, f, k, p, t C.int, secs *C.double) C.int {
			return C.mpb_pingping(sb, ss, sn, rb, rs, rn, sz, f, k, p, t, c.h, secs)
		})
}

// pairLoop checks the arguments of a loop between two ranks (PingPongLoop,
// PingPingLoop) and runs it with call, which gets them converted for C.
func (c *Comm) pairLoop(op string, send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int,
	call func(sb C.uintptr_t, ss C.long, sn C.int, rb C.uintptr_t, rs C.long, rn C.int, sz, f, k, p, t C.int, secs *C.double) C.int) (float64, error) {
	if err := c.dest(op, peer); err != nil {
		return 0, err
	}
	t, err := sendTag(op, tag)
	if err != nil {
		return 0, err
	}
	cn, err := count(op, size)
	if err != nil {
		return 0, err
	}
	for _, a := range []struct {
		name          string
		buf           []byte
		stride, slots int
	}{{"send", send, sendStride, sendSlots}, {"receive", recv, recvStride, recvSlots}} {
		if a.slots < 1 || a.stride < 0 || size > 0 && (a.slots-1)*a.stride+size > len(a.buf) {
			return 0, fmt.Errorf("mpi: %s: %s layout of %d slots %d bytes apart does not hold %d-byte messages in %d bytes", op, a.name, a.slots, a.stride, size, len(a.buf))
		}
	}
	if first < 0 || n < 0 {
		return 0, fmt.Errorf("mpi: %s: first repetition %d and count %d must not be negative", op, first, n)
	}
	var secs C.double
	rc := call(addr(send), C.long(sendStride), C.int(sendSlots), addr(recv), C.long(recvStride), C.int(recvSlots),
		cn, C.int(first), C.int(n), C.int(peer), t, &secs)
	runtime.KeepAlive(send)
	runtime.KeepAlive(recv)
	if err := check("MPI_Send/MPI_Recv", rc); err != nil {
		return 0, err
	}
	return float64(secs), nil
}
