package bench

import "github.com/mpbench/mpbench/comm"

// PingPong (IMB_pingpong.c, IMB 2021.x; since 2017u1 with a specific
// source, like PingPongSpecificSource): rank 0 sends a message to rank 1
// and waits for rank 1's message back; rank 1 receives, then sends.
// t = half the round trip (ScaleTime 0.5), Mbytes/sec = bytes/t.
func init() {
	Register(Spec{
		Name: "PingPong", Class: SingleTransfer, Default: true, Pair: true,
		ScaleTime: 0.5, ScaleBW: 1,
		Expect: ExpectFrom(otherOfPair),
		Kernel: pingPong,
	})
}

// pingPong times n round trips. Rank 0's sequence is Send(0), then for each
// later repetition i Recv(i-1) and Send(i), and Recv(n-1) last; rank 1's is
// Recv(i), Send(i) for each i: IMB's calls in IMB's order. Each receive
// that is followed by a send runs as one comm.RecvSend, which on a library
// through cgo keeps the step from receiving to replying in C, off the Go
// side, as in a C benchmark.
func pingPong(e *Env, n int) (float64, error) {
	c := e.Comm
	peer := 1 - c.Rank()
	start := c.Wtime()
	if n > 0 {
		var err error
		if c.Rank() == 0 {
			err = c.Send(e.Send(0), peer, 0)
			for i := 1; i < n && err == nil; i++ {
				_, err = comm.RecvSend(c, e.Recv(i-1), peer, 0, e.Send(i), peer, 0)
			}
			if err == nil {
				_, err = c.Recv(e.Recv(n-1), peer, 0)
			}
		} else {
			for i := 0; i < n && err == nil; i++ {
				_, err = comm.RecvSend(c, e.Recv(i), peer, 0, e.Send(i), peer, 0)
			}
		}
		if err != nil {
			return 0, err
		}
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
	return pingPong(e, n)
}
