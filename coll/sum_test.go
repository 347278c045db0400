package coll

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSumBlocksMatchesScalar checks combine's MPI_SUM of float32 and
// float64 against Go's scalar loop (combineAs) bit for bit (any two NaNs
// count as equal: which operand's payload a NaN sum keeps is the CPU's),
// over random bit patterns (infinities, NaNs and denormals included), at
// lengths around the 128-byte blocks, at unaligned starts and in place.
func TestSumBlocksMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []Datatype{Float32, Float64} {
		size := dt.Size()
		for _, elems := range []int{0, 1, 31, 32, 33, 63, 64, 65, 127, 1000, 4099} {
			for _, off := range []int{0, 1, 3, size} {
				for _, inPlace := range []bool{false, true} {
					n := elems * size
					a, b := randomBytes(rng, n+off), randomBytes(rng, n+off)
					want := make([]byte, n)
					scalarSum(dt, want, a[off:], b[off:])
					got := make([]byte, n+off)[off:]
					if inPlace {
						got = a[off:]
					}
					combine(dt, Sum, got, a[off:], b[off:])
					if i := firstDifference(dt, got, want); i >= 0 {
						t.Fatalf("%v, %d elements at offset %d, in place %v: element %d is %x, want %x",
							dt, elems, off, inPlace, i, got[i*size:(i+1)*size], want[i*size:(i+1)*size])
					}
				}
			}
		}
	}
}

// TestSumBlocksRuns checks that the vector kernel takes the whole blocks
// where the CPU has one (amd64 with AVX2), so that the test above compares
// it, not the scalar loop with itself.
func TestSumBlocksRuns(t *testing.T) {
	if !hasVectorSum() {
		t.Skip("no vector sum kernel on this CPU: combine sums with Go's scalar loop, which TestSumBlocksMatchesScalar covers")
	}
	x := make([]byte, 3*128+8)
	if n := sumBlocks(Float32, x, x, x); n != 3*128 {
		t.Fatalf("sumBlocks summed %d bytes of %d, want 384 (its whole blocks)", n, len(x))
	}
	if n := sumBlocks(Int32, x, x, x); n != 0 {
		t.Fatalf("sumBlocks summed %d bytes of an Int32 vector, want 0 (no kernel)", n)
	}
}

// scalarSum is combine's element-by-element path, without the kernel.
func scalarSum(dt Datatype, dst, a, b []byte) {
	if len(dst) == 0 {
		return
	}
	if dt == Float32 {
		combineAs(Sum, dst, a, b, 4, float32From, float32Put)
		return
	}
	combineAs(Sum, dst, a, b, 8, float64From, float64Put)
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// firstDifference returns the first element at which got and want differ
// (two NaNs are equal), or -1.
func firstDifference(dt Datatype, got, want []byte) int {
	size := dt.Size()
	for i := 0; i < len(want)/size; i++ {
		g, w := got[i*size:], want[i*size:]
		same := string(g[:size]) == string(w[:size])
		var gv, wv float64
		if dt == Float32 {
			gv, wv = float64(float32From(g)), float64(float32From(w))
		} else {
			gv, wv = float64From(g), float64From(w)
		}
		if !same && !(math.IsNaN(gv) && math.IsNaN(wv)) {
			return i
		}
	}
	return -1
}

// BenchmarkSum times MPI_SUM of two vectors into a third with combine (the
// vector kernel where the CPU has one) and with Go's scalar loop, side by
// side: go test -run '^$' -bench Sum -count 5 ./coll.
func BenchmarkSum(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{64 << 10, 4 << 20} {
		for _, dt := range []Datatype{Float32, Float64} {
			x, y, z := vec(dt, 0, n/dt.Size()), vec(dt, 1, n/dt.Size()), randomBytes(rng, n)
			b.Run(fmt.Sprintf("%s/%d/combine", dt, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					combine(dt, Sum, z, x, y)
				}
			})
			b.Run(fmt.Sprintf("%s/%d/scalar", dt, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					scalarSum(dt, z, x, y)
				}
			})
		}
	}
}
