package app

import "unsafe"

// Float64Bytes views v as the bytes of its elements in the host's
// byte order (8 bytes each, what coll.Float64 reduces), without a copy:
// writes through either alias are seen by the other.
func Float64Bytes(v []float64) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*8)
}

// Complex128Bytes views v as the bytes of its elements (16 bytes each: the
// real then the imaginary float64), without a copy. A complex128 sum is a
// coll.Float64 sum over twice as many elements.
func Complex128Bytes(v []complex128) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*16)
}
