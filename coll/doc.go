// Package coll implements MPI's collective operations on any comm.Comm,
// built only from its point-to-point calls (Send, Recv, Isend, Irecv,
// Sendrecv, request Wait): Bcast, Reduce, Allreduce, Gather(v), Scatter(v),
// Allgather(v), Alltoall(v), ReduceScatter (MPI_Reduce_scatter),
// ReduceScatterBlock and Barrier, plus ReduceLocal. They work for any
// communicator size and any message size, 0 included.
//
// # Buffers and units
//
// Buffers are byte slices; sizes, counts and displacements are in bytes.
// Reductions combine elements of a Datatype (float32, float64, int32,
// int64, and char, whose sums wrap modulo 2^8 as C's do, in the host's
// byte order, little endian; element count =
// bytes / element size, and a length that is not a whole number of
// elements is an error) with an Op (Sum, Prod, Min, Max).
//
// # Algorithms
//
// Each collective has several algorithms (see WriteTable for the list). A
// zero Algorithms value, and the package-level functions, choose by MPICH's
// default decision table by message size and number of ranks (thresholds
// from MPICH's MPIR_CVAR_* defaults; Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005). ParseAlgorithms overrides it per collective from a string such as
// "bcast=pipeline:seg=16384,allreduce=ring", and Algorithms.Select reports
// which algorithm a call will use (for output headers). Every rank of a
// communicator must use the same Algorithms.
//
// Each algorithm's documentation gives its cost in Hockney's model: a
// message of m bytes costs alpha + m beta (alpha: latency, beta: time per
// byte), and combining m bytes in a reduction costs m gamma. Sources:
// Thakur, Rabenseifner & Gropp 2005; Chan, Heimlich, Purkayastha & van de
// Geijn, "Collective communication: theory, practice, and experience" 2007;
// Bruck et al., "Efficient algorithms for all-to-all communications in
// multiport message-passing systems" 1997; Rabenseifner, "Optimization of
// collective reduction operations" 2004; Barnett, Payne, van de Geijn &
// Watts 1996 (scatter + allgather broadcast).
//
// # Reduction order
//
// MPI-3.1 section 5.9.1 lets an implementation assume that the predefined
// operations are associative and commutative, so the order in which the
// vectors of the ranks are combined is unspecified. mpbench fixes it per
// algorithm: every algorithm applies a deterministic schedule that depends
// only on the number of ranks, the root and the vector length, so results
// are reproducible from run to run. In Allreduce every rank gets the same
// bits. Different algorithms group the operands differently, so
// floating-point sums and products may differ between algorithms in the
// last bits; integer results, and floating-point ones whose intermediate
// values are exact, never differ.
//
// # Library collectives
//
// A communicator that offers a collective natively (an MPI library's,
// through package mpi, offers all of them: see NativeBcast and the other
// Native interfaces) runs its library's own collective wherever no override
// is given: the library's decision table replaces coll's, and
// Algorithms.For reports the algorithm as AlgNative. An override runs
// coll's algorithm on that communicator's point-to-point calls, so one
// algorithm can be compared across runtimes.
//
// # Message space
//
// Collective messages never match user point-to-point messages, not even
// AnyTag receives. A communicator implementing Private (mpbench's runtime's
// CollectiveComm) provides a separate collective context; for any other
// comm.Comm, coll duplicates the communicator once with Split(0, rank) on
// its first collective and caches the duplicate (Forget releases it). As in
// MPI, all ranks must call the collectives of one communicator in the same
// order, and only one collective per communicator may run at a time.
package coll
