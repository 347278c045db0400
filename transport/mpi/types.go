//go:build mpi

package mpi

import "fmt"

// Op is a predefined reduction operation (MPI-3.1 §5.9.2). The zero value is
// invalid, so that a forgotten Op is caught instead of meaning Sum. The
// numeric values are fixed: shim.h maps them to the library's handles.
type Op int

// Reduction operations.
const (
	Sum  Op = 1 // MPI_SUM: elementwise a+b
	Prod Op = 2 // MPI_PROD: elementwise a*b
	Min  Op = 3 // MPI_MIN: elementwise minimum
	Max  Op = 4 // MPI_MAX: elementwise maximum
)

// String returns the MPI name of o, e.g. "MPI_SUM".
func (o Op) String() string {
	switch o {
	case Sum:
		return "MPI_SUM"
	case Prod:
		return "MPI_PROD"
	case Min:
		return "MPI_MIN"
	case Max:
		return "MPI_MAX"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Valid reports whether o is one of Sum, Prod, Min, Max.
func (o Op) Valid() bool { return o >= Sum && o <= Max }

// Datatype is the element type of a reduction's byte buffer, read in the
// machine's native byte order. The zero value is invalid. The numeric values
// are fixed: shim.h maps them to the library's handles.
type Datatype int

// Element types of reductions.
const (
	Float32 Datatype = 1 // MPI_FLOAT, 4 bytes
	Float64 Datatype = 2 // MPI_DOUBLE, 8 bytes
	Int32   Datatype = 3 // MPI_INT32_T, 4 bytes
	Int64   Datatype = 4 // MPI_INT64_T, 8 bytes
)

// Size is the element size of d in bytes (0 for an invalid Datatype).
func (d Datatype) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float64, Int64:
		return 8
	}
	return 0
}

// String returns the MPI name of d, e.g. "MPI_DOUBLE".
func (d Datatype) String() string {
	switch d {
	case Float32:
		return "MPI_FLOAT"
	case Float64:
		return "MPI_DOUBLE"
	case Int32:
		return "MPI_INT32_T"
	case Int64:
		return "MPI_INT64_T"
	}
	return fmt.Sprintf("Datatype(%d)", int(d))
}

// elems checks op and d and returns len(b) in elements of d; len(b) must be a
// multiple of d.Size().
func elems(fn string, b []byte, op Op, d Datatype) (int, error) {
	if !op.Valid() {
		return 0, fmt.Errorf("mpi: %s: invalid %v; want Sum, Prod, Min or Max", fn, op)
	}
	if d.Size() == 0 {
		return 0, fmt.Errorf("mpi: %s: invalid %v; want Float32, Float64, Int32 or Int64", fn, d)
	}
	if len(b)%d.Size() != 0 {
		return 0, fmt.Errorf("mpi: %s: buffer of %d bytes is not a whole number of %v elements (%d bytes each)", fn, len(b), d, d.Size())
	}
	return len(b) / d.Size(), nil
}
