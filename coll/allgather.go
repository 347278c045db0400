package coll

import "github.com/mpbench/mpbench/comm"

// Allgather algorithms (MPI_Allgather, MPI_Allgatherv). Each completes buf,
// a packed layout l of p blocks in rank order, with own (this rank's
// block, the caller's send buffer) at its place. The first message that
// carries this rank's block alone is sent from own, and own is copied
// into buf only after it: on shared memory a peer reads a block by single
// copy about twice as fast from the caller's buffer as from a copy just
// made (docs/mpi-comparison.md, "Collectives"). Costs for p ranks and n =
// total bytes: alpha latency, beta per byte.

// allgatherRing: see ringAllgather; step 0 sends own. Cost
// (p-1) alpha + (p-1)/p n beta; MPICH's long-message allgather (Thakur,
// Rabenseifner & Gropp 2005, 4.2).
func allgatherRing(c comm.Comm, own, buf []byte, l layout) error {
	p, me := c.Size(), c.Rank()
	if p > 1 {
		right, left := (me+1)%p, (me-1+p)%p
		if err := sendrecv(c, own, right, l.block(buf, left), left, tagAllgather); err != nil {
			return err
		}
	}
	copy(l.block(buf, me), own)
	if p <= 2 {
		return nil
	}
	return ringAllgather(c, buf, l, 0, 1, tagAllgather)
}

// allgatherRecursiveDoubling: in round k each rank swaps everything it has
// with the rank at distance 2^k. For a non-power-of-two p the first
// 2(p-pof2) ranks first fold pairwise (the even rank hands its block to the
// odd one, which stands for both) and the odd ranks send the whole result
// back at the end. Cost log2 pof2 alpha + (p-1)/p n beta, plus
// 2 alpha + (n/p + n) beta for the fold. (MPICH instead lets ranks without
// a partner receive from a subtree; the fold keeps every round a pairwise
// swap.) Thakur, Rabenseifner & Gropp 2005, section 4.2.
func allgatherRecursiveDoubling(c comm.Comm, own, buf []byte, l layout) error {
	me := c.Rank()
	f := newFold(c.Size())
	if me < 2*f.rem {
		if me%2 == 0 {
			if err := send(c, own, me+1, tagAllgather); err != nil {
				return err
			}
		} else if err := recv(c, l.block(buf, me-1), me-1, tagAllgather); err != nil {
			return err
		}
		copy(l.block(buf, me), own)
	}
	if nr := f.newRank(me); nr >= 0 && f.pof2 > 1 {
		g := f.groups(l)
		first := 0
		if me >= 2*f.rem {
			// The first round's group is this rank's block alone.
			partner := f.oldRank(nr ^ 1)
			pn := nr ^ 1
			if err := sendrecv(c, own, partner, g.block(buf, pn), partner, tagAllgather); err != nil {
				return err
			}
			copy(l.block(buf, me), own)
			first = 1
		}
		if err := double(c, f, nr, buf, g, first, tagAllgather); err != nil {
			return err
		}
	} else if me >= 2*f.rem {
		copy(l.block(buf, me), own)
	}
	return foldOut(c, f, buf, tagAllgather)
}

// allgatherBruck: with blocks kept in rotated order (position j holds the
// block of rank me+j), in round k = 1, 2, 4, ... each rank sends its first
// min(k, p-k) blocks to rank me-k and appends the same number from rank
// me+k; a final local rotation restores rank order. Cost
// ceil(log2 p) alpha + (p-1)/p n beta at any p, plus a local copy of n
// bytes. Bruck et al. 1997; MPICH's short-message allgather for
// non-powers of two (Thakur, Rabenseifner & Gropp 2005, section 4.2).
func allgatherBruck(c comm.Comm, own, buf []byte, l layout) error {
	p, me := c.Size(), c.Rank()
	rc := make([]int, p)
	for j := range rc {
		rc[j] = l.cnt[(me+j)%p]
	}
	rl := packedLayout(rc)
	tmp, release := scratch(rl.total())
	defer release()
	copy(rl.block(tmp, 0), own)
	for k := 1; k < p; k <<= 1 {
		n := min(k, p-k)
		if err := sendrecv(c, rl.span(tmp, 0, n), (me-k+p)%p, rl.span(tmp, k, k+n), (me+k)%p, tagAllgather); err != nil {
			return err
		}
	}
	for j := 0; j < p; j++ {
		copy(l.block(buf, (me+j)%p), rl.block(tmp, j))
	}
	return nil
}

// Allgather collects len(sendbuf) bytes from every rank on every rank
// (MPI_Allgather): rank i's bytes land at recvbuf[i*len(sendbuf):].
// len(sendbuf) must be equal on all ranks; len(recvbuf) == Size()*len(sendbuf).
func Allgather(c comm.Comm, sendbuf, recvbuf []byte) error {
	return Algorithms{}.Allgather(c, sendbuf, recvbuf)
}

// Allgather is Allgather with a's algorithm selection.
func (a Algorithms) Allgather(c comm.Comm, sendbuf, recvbuf []byte) error {
	p := c.Size()
	if err := checkLen("Allgather", "recvbuf", len(recvbuf), p*len(sendbuf)); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeAllgather](a, c, "allgather"); ok {
		return runNative(c, "Allgather", func() error { return n.Allgather(sendbuf, recvbuf) })
	}
	if len(sendbuf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	ch := a.choose("allgather", p, len(sendbuf))
	return a.allgather(c, "Allgather", "allgather", ch, sendbuf, recvbuf, uniformLayout(p, len(sendbuf)))
}

// Allgatherv collects sendbuf from every rank on every rank (MPI_Allgatherv):
// rank i's bytes land at recvbuf[displs[i]:displs[i]+counts[i]]. counts and
// displs are in bytes, equal on all ranks (nil displs means packed in rank
// order); counts[i] must equal rank i's len(sendbuf).
func Allgatherv(c comm.Comm, sendbuf, recvbuf []byte, counts, displs []int) error {
	return Algorithms{}.Allgatherv(c, sendbuf, recvbuf, counts, displs)
}

// Allgatherv is Allgatherv with a's algorithm selection.
func (a Algorithms) Allgatherv(c comm.Comm, sendbuf, recvbuf []byte, counts, displs []int) error {
	p := c.Size()
	l, err := vlayout("Allgatherv", "receive", counts, displs, p, len(recvbuf))
	if err != nil {
		return err
	}
	if err := checkLen("Allgatherv", "sendbuf", len(sendbuf), counts[c.Rank()]); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeAllgatherv](a, c, "allgatherv"); ok {
		return runNative(c, "Allgatherv", func() error { return n.Allgatherv(sendbuf, recvbuf, counts, l.off) })
	}
	ch := a.choose("allgatherv", p, l.total()/p)
	return a.allgather(c, "Allgatherv", "allgatherv", ch, sendbuf, recvbuf, l)
}

// allgather runs the chosen algorithm on a packed working copy when the
// caller's layout is not packed.
func (a Algorithms) allgather(c comm.Comm, fn, collective string, ch Choice, sendbuf, recvbuf []byte, l layout) error {
	work, wl := recvbuf, l
	if !l.isPacked() {
		wl = packedLayout(l.cnt)
		var release func()
		work, release = scratch(wl.total())
		defer release()
	}
	err := dispatch(c, fn, collective, ch, args{send: sendbuf, recv: work, rl: wl})
	if err == nil && !l.isPacked() {
		for i := range l.cnt {
			copy(l.block(recvbuf, i), wl.block(work, i))
		}
	}
	return err
}

// allgatherAlgorithms is the table of Allgather and Allgatherv: x.send is
// this rank's block, x.recv the packed receive buffer with blocks x.rl.
var allgatherAlgorithms = []algorithm{
	{name: "ring", run: func(c comm.Comm, x args) error { return allgatherRing(c, x.send, x.recv, x.rl) }},
	{name: "recursive_doubling", run: func(c comm.Comm, x args) error {
		return allgatherRecursiveDoubling(c, x.send, x.recv, x.rl)
	}},
	{name: "bruck", run: func(c comm.Comm, x args) error { return allgatherBruck(c, x.send, x.recv, x.rl) }},
}
