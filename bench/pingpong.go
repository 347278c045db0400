package bench

import "github.com/mpbench/mpbench/comm"

// PingPong (IMB_pingpong.c, IMB 2021.x): rank 0 sends a message to rank 1
// and waits for rank 1's message back; rank 1 receives, then sends.
// t = half the round trip (ScaleTime 0.5), Mbytes/sec = bytes/t.
// PingPong and PingPongSpecificSource receive from the partner's rank
// (IMB's SELECT_SOURCE flag, PingPong's behaviour since IMB 2017u1);
// PingPongAnySource receives with MPI_ANY_SOURCE (MPI1_benchmark.cpp). The
// two variants are not in the default list.
func init() { registerPair("PingPong", 0.5, pingPong) }

// registerPair registers a single-transfer benchmark of rank pairs, name
// (in the default list), and its variants nameSpecificSource and
// nameAnySource (MPI1_benchmark.cpp), with IMB's time scale and Mbytes/sec
// of bytes/t. kernel times n repetitions receiving from the partner, or
// from comm.AnySource when anySource is set.
func registerPair(name string, scaleTime float64, kernel func(e *Env, n int, anySource bool) (float64, error)) {
	for _, v := range []struct {
		suffix      string
		def, anySrc bool
	}{{"", true, false}, {"SpecificSource", false, false}, {"AnySource", false, true}} {
		Register(Spec{
			Name: name + v.suffix, Class: SingleTransfer, Default: v.def, Pair: true, LibraryBarrier: true,
			ScaleTime: scaleTime, ScaleBW: 1,
			Expect: ExpectFrom(otherOfPair),
			Kernel: func(e *Env, n int) (float64, error) { return kernel(e, n, v.anySrc) },
		})
	}
}

// pingPong times n round trips: rank 0 sends, then receives, rank 1
// receives, then sends, each repetition on its own buffers (Env.Send and
// Env.Recv). A communicator that runs loops itself (comm.LoopRunner) runs
// it as comm.LoopPingPong.
func pingPong(e *Env, n int, anySource bool) (float64, error) {
	c := e.Comm
	peer := 1 - c.Rank()
	first := c.Rank() == 0
	if secs, ran, err := e.runLoop(comm.Loop{Kind: comm.LoopPingPong, Peer: peer, Starts: first, AnySource: anySource}, n); ran {
		return secs, err
	}
	src := peer
	if anySource {
		src = comm.AnySource
	}
	start := c.Wtime()
	last := start
	for i := 0; i < n; i++ {
		if first {
			if err := c.Send(e.Send(i), peer, 0); err != nil {
				return 0, err
			}
			if _, err := c.Recv(e.Recv(i), src, 0); err != nil {
				return 0, err
			}
		} else {
			if _, err := c.Recv(e.Recv(i), src, 0); err != nil {
				return 0, err
			}
			if err := c.Send(e.Send(i), peer, 0); err != nil {
				return 0, err
			}
		}
		e.tick(i, &last)
	}
	return c.Wtime() - start, nil
}

// otherOfPair is the source of every message in a 2-rank group.
func otherOfPair(rank, _ int) []int { return []int{1 - rank} }

// PingPongRounds runs the PingPong benchmark's kernel (pingPong) for n round
// trips between ranks 0 and 1 of c, every repetition sending from send and
// receiving into recv (len(send) == len(recv) bytes, the same on both
// ranks), and returns this rank's elapsed time in seconds by c.Wtime. It
// lets a tool time mpbench's kernel next to another implementation of the
// loop (mpicheck -sidebyside against a C loop); the benchmark runner does
// not use it. Only ranks 0 and 1 of c may call it.
func PingPongRounds(c comm.Comm, send, recv []byte, n int) (float64, error) {
	one := func(b []byte) *area { return &area{buf: b, size: len(b), stride: len(b), slots: 1} }
	e := &Env{Comm: c, Bytes: int64(len(send)), bufs: &buffers{send: one(send), recv: one(recv)}}
	return pingPong(e, n, false)
}
