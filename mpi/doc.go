//go:build mpi

// Package mpi is mpbench's second runtime, beside package comm: it
// implements comm.Comm on a real MPI library through cgo, so that mpbench's
// benchmarks and collective algorithms, written once against comm.Comm, can
// measure Open MPI or MPICH as well as mpbench's own runtime. It imports
// comm only: the library's own collectives and timed loops are offered
// through interfaces that their consumers (package coll, package bench)
// find by type assertion, and its tests check at compile time that *Comm
// implements them.
//
// The package is compiled only with the build tag mpi: "-tags mpi" links Open
// MPI (pkg-config ompi), "-tags mpi,mpich" links MPICH (pkg-config mpich).
// Without the tag nothing here is built and the default build needs no MPI.
// Programs using it are started by the library's launcher (mpirun or
// mpiexec.mpich), e.g.
//
//	mpirun --allow-run-as-root --oversubscribe -np 2 ./prog
//
// On Debian 12 both libraries can be installed side by side:
//
//	apt-get install -y --no-install-recommends pkg-config libopenmpi-dev openmpi-bin libmpich-dev mpich
//
// (netpipe-openmpi and netpipe-mpich2 add NetPIPE's NPopenmpi and NPmpich2 as
// an outside reference ping-pong). The plain mpirun then belongs to Open MPI;
// use mpirun.openmpi and mpiexec.mpich explicitly (see LauncherCommand).
// The tagged tests build and launch real jobs on 2 and 4 ranks:
//
//	go test -tags mpi ./mpi/ ./internal/cli/
//	go test -tags mpi,mpich ./internal/cli/
//
// Call Init (or InitThread) once, from the main goroutine, before anything
// else; it returns the world communicator (MPI_COMM_WORLD). Init asks for
// thread level MPI_THREAD_FUNNELED (MPI-3.1 §12.4.3), InitThread for any:
// the package locks the main goroutine to the main OS thread at start-up,
// and every MPI call must be made from the goroutine that called Init.
// Finalize ends MPI.
//
// Two things keep the Go runtime out of the library's way while a rank
// polls inside MPI calls (see pace.go and InitThread): the main goroutine
// yields once every 5 ms of MPI calls, so that the runtime's monitor does
// not treat it as running too long and take its P at every wake-up, and
// GOMAXPROCS is raised to 2 when a launcher's core binding made it 1, so
// that the monitor does not take the P from each call longer than 20 us.
//
// Point-to-point operations move bytes (MPI_BYTE) and map comm.AnySource and
// comm.AnyTag to MPI_ANY_SOURCE and MPI_ANY_TAG. Tags 0..comm.MaxTag are
// accepted on every library. A library whose MPI_TAG_UB is below comm.MaxTag
// (MPICH: 2^28-1) gets tags modulo TagUB+1, so tags that differ by a
// multiple of TagUB+1 match each other there; a receive for a given tag
// reports that tag in its Status, a wildcard receive the folded one. Non-blocking operations are
// zero-copy: the Go buffer is pinned with runtime.Pinner from Isend/Irecv
// until Wait or Test reports completion, and the library reads or writes it
// in place. Every request must therefore be completed; a request dropped
// before completion keeps its buffer pinned. Blocking calls pass the Go
// buffer for the duration of the call only, as cgo allows, and copy nothing
// either (they pass its address, see addr in p2p.go). Caveat for RDMA networks (not tested here: this machine has only
// shared memory): registration caches of UCX or Open MPI learn of freed
// memory through hooks on libc's munmap/madvise, which the Go runtime
// bypasses; where buffers are freed and reallocated between benchmarks,
// disable the cache (e.g. UCX_RCACHE_ENABLE=n, OMPI_MCA_mpi_leave_pinned=0).
//
// Errors come back as *Error (the library communicator's error handler is set
// to MPI_ERRORS_RETURN). MPI_ERR_TRUNCATE, MPI_ERR_RANK and MPI_ERR_TAG
// unwrap to comm.ErrTruncate, comm.ErrRank and comm.ErrTag.
//
// Besides comm.Comm, *Comm offers the library's own collectives (Bcast,
// Reduce, Allreduce, Gather(v), Scatter(v), Allgather(v), Alltoall(v),
// ReduceScatter, ReduceScatterBlock, Barrier) on byte buffers, with
// reductions typed by comm's Op and Datatype, so that the library's
// algorithms can be measured next to package coll's. Each method has the
// signature of coll's interface for that collective (coll.NativeBcast, ...):
// coll's collectives on *Comm call the library unless an algorithm override
// selects one of coll's own.
package mpi
