//go:build mpi

package main

import (
	"bytes"
	"fmt"
	"strings"

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

// checkDataTypeLoops runs timed loops with a message Datatype other than
// MPI_BYTE (IMB's -data_type) and checks that counts and displacements
// are in elements: a PingPong of 64 bytes as 16 MPI_INT between ranks 0
// and 1 (rank 1 receives 64 MPI_BYTE, so a count in bytes, 64 MPI_INT,
// would not fit its receive and the library reports truncation; MPI_INT
// against MPI_BYTE breaks MPI's type matching rule, which Open MPI and
// MPICH do not check, and it is what lets the byte count be seen), then an
// Allgatherv of 48 bytes as 6 MPI_DOUBLE on every rank (a displacement in
// bytes would put rank j's block at 8*j*48 and past the buffer's end), and
// that a size that is not a whole number of elements is refused before
// anything is sent.
func checkDataTypeLoops(c *mpi.Comm) error {
	const n = 64
	me, p := c.Rank(), c.Size()
	slots := func(b []byte) comm.Slots { return comm.Slots{Buf: b, Stride: len(b), Count: 1} }
	send, recv := pattern(n, 7+me), make([]byte, n)
	switch me {
	case 0:
		if _, err := c.RunLoop(comm.Loop{Kind: comm.LoopPingPong, Datatype: comm.Int32, Bytes: n, Reps: 1, Tag: 5, Peer: 1, Starts: true,
			Send: slots(send), Recv: slots(recv)}); err != nil {
			return fmt.Errorf("PingPong of MPI_INT: %w", err)
		}
		if !bytes.Equal(recv, pattern(n, 8)) {
			return fmt.Errorf("PingPong of MPI_INT: rank 0 did not receive rank 1's %d bytes", n)
		}
	case 1:
		st, err := c.Recv(recv, 0, 5)
		if err != nil {
			return fmt.Errorf("receiving rank 0's PingPong of MPI_INT as MPI_BYTE: %w", err)
		}
		if st.Count != n || !bytes.Equal(recv, pattern(n, 7)) {
			return fmt.Errorf("PingPong of MPI_INT: rank 1 received %d bytes, want rank 0's %d", st.Count, n)
		}
		if err := c.Send(send, 0, 5); err != nil {
			return err
		}
	}
	const m = 48
	all := bytes.Repeat([]byte{0xa5}, p*m+8)
	if _, err := c.RunLoop(comm.Loop{Kind: comm.LoopAllgatherv, Datatype: comm.Float64, Bytes: m, Reps: 1,
		Send: slots(pattern(m, 50+me)), Recv: slots(all)}); err != nil {
		return fmt.Errorf("Allgatherv of MPI_DOUBLE: %w", err)
	}
	for j := range p {
		if !bytes.Equal(all[j*m:(j+1)*m], pattern(m, 50+j)) {
			return fmt.Errorf("Allgatherv of MPI_DOUBLE: block %d is not rank %d's %d bytes at byte %d", j, j, m, j*m)
		}
	}
	if _, err := c.RunLoop(comm.Loop{Kind: comm.LoopAllgather, Datatype: comm.Float64, Bytes: m + 4, Reps: 1,
		Send: slots(make([]byte, m+4)), Recv: slots(make([]byte, p*(m+4)))}); err == nil || !strings.Contains(err.Error(), "whole number") {
		return fmt.Errorf("Allgather of %d bytes of MPI_DOUBLE: got %v, want an error naming a whole number of elements", m+4, err)
	}
	return c.Barrier()
}
