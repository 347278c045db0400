//go:build mpi

package main

import (
	"bytes"
	"fmt"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/mpi"
)

// checkExchangeLoop runs Exchange's timed loop in the library
// (Comm.RunLoop, comm.LoopExchange) for two repetitions on two send and
// two receive slots and checks IMB_exchange.c's buffer layout: a rank
// sends the first bytes of its send slot to its right neighbour and the
// next bytes to its left one, and receives both messages into the first
// bytes of its receive slot, so that each receive slot ends up holding
// what the right neighbour sent from the second half of its own slot, and
// no byte after the message is written.
func checkExchangeLoop(c *mpi.Comm) error {
	const n, stride, guard = 1000, 4096, 0xa5 // message bytes, bytes between slots, unwritten byte
	me, p := c.Rank(), c.Size()
	right, left := (me+1)%p, (me+p-1)%p
	send := make([]byte, 2*stride)
	for s := range 2 {
		copy(send[s*stride:], pattern(2*n, 100*me+s))
	}
	recv := bytes.Repeat([]byte{guard}, 2*stride)
	_, err := c.RunLoop(comm.Loop{Kind: comm.LoopExchange, Bytes: n, Reps: 2, Tag: 3, Left: left, Right: right,
		Send: comm.Slots{Buf: send, Stride: stride, Count: 2}, Recv: comm.Slots{Buf: recv, Stride: stride, Count: 2}})
	if err != nil {
		return err
	}
	for s := range 2 {
		slot := recv[s*stride : (s+1)*stride]
		if !bytes.Equal(slot[:n], pattern(2*n, 100*right+s)[n:]) {
			return fmt.Errorf("receive slot %d: its first %d bytes are not the second half of right neighbour %d's send slot %d", s, n, right, s)
		}
		for k := n; k < stride; k++ {
			if slot[k] != guard {
				return fmt.Errorf("receive slot %d: byte %d, after the %d-byte message, was written", s, k, n)
			}
		}
	}
	return nil
}

// checkP2PLoopsAnyTag runs PingPong's, PingPing's, Sendrecv's and
// Exchange's timed loops in the library on rank 0 for one repetition with
// tag 3 while rank 1 answers with tag 4: the loops receive with
// MPI_ANY_TAG, as IMB's kernels do (select_tag 0), so they complete; a
// loop receiving with its own tag would wait forever. Other ranks idle.
func checkP2PLoopsAnyTag(c *mpi.Comm) error {
	const n, tag, other = 64, 3, 4
	send, recv := make([]byte, 2*n), make([]byte, n)
	slots := func(b []byte) comm.Slots { return comm.Slots{Buf: b, Stride: len(b), Count: 1} }
	for _, kind := range []comm.LoopKind{comm.LoopPingPong, comm.LoopPingPing, comm.LoopSendrecv, comm.LoopExchange} {
		var err error
		switch c.Rank() {
		case 0:
			_, err = c.RunLoop(comm.Loop{Kind: kind, Bytes: n, Reps: 1, Tag: tag, Peer: 1, Left: 1, Right: 1, Starts: true,
				Send: slots(send), Recv: slots(recv)})
		case 1:
			err = answerWithOtherTag(c, kind, send[:n], recv, tag, other)
		}
		if err != nil {
			return fmt.Errorf("loop %v: %w", kind, err)
		}
	}
	return nil
}

// answerWithOtherTag is rank 1's side of checkP2PLoopsAnyTag for a loop
// of kind: it receives rank 0's messages with their tag and sends its own
// with tag other.
func answerWithOtherTag(c *mpi.Comm, kind comm.LoopKind, s, r []byte, tag, other int) error {
	msgs := 1
	if kind == comm.LoopExchange {
		msgs = 2
	}
	if kind == comm.LoopPingPong {
		if _, err := c.Recv(r, 0, tag); err != nil {
			return err
		}
		return c.Send(s, 0, other)
	}
	var reqs []comm.Request
	for range msgs {
		q, err := c.Isend(s, 0, other)
		if err != nil {
			return err
		}
		reqs = append(reqs, q)
	}
	for range msgs {
		if _, err := c.Recv(r, 0, tag); err != nil {
			return err
		}
	}
	for _, q := range reqs {
		if _, err := q.Wait(); err != nil {
			return err
		}
	}
	return nil
}
