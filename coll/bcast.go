package coll

import (
	"math"

	"github.com/mpbench/mpbench/comm"
)

// Bcast algorithms (MPI_Bcast). Costs in Hockney terms for p ranks and n
// bytes: alpha is the per-message latency, beta the time per byte.

// bcastLinear: the root sends the whole buffer to every other rank, all
// sends posted at once. Cost (p-1)(alpha + n beta) at the root, which
// serialises on its link. The naive algorithm (Thakur, Rabenseifner & Gropp
// 2005, section 2).
func bcastLinear(c comm.Comm, buf []byte, root int) error {
	p, me := c.Size(), c.Rank()
	if me != root {
		return recv(c, buf, root, tagBcast)
	}
	var q pending
	for i := 1; i < p; i++ {
		if err := q.isend(c, buf, (root+i)%p, tagBcast); err != nil {
			q.wait()
			return err
		}
	}
	return q.wait()
}

// bcastBinomial: each rank receives the buffer from its binomial-tree parent
// and forwards it to its children, largest subtree first. Cost
// ceil(log2 p)(alpha + n beta). MPICH's short-message broadcast (Thakur,
// Rabenseifner & Gropp 2005, section 4.1).
func bcastBinomial(c comm.Comm, buf []byte, root int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	if par := binomialParent(vr); par >= 0 {
		if err := recv(c, buf, abs(par, root, p), tagBcast); err != nil {
			return err
		}
	}
	for _, ch := range binomialChildren(vr, p) {
		if err := send(c, buf, abs(ch, root, p), tagBcast); err != nil {
			return err
		}
	}
	return nil
}

// bcastPipeline: the ranks form a chain root -> root+1 -> ... -> root-1 and
// the buffer flows along it in segments of seg bytes, so that every link
// carries a different segment at once. With s = ceil(n/seg) segments the
// cost is (p-1+s-1)(alpha + seg beta), about n beta + (p-1) alpha for
// s >> p. The segmented chain of Open MPI's tuned module and of the
// pipelined broadcasts analysed by van de Geijn (Barnett, Payne, van de
// Geijn & Watts 1996; Chan et al. 2007, section 5).
func bcastPipeline(c comm.Comm, buf []byte, root, seg int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	segs := segments(len(buf), seg, 1)
	ns := len(segs) - 1
	var in, out pending
	if vr > 0 {
		for i := 0; i < ns; i++ {
			if err := in.irecv(c, buf[segs[i]:segs[i+1]], abs(vr-1, root, p), tagBcast); err != nil {
				in.wait()
				return err
			}
		}
	}
	for i := 0; i < ns; i++ {
		if vr > 0 {
			if err := in.waitOne(i); err != nil {
				in.wait()
				out.wait()
				return err
			}
		}
		if vr < p-1 {
			if err := out.isend(c, buf[segs[i]:segs[i+1]], abs(vr+1, root, p), tagBcast); err != nil {
				in.wait()
				out.wait()
				return err
			}
		}
	}
	err := in.wait()
	if e := out.wait(); err == nil {
		err = e
	}
	return err
}

// bcastScatterAllgather: the root scatters the buffer in p chunks of about
// n/p bytes down a binomial tree, then the ranks collect all chunks with a
// ring allgather. Cost (log2 p + p-1) alpha + 2 (p-1)/p n beta: about twice
// the bandwidth of one message instead of log2 p times. Van de Geijn's long
// message broadcast (Barnett et al. 1996), MPICH's default for long messages
// (Thakur, Rabenseifner & Gropp 2005, section 4.1).
func bcastScatterAllgather(c comm.Comm, buf []byte, root int) error {
	p := c.Size()
	l := evenLayout(len(buf), p, 1) // chunk i belongs to relative rank i
	if err := scatterBinomialPacked(c, buf, 0, l, root, tagBcast); err != nil {
		return err
	}
	return ringAllgather(c, buf, l, root, 0, tagBcast)
}

// scatterBinomialPacked distributes a packed layout rl of blocks indexed by
// relative rank from root down a binomial tree: relative rank vr receives
// blocks [vr, subtreeEnd(vr)) from its parent and passes each child its
// subtree's blocks. stage holds this rank's part of the layout, with
// stage[0] at layout offset base (0 when every rank holds the whole buffer,
// rl.off[vr] when it holds only its subtree). Cost log2 p alpha +
// (p-1)/p n beta (Thakur, Rabenseifner & Gropp 2005, section 4.3).
func scatterBinomialPacked(c comm.Comm, stage []byte, base int, rl layout, root, tag int) error {
	p := c.Size()
	vr := rel(c.Rank(), root, p)
	sub := func(i int) []byte { return rl.spanAt(stage, base, i, subtreeEnd(i, p)) }
	if par := binomialParent(vr); par >= 0 {
		if err := recv(c, sub(vr), abs(par, root, p), tag); err != nil {
			return err
		}
	}
	for _, ch := range binomialChildren(vr, p) {
		if err := send(c, sub(ch), abs(ch, root, p), tag); err != nil {
			return err
		}
	}
	return nil
}

// ringAllgather completes a layout of p blocks in buf where block i is known
// at rank (i+shift) mod p: in step s each rank passes the block it got in
// step s-1 to its right neighbour. It runs steps first..p-2 (0: all; a
// caller that made step 0 itself passes 1). Cost (p-1)(alpha + n/p beta)
// for even blocks (Thakur, Rabenseifner & Gropp 2005, section 4.2).
func ringAllgather(c comm.Comm, buf []byte, l layout, shift, first, tag int) error {
	p, me := c.Size(), c.Rank()
	q := rel(me, shift, p)
	right, left := (me+1)%p, (me-1+p)%p
	for s := first; s < p-1; s++ {
		sb := (q - s + p) % p
		rb := (q - s - 1 + 2*p) % p
		if err := sendrecv(c, l.block(buf, sb), right, l.block(buf, rb), left, tag); err != nil {
			return err
		}
	}
	return nil
}

// Bcast broadcasts buf from root to every rank of c (MPI_Bcast): on return
// buf on every rank holds root's bytes. len(buf) must be equal on all ranks.
// The algorithm is chosen by the decision table (see Algorithms.Select).
func Bcast(c comm.Comm, buf []byte, root int) error { return Algorithms{}.Bcast(c, buf, root) }

// Bcast is Bcast with a's algorithm selection; all ranks must pass equal
// Algorithms.
func (a Algorithms) Bcast(c comm.Comm, buf []byte, root int) error {
	p := c.Size()
	if err := checkRoot("Bcast", root, p); err != nil {
		return err
	}
	if n, ok := nativeOf[NativeBcast](a, c, "bcast"); ok {
		return runNative(c, "Bcast", func() error { return n.Bcast(buf, root) })
	}
	if len(buf) == 0 {
		return nil // a zero count moves nothing; MPI libraries return at once
	}
	return dispatch(c, "Bcast", "bcast", a.choose("bcast", p, len(buf)), args{recv: buf, root: root})
}

// bcastAlgorithms is Bcast's table: x.recv is the buffer, x.root the root.
// Each entry's cost is the formula in its function's documentation
// (analysed in the same sources), which mpbench predict's model uses.
var bcastAlgorithms = []algorithm{
	{name: "linear", run: func(c comm.Comm, x args) error { return bcastLinear(c, x.recv, x.root) },
		cost: func(p int, n float64, _ int, h Hockney) float64 { return float64(p-1) * h.message(n) }},
	{name: "binomial", run: func(c comm.Comm, x args) error { return bcastBinomial(c, x.recv, x.root) },
		cost: func(p int, n float64, _ int, h Hockney) float64 {
			return math.Ceil(math.Log2(float64(p))) * h.message(n)
		}},
	{name: "pipeline", segmented: true, run: func(c comm.Comm, x args) error { return bcastPipeline(c, x.recv, x.root, x.seg) },
		cost: func(p int, n float64, seg int, h Hockney) float64 {
			s := min(float64(seg), max(n, 1)) // a message shorter than a segment is one segment of its size
			return (float64(p-1) + math.Ceil(n/s) - 1) * h.message(s)
		}},
	{name: "scatter_allgather", run: func(c comm.Comm, x args) error { return bcastScatterAllgather(c, x.recv, x.root) },
		cost: func(p int, n float64, _ int, h Hockney) float64 {
			pf := float64(p)
			return (math.Log2(pf)+pf-1)*h.Alpha + 2*(pf-1)/pf*n*h.Beta
		}},
}
