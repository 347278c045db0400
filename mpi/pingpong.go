//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// PingPongLoop runs n repetitions of IMB's PingPong between this rank and
// peer in C, inside one call into the library (IMB_pingpong.c's loop:
// MPI_Send then MPI_Recv on the rank that starts, MPI_Recv then MPI_Send on
// the other, size bytes of MPI_BYTE with tag; receives name peer, or
// MPI_ANY_SOURCE under anySource), and returns the loop's time in seconds
// by MPI_Wtime. Repetition i sends from slot (first+i) mod sendSlots of
// send, slots sendStride bytes apart, and receives into slot (first+i) mod
// recvSlots of recv likewise: mpbench's -off_cache layout, or one slot.
// When reps is not nil (len >= n) reps[i] gets repetition i's seconds, at
// the cost of one MPI_Wtime per repetition. bench's PingPong kernels use it
// when the communicator offers it: a loop that returned to Go after every
// message cost Open MPI 0.07-0.10 usec per message at 512 B to 1 KiB and
// 0.2 usec at 4 KiB over shared memory (a quarter of the message's time),
// although no Go code sat on the round trip's critical path; run in C,
// mpbench and a C ping-pong agree. Errors: slot layouts that do not fit
// the buffers, a bad peer or tag, a short reps, or an MPI error (as Send
// and Recv report them).
func (c *Comm) PingPongLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int, starts, anySource bool, reps []float64) (float64, error) {
	l := loop{op: "PingPongLoop", send: send, sendStride: sendStride, sendSlots: sendSlots, recv: recv, recvStride: recvStride,
		recvSlots: recvSlots, size: size, first: first, n: n, peer: peer, tag: tag, reps: reps}
	return c.run(l, func(a *loopC) C.int {
		src := a.peer
		if anySource {
			src = C.mpb_any_source()
		}
		return C.mpb_pingpong(a.sb, a.ss, a.sn, a.rb, a.rs, a.rn, a.size, a.first, a.n, a.peer, src, a.tag, cBool(starts), c.h, &a.secs, a.reps)
	})
}

// PingPingLoop runs n repetitions of IMB's PingPing between this rank and
// peer in C, inside one call into the library (IMB_pingping.c's loop:
// MPI_Isend to peer, MPI_Recv from peer or MPI_ANY_SOURCE, MPI_Wait for the
// send), with buffers, slots, reps, result and errors as PingPongLoop's.
// bench's PingPing kernels use it when the communicator offers it: its Go
// loop crossed into C three times per repetition, with the sends in
// flight, and measured Open MPI over shared memory at 0.78 usec for 0 B
// against 0.19 for the same loop in C.
func (c *Comm) PingPingLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int, anySource bool, reps []float64) (float64, error) {
	l := loop{op: "PingPingLoop", send: send, sendStride: sendStride, sendSlots: sendSlots, recv: recv, recvStride: recvStride,
		recvSlots: recvSlots, size: size, first: first, n: n, peer: peer, tag: tag, reps: reps}
	return c.run(l, func(a *loopC) C.int {
		src := a.peer
		if anySource {
			src = C.mpb_any_source()
		}
		return C.mpb_pingping(a.sb, a.ss, a.sn, a.rb, a.rs, a.rn, a.size, a.first, a.n, a.peer, src, a.tag, c.h, &a.secs, a.reps)
	})
}

// WindowLoop runs n iterations of IMB's Uniband (bidir false) or Biband
// (bidir true) between this rank and peer in C (IMB_bandwidth.c's loop, see
// mpb_window in shim.h): window non-blocking messages of size bytes per
// direction, MPI_Waitall, then a 1-byte acknowledgement that the sender
// receives. Message k of the window uses slot (first+k) mod slots of its
// buffer; reps, result and errors as PingPongLoop's. bench's Uniband and
// Biband kernels use it when the communicator offers it: in Go every
// MPI_Isend and MPI_Irecv of the window is a crossing into C.
func (c *Comm) WindowLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, window, peer, tag int, sender, bidir bool, reps []float64) (float64, error) {
	l := loop{op: "WindowLoop", send: send, sendStride: sendStride, sendSlots: sendSlots, recv: recv, recvStride: recvStride,
		recvSlots: recvSlots, size: size, first: first, n: n, peer: peer, tag: tag, reps: reps}
	if window < 1 {
		return 0, fmt.Errorf("mpi: WindowLoop: window of %d messages: expected at least 1", window)
	}
	q := C.malloc(C.size_t(2*window) * C.sizeof_MPI_Request)
	defer C.free(q)
	return c.run(l, func(a *loopC) C.int {
		return C.mpb_window(a.sb, a.ss, a.sn, a.rb, a.rs, a.rn, a.size, a.first, a.n, C.int(window), a.peer, a.tag,
			cBool(sender), cBool(bidir), (*C.MPI_Request)(q), c.h, &a.secs, a.reps)
	})
}

// loop describes one timed loop between this rank and peer: the buffers'
// slot layouts, message size, first repetition index, count and the
// per-repetition times to fill.
type loop struct {
	op                        string
	send                      []byte
	sendStride, sendSlots     int
	recv                      []byte
	recvStride, recvSlots     int
	size, first, n, peer, tag int
	reps                      []float64
}

// loopC is a checked loop converted for C, with the loop's seconds.
type loopC struct {
	sb, rb                    C.uintptr_t
	ss, rs                    C.long
	sn, rn                    C.int
	size, first, n, peer, tag C.int
	reps                      *C.double
	secs                      C.double
}

// cBool is b as a C int, 1 or 0.
func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// run checks l and runs it with call, which gets it converted for C.
func (c *Comm) run(l loop, call func(a *loopC) C.int) (float64, error) {
	if err := c.dest(l.op, l.peer); err != nil {
		return 0, err
	}
	t, err := sendTag(l.op, l.tag)
	if err != nil {
		return 0, err
	}
	cn, err := count(l.op, l.size)
	if err != nil {
		return 0, err
	}
	for _, a := range []struct {
		name          string
		buf           []byte
		stride, slots int
	}{{"send", l.send, l.sendStride, l.sendSlots}, {"receive", l.recv, l.recvStride, l.recvSlots}} {
		if a.slots < 1 || a.stride < 0 || l.size > 0 && (a.slots-1)*a.stride+l.size > len(a.buf) {
			return 0, fmt.Errorf("mpi: %s: %s layout of %d slots %d bytes apart does not hold %d-byte messages in %d bytes", l.op, a.name, a.slots, a.stride, l.size, len(a.buf))
		}
	}
	if l.first < 0 || l.n < 0 {
		return 0, fmt.Errorf("mpi: %s: first repetition %d and count %d must not be negative", l.op, l.first, l.n)
	}
	a := loopC{sb: addr(l.send), ss: C.long(l.sendStride), sn: C.int(l.sendSlots), rb: addr(l.recv), rs: C.long(l.recvStride),
		rn: C.int(l.recvSlots), size: cn, first: C.int(l.first), n: C.int(l.n), peer: C.int(l.peer), tag: t}
	if l.reps != nil {
		if len(l.reps) < l.n {
			return 0, fmt.Errorf("mpi: %s: %d per-repetition times for %d repetitions", l.op, len(l.reps), l.n)
		}
		if l.n > 0 {
			a.reps = (*C.double)(unsafe.Pointer(&l.reps[0]))
		}
	}
	rc := call(&a)
	runtime.KeepAlive(l.send)
	runtime.KeepAlive(l.recv)
	runtime.KeepAlive(l.reps)
	if err := check("MPI_Send/MPI_Recv", rc); err != nil {
		return 0, err
	}
	return float64(a.secs), nil
}
