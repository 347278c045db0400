//go:build race && amd64

package coll

import (
	"runtime"
	"unsafe"
)

// raceSum tells the race detector of the accesses of a sum done in
// assembly, which it does not see.
func raceSum(dst, a, b []byte) {
	runtime.RaceReadRange(unsafe.Pointer(&a[0]), len(a))
	runtime.RaceReadRange(unsafe.Pointer(&b[0]), len(b))
	runtime.RaceWriteRange(unsafe.Pointer(&dst[0]), len(dst))
}
