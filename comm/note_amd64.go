//go:build amd64 && !race

package comm

import (
	"sync/atomic"
	"unsafe"
)

// setNote stores v in a waker's note. The caller holds e.mu and has
// written everything the owner reads after seeing v (done, st, err)
// before: a plain store (MOV) suffices on amd64, whose stores become
// visible in program order, and the compiler keeps stores in program
// order. note.Store would be an XCHG, a full barrier that waits for the
// store buffer to drain, on the path of every message; the lock's
// release that follows orders the store before the waker's later loads.
// The race build uses note.Store (note_other.go), which the race
// detector sees as the synchronisation it is.
func setNote(note *atomic.Uint32, v uint32) { *(*uint32)(unsafe.Pointer(note)) = v }
