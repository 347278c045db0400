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
