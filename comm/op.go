package comm

import "fmt"

// Reductions are typed by the runtime's vocabulary so that every runtime
// (this package's, an MPI library's) and every collective implementation
// (package coll's algorithms, a library's own) names them alike. The
// numeric values are fixed: the MPI library's shim maps them to its handles.

// Datatype is the element type of a reduction buffer (MPI_FLOAT, MPI_DOUBLE,
// MPI_INT32_T, MPI_INT64_T, MPI_CHAR). Buffers are byte slices holding elements in the
// host's byte order (little endian on every platform mpbench targets);
// the element count is len(buf)/Size().
type Datatype int

// The reduction datatypes.
const (
	Float32 Datatype = iota + 1 // 4-byte IEEE 754 binary32 (MPI_FLOAT, IMB's default -red_data_type)
	Float64                     // 8-byte IEEE 754 binary64 (MPI_DOUBLE)
	Int32                       // 4-byte two's complement (MPI_INT32_T in reductions; MPI_INT as the datatype of messages, IMB's -data_type int)
	Int64                       // 8-byte two's complement (MPI_INT64_T)
	// Char is C's 1-byte char (MPI_CHAR, IMB's -red_data_type char): an
	// 8-bit two's complement integer whose Sum and Prod wrap modulo 2^8 as
	// C's char arithmetic stored back into a char does. Min and Max compare
	// signed values (char is signed on x86_64; on arm64, where C's char is
	// unsigned, an MPI library's Min and Max on MPI_CHAR compare unsigned).
	// MPI-3.1 section 5.9.2 lists no reduction on MPI_CHAR; IMB-MPI1 uses
	// MPI_SUM on it, which Open MPI 4.1 and MPICH 4.0 accept.
	Char
)

// Size is the element size in bytes (0 for an unknown Datatype).
func (d Datatype) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float64, Int64:
		return 8
	case Char:
		return 1
	}
	return 0
}

// String is the datatype's lower-case name ("float32", ...).
func (d Datatype) String() string {
	switch d {
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Char:
		return "char"
	}
	return fmt.Sprintf("Datatype(%d)", int(d))
}

// Op is a predefined reduction operation (MPI-3.1 section 5.9.2). Package
// coll treats all four as associative and commutative (MPI-3.1 5.9.1).
type Op int

// The reduction operations.
const (
	Sum  Op = iota + 1 // MPI_SUM
	Prod               // MPI_PROD
	Min                // MPI_MIN (for floats, NaN wins as in Go's min builtin)
	Max                // MPI_MAX (for floats, NaN wins as in Go's max builtin)
)

// String is the operation's lower-case name ("sum", ...).
func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Min:
		return "min"
	case Max:
		return "max"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}
