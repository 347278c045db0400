//go:build mpi

package mpi

// #include "loops.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// loopKinds maps comm's loop kinds to loops.h's.
var loopKinds = map[comm.LoopKind]C.int{
	comm.LoopPingPong:  C.MPB_PINGPONG,
	comm.LoopPingPing:  C.MPB_PINGPING,
	comm.LoopSendrecv:  C.MPB_SENDRECV,
	comm.LoopExchange:  C.MPB_EXCHANGE,
	comm.LoopUniband:   C.MPB_UNIBAND,
	comm.LoopBiband:    C.MPB_BIBAND,
	comm.LoopAllreduce: C.MPB_ALLREDUCE,
	comm.LoopBcast:     C.MPB_BCAST,
	comm.LoopBarrier:   C.MPB_BARRIER,

	comm.LoopReduce:             C.MPB_REDUCE,
	comm.LoopGather:             C.MPB_GATHER,
	comm.LoopScatter:            C.MPB_SCATTER,
	comm.LoopAllgather:          C.MPB_ALLGATHER,
	comm.LoopAlltoall:           C.MPB_ALLTOALL,
	comm.LoopReduceScatterBlock: C.MPB_REDUCE_SCATTER_BLOCK,
	comm.LoopAllgatherv:         C.MPB_ALLGATHERV,
	comm.LoopGatherv:            C.MPB_GATHERV,
	comm.LoopScatterv:           C.MPB_SCATTERV,
	comm.LoopAlltoallv:          C.MPB_ALLTOALLV,
	comm.LoopReduceLocal:        C.MPB_REDUCE_LOCAL,
	comm.LoopReduceScatter:      C.MPB_REDUCE_SCATTER,
}

// RunLoop runs the timed loop l in C, inside one call into the library
// (mpb_run_loop in loops.h: the calls of IMB's source file of each
// comm.LoopKind, in its order), and returns its seconds by MPI_Wtime as
// comm.LoopRunner describes. bench's kernels offer it their loops: a loop
// driven from Go crosses into C once per call, which costs the library a
// measurable share of a small message's time (docs/mpi-comparison.md). It
// runs every kind comm defines and returns comm.ErrSkip for any other.
// Errors: slots that do not hold the loop's messages, a bad rank, tag,
// window, datatype or operation, a short Times, or the library's error (an
// *Error naming the loop's calls).
func (c *Comm) RunLoop(l comm.Loop) (float64, error) {
	kind, ok := loopKinds[l.Kind]
	if !ok {
		return 0, comm.ErrSkip
	}
	a, err := c.loopC(l)
	if err != nil {
		return 0, err
	}
	a.kind = kind
	rc := C.mpb_run_loop(&a, c.h)
	runtime.KeepAlive(l.Send.Buf)
	runtime.KeepAlive(l.Recv.Buf)
	runtime.KeepAlive(l.Times)
	if err := check(loopCalls[l.Kind], rc); err != nil {
		return 0, err
	}
	return float64(a.secs), nil
}

// loopCalls names the library calls of each loop, for its errors.
var loopCalls = map[comm.LoopKind]string{
	comm.LoopPingPong:  "PingPong loop (MPI_Send/MPI_Recv)",
	comm.LoopPingPing:  "PingPing loop (MPI_Isend/MPI_Recv/MPI_Wait)",
	comm.LoopSendrecv:  "Sendrecv loop (MPI_Sendrecv)",
	comm.LoopExchange:  "Exchange loop (MPI_Isend/MPI_Recv/MPI_Waitall)",
	comm.LoopUniband:   "Uniband loop (MPI_Isend/MPI_Irecv/MPI_Waitall)",
	comm.LoopBiband:    "Biband loop (MPI_Isend/MPI_Irecv/MPI_Waitall)",
	comm.LoopAllreduce: "Allreduce loop (MPI_Allreduce)",
	comm.LoopBcast:     "Bcast loop (MPI_Bcast)",
	comm.LoopBarrier:   "Barrier loop (MPI_Barrier)",

	comm.LoopReduce:             "Reduce loop (MPI_Reduce)",
	comm.LoopGather:             "Gather loop (MPI_Gather)",
	comm.LoopScatter:            "Scatter loop (MPI_Scatter)",
	comm.LoopAllgather:          "Allgather loop (MPI_Allgather)",
	comm.LoopAlltoall:           "Alltoall loop (MPI_Alltoall)",
	comm.LoopReduceScatterBlock: "Reduce_scatter_block loop (MPI_Reduce_scatter_block)",
	comm.LoopAllgatherv:         "Allgatherv loop (MPI_Allgatherv)",
	comm.LoopGatherv:            "Gatherv loop (MPI_Gatherv)",
	comm.LoopScatterv:           "Scatterv loop (MPI_Scatterv)",
	comm.LoopAlltoallv:          "Alltoallv loop (MPI_Alltoallv)",
	comm.LoopReduceLocal:        "Reduce_local loop (MPI_Reduce_local)",
	comm.LoopReduceScatter:      "Reduce_scatter loop (MPI_Reduce_scatter)",
}

// vectorLoops are the kinds whose calls take counts and displacements.
var vectorLoops = map[comm.LoopKind]bool{
	comm.LoopAllgatherv: true, comm.LoopGatherv: true, comm.LoopScatterv: true, comm.LoopAlltoallv: true,
}

// loopC checks l and converts it for C (all but the kind).
func (c *Comm) loopC(l comm.Loop) (C.mpb_loop, error) {
	op := loopCalls[l.Kind]
	var a C.mpb_loop
	if l.First < 0 || l.Reps < 0 {
		return a, fmt.Errorf("mpi: %s: first repetition %d and count %d must not be negative", op, l.First, l.Reps)
	}
	size, err := count(op, l.Bytes)
	if err != nil {
		return a, err
	}
	tag, err := sendTag(op, l.Tag)
	if err != nil {
		return a, err
	}
	sendBytes, recvBytes := l.Bytes, l.Bytes
	switch l.Kind {
	case comm.LoopPingPong, comm.LoopPingPing, comm.LoopUniband, comm.LoopBiband:
		if err := c.dest(op, l.Peer); err != nil {
			return a, err
		}
		a.src = C.int(l.Peer)
		if l.AnySource {
			a.src = C.mpb_any_source()
		}
	case comm.LoopSendrecv, comm.LoopExchange:
		if err := c.dest(op, l.Left); err != nil {
			return a, err
		}
		if err := c.dest(op, l.Right); err != nil {
			return a, err
		}
		if l.Kind == comm.LoopExchange {
			sendBytes = 2 * l.Bytes
		}
	case comm.LoopAllreduce, comm.LoopReduce, comm.LoopReduceScatterBlock, comm.LoopReduceScatter, comm.LoopReduceLocal:
		if l.Kind == comm.LoopReduceScatterBlock || l.Kind == comm.LoopReduceScatter {
			sendBytes = c.size * l.Bytes
		}
	case comm.LoopGather, comm.LoopAllgather, comm.LoopGatherv, comm.LoopAllgatherv:
		recvBytes = c.size * l.Bytes
	case comm.LoopScatter, comm.LoopScatterv:
		sendBytes = c.size * l.Bytes
	case comm.LoopAlltoall, comm.LoopAlltoallv:
		sendBytes, recvBytes = c.size*l.Bytes, c.size*l.Bytes
	case comm.LoopBarrier:
		sendBytes, recvBytes = 0, 0
	}
	if l.Kind != comm.LoopBarrier {
		d := l.Datatype.Size()
		if l.Datatype == 0 && !l.Kind.Reduces() {
			d = 1 // MPI_BYTE
		}
		if l.Kind.Reduces() && !validOp(l.Op) || d == 0 || l.Bytes%d != 0 {
			return a, fmt.Errorf("mpi: %s: %d bytes of %v with %v: expected a whole number of Float32, Float64, Int32, Int64 or Char elements (or of MPI_BYTE, Datatype 0, where nothing is reduced) and, for a reduction, Sum, Prod, Min or Max", op, l.Bytes, l.Datatype, l.Op)
		}
		a.count = C.int(l.Bytes / d)
	}
	if vectorLoops[l.Kind] {
		// The last displacement, in elements, is an int in the
		// library's interface.
		if _, err := count(op+": displacements", (c.size-1)*int(a.count)); err != nil {
			return a, err
		}
	}
	if (l.Kind == comm.LoopUniband || l.Kind == comm.LoopBiband) && l.Window < 1 {
		return a, fmt.Errorf("mpi: %s: window of %d messages: expected at least 1", op, l.Window)
	}
	for _, s := range []struct {
		name  string
		slots comm.Slots
		bytes int
	}{{"send", l.Send, sendBytes}, {"receive", l.Recv, recvBytes}} {
		if s.slots.Count < 1 || s.slots.Stride < 0 || s.bytes > 0 && (s.slots.Count-1)*s.slots.Stride+s.bytes > len(s.slots.Buf) {
			return a, fmt.Errorf("mpi: %s: %s layout of %d slots %d bytes apart does not hold %d-byte messages in %d bytes", op, s.name, s.slots.Count, s.slots.Stride, s.bytes, len(s.slots.Buf))
		}
	}
	if l.Times != nil && len(l.Times) < l.Reps {
		return a, fmt.Errorf("mpi: %s: %d per-repetition times for %d repetitions", op, len(l.Times), l.Reps)
	}
	if l.Times != nil && l.Reps > 0 {
		a.reps = C.uintptr_t(uintptr(unsafe.Pointer(&l.Times[0])))
	}
	// An empty buffer gets an address of its own: MPICH refuses a
	// collective whose send and receive buffers are the same address
	// ("Buffers must not be aliased"), NULL and NULL included, even when
	// every count is 0. Nothing is read or written there.
	a.sbuf, a.sstride, a.sslots = addr(l.Send.Buf), C.long(l.Send.Stride), C.int(l.Send.Count)
	a.rbuf, a.rstride, a.rslots = addr(l.Recv.Buf), C.long(l.Recv.Stride), C.int(l.Recv.Count)
	if a.sbuf == 0 {
		a.sbuf = addr(c.empty[:1])
	}
	if a.rbuf == 0 {
		a.rbuf = addr(c.empty[1:])
	}
	a.size, a.first, a.n, a.tag = size, C.int(l.First), C.int(l.Reps), tag
	a.peer, a.left, a.right = C.int(l.Peer), C.int(l.Left), C.int(l.Right)
	a.starts, a.window = cBool(l.Starts), C.int(l.Window)
	a.rank, a.procs = C.int(c.rank), C.int(c.size)
	a.root_shift, a.sync = cBool(l.RootShift), cBool(l.Sync)
	a.dtype, a.op = C.int(l.Datatype), C.int(l.Op)
	return a, nil
}

// cBool is b as a C int, 1 or 0.
func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
