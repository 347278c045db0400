package bench

import "github.com/mpbench/mpbench/comm"

// Exchange (IMB_exchange.c): in the periodic chain every rank sends its
// message to both neighbours with two non-blocking sends, receives one
// message from the left then one from the right, and waits for its sends.
// t = time per iteration; Mbytes/sec = 4*bytes/t_max (IMB's scale_bw 4:
// two messages out and two in per rank).
//
// The buffers are IMB's (MPI1_benchmark.cpp: SENDBUF_SIZE_2I,
// RECVBUF_SIZE_I): the send area holds two messages, the first bytes go
// to the right neighbour and the next bytes to the left one; the receive
// area holds one message, and both receives write it, so after an
// iteration it holds the right neighbour's message, which that rank sent
// from the second half of its send area (-check compares that).
func init() {
	Register(Spec{
		Name: "Exchange", Class: ParallelTransfer, Default: true, LibraryBarrier: true,
		ScaleTime: 1, ScaleBW: 4,
		Areas: func(bytes int64, _ int) (int64, int64) { return 2 * bytes, bytes },
		Expect: func(e *Env, rep int, want []byte) {
			Pattern(want, right(e.Comm.Rank(), e.Comm.Size()), e.Bytes, rep, e.Bytes)
		},
		Kernel: exchange,
	})
}

// exchange times n iterations of Exchange's sends and receives; a
// communicator that runs loops itself runs them as comm.LoopExchange.
func exchange(e *Env, n int) (float64, error) {
	c := e.Comm
	l, r := left(c.Rank(), c.Size()), right(c.Rank(), c.Size())
	if secs, ran, err := e.runLoop(comm.Loop{Kind: comm.LoopExchange, Left: l, Right: r}, n); ran {
		return secs, err
	}
	b := e.Bytes
	reqs := make([]comm.Request, 2)
	start := c.Wtime()
	last := start
	for i := 0; i < n; i++ {
		send, recv := e.Send(i), e.Recv(i)
		var err error
		if reqs[0], err = c.Isend(send[:b], r, 0); err != nil {
			return 0, err
		}
		if reqs[1], err = c.Isend(send[b:2*b], l, 0); err != nil {
			comm.Waitall(reqs[:1])
			return 0, err
		}
		if _, err = c.Recv(recv, l, 0); err == nil {
			_, err = c.Recv(recv, r, 0)
		}
		if werr := comm.Waitall(reqs); err == nil {
			err = werr
		}
		if err != nil {
			return 0, err
		}
		e.tick(i, &last)
	}
	return c.Wtime() - start, nil
}
