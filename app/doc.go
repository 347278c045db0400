// Package app holds what mpbench's applications share: a communicator that
// times every call an application makes on it (so that a run's time splits
// into computation and communication as measured, not inferred), views of
// float64 and complex128 slices as the byte buffers of package comm, the
// report of one run (per-rank times, verification, JSON/CSV rows), and the
// CPU load that emulates slower processors.
//
// The applications themselves are sub-packages, each written once against
// comm.Comm and package coll so that they run unchanged on mpbench's
// runtime (shared memory, TCP) and on an MPI library (package mpi):
//
//   - app/matmul: the block matrix product of the study's section 4.3.3;
//   - app/npb: the NAS Parallel Benchmarks EP and FT (NPB 3.4).
//
// Timing follows the study's section 4.3: T(N) is the wall time of the
// timed part of a run, the communication time is the time spent inside the
// communicator's calls (Comm's methods), and the computation time is the
// time an application spends in its own kernels (the local block
// products, the random numbers, the FFTs), measured around them.
package app
