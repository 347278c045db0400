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
	if err := c.dest("PingPongLoop", peer); err != nil {
		return 0, err
	}
	t, err := sendTag("PingPongLoop", tag)
	if err != nil {
		return 0, err
	}
	cn, err := count("PingPongLoop", size)
	if err != nil {
		return 0, err
	}
	for _, a := range []struct {
		name          string
		buf           []byte
		stride, slots int
	}{{"send", send, sendStride, sendSlots}, {"receive", recv, recvStride, recvSlots}} {
		if a.slots < 1 || a.stride < 0 || size > 0 && (a.slots-1)*a.stride+size > len(a.buf) {
			return 0, fmt.Errorf("mpi: PingPongLoop: %s layout of %d slots %d bytes apart does not hold %d-byte messages in %d bytes", a.name, a.slots, a.stride, size, len(a.buf))
		}
	}
	if first < 0 || n < 0 {
		return 0, fmt.Errorf("mpi: PingPongLoop: first repetition %d and count %d must not be negative", first, n)
	}
	var secs C.double
	startsC := C.int(0)
	if starts {
		startsC = 1
	}
	rc := C.mpb_pingpong(addr(send), C.long(sendStride), C.int(sendSlots), addr(recv), C.long(recvStride), C.int(recvSlots),
		cn, C.int(first), C.int(n), C.int(peer), t, startsC, c.h, &secs)
	runtime.KeepAlive(send)
	runtime.KeepAlive(recv)
	if err := check("MPI_Send/MPI_Recv", rc); err != nil {
		return 0, err
	}
	return float64(secs), nil
}
