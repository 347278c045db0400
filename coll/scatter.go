package coll

import "github.com/mpbench/mpbench/comm"

// Scatter algorithms (MPI_Scatter, MPI_Scatterv). Costs for p ranks, b bytes
// per rank and n = p b bytes at the root: alpha latency, beta per byte.

// scatterLinear: the root sends each rank its block of sendbuf (laid out by
// l in rank order), all sends posted at once. Cost (p-1)(alpha + b beta),
// serialised at the root's link; the only algorithm for Scatterv, whose
// counts are known at the root alone (as in MPICH).
func scatterLinear(c comm.Comm, sendbuf []byte, l layout, recvbuf []byte, root int) error {
	p, me := c.Size(), c.Rank()
	if me != root {
		return recv(c, recvbuf, root, tagScatter)
	}
	var q pending
	for i := 1; i < p; i++ {
		dst := (root + i) % p
		if err := q.isend(c, l.block(sendbuf, dst), dst, tagScatter); err != nil {
			q.wait()
			return err
		}
	}
	copy(recvbuf, l.block(sendbuf, root))
	return q.wait()
}

// scatterBinomial: the root sends each child of a binomial tree the blocks
// of the child's whole subtree in one message, and so on down. Cost
// log2 p alpha + (p-1) b beta. MPICH's scatter (Thakur, Rabenseifner &
// Gropp 2005, section 4.3).
func scatterBinomial(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	p := c.Size()
	b := len(recvbuf)
	rl := uniformLayout(p, b)
	vr := rel(c.Rank(), root, p)
	base := rl.off[vr]
	var stage []byte
	release := func() {}
	defer func() { release() }()
	switch {
	case vr == 0 && root == 0:
		stage = sendbuf
	case vr == 0: // rotate into relative order
		stage, release = scratch(p * b)
		for i := 0; i < p; i++ {
			copy(rl.block(stage, i), rl.block(sendbuf, abs(i, root, p)))
		}
	case subtreeEnd(vr, p) == vr+1: // a leaf receives straight into recvbuf
		stage = recvbuf
	default:
		stage, release = scratch(subtreeBytes(rl, vr, p))
	}
	if err := scatterBinomialPacked(c, stage, base, rl, root, tagScatter); err != nil {
		return err
	}
	copy(recvbuf, rl.spanAt(stage, base, vr, vr+1)) // a no-op for a leaf
	return nil
}

// Scatter sends each rank i the bytes sendbuf[i*len(recvbuf):] from root
// (MPI_Scatter). len(recvbuf) must be equal on all ranks; at the root
// len(sendbuf) == Size()*len(recvbuf), and sendbuf is ignored elsewhere.
func Scatter(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	return Algorithms{}.Scatter(c, sendbuf, recvbuf, root)
}

// Scatter is Scatter with a's algorithm selection.
func (a Algorithms) Scatter(c comm.Comm, sendbuf, recvbuf []byte, root int) error {
	p := c.Size()
	if err := checkRoot("Scatter", root, p); err != nil {
		return err
	}
	if c.Rank() == root {
		if err := checkLen("Scatter", "sendbuf", len(sendbuf), p*len(recvbuf)); err != nil {
			return err
		}
	}
	if n, ok := nativeOf[NativeScatter](a, c, "scatter"); ok {
		return runNative(c, "Scatter", func() error { return n.Scatter(sendbuf, recvbuf, root) })
	}
	if len(recvbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	x := args{send: sendbuf, recv: recvbuf, sl: uniformLayout(p, len(recvbuf)), root: root}
	return dispatch(c, "Scatter", "scatter", a.choose("scatter", p, len(recvbuf)), x)
}

// Scatter's and Scatterv's tables: x.send is the root's buffer with blocks
// x.sl (significant at the root), x.recv this rank's block, x.root the root.
var (
	scatterAlgorithms  = []algorithm{scatterLinearEntry, {name: "binomial", run: func(c comm.Comm, x args) error { return scatterBinomial(c, x.send, x.recv, x.root) }}}
	scattervAlgorithms = []algorithm{scatterLinearEntry}
	scatterLinearEntry = algorithm{name: "linear", run: func(c comm.Comm, x args) error { return scatterLinear(c, x.send, x.sl, x.recv, x.root) }}
)

// Scatterv sends each rank i the bytes sendbuf[displs[i]:displs[i]+counts[i]]
// from root into its recvbuf (MPI_Scatterv). counts and displs are in bytes
// and significant at the root only (nil displs means packed); rank i's
// len(recvbuf) must equal counts[i].
func Scatterv(c comm.Comm, sendbuf []byte, counts, displs []int, recvbuf []byte, root int) error {
	return Algorithms{}.Scatterv(c, sendbuf, counts, displs, recvbuf, root)
}

// Scatterv is Scatterv with a's algorithm selection.
func (a Algorithms) Scatterv(c comm.Comm, sendbuf []byte, counts, displs []int, recvbuf []byte, root int) error {
	p := c.Size()
	if err := checkRoot("Scatterv", root, p); err != nil {
		return err
	}
	var l layout
	if c.Rank() == root {
		var err error
		if l, err = vlayout("Scatterv", "send", counts, displs, p, len(sendbuf)); err != nil {
			return err
		}
		if err := checkLen("Scatterv", "root's recvbuf", len(recvbuf), counts[root]); err != nil {
			return err
		}
	}
	if n, ok := nativeOf[NativeScatterv](a, c, "scatterv"); ok {
		return runNative(c, "Scatterv", func() error { return n.Scatterv(sendbuf, counts, packedDispls(counts, displs), recvbuf, root) })
	}
	x := args{send: sendbuf, recv: recvbuf, sl: l, root: root}
	return dispatch(c, "Scatterv", "scatterv", a.choose("scatterv", p, len(recvbuf)), x)
}
