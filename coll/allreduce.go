package coll

import "github.com/mpbench/mpbench/comm"

// Allreduce algorithms (MPI_Allreduce). Each leaves in buf the reduction
// of the vectors src of every rank; src is left unmodified and may be buf
// (in place). The first combination of each part of the vector reads src
// and writes buf, so no algorithm copies src first. Every rank computes
// the same combinations in the same grouping, so all ranks get
// bit-identical results. Costs for p ranks and n bytes: alpha latency,
// beta per byte, gamma per byte reduced; pof2 is the largest power of two
// <= p.

// allreduceRecursiveDoubling: in round k each rank swaps its whole partial
// vector with the rank at distance 2^k and combines. A non-power-of-two p
// is folded first. Cost log2 p (alpha + n beta + n gamma), plus
// 2 alpha + n(2 beta + gamma) for the fold. MPICH's short-message allreduce
// (Thakur, Rabenseifner & Gropp 2005, section 4.4).
func allreduceRecursiveDoubling(c comm.Comm, src, buf []byte, dt Datatype, op Op) error {
	f := newFold(c.Size())
	if f.p == 1 {
		copy(buf, src)
		return nil
	}
	tmp, release := scratch(len(buf))
	defer release()
	cur, err := foldIn(c, f, src, buf, tmp, dt, op, tagAllreduce)
	if err != nil {
		return err
	}
	if nr := f.newRank(c.Rank()); nr >= 0 {
		for m := 1; m < f.pof2; m <<= 1 {
			partner := f.oldRank(nr ^ m)
			if err := sendrecv(c, cur, partner, tmp, partner, tagAllreduce); err != nil {
				return err
			}
			combine(dt, op, buf, cur, tmp)
			cur = buf
		}
	}
	return foldOut(c, f, buf, tagAllreduce)
}

// allreduceRing: a ring reduce-scatter followed by a ring allgather of the
// p blocks. Cost 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma: the
// bandwidth-optimal allreduce for any p, latency linear in p (Patarasuk &
// Yuan 2009; Chan et al. 2007, section 6).
func allreduceRing(c comm.Comm, src, buf []byte, dt Datatype, op Op) error {
	l := evenLayout(len(buf), c.Size(), dt.Size())
	if err := reduceScatterRing(c, src, buf, l, dt, op, tagAllreduce); err != nil {
		return err
	}
	return ringAllgather(c, buf, l, 0, 0, tagAllreduce)
}

// allreduceRabenseifner: reduce-scatter by recursive halving then allgather
// by recursive doubling, both over pof2 blocks among the pof2 active ranks
// of the fold. Cost 2 log2 pof2 alpha + 2 (pof2-1)/pof2 n beta +
// (pof2-1)/pof2 n gamma, plus 2 alpha + n(2 beta + gamma) for the fold.
// Rabenseifner 2004; MPICH's long-message allreduce (Thakur, Rabenseifner &
// Gropp 2005, section 4.4).
func allreduceRabenseifner(c comm.Comm, src, buf []byte, dt Datatype, op Op) error {
	f := newFold(c.Size())
	if f.p == 1 {
		copy(buf, src)
		return nil
	}
	tmp, release := scratch(len(buf))
	defer release()
	cur, err := foldIn(c, f, src, buf, tmp, dt, op, tagAllreduce)
	if err != nil {
		return err
	}
	if nr := f.newRank(c.Rank()); nr >= 0 {
		g := evenLayout(len(buf), f.pof2, dt.Size())
		if err := halve(c, f, nr, cur, buf, tmp, g, dt, op, tagAllreduce); err != nil {
			return err
		}
		if err := double(c, f, nr, buf, g, 0, tagAllreduce); err != nil {
			return err
		}
	}
	return foldOut(c, f, buf, tagAllreduce)
}

// Allreduce combines the vectors sendbuf of all ranks element-wise with op
// and leaves the result in recvbuf on every rank (MPI_Allreduce).
// len(sendbuf) must be equal on all ranks and a multiple of dt.Size();
// len(recvbuf) == len(sendbuf). sendbuf and recvbuf may be the same slice.
func Allreduce(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op) error {
	return Algorithms{}.Allreduce(c, sendbuf, recvbuf, dt, op)
}

// Allreduce is Allreduce with a's algorithm selection.
func (a Algorithms) Allreduce(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op) error {
	if err := check("Allreduce", dt, op, len(sendbuf)); err != nil {
		return err
	}
	if err := checkLen("Allreduce", "recvbuf", len(recvbuf), len(sendbuf)); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeAllreduce](a, c, "allreduce"); ok {
		return runNative(c, "Allreduce", func() error { return n.Allreduce(sendbuf, recvbuf, op, dt) })
	}
	if len(sendbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	ch := a.choose("allreduce", c.Size(), len(sendbuf))
	return dispatch(c, "Allreduce", "allreduce", ch, args{send: sendbuf, recv: recvbuf, dt: dt, op: op})
}

// allreduceAlgorithms is Allreduce's table: x.send is this rank's vector,
// x.recv receives the result (it may be x.send); x.dt and x.op are the
// reduction.
var allreduceAlgorithms = []algorithm{
	{name: "recursive_doubling", run: func(c comm.Comm, x args) error {
		return allreduceRecursiveDoubling(c, x.send, x.recv, x.dt, x.op)
	}},
	{name: "ring", run: func(c comm.Comm, x args) error { return allreduceRing(c, x.send, x.recv, x.dt, x.op) }},
	{name: "rabenseifner", run: func(c comm.Comm, x args) error { return allreduceRabenseifner(c, x.send, x.recv, x.dt, x.op) }},
}
