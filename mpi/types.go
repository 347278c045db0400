//go:build mpi

package mpi

import (
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// Op is comm's reduction operation, so that a reduction is named the same
// way on both runtimes and *Comm's collectives implement package coll's
// native interfaces. The zero value is invalid, so that a forgotten Op is
// caught instead of meaning Sum. shim.h maps the numeric values (comm's:
// Sum 1, Prod 2, Min 3, Max 4) to the library's handles.
type Op = comm.Op

// Reduction operations (MPI-3.1 §5.9.2).
const (
	Sum  = comm.Sum  // MPI_SUM: elementwise a+b
	Prod = comm.Prod // MPI_PROD: elementwise a*b
	Min  = comm.Min  // MPI_MIN: elementwise minimum
	Max  = comm.Max  // MPI_MAX: elementwise maximum
)

// Datatype is comm's element type of a reduction's byte buffer, read in
// the host's byte order. The zero value is invalid. shim.h maps
// the numeric values (comm's: Float32 1, Float64 2, Int32 3, Int64 4, Char
// 5) to the library's handles.
type Datatype = comm.Datatype

// Element types of reductions.
const (
	Float32 = comm.Float32 // MPI_FLOAT, 4 bytes
	Float64 = comm.Float64 // MPI_DOUBLE, 8 bytes
	Int32   = comm.Int32   // MPI_INT32_T, 4 bytes
	Int64   = comm.Int64   // MPI_INT64_T, 8 bytes
	Char    = comm.Char    // MPI_CHAR, 1 byte (IMB's -red_data_type char)
)

// shim.h's mpb_op and mpb_dtype switch on these values: a change in comm
// fails to compile here (index out of range) instead of mapping silently.
var (
	_ = [1]struct{}{}[Sum-1]
	_ = [1]struct{}{}[Prod-2]
	_ = [1]struct{}{}[Min-3]
	_ = [1]struct{}{}[Max-4]
	_ = [1]struct{}{}[Float32-1]
	_ = [1]struct{}{}[Float64-2]
	_ = [1]struct{}{}[Int32-3]
	_ = [1]struct{}{}[Int64-4]
	_ = [1]struct{}{}[Char-5]
)

// validOp reports whether o is one of Sum, Prod, Min, Max.
func validOp(o Op) bool { return o >= Sum && o <= Max }

// elems checks op and d and returns len(b) in elements of d; len(b) must be a
// multiple of d.Size().
func elems(fn string, b []byte, op Op, d Datatype) (int, error) {
	if !validOp(op) {
		return 0, fmt.Errorf("mpi: %s: invalid %v; want Sum, Prod, Min or Max", fn, op)
	}
	if d.Size() == 0 {
		return 0, fmt.Errorf("mpi: %s: invalid %v; want Float32, Float64, Int32, Int64 or Char", fn, d)
	}
	if len(b)%d.Size() != 0 {
		return 0, fmt.Errorf("mpi: %s: buffer of %d bytes is not a whole number of %v elements (%d bytes each)", fn, len(b), d, d.Size())
	}
	return len(b) / d.Size(), nil
}
