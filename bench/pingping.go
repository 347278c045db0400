package bench

import "github.com/mpbench/mpbench/comm"

// PingPing (IMB_pingping.c): both ranks of the pair post a non-blocking
// send to each other at the same time, receive the other's message, then
// wait for their send; messages cross in flight. t = time per iteration,
// Mbytes/sec = bytes/t (one direction counted). PingPing and
// PingPingSpecificSource receive from the partner's rank,
// PingPingAnySource with MPI_ANY_SOURCE (MPI1_benchmark.cpp); the two
// variants are not in the default list.
func init() { registerPair("PingPing", 1, pingPing) }

// pingPing times n repetitions: each rank sends to the other without
// blocking, receives the other's message, then waits for its send. A
// communicator that runs loops itself runs it as comm.LoopPingPing.
func pingPing(e *Env, n int, anySource bool) (float64, error) {
	c := e.Comm
	peer := 1 - c.Rank()
	if secs, ran, err := e.runLoop(comm.Loop{Kind: comm.LoopPingPing, Peer: peer, AnySource: anySource}, n); ran {
		return secs, err
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
