package coll

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// Reduce-scatter algorithms (MPI_Reduce_scatter, MPI_Reduce_scatter_block):
// the vector is split into p blocks (layout l, in rank order, packed) and
// rank i ends with block i of the reduction. Costs for p ranks and an n-byte
// vector: alpha latency, beta per byte, gamma per byte reduced.

// reduceScatterHalving reduces the vector src of every rank so that block
// rank of work holds the result (src is left unmodified and may be work;
// the rest of work is scratch). Recursive halving: in round k the active
// ranks pair up at distance pof2/2^k, each sends the half of its current
// range that the partner keeps and combines the half it keeps. A
// non-power-of-two p first folds the first 2(p-pof2) ranks pairwise and at
// the end sends the folded ranks their blocks. Cost log2 p alpha +
// (p-1)/p n (beta + gamma), plus alpha + n (beta+gamma) + alpha + n/p beta
// for the fold (Thakur, Rabenseifner & Gropp 2005, section 4.6; the fold is
// their section 4.4 / Rabenseifner 2004).
func reduceScatterHalving(c comm.Comm, src, work []byte, l layout, dt Datatype, op Op, tag int) error {
	p, me := c.Size(), c.Rank()
	if p == 1 {
		copy(work, src)
		return nil
	}
	f := newFold(p)
	tmp, release := scratch(len(work))
	defer release()
	cur, err := foldIn(c, f, src, work, tmp, dt, op, tag)
	if err != nil {
		return err
	}
	if nr := f.newRank(me); nr >= 0 {
		if err := halve(c, f, nr, cur, work, tmp, f.groups(l), dt, op, tag); err != nil {
			return err
		}
	}
	if me < 2*f.rem {
		if me%2 == 1 {
			return send(c, l.block(work, me-1), me-1, tag)
		}
		return recv(c, l.block(work, me), me+1, tag)
	}
	return nil
}

// reduceScatterRing reduces the vector src of every rank around a ring so
// that block rank of work holds the result (src is left unmodified and may
// be work): in step s rank r sends its partial block r-s-1 to r+1 and
// combines block r-s-2 from r-1 with its own, so after p-1 steps block r
// holds every rank's contribution. Each block is combined once, from src,
// and sent from work after that (from src in step 0). Cost
// (p-1) alpha + (p-1)/p n (beta + gamma): bandwidth-optimal at any p
// (Chan et al. 2007, section 5; the first half of the ring allreduce of
// Patarasuk & Yuan 2009).
func reduceScatterRing(c comm.Comm, src, work []byte, l layout, dt Datatype, op Op, tag int) error {
	p, me := c.Size(), c.Rank()
	if p == 1 {
		copy(work, src)
		return nil
	}
	right, left := (me+1)%p, (me-1+p)%p
	tmp, release := scratch(maxCount(l))
	defer release()
	for s := 0; s < p-1; s++ {
		sb := ((me-s-1)%p + p) % p
		rb := ((me-s-2)%p + p) % p
		out := l.block(work, sb)
		if s == 0 {
			out = l.block(src, sb)
		}
		in := tmp[:l.cnt[rb]]
		if err := sendrecv(c, out, right, in, left, tag); err != nil {
			return err
		}
		combine(dt, op, l.block(work, rb), l.block(src, rb), in)
	}
	return nil
}

// reduceScatterPairwise: in step i = 1..p-1 rank r sends block r+i of its
// input to rank r+i and combines block r from rank r-i into its result, so
// out = x_r op x_(r-1) op x_(r-2) op ... . Cost (p-1) alpha +
// (p-1)/p n (beta + gamma); MPICH's long-message reduce-scatter (Thakur,
// Rabenseifner & Gropp 2005, section 4.6).
func reduceScatterPairwise(c comm.Comm, sendbuf []byte, l layout, out []byte, dt Datatype, op Op, tag int) error {
	p, me := c.Size(), c.Rank()
	copy(out, l.block(sendbuf, me))
	tmp, release := scratch(len(out))
	defer release()
	for i := 1; i < p; i++ {
		dst, src := (me+i)%p, (me-i+p)%p
		if err := sendrecv(c, l.block(sendbuf, dst), dst, tmp, src, tag); err != nil {
			return err
		}
		reduce(dt, op, out, tmp)
	}
	return nil
}

func maxCount(l layout) int {
	m := 0
	for _, c := range l.cnt {
		m = max(m, c)
	}
	return m
}

// ReduceScatter combines the vectors sendbuf of all ranks element-wise with
// op and scatters the result: rank i receives counts[i] bytes, the i-th
// piece in rank order, in recvbuf (MPI_Reduce_scatter; counts are in bytes,
// each a multiple of dt.Size(), summing to len(sendbuf), equal on all
// ranks; len(recvbuf) == counts[rank]).
func ReduceScatter(c comm.Comm, sendbuf, recvbuf []byte, counts []int, dt Datatype, op Op) error {
	return Algorithms{}.ReduceScatter(c, sendbuf, recvbuf, counts, dt, op)
}

// ReduceScatter is ReduceScatter with a's algorithm selection.
func (a Algorithms) ReduceScatter(c comm.Comm, sendbuf, recvbuf []byte, counts []int, dt Datatype, op Op) error {
	const fn = "Reduce_scatter"
	if err := check(fn, dt, op, len(sendbuf)); err != nil {
		return err
	}
	l, err := vlayout(fn, "receive", counts, nil, c.Size(), len(sendbuf))
	if err != nil {
		return err
	}
	if err := checkLen(fn, "sendbuf", len(sendbuf), l.total()); err != nil {
		return err
	}
	for i, n := range counts {
		if err := check(fn+" count of rank "+fmt.Sprint(i), dt, op, n); err != nil {
			return err
		}
	}
	if err := checkLen(fn, "recvbuf", len(recvbuf), counts[c.Rank()]); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeReduceScatter](a, c, "reduce_scatter"); ok {
		elems := make([]int, len(counts)) // the library counts elements, not bytes
		for i, k := range counts {
			elems[i] = k / dt.Size()
		}
		return runNative(c, fn, func() error { return n.ReduceScatter(sendbuf, recvbuf, elems, op, dt) })
	}
	if len(sendbuf) == 0 {
		return nil // every count is zero: nothing moves; MPI libraries return at once
	}
	x := args{send: sendbuf, recv: recvbuf, rl: l, dt: dt, op: op}
	return dispatch(c, fn, "reduce_scatter", a.choose("reduce_scatter", c.Size(), len(sendbuf)), x)
}

// ReduceScatterBlock is ReduceScatter with len(recvbuf) bytes for every rank
// (MPI_Reduce_scatter_block): len(sendbuf) == Size()*len(recvbuf).
func ReduceScatterBlock(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op) error {
	return Algorithms{}.ReduceScatterBlock(c, sendbuf, recvbuf, dt, op)
}

// ReduceScatterBlock is ReduceScatterBlock with a's algorithm selection.
func (a Algorithms) ReduceScatterBlock(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op) error {
	const fn = "Reduce_scatter_block"
	p := c.Size()
	if err := check(fn, dt, op, len(recvbuf)); err != nil {
		return err
	}
	if err := checkLen(fn, "sendbuf", len(sendbuf), p*len(recvbuf)); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeReduceScatterBlock](a, c, "reduce_scatter_block"); ok {
		return runNative(c, fn, func() error { return n.ReduceScatterBlock(sendbuf, recvbuf, op, dt) })
	}
	if len(recvbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	ch := a.choose("reduce_scatter_block", p, len(recvbuf))
	x := args{send: sendbuf, recv: recvbuf, rl: uniformLayout(p, len(recvbuf)), dt: dt, op: op}
	return dispatch(c, fn, "reduce_scatter_block", ch, x)
}

// reduceScatterAlgorithms is the table of ReduceScatter and
// ReduceScatterBlock: x.send is the whole vector, x.rl its blocks, x.recv
// this rank's block of the result; x.dt and x.op are the reduction.
var reduceScatterAlgorithms = []algorithm{
	{name: "recursive_halving", run: viaScratch(reduceScatterHalving)},
	{name: "ring", run: viaScratch(reduceScatterRing)},
	{name: "pairwise", run: func(c comm.Comm, x args) error {
		return reduceScatterPairwise(c, x.send, x.rl, x.recv, x.dt, x.op, tagReduceScatter)
	}},
}

// viaScratch runs a reduce-scatter of x.send into a scratch vector and
// copies this rank's block of the result to x.recv.
func viaScratch(f func(c comm.Comm, src, work []byte, l layout, dt Datatype, op Op, tag int) error) func(comm.Comm, args) error {
	return func(c comm.Comm, x args) error {
		work, release := scratch(len(x.send))
		defer release()
		err := f(c, x.send, work, x.rl, x.dt, x.op, tagReduceScatter)
		copy(x.recv, x.rl.block(work, c.Rank()))
		return err
	}
}
