package coll

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// Datatype is comm's element type of a reduction buffer; coll's
// functions take it as they take buffers: in the host's byte order,
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
// collective. Every exported function that reduces calls it before any
// algorithm runs, so combine's kernels never see a datatype or an op they
// lack (knownDatatype and knownOp list exactly those).
func check(name string, dt Datatype, op Op, n int) error {
	if !knownDatatype(dt) {
		return fmt.Errorf("coll: %s: unknown datatype %d (valid: float32, float64, int32, int64, char)", name, int(dt))
	}
	if !knownOp(op) {
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
func reduce(dt Datatype, op Op, dst, src []byte) { combine(dt, op, dst, dst, src) }

// knownDatatype reports whether combine has kernels for dt.
func knownDatatype(dt Datatype) bool {
	switch dt {
	case Float32, Float64, Int32, Int64, Char:
		return true
	}
	return false
}

// knownOp reports whether combine's kernels apply op.
func knownOp(op Op) bool {
	switch op {
	case Sum, Prod, Min, Max:
		return true
	}
	return false
}

// unknownKernel is the panic of combine, combineSlice and apply on a
// datatype or op that check refuses: unreachable, since every caller
// checked them first (check), but never another operation's result.
func unknownKernel(what fmt.Stringer) string {
	return fmt.Sprintf("coll: no reduction kernel for %v (check lets only known datatypes and ops through)", what)
}

// combine sets dst[i] = a[i] op b[i] element-wise, without checks: a and b
// hold at least len(dst) bytes, and dst may be a (in place) but must not
// overlap b otherwise. Fusing the copy of an operand into the reduction
// saves a pass over the vector wherever a result starts from a vector the
// caller must not modify (a send buffer). dt and op must have passed check:
// combine panics on any other (unreachable by construction: only
// functions that called check reduce), instead of leaving dst as it was
// or applying another op.
func combine(dt Datatype, op Op, dst, a, b []byte) {
	if len(dst) == 0 {
		return
	}
	a, b = a[:len(dst)], b[:len(dst)]
	if op == Sum {
		// The vector kernel's whole blocks first (amd64 with AVX2), the
		// rest below.
		n := sumBlocks(dt, dst, a, b)
		dst, a, b = dst[n:], a[n:], b[n:]
		if len(dst) == 0 {
			return
		}
	}
	switch dt {
	case Float32:
		combineAs(op, dst, a, b, 4, float32From, float32Put)
	case Float64:
		combineAs(op, dst, a, b, 8, float64From, float64Put)
	case Int32:
		combineAs(op, dst, a, b, 4, int32From, int32Put)
	case Int64:
		combineAs(op, dst, a, b, 8, int64From, int64Put)
	case Char: // 1-byte elements are always aligned; Go's int8 arithmetic wraps as C's char does
		combineSlice(op, asSlice[int8](dst, len(dst)), asSlice[int8](a, len(a)), asSlice[int8](b, len(b)))
	default:
		panic(unknownKernel(dt))
	}
}

type number interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~int8
}

// asSlice views the first n elements of T at buf[0].
func asSlice[T number](buf []byte, n int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&buf[0])), n)
}

// aligned reports whether buf starts on a multiple of size bytes.
func aligned(buf []byte, size int) bool {
	return uintptr(unsafe.Pointer(&buf[0]))%uintptr(size) == 0
}

// combineAs combines through typed slices when the three buffers are
// aligned for T (the common case: buffers from make), else element by
// element through the host's byte order.
func combineAs[T number](op Op, dst, a, b []byte, size int, get func([]byte) T, put func([]byte, T)) {
	n := len(dst) / size
	if aligned(dst, size) && aligned(a, size) && aligned(b, size) {
		combineSlice(op, asSlice[T](dst, n), asSlice[T](a, n), asSlice[T](b, n))
		return
	}
	for i := 0; i < n; i++ {
		o := i * size
		put(dst[o:], apply(op, get(a[o:]), get(b[o:])))
	}
}

// combineSlice sets d[i] = a[i] op b[i]; d may be a. It panics on an op
// check refuses (unreachable, see combine). (Unrolling the loop gains
// nothing measurable: the scalar loop already moves about one element per
// cycle, the rate of its loads and stores; the float sums that IMB's
// reductions time run in sumBlocks' vector kernel instead, see
// docs/mpi-comparison.md.)
func combineSlice[T number](op Op, d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	switch op {
	case Sum:
		for i := range d {
			d[i] = a[i] + b[i]
		}
	case Prod:
		for i := range d {
			d[i] = a[i] * b[i]
		}
	case Min:
		for i := range d {
			d[i] = min(a[i], b[i])
		}
	case Max:
		for i := range d {
			d[i] = max(a[i], b[i])
		}
	default:
		panic(unknownKernel(op))
	}
}

// apply returns a op b; it panics on an op check refuses (unreachable, see
// combine).
func apply[T number](op Op, a, b T) T {
	switch op {
	case Sum:
		return a + b
	case Prod:
		return a * b
	case Min:
		return min(a, b)
	case Max:
		return max(a, b)
	}
	panic(unknownKernel(op))
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
