package coll

import "golang.org/x/sys/cpu"

// vectorSum: the CPU has AVX2, so MPI_SUM of float32 and float64 vectors
// runs 128 bytes per loop iteration in sum_amd64.s instead of one element
// per cycle in Go's scalar loop (docs/mpi-comparison.md, "The reduction
// kernel").
var vectorSum = cpu.X86.HasAVX2

// sumBlock is the bytes the assembly kernels sum per loop iteration.
const sumBlock = 128

// addFloat32Blocks sets d[i] = a[i] + b[i] for the float32 elements of
// blocks 128-byte blocks at d, a and b (any alignment; d may be a but must
// not overlap b otherwise): VADDPS, the same IEEE single-precision sum
// per element as Go's +.
//
//go:noescape
func addFloat32Blocks(d, a, b *byte, blocks int)

// addFloat64Blocks is addFloat32Blocks for float64 elements (VADDPD).
//
//go:noescape
func addFloat64Blocks(d, a, b *byte, blocks int)

// sumBlocks runs the assembly kernel of dt (Float32 or Float64) over the
// whole 128-byte blocks of dst, a and b and returns how many bytes it
// summed: 0 without AVX2, for another datatype, or under 128 bytes.
func sumBlocks(dt Datatype, dst, a, b []byte) int {
	blocks := len(dst) / sumBlock
	if !vectorSum || blocks == 0 || (dt != Float32 && dt != Float64) {
		return 0
	}
	n := blocks * sumBlock
	raceSum(dst[:n], a[:n], b[:n])
	if dt == Float32 {
		addFloat32Blocks(&dst[0], &a[0], &b[0], blocks)
	} else {
		addFloat64Blocks(&dst[0], &a[0], &b[0], blocks)
	}
	return n
}

// hasVectorSum reports whether sumBlocks has a kernel on this CPU.
func hasVectorSum() bool { return vectorSum }
