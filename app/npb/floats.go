package npb

import "unsafe"

// complexAsFloats views v as its real and imaginary parts, interleaved
// (2 len(v) float64s), without a copy.
func complexAsFloats(v []complex128) []float64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), 2*len(v))
}
