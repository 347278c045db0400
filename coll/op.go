package coll

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// Datatype is comm's element type of a reduction buffer; coll's
// functions take it as they take buffers: in the machine's native layout,
// len(buf)/Size() elements.
type Datatype = comm.Datatype

// The reduction datatypes (comm's).
const (
	Float32 = comm.Float32 // MPI_FLOAT
	Float64 = comm.Float64 // MPI_DOUBLE
	Int32   = comm.Int32   // MPI_INT32_T
	Int64   = comm.Int64   // MPI_INT64_T
	Char    = comm.Char    // MPI_CHAR: 1 byte, sums wrap modulo 2^8
)

// Op is comm's predefined reduction operation. All four are treated as
// associative and commutative (MPI-3.1 5.9.1); see the package
// documentation for the order in which coll applies them.
type Op = comm.Op

// The reduction operations (comm's).
const (
	Sum  = comm.Sum  // MPI_SUM
	Prod = comm.Prod // MPI_PROD
	Min  = comm.Min  // MPI_MIN
	Max  = comm.Max  // MPI_MAX
)

// check validates dt, op and a buffer length n in bytes; the error names the
// collective.
func check(name string, dt Datatype, op Op, n int) error {
	if dt.Size() == 0 {
		return fmt.Errorf("coll: %s: unknown datatype %d (valid: float32, float64, int32, int64, char)", name, int(dt))
	}
	if op < Sum || op > Max {
		return fmt.Errorf("coll: %s: unknown reduction op %d (valid: sum, prod, min, max)", name, int(op))
	}
	if n%dt.Size() != 0 {
		return fmt.Errorf("coll: %s: %d bytes is not a whole number of %s elements (%d bytes each)", name, n, dt, dt.Size())
	}
	return nil
}

// ReduceLocal computes inout[i] = inout[i] op in[i] element-wise
// (MPI_Reduce_local, with the operands in that fixed order). Both buffers
// must have the same length, a multiple of dt.Size() bytes.
func ReduceLocal(dt Datatype, op Op, inout, in []byte) error {
	if err := check("ReduceLocal", dt, op, len(inout)); err != nil {
		return err
	}
	if len(in) != len(inout) {
		return fmt.Errorf("coll: ReduceLocal: input has %d bytes, inout has %d (must be equal)", len(in), len(inout))
	}
	reduce(dt, op, inout, in)
	return nil
}

// reduce is ReduceLocal without checks: dst[i] = dst[i] op src[i].
func reduce(dt Datatype, op Op, dst, src []byte) {
	if len(dst) == 0 {
		return
	}
	switch dt {
	case Float32:
		reduceAs(op, dst, src, 4, float32From, float32Put)
	case Float64:
		reduceAs(op, dst, src, 8, float64From, float64Put)
	case Int32:
		reduceAs(op, dst, src, 4, int32From, int32Put)
	case Int64:
		reduceAs(op, dst, src, 8, int64From, int64Put)
	case Char: // 1-byte elements are always aligned; Go's int8 arithmetic wraps as C's char does
		src = src[:len(dst)]
		d := unsafe.Slice((*int8)(unsafe.Pointer(&dst[0])), len(dst))
		reduceSlice(op, d, unsafe.Slice((*int8)(unsafe.Pointer(&src[0])), len(src)))
	}
}

type number interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~int8
}

// reduceAs reduces through typed slices when both buffers are aligned for T
// (the common case: buffers from make), else element by element through the
// native byte order.
func reduceAs[T number](op Op, dst, src []byte, size int, get func([]byte) T, put func([]byte, T)) {
	n := len(dst) / size
	if uintptr(unsafe.Pointer(&dst[0]))%uintptr(size) == 0 && uintptr(unsafe.Pointer(&src[0]))%uintptr(size) == 0 {
		d := unsafe.Slice((*T)(unsafe.Pointer(&dst[0])), n)
		s := unsafe.Slice((*T)(unsafe.Pointer(&src[0])), n)
		reduceSlice(op, d, s)
		return
	}
	for i := 0; i < n; i++ {
		o := i * size
		put(dst[o:], apply(op, get(dst[o:]), get(src[o:])))
	}
}

func reduceSlice[T number](op Op, d, s []T) {
	s = s[:len(d)]
	switch op {
	case Sum:
		for i := range d {
			d[i] += s[i]
		}
	case Prod:
		for i := range d {
			d[i] *= s[i]
		}
	case Min:
		for i := range d {
			d[i] = min(d[i], s[i])
		}
	case Max:
		for i := range d {
			d[i] = max(d[i], s[i])
		}
	}
}

func apply[T number](op Op, a, b T) T {
	switch op {
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Min:
		return min(a, b)
	default:
		return max(a, b)
	}
}

var ne = binary.NativeEndian

func float32From(b []byte) float32   { return math.Float32frombits(ne.Uint32(b)) }
func float32Put(b []byte, v float32) { ne.PutUint32(b, math.Float32bits(v)) }
func float64From(b []byte) float64   { return math.Float64frombits(ne.Uint64(b)) }
func float64Put(b []byte, v float64) { ne.PutUint64(b, math.Float64bits(v)) }
func int32From(b []byte) int32       { return int32(ne.Uint32(b)) }
func int32Put(b []byte, v int32)     { ne.PutUint32(b, uint32(v)) }
func int64From(b []byte) int64       { return int64(ne.Uint64(b)) }
func int64Put(b []byte, v int64)     { ne.PutUint64(b, uint64(v)) }
