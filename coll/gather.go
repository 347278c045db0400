package coll

import "github.com/mpbench/mpbench/comm"

// Gather algorithms (MPI_Gather, MPI_Gatherv). Costs for p ranks, b bytes
// per rank and n = p b bytes at the root: alpha latency, beta per byte.

// gatherLinear: every rank sends its block to the root, which has all
// receives posted at once into recvbuf laid out by l (rank order). Cost
// (p-1) alpha + (p-1) b beta, serialised at the root's link; the only
// algorithm for Gatherv, whose counts are known at the root alone (as in
// MPICH). The study's Gather measurements show this linear cost.
func gatherLinear(c comm.Comm, sendbuf, recvbuf []byte, l layout, root int) error {
	p, me := c.Size(), c.Rank()
	if me != root {
		return send(c, sendbuf, root, tagGather)
	}
	var q pending
	for i := 1; i < p; i++ {
		src := (root + i) % p
		if err := q.irecv(c, l.block(recvbuf, src), src, tagGather); err != nil {
			q.wait()
			return err
		}
	}
	copy(l.block(recvbuf, root), sendbuf)
	return q.wait()
}

// gatherBinomial: blocks flow up a binomial tree; relative rank vr collects
// its subtree's blocks (contiguous in relative order) and sends them to its
// parent in one message. Cost log2 p alpha + (p-1) b beta: fewer messages
// than linear, the same bytes into the root. MPICH's gather (Thakur,
// Rabenseifner & Gropp 2005, section 4.3).
func gatherBinomial(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	p := c.Size()
	rl := uniformLayout(p, len(sendbuf))
	vr := rel(c.Rank(), root, p)
	base := rl.off[vr]
	stage := recvbuf // relative order is rank order when root is 0
	if root != 0 || vr != 0 {
		var release func()
		stage, release = scratch(subtreeBytes(rl, vr, p))
		defer release()
	}
	copy(rl.spanAt(stage, base, vr, vr+1), sendbuf)
	if err := gatherBinomialPacked(c, stage, base, rl, root, tagGather); err != nil {
		return err
	}
	if vr == 0 && root != 0 {
		for i := 0; i < p; i++ {
			copy(rl.block(recvbuf, abs(i, root, p)), rl.block(stage, i))
		}
	}
	return nil
}

// subtreeBytes is the size of the blocks of relative rank vr's subtree.
func subtreeBytes(rl layout, vr, p int) int {
	e := subtreeEnd(vr, p)
	return rl.off[e-1] + rl.cnt[e-1] - rl.off[vr]
}

// gatherBinomialPacked collects a packed layout rl of blocks indexed by
// relative rank at root up a binomial tree; the reverse of
// scatterBinomialPacked, with the same stage/base convention. This rank's
// own block must already be in stage. Children are received smallest
// subtree first. Cost log2 p alpha + (p-1)/p n beta.
func gatherBinomialPacked(c comm.Comm, stage []byte, base int, rl layout, root, tag int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	ch := binomialChildren(vr, p)
	for i := len(ch) - 1; i >= 0; i-- {
		sub := rl.spanAt(stage, base, ch[i], subtreeEnd(ch[i], p))
		if err := recv(c, sub, abs(ch[i], root, p), tag); err != nil {
			return err
		}
	}
	if par := binomialParent(vr); par >= 0 {
		return send(c, rl.spanAt(stage, base, vr, subtreeEnd(vr, p)), abs(par, root, p), tag)
	}
	return nil
}

// Gather collects len(sendbuf) bytes from every rank at root (MPI_Gather):
// rank i's bytes land at recvbuf[i*len(sendbuf):]. len(sendbuf) must be
// equal on all ranks; at the root len(recvbuf) == Size()*len(sendbuf), and
// recvbuf is ignored elsewhere.
func Gather(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	return Algorithms{}.Gather(c, sendbuf, recvbuf, root)
}

// Gather is Gather with a's algorithm selection.
func (a Algorithms) Gather(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	p := c.Size()
	if err := checkRoot("Gather", root, p); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := checkLen("Gather", "recvbuf", len(recvbuf), p*len(sendbuf)); err != nil {
			return err
		}
	}
	if n, ok := nativeOf[NativeGather](a, c, "gather"); ok {
		return runNative(c, "Gather", func() error { return n.Gather(sendbuf, recvbuf, root) })
	}
	if len(sendbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	x := args{send: sendbuf, recv: recvbuf, rl: uniformLayout(p, len(sendbuf)), root: root}
	return dispatch(c, "Gather", "gather", a.choose("gather", p, len(sendbuf)), x)
}

// Gather's and Gatherv's tables: x.send is this rank's block, x.recv the
// root's buffer with blocks x.rl (significant at the root), x.root the root.
var (
	gatherAlgorithms  = []algorithm{gatherLinearEntry, {name: "binomial", run: func(c comm.Comm, x args) error { return gatherBinomial(c, x.send, x.recv, x.root) }}}
	gathervAlgorithms = []algorithm{gatherLinearEntry}
	gatherLinearEntry = algorithm{name: "linear", run: func(c comm.Comm, x args) error { return gatherLinear(c, x.send, x.recv, x.rl, x.root) }}
)

// Gatherv collects sendbuf from every rank at root (MPI_Gatherv): rank i's
// bytes land at recvbuf[displs[i]:displs[i]+counts[i]]. counts and displs
// are in bytes and significant at the root only (nil displs means packed in
// rank order); counts[i] must equal rank i's len(sendbuf).
func Gatherv(c comm.Comm, sendbuf, recvbuf []byte, counts, displs []int, root int) error {
	return Algorithms{}.Gatherv(c, sendbuf, recvbuf, counts, displs, root)
}

// Gatherv is Gatherv with a's algorithm selection.
func (a Algorithms) Gatherv(c comm.Comm, sendbuf, recvbuf []byte, counts, displs []int, root int) error {
	p := c.Size()
	if err := checkRoot("Gatherv", root, p); err != nil {
		return err
	}
	var l layout
	if c.Rank() == root {
		var err error
		if l, err = vlayout("Gatherv", "receive", counts, displs, p, len(recvbuf)); err != nil {
			return err
		}
		if err := checkLen("Gatherv", "root's sendbuf", len(sendbuf), counts[root]); err != nil {
			return err
		}
	}
	if n, ok := nativeOf[NativeGatherv](a, c, "gatherv"); ok {
		return runNative(c, "Gatherv", func() error { return n.Gatherv(sendbuf, recvbuf, counts, packedDispls(counts, displs), root) })
	}
	x := args{send: sendbuf, recv: recvbuf, rl: l, root: root}
	return dispatch(c, "Gatherv", "gatherv", a.choose("gatherv", p, len(sendbuf)), x)
}
