package coll

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// Alltoall algorithms (MPI_Alltoall, MPI_Alltoallv). Block i of sendbuf
// (layout sl) goes to rank i, and block j of recvbuf (layout rl) comes from
// rank j. Costs for p ranks and b bytes per block: alpha latency, beta per
// byte.

// alltoallLinear: all p-1 receives and p-1 sends are posted at once (to
// ranks me+1, me+2, ... so that not everyone targets rank 0 first), then
// waited for. Cost (p-1)(alpha + b beta) if the network sustains all
// transfers at once, more under contention. MPICH's medium-message
// alltoall and its alltoallv (Thakur, Rabenseifner & Gropp 2005, 4.7).
//
// With 2 ranks the one receive and one send are a Sendrecv, which costs
// no request allocated per call (at 8 bytes, 1.46 usec per call instead
// of Sendrecv's 0.54 over shared memory, a third of it allocating).
func alltoallLinear(c comm.Comm, sendbuf []byte, sl layout, recvbuf []byte, rl layout) error {
	p, me := c.Size(), c.Rank()
	if p == 2 {
		copy(rl.block(recvbuf, me), sl.block(sendbuf, me))
		return sendrecv(c, sl.block(sendbuf, 1-me), 1-me, rl.block(recvbuf, 1-me), 1-me, tagAlltoall)
	}
	var q pending
	for i := 1; i < p; i++ {
		src := (me - i + p) % p
		if err := q.irecv(c, rl.block(recvbuf, src), src, tagAlltoall); err != nil {
			q.wait()
			return err
		}
	}
	for i := 1; i < p; i++ {
		dst := (me + i) % p
		if err := q.isend(c, sl.block(sendbuf, dst), dst, tagAlltoall); err != nil {
			q.wait()
			return err
		}
	}
	copy(rl.block(recvbuf, me), sl.block(sendbuf, me))
	return q.wait()
}

// pairwisePeers is step i's (destination, source) of the pairwise exchange:
// partner me XOR i for a power-of-two p (each step is a perfect matching),
// else me+i and me-i.
func pairwisePeers(me, i, p int) (dst, src int) {
	if p&(p-1) == 0 {
		return me ^ i, me ^ i
	}
	return (me + i) % p, (me - i + p) % p
}

// alltoallPairwise: p-1 steps, in each one every rank exchanges one block
// with one partner (see pairwisePeers). Cost (p-1)(alpha + b beta) without
// contention at any step. MPICH's long-message alltoall (Thakur,
// Rabenseifner & Gropp 2005, section 4.7); the N-1 rounds of exchanges the
// study reads off its Alltoall measurements.
func alltoallPairwise(c comm.Comm, sendbuf []byte, sl layout, recvbuf []byte, rl layout) error {
	p, me := c.Size(), c.Rank()
	copy(rl.block(recvbuf, me), sl.block(sendbuf, me))
	for i := 1; i < p; i++ {
		dst, src := pairwisePeers(me, i, p)
		if err := sendrecv(c, sl.block(sendbuf, dst), dst, rl.block(recvbuf, src), src, tagAlltoall); err != nil {
			return err
		}
	}
	return nil
}

// alltoallBruck: rotate the blocks so that position j holds the block for
// rank me+j; in round k = 1, 2, 4, ... send every block whose position has
// bit k set to rank me+k (receiving the same positions from me-k); then
// block j of the result is at position me-j. Cost ceil(log2 p) alpha +
// ceil(log2 p) n/2 beta (n = p b) plus local packing: fewer messages, more
// bytes; MPICH's short-message alltoall (Bruck et al. 1997; Thakur,
// Rabenseifner & Gropp 2005, section 4.7). Equal block sizes only.
func alltoallBruck(c comm.Comm, sendbuf, recvbuf []byte, b int) error {
	p, me := c.Size(), c.Rank()
	tmp, release := scratch(p * b)
	defer release()
	for j := 0; j < p; j++ {
		copy(tmp[j*b:(j+1)*b], sendbuf[((me+j)%p)*b:])
	}
	pack, releasePack := scratch((p/2 + 1) * b)
	defer releasePack()
	unpack, releaseUnpack := scratch(len(pack))
	defer releaseUnpack()
	for k := 1; k < p; k <<= 1 {
		pos := bruckPositions(p, k)
		for i, j := range pos {
			copy(pack[i*b:(i+1)*b], tmp[j*b:])
		}
		n := len(pos) * b
		if err := sendrecv(c, pack[:n], (me+k)%p, unpack[:n], (me-k+p)%p, tagAlltoall); err != nil {
			return err
		}
		for i, j := range pos {
			copy(tmp[j*b:(j+1)*b], unpack[i*b:])
		}
	}
	for j := 0; j < p; j++ {
		src := (me - j + p) % p
		copy(recvbuf[src*b:(src+1)*b], tmp[j*b:])
	}
	return nil
}

// bruckPositions lists the block positions 0..p-1 with bit k set.
func bruckPositions(p, k int) []int {
	var pos []int
	for j := 1; j < p; j++ {
		if j&k != 0 {
			pos = append(pos, j)
		}
	}
	return pos
}

// Alltoall sends block i of sendbuf to rank i and receives rank j's block
// for this rank into block j of recvbuf (MPI_Alltoall). Blocks are
// len(sendbuf)/Size() bytes; len(sendbuf) == len(recvbuf), a multiple of
// Size(), equal on all ranks.
func Alltoall(c comm.Comm, sendbuf, recvbuf []byte) error {
	return Algorithms{}.Alltoall(c, sendbuf, recvbuf)
}

// Alltoall is Alltoall with a's algorithm selection.
func (a Algorithms) Alltoall(c comm.Comm, sendbuf, recvbuf []byte) error {
	p := c.Size()
	if len(sendbuf)%p != 0 {
		return fmt.Errorf("coll: Alltoall: sendbuf has %d bytes, not a multiple of the %d ranks", len(sendbuf), p)
	}
	if err := checkLen("Alltoall", "recvbuf", len(recvbuf), len(sendbuf)); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeAlltoall](a, c, "alltoall"); ok {
		return runNative(c, "Alltoall", func() error { return n.Alltoall(sendbuf, recvbuf) })
	}
	if len(sendbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	b := len(sendbuf) / p
	l := uniformLayout(p, b)
	x := args{send: sendbuf, recv: recvbuf, sl: l, rl: l}
	return dispatch(c, "Alltoall", "alltoall", a.choose("alltoall", p, b), x)
}

// Alltoall's and Alltoallv's tables: x.send and x.recv are the buffers with
// blocks x.sl and x.rl (block i goes to, or comes from, rank i). Bruck's
// algorithm needs equal blocks and is Alltoall's only.
var (
	alltoallAlgorithms = []algorithm{alltoallLinearEntry, alltoallPairwiseEntry,
		{name: "bruck", run: func(c comm.Comm, x args) error { return alltoallBruck(c, x.send, x.recv, len(x.send)/c.Size()) }}}
	alltoallvAlgorithms   = []algorithm{alltoallLinearEntry, alltoallPairwiseEntry}
	alltoallLinearEntry   = algorithm{name: "linear", run: func(c comm.Comm, x args) error { return alltoallLinear(c, x.send, x.sl, x.recv, x.rl) }}
	alltoallPairwiseEntry = algorithm{name: "pairwise", run: func(c comm.Comm, x args) error { return alltoallPairwise(c, x.send, x.sl, x.recv, x.rl) }}
)

// Alltoallv sends sendbuf[sdispls[i]:+sendcounts[i]] to rank i and receives
// rank j's bytes into recvbuf[rdispls[j]:+recvcounts[j]] (MPI_Alltoallv).
// Counts and displacements are in bytes (nil displacements mean packed);
// sendcounts[j] on rank i must equal recvcounts[i] on rank j.
func Alltoallv(c comm.Comm, sendbuf []byte, sendcounts, sdispls []int, recvbuf []byte, recvcounts, rdispls []int) error {
	return Algorithms{}.Alltoallv(c, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls)
}

// Alltoallv is Alltoallv with a's algorithm selection.
func (a Algorithms) Alltoallv(c comm.Comm, sendbuf []byte, sendcounts, sdispls []int, recvbuf []byte, recvcounts, rdispls []int) error {
	p := c.Size()
	sl, err := vlayout("Alltoallv", "send", sendcounts, sdispls, p, len(sendbuf))
	if err != nil {
		return err
	}
	rl, err := vlayout("Alltoallv", "receive", recvcounts, rdispls, p, len(recvbuf))
	if err != nil {
		return err
	}
	if n, ok := nativeOf[NativeAlltoallv](a, c, "alltoallv"); ok {
		return runNative(c, "Alltoallv", func() error { return n.Alltoallv(sendbuf, sendcounts, sl.off, recvbuf, recvcounts, rl.off) })
	}
	x := args{send: sendbuf, recv: recvbuf, sl: sl, rl: rl}
	return dispatch(c, "Alltoallv", "alltoallv", a.choose("alltoallv", p, sl.total()/p), x)
}
