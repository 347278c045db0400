package coll

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// AlgNative is the algorithm name reported (by Algorithms.For, in output
// headers and result rows, and in error messages) when a collective runs
// as the communicator's runtime implements it natively (an MPI library's
// own MPI_Bcast, ...) instead of one of coll's algorithms.
const AlgNative = "native"

// Native collectives. A runtime whose library has its own implementation of
// a collective offers it by implementing that collective's interface below
// on its communicator (an MPI library's *mpi.Comm implements all of them);
// coll finds each one by type assertion, so a runtime may offer any subset.
// Buffers, counts and displacements are in bytes as in coll's functions,
// except that the v variants receive explicit displacements (coll fills
// packed ones in when its caller passed nil) and ReduceScatter's counts
// are in elements; reductions take the Op before the Datatype, as
// MPI_Reduce does.
//
// When c offers a collective natively, that collective of coll on c, and
// the method of a zero Algorithms, calls it: the library's own decision
// table replaces coll's. An explicit override for the collective
// (ParseAlgorithms) runs coll's algorithm on c's point-to-point calls
// instead, so that the same algorithm can be measured on both runtimes.
type (
	// NativeBcast is MPI_Bcast.
	NativeBcast interface {
		Bcast(buf []byte, root int) error
	}
	// NativeReduce is MPI_Reduce.
	NativeReduce interface {
		Reduce(send, recv []byte, op Op, dt Datatype, root int) error
	}
	// NativeAllreduce is MPI_Allreduce.
	NativeAllreduce interface {
		Allreduce(send, recv []byte, op Op, dt Datatype) error
	}
	// NativeGather is MPI_Gather.
	NativeGather interface {
		Gather(send, recv []byte, root int) error
	}
	// NativeGatherv is MPI_Gatherv.
	NativeGatherv interface {
		Gatherv(send, recv []byte, counts, displs []int, root int) error
	}
	// NativeScatter is MPI_Scatter.
	NativeScatter interface {
		Scatter(send, recv []byte, root int) error
	}
	// NativeScatterv is MPI_Scatterv.
	NativeScatterv interface {
		Scatterv(send []byte, counts, displs []int, recv []byte, root int) error
	}
	// NativeAllgather is MPI_Allgather.
	NativeAllgather interface {
		Allgather(send, recv []byte) error
	}
	// NativeAllgatherv is MPI_Allgatherv.
	NativeAllgatherv interface {
		Allgatherv(send, recv []byte, counts, displs []int) error
	}
	// NativeAlltoall is MPI_Alltoall.
	NativeAlltoall interface {
		Alltoall(send, recv []byte) error
	}
	// NativeAlltoallv is MPI_Alltoallv.
	NativeAlltoallv interface {
		Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error
	}
	// NativeReduceScatter is MPI_Reduce_scatter. Its counts are in
	// elements of dt, as MPI_Reduce_scatter takes them (coll's own
	// ReduceScatter takes bytes).
	NativeReduceScatter interface {
		ReduceScatter(send, recv []byte, counts []int, op Op, dt Datatype) error
	}
	// NativeReduceScatterBlock is MPI_Reduce_scatter_block.
	NativeReduceScatterBlock interface {
		ReduceScatterBlock(send, recv []byte, op Op, dt Datatype) error
	}
	// NativeBarrier is MPI_Barrier. Its method is not named Barrier,
	// which every comm.Comm has, so that only a runtime whose library has
	// a barrier of its own offers it.
	NativeBarrier interface {
		NativeBarrier() error
	}
)

// nativeOf returns c's native implementation T of collective (a lower-case
// table name) when the collective should run on it: c implements T and a
// has no override for collective.
func nativeOf[T any](a Algorithms, c comm.Comm, collective string) (T, bool) {
	n, ok := c.(T)
	if !ok {
		return n, false
	}
	if _, over := a.over[collective]; over {
		return n, false
	}
	return n, true
}

// offers reports whether c implements T; the table's native field.
func offers[T any](c comm.Comm) bool {
	_, ok := c.(T)
	return ok
}

// runNative calls a native collective and prefixes its error as run does.
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
// message size (bytes as in Select) will run: AlgNative when c offers the
// collective natively and a has no override for it, else Select's choice
// for c.Size() ranks. Output headers use it to name what was measured.
func (a Algorithms) For(c comm.Comm, collective string, bytes int) (Choice, error) {
	s := specOf(collective)
	if s == nil {
		return Choice{}, choiceErrorf("unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	if _, over := a.over[s.name]; !over && s.native(c) {
		return Choice{Algorithm: AlgNative}, nil
	}
	return a.choose(s.name, c.Size(), bytes), nil
}
