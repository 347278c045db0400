//go:build mpi

package main

import (
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/mpi"
)

// *mpi.Comm is a communicator with a message space of its own for package
// coll's algorithms, every collective of the library offered natively,
// IMB's timed loops run in C, and message buffers from MPI_Alloc_mem.
// Package mpi depends on comm only (internal/archtest's confined), so
// these checks sit in this program, which imports both and is built with
// package mpi (go vet -tags mpi ./mpi/...): a change of a signature on
// either side fails to compile instead of silently running coll's
// algorithm where the library's was meant.
var (
	_ comm.Comm                     = (*mpi.Comm)(nil)
	_ comm.LoopRunner               = (*mpi.Comm)(nil)
	_ comm.MemAllocator             = (*mpi.Comm)(nil)
	_ coll.Private                  = (*mpi.Comm)(nil)
	_ coll.NativeBcast              = (*mpi.Comm)(nil)
	_ coll.NativeReduce             = (*mpi.Comm)(nil)
	_ coll.NativeAllreduce          = (*mpi.Comm)(nil)
	_ coll.NativeGather             = (*mpi.Comm)(nil)
	_ coll.NativeGatherv            = (*mpi.Comm)(nil)
	_ coll.NativeScatter            = (*mpi.Comm)(nil)
	_ coll.NativeScatterv           = (*mpi.Comm)(nil)
	_ coll.NativeAllgather          = (*mpi.Comm)(nil)
	_ coll.NativeAllgatherv         = (*mpi.Comm)(nil)
	_ coll.NativeAlltoall           = (*mpi.Comm)(nil)
	_ coll.NativeAlltoallv          = (*mpi.Comm)(nil)
	_ coll.NativeReduceScatter      = (*mpi.Comm)(nil)
	_ coll.NativeReduceScatterBlock = (*mpi.Comm)(nil)
	_ coll.NativeBarrier            = (*mpi.Comm)(nil)
)
