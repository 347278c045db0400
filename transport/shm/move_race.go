//go:build race

package shm

import (
	"runtime"
	"unsafe"
)

// raceMove tells the race detector of the accesses of a copy done in
// assembly, which it does not see.
func raceMove(dst, src []byte) {
	runtime.RaceReadRange(unsafe.Pointer(&src[0]), len(src))
	runtime.RaceWriteRange(unsafe.Pointer(&dst[0]), len(dst))
}
