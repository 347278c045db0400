package bench

import "github.com/mpbench/mpbench/comm"

// PingPing (IMB_pingping.c): both ranks of the pair post a non-blocking
// send to each other at the same time, receive the other's message, then
// wait for their send; messages cross in flight. t = time per iteration,
// Mbytes/sec = bytes/t (one direction counted). PingPing and
// PingPingSpecificSource receive from the partner's rank,
// PingPingAnySource with MPI_ANY_SOURCE (MPI1_benchmark.cpp); the two
// variants are not in the default list.
func init() {
	for _, v := range []struct {
		name        string
		def, anySrc bool
	}{{"PingPing", true, false}, {"PingPingSpecificSource", false, false}, {"PingPingAnySource", false, true}} {
		Register(Spec{
			Name: v.name, Class: SingleTransfer, Default: v.def, Pair: true,
			ScaleTime: 1, ScaleBW: 1,
			Expect: ExpectFrom(otherOfPair),
			Kernel: pingPingFrom(v.anySrc),
		})
	}
}

// nativePingPing is nativePingPong for PingPing (package mpi's
// PingPingLoop: IMB_pingping.c's calls, MPI_Isend, MPI_Recv, MPI_Wait, per
// repetition, in the library's language).
type nativePingPing interface {
	PingPingLoop(send []byte, sendStride, sendSlots int, recv []byte, recvStride, recvSlots int, size, first, n, peer, tag int, anySource bool, reps []float64) (float64, error)
}

// pingPingFrom returns the PingPing kernel receiving from the partner, or
// from comm.AnySource when anySource is set.
func pingPingFrom(anySource bool) Kernel {
	return func(e *Env, n int) (float64, error) { return pingPing(e, n, anySource) }
}

// pingPing times n repetitions: each rank sends to the other without
// blocking, receives the other's message, then waits for its send. On a
// communicator implementing nativePingPing the same loop runs there.
func pingPing(e *Env, n int, anySource bool) (float64, error) {
	c := e.Comm
	peer := 1 - c.Rank()
	if np, ok := c.(nativePingPing); ok {
		s, r := e.bufs.send, e.bufs.recv
		return np.PingPingLoop(s.buf, s.stride, s.slots, r.buf, r.stride, r.slots, s.size, e.first, n, peer, 0, anySource, e.reps)
	}
	src := peer
	if anySource {
		src = comm.AnySource
	}
	start := c.Wtime()
	last := start
	for i := 0; i < n; i++ {
		req, err := c.Isend(e.Send(i), peer, 0)
		if err != nil {
			return 0, err
		}
		if _, err := c.Recv(e.Recv(i), src, 0); err != nil {
			comm.Waitall([]comm.Request{req})
			return 0, err
		}
		if _, err := req.Wait(); err != nil {
			return 0, err
		}
		e.tick(i, &last)
	}
	return c.Wtime() - start, nil
}
