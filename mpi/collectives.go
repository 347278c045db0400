//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"fmt"
	"math"
)

// The library's own collectives (MPI-3.1 chapter 5) on byte buffers. All are
// blocking and collective over c: every rank calls them with matching
// arguments. Buffers that MPI reads only at the root (or writes only at the
// root) may be nil elsewhere. Counts and displacements of the v-variants are
// in bytes, one entry per rank, and are checked against the buffers before
// the library is called; so are buffer lengths, which must match as stated
// for each function. Send and receive buffers must not overlap (MPI_IN_PLACE
// is not offered).

// root checks a root rank.
func (c *Comm) root(fn string, r int) error {
	if r < 0 || r >= c.size {
		return fmt.Errorf("mpi: %s: root %d outside 0..%d", fn, r, c.size-1)
	}
	return nil
}

// lengthIs checks len(b) == want for the buffer named what.
func lengthIs(fn, what string, b []byte, want int) error {
	if len(b) != want {
		return fmt.Errorf("mpi: %s: %s has %d bytes, want %d", fn, what, len(b), want)
	}
	return nil
}

// layout checks one count and one displacement (bytes) per rank, each block
// inside a buffer of buflen bytes, and converts them for the library.
func (c *Comm) layout(fn, what string, counts, displs []int, buflen int) ([]C.int, []C.int, error) {
	if len(counts) != c.size || len(displs) != c.size {
		return nil, nil, fmt.Errorf("mpi: %s: %s counts and displacements need %d entries each (one per rank), got %d and %d", fn, what, c.size, len(counts), len(displs))
	}
	cc := make([]C.int, c.size)
	cd := make([]C.int, c.size)
	for i := range counts {
		n, d := counts[i], displs[i]
		if n < 0 || d < 0 || n > math.MaxInt32 || d > math.MaxInt32 || d+n > buflen {
			return nil, nil, fmt.Errorf("mpi: %s: %s block %d (displacement %d, count %d bytes) is not inside the %d-byte buffer", fn, what, i, d, n, buflen)
		}
		cc[i], cd[i] = C.int(n), C.int(d)
	}
	return cc, cd, nil
}

// Bcast copies buf of the root to buf of every rank (MPI_Bcast). len(buf)
// must be equal on all ranks.
func (c *Comm) Bcast(buf []byte, root int) error {
	if err := c.root("Bcast", root); err != nil {
		return err
	}
	n, err := count("Bcast", len(buf))
	if err != nil {
		return err
	}
	return check("MPI_Bcast", C.MPI_Bcast(ptr(buf), n, C.mpb_byte(), C.int(root), c.h))
}

// Reduce combines send of every rank elementwise with op, reading elements
// of type dt, into recv of the root (MPI_Reduce). At the root len(recv) must
// equal len(send); elsewhere recv is ignored.
func (c *Comm) Reduce(send, recv []byte, op Op, dt Datatype, root int) error {
	if err := c.root("Reduce", root); err != nil {
		return err
	}
	n, err := elems("Reduce", send, op, dt)
	if err != nil {
		return err
	}
	if c.rank == root {
		if err := lengthIs("Reduce", "receive buffer", recv, len(send)); err != nil {
			return err
		}
	} else {
		recv = nil
	}
	rc := C.MPI_Reduce(ptr(send), ptr(recv), C.int(n), C.mpb_dtype(C.int(dt)), C.mpb_op(C.int(op)), C.int(root), c.h)
	return check("MPI_Reduce", rc)
}

// Allreduce combines send of every rank elementwise with op, reading
// elements of type dt, into recv of every rank (MPI_Allreduce).
// len(recv) must equal len(send).
func (c *Comm) Allreduce(send, recv []byte, op Op, dt Datatype) error {
	n, err := elems("Allreduce", send, op, dt)
	if err != nil {
		return err
	}
	if err := lengthIs("Allreduce", "receive buffer", recv, len(send)); err != nil {
		return err
	}
	rc := C.MPI_Allreduce(ptr(send), ptr(recv), C.int(n), C.mpb_dtype(C.int(dt)), C.mpb_op(C.int(op)), c.h)
	return check("MPI_Allreduce", rc)
}

// Gather concatenates send of ranks 0..Size()-1, in rank order, into recv of
// the root (MPI_Gather). len(send) is equal on all ranks; at the root
// len(recv) must be Size()*len(send).
func (c *Comm) Gather(send, recv []byte, root int) error {
	if err := c.root("Gather", root); err != nil {
		return err
	}
	n, err := count("Gather", len(send))
	if err != nil {
		return err
	}
	if c.rank == root {
		if err := lengthIs("Gather", "receive buffer", recv, c.size*len(send)); err != nil {
			return err
		}
	}
	rc := C.MPI_Gather(ptr(send), n, C.mpb_byte(), ptr(recv), n, C.mpb_byte(), C.int(root), c.h)
	return check("MPI_Gather", rc)
}

// Gatherv places send of rank i at recv[displs[i]:displs[i]+counts[i]] of
// the root (MPI_Gatherv). counts and displs (bytes) are read at the root
// only; there len(send) of rank i must equal counts[i].
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	if err := c.root("Gatherv", root); err != nil {
		return err
	}
	n, err := count("Gatherv", len(send))
	if err != nil {
		return err
	}
	var cc, cd []C.int
	if c.rank == root {
		if cc, cd, err = c.layout("Gatherv", "receive", counts, displs, len(recv)); err != nil {
			return err
		}
	}
	rc := C.MPI_Gatherv(ptr(send), n, C.mpb_byte(), ptr(recv), cintPtr(cc), cintPtr(cd), C.mpb_byte(), C.int(root), c.h)
	return check("MPI_Gatherv", rc)
}

// Scatter sends block i of the root's send (len(recv) bytes at offset
// i*len(recv)) to recv of rank i (MPI_Scatter). len(recv) is equal on all
// ranks; at the root len(send) must be Size()*len(recv).
func (c *Comm) Scatter(send, recv []byte, root int) error {
	if err := c.root("Scatter", root); err != nil {
		return err
	}
	n, err := count("Scatter", len(recv))
	if err != nil {
		return err
	}
	if c.rank == root {
		if err := lengthIs("Scatter", "send buffer", send, c.size*len(recv)); err != nil {
			return err
		}
	}
	rc := C.MPI_Scatter(ptr(send), n, C.mpb_byte(), ptr(recv), n, C.mpb_byte(), C.int(root), c.h)
	return check("MPI_Scatter", rc)
}

// Scatterv sends send[displs[i]:displs[i]+counts[i]] of the root to recv of
// rank i (MPI_Scatterv). counts and displs (bytes) are read at the root only;
// len(recv) of rank i must equal counts[i].
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	if err := c.root("Scatterv", root); err != nil {
		return err
	}
	n, err := count("Scatterv", len(recv))
	if err != nil {
		return err
	}
	var cc, cd []C.int
	if c.rank == root {
		if cc, cd, err = c.layout("Scatterv", "send", counts, displs, len(send)); err != nil {
			return err
		}
	}
	rc := C.MPI_Scatterv(ptr(send), cintPtr(cc), cintPtr(cd), C.mpb_byte(), ptr(recv), n, C.mpb_byte(), C.int(root), c.h)
	return check("MPI_Scatterv", rc)
}

// Allgather concatenates send of ranks 0..Size()-1, in rank order, into recv
// of every rank (MPI_Allgather). len(recv) must be Size()*len(send).
func (c *Comm) Allgather(send, recv []byte) error {
	n, err := count("Allgather", len(send))
	if err != nil {
		return err
	}
	if err := lengthIs("Allgather", "receive buffer", recv, c.size*len(send)); err != nil {
		return err
	}
	rc := C.MPI_Allgather(ptr(send), n, C.mpb_byte(), ptr(recv), n, C.mpb_byte(), c.h)
	return check("MPI_Allgather", rc)
}

// Allgatherv places send of rank i at recv[displs[i]:displs[i]+counts[i]] of
// every rank (MPI_Allgatherv); len(send) of rank i must equal counts[i].
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	n, err := count("Allgatherv", len(send))
	if err != nil {
		return err
	}
	cc, cd, err := c.layout("Allgatherv", "receive", counts, displs, len(recv))
	if err != nil {
		return err
	}
	rc := C.MPI_Allgatherv(ptr(send), n, C.mpb_byte(), ptr(recv), cintPtr(cc), cintPtr(cd), C.mpb_byte(), c.h)
	return check("MPI_Allgatherv", rc)
}

// Alltoall sends block j of send to rank j, which stores it as block i (the
// sender's rank) of recv (MPI_Alltoall). send and recv have equal length, a
// multiple of Size(); a block is len(send)/Size() bytes.
func (c *Comm) Alltoall(send, recv []byte) error {
	if err := lengthIs("Alltoall", "receive buffer", recv, len(send)); err != nil {
		return err
	}
	if len(send)%c.size != 0 {
		return fmt.Errorf("mpi: Alltoall: buffers of %d bytes are not %d equal blocks (one per rank)", len(send), c.size)
	}
	n, err := count("Alltoall", len(send)/c.size)
	if err != nil {
		return err
	}
	rc := C.MPI_Alltoall(ptr(send), n, C.mpb_byte(), ptr(recv), n, C.mpb_byte(), c.h)
	return check("MPI_Alltoall", rc)
}

// Alltoallv sends send[sdispls[j]:sdispls[j]+scounts[j]] to rank j, which
// stores it at recv[rdispls[i]:rdispls[i]+rcounts[i]], i being the sender's
// rank (MPI_Alltoallv). rcounts[i] on rank j must equal scounts[j] on rank i.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	sc, sd, err := c.layout("Alltoallv", "send", scounts, sdispls, len(send))
	if err != nil {
		return err
	}
	rcc, rcd, err := c.layout("Alltoallv", "receive", rcounts, rdispls, len(recv))
	if err != nil {
		return err
	}
	rc := C.MPI_Alltoallv(ptr(send), cintPtr(sc), cintPtr(sd), C.mpb_byte(), ptr(recv), cintPtr(rcc), cintPtr(rcd), C.mpb_byte(), c.h)
	return check("MPI_Alltoallv", rc)
}

// ReduceScatter reduces send of every rank elementwise with op (elements of
// type dt) and scatters the result: rank i receives counts[i] elements, the
// ones after those of ranks 0..i-1 (MPI_Reduce_scatter). counts is in
// elements of dt, one entry per rank; len(send) must be sum(counts) elements
// and len(recv) counts[Rank()] elements.
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, op Op, dt Datatype) error {
	n, err := elems("ReduceScatter", send, op, dt)
	if err != nil {
		return err
	}
	if len(counts) != c.size {
		return fmt.Errorf("mpi: ReduceScatter: counts need %d entries (one per rank), got %d", c.size, len(counts))
	}
	cc := make([]C.int, c.size)
	total := 0
	for i, k := range counts {
		if k < 0 || k > math.MaxInt32 {
			return fmt.Errorf("mpi: ReduceScatter: count %d of rank %d is outside 0..%d elements", k, i, math.MaxInt32)
		}
		cc[i] = C.int(k)
		total += k
	}
	if total != n {
		return fmt.Errorf("mpi: ReduceScatter: send buffer holds %d %v elements, counts add up to %d", n, dt, total)
	}
	if err := lengthIs("ReduceScatter", "receive buffer", recv, counts[c.rank]*dt.Size()); err != nil {
		return err
	}
	rc := C.MPI_Reduce_scatter(ptr(send), ptr(recv), cintPtr(cc), C.mpb_dtype(C.int(dt)), C.mpb_op(C.int(op)), c.h)
	return check("MPI_Reduce_scatter", rc)
}

// ReduceScatterBlock reduces send of every rank elementwise with op
// (elements of type dt) and gives block i of the result, len(recv) bytes at
// offset i*len(recv), to rank i (MPI_Reduce_scatter_block). len(send) must be
// Size()*len(recv).
func (c *Comm) ReduceScatterBlock(send, recv []byte, op Op, dt Datatype) error {
	n, err := elems("ReduceScatterBlock", recv, op, dt)
	if err != nil {
		return err
	}
	if err := lengthIs("ReduceScatterBlock", "send buffer", send, c.size*len(recv)); err != nil {
		return err
	}
	if _, err := count("ReduceScatterBlock", len(send)); err != nil {
		return err
	}
	rc := C.MPI_Reduce_scatter_block(ptr(send), ptr(recv), C.int(n), C.mpb_dtype(C.int(dt)), C.mpb_op(C.int(op)), c.h)
	return check("MPI_Reduce_scatter_block", rc)
}

// cintPtr is the address of v's first element, or nil when v is empty (as
// at non-root ranks, where the library ignores counts and displacements).
func cintPtr(v []C.int) *C.int {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

// NativeBarrier is Barrier (MPI_Barrier) offered to package coll as the
// library's own barrier (coll.NativeBarrier): Barrier alone cannot tell,
// since every comm.Comm has one.
func (c *Comm) NativeBarrier() error { return c.Barrier() }
