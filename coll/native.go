package coll

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// AlgNative is the algorithm name reported (by Algorithms.For, and in
// error messages) when a collective runs on the library's own
// implementation of a Native communicator instead of one of coll's.
const AlgNative = "native"

// Native is implemented by communicators whose underlying library has its
// own collective operations, such as an MPI library through transport/mpi
// (its *mpi.Comm has exactly these methods). Buffers, counts and
// displacements are in bytes as in coll's functions, except that the v
// variants receive explicit displacements (coll fills packed ones in when
// its caller passed nil); reductions take the Op before the Datatype, as
// MPI_Reduce does.
//
// When c implements Native, every collective of coll on c, and every
// method of a zero Algorithms, calls the library's collective: the library's
// own decision table replaces coll's. An explicit override for a
// collective (ParseAlgorithms) runs coll's algorithm on c's point-to-point
// calls instead, so that the same algorithm can be measured on both
// runtimes.
type Native interface {
	Bcast(buf []byte, root int) error
	Reduce(send, recv []byte, op Op, dt Datatype, root int) error
	Allreduce(send, recv []byte, op Op, dt Datatype) error
	Gather(send, recv []byte, root int) error
	Gatherv(send, recv []byte, counts, displs []int, root int) error
	Scatter(send, recv []byte, root int) error
	Scatterv(send []byte, counts, displs []int, recv []byte, root int) error
	Allgather(send, recv []byte) error
	Allgatherv(send, recv []byte, counts, displs []int) error
	Alltoall(send, recv []byte) error
	Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error
	// ReduceScatter's counts are in elements of dt, as MPI_Reduce_scatter
	// takes them (coll's own ReduceScatter takes bytes).
	ReduceScatter(send, recv []byte, counts []int, op Op, dt Datatype) error
	ReduceScatterBlock(send, recv []byte, op Op, dt Datatype) error
	Barrier() error
}

// native returns c's Native implementation when collective (a lower-case
// name of the table) should run on it: c implements Native and a has no
// override for collective. Otherwise it returns nil.
func (a Algorithms) native(c comm.Comm, collective string) Native {
	n, ok := c.(Native)
	if !ok {
		return nil
	}
	if _, over := a.over[collective]; over {
		return nil
	}
	return n
}

// runNative calls a library collective and prefixes its error as run does.
func runNative(c comm.Comm, fn string, f func() error) error {
	if err := f(); err != nil {
		return fmt.Errorf("coll: %s (%s) on rank %d: %w", fn, AlgNative, c.Rank(), err)
	}
	return nil
}

// packedDispls returns displs, or the packed displacements of counts when
// displs is nil (and counts is not).
func packedDispls(counts, displs []int) []int {
	if displs != nil || counts == nil {
		return displs
	}
	return packedLayout(counts).off
}

// For returns the algorithm a call of collective on c with the given
// message size (bytes as in Select) will run: AlgNative when c implements
// Native and a has no override for collective, else Select's choice for
// c.Size() ranks. Output headers use it to name what was measured.
func (a Algorithms) For(c comm.Comm, collective string, bytes int) (Choice, error) {
	s := specOf(collective)
	if s == nil {
		return Choice{}, fmt.Errorf("coll: unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	if a.native(c, s.name) != nil {
		return Choice{Algorithm: AlgNative}, nil
	}
	return a.choose(s.name, c.Size(), bytes), nil
}
