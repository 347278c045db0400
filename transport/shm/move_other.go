//go:build !amd64

package shm

import "unsafe"

// fastRepMove: no string-move instruction worth using on this architecture.
const fastRepMove = false

// repMove is never called where fastRepMove is false.
func repMove(dst, src *byte, n uintptr) {
	copy(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}
