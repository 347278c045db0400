package coll

import "github.com/mpbench/mpbench/comm"

// Reduce algorithms (MPI_Reduce). The result is left in recvbuf at the root;
// sendbuf is never modified. Costs for p ranks and n bytes: alpha latency,
// beta per byte transferred, gamma per byte reduced.

// reduceLinear: every rank sends its vector to the root, which receives and
// combines them in rank order: x0 op x1 op ... op x(p-1). Cost
// (p-1)(alpha + n beta + n gamma), all at the root (Thakur, Rabenseifner &
// Gropp 2005, section 2).
func reduceLinear(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root int) error {
	p, me := c.Size(), c.Rank()
	if me != root {
		return send(c, sendbuf, root, tagReduce)
	}
	if p == 1 {
		copy(recvbuf, sendbuf)
		return nil
	}
	tmp, release := scratch(len(sendbuf))
	defer release()
	acc := sendbuf // x0 op ... op x(i-1); rank 0's vector itself at root 0
	if root != 0 {
		if err := recv(c, recvbuf, 0, tagReduce); err != nil {
			return err
		}
		acc = recvbuf
	}
	for i := 1; i < p; i++ {
		in := sendbuf
		if i != root {
			if err := recv(c, tmp, i, tagReduce); err != nil {
				return err
			}
			in = tmp
		}
		combine(dt, op, recvbuf, acc, in)
		acc = recvbuf
	}
	return nil
}

// reduceBinomial: partial results flow up a binomial tree; relative rank vr
// combines its subtree as acc = acc op child for children vr+1, vr+2, vr+4,
// ... in that order. A leaf sends its vector as it is; an inner rank's
// first combination reads its vector and writes its partial result (in
// recvbuf at the root), so no rank copies its vector first. Cost
// ceil(log2 p)(alpha + n beta + n gamma). MPICH's short-message reduce
// (Thakur, Rabenseifner & Gropp 2005, section 4.5).
func reduceBinomial(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	acc := sendbuf
	var tmp []byte
	for m := 1; m < p; m <<= 1 {
		if vr&m != 0 {
			return send(c, acc, abs(vr-m, root, p), tagReduce)
		}
		if vr+m < p {
			n := len(sendbuf)
			if tmp == nil {
				size := n // the incoming vector; beside it the partial result, except at the root
				if vr != 0 {
					size = 2 * n
				}
				var release func()
				tmp, release = scratch(size)
				defer release()
			}
			in, partial := tmp[:n], recvbuf
			if vr != 0 {
				partial = tmp[n : 2*n]
			}
			if err := recv(c, in, abs(vr+m, root, p), tagReduce); err != nil {
				return err
			}
			combine(dt, op, partial, acc, in)
			acc = partial
		}
	}
	if p == 1 {
		copy(recvbuf, sendbuf)
	}
	return nil
}

// reducePipeline: the ranks form a chain root-1 -> ... -> root+1 -> root and
// the vector flows along it in segments of seg bytes (rounded down to whole
// elements); each rank combines a segment as own op incoming and forwards it
// while the next segment arrives. With s segments the cost is
// (p-1+s-1)(alpha + seg beta + seg gamma), about n(beta+gamma) + p alpha for
// s >> p. The segmented chain reduce of Open MPI's tuned module (Chan et al.
// 2007 analyse the pipelined counterparts of the long-vector algorithms).
func reducePipeline(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root, seg int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	n := len(sendbuf)
	if p == 1 {
		copy(recvbuf, sendbuf)
		return nil
	}
	segs := segments(n, seg, dt.Size())
	ns := len(segs) - 1
	var in, out pending
	fail := func(err error) error { in.wait(); out.wait(); return err }
	if vr < p-1 {
		acc := recvbuf
		if vr != 0 {
			var release func()
			acc, release = scratch(n)
			defer release()
		}
		tmp, release := scratch(n)
		defer release()
		for i := 0; i < ns; i++ {
			if err := in.irecv(c, tmp[segs[i]:segs[i+1]], abs(vr+1, root, p), tagReduce); err != nil {
				return fail(err)
			}
		}
		for i := 0; i < ns; i++ {
			if err := in.waitOne(i); err != nil {
				return fail(err)
			}
			lo, hi := segs[i], segs[i+1]
			combine(dt, op, acc[lo:hi], sendbuf[lo:hi], tmp[lo:hi])
			if vr > 0 {
				if err := out.isend(c, acc[lo:hi], abs(vr-1, root, p), tagReduce); err != nil {
					return fail(err)
				}
			}
		}
	} else {
		for i := 0; i < ns; i++ {
			if err := out.isend(c, sendbuf[segs[i]:segs[i+1]], abs(vr-1, root, p), tagReduce); err != nil {
				return fail(err)
			}
		}
	}
	err := in.wait()
	if e := out.wait(); err == nil {
		err = e
	}
	return err
}

// reduceRabenseifner: a reduce-scatter by recursive halving leaves each rank
// with about n/p bytes of the result, which a binomial gather collects at
// the root. With root 0 relative ranks are ranks, so the root reduces and
// gathers straight into recvbuf; another root gathers into a staging
// buffer in relative order and copies the blocks out. Cost
// 2 log2 p alpha + 2 (p-1)/p n beta + (p-1)/p n gamma (plus
// alpha + n beta + n gamma for the fold when p is not a power of two).
// Rabenseifner 2004; MPICH's long-message reduce for predefined operations
// (Thakur, Rabenseifner & Gropp 2005, section 4.5).
func reduceRabenseifner(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root int) error {
	p, me := c.Size(), c.Rank()
	l := evenLayout(len(sendbuf), p, dt.Size())
	work := recvbuf
	if me != root || root != 0 {
		var release func()
		work, release = scratch(len(sendbuf))
		defer release()
	}
	if err := reduceScatterHalving(c, sendbuf, work, l, dt, op, tagReduce); err != nil {
		return err
	}
	// work now holds the reduced block of this rank at l.block(work, me).
	if root == 0 {
		return gatherBinomialPacked(c, work, 0, l, root, tagReduce)
	}
	// Gather the blocks at the root, indexed by relative rank.
	rc := make([]int, p)
	for i := range rc {
		rc[i] = l.cnt[abs(i, root, p)]
	}
	rl := packedLayout(rc)
	vr := rel(me, root, p)
	stage, releaseStage := scratch(rl.total())
	defer releaseStage()
	copy(rl.block(stage, vr), l.block(work, me))
	if err := gatherBinomialPacked(c, stage, 0, rl, root, tagReduce); err != nil {
		return err
	}
	if vr == 0 {
		for i := 0; i < p; i++ {
			copy(l.block(recvbuf, abs(i, root, p)), rl.block(stage, i))
		}
	}
	return nil
}

// Reduce combines the vectors sendbuf of all ranks element-wise with op and
// leaves the result in recvbuf at root (MPI_Reduce); recvbuf is ignored on
// other ranks (may be nil). len(sendbuf) must be equal on all ranks and a
// multiple of dt.Size(); at the root len(recvbuf) == len(sendbuf).
func Reduce(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root int) error {
	return Algorithms{}.Reduce(c, sendbuf, recvbuf, dt, op, root)
}

// Reduce is Reduce with a's algorithm selection.
func (a Algorithms) Reduce(c comm.Comm, sendbuf, recvbuf []byte, dt Datatype, op Op, root int) error {
	p := c.Size()
	if err := checkRoot("Reduce", root, p); err != nil {
		return err
	}
	if err := check("Reduce", dt, op, len(sendbuf)); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := checkLen("Reduce", "recvbuf", len(recvbuf), len(sendbuf)); err != nil {
			return err
		}
	}
	if n, ok := nativeOf[NativeReduce](a, c, "reduce"); ok {
		return runNative(c, "Reduce", func() error { return n.Reduce(sendbuf, recvbuf, op, dt, root) })
	}
	if len(sendbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	x := args{send: sendbuf, recv: recvbuf, dt: dt, op: op, root: root}
	return dispatch(c, "Reduce", "reduce", a.choose("reduce", p, len(sendbuf)), x)
}

// reduceAlgorithms is Reduce's table: x.send and x.recv are the vectors,
// x.dt and x.op the reduction, x.root the root.
var reduceAlgorithms = []algorithm{
	{name: "linear", run: func(c comm.Comm, x args) error { return reduceLinear(c, x.send, x.recv, x.dt, x.op, x.root) }},
	{name: "binomial", run: func(c comm.Comm, x args) error { return reduceBinomial(c, x.send, x.recv, x.dt, x.op, x.root) }},
	{name: "pipeline", segmented: true, run: func(c comm.Comm, x args) error {
		return reducePipeline(c, x.send, x.recv, x.dt, x.op, x.root, x.seg)
	}},
	{name: "rabenseifner", run: func(c comm.Comm, x args) error {
		return reduceRabenseifner(c, x.send, x.recv, x.dt, x.op, x.root)
	}},
}
