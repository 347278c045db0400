//go:build !race

package shm

import "sync/atomic"

// releaseToken frees a token taken with w.CompareAndSwap(0, 1) (the
// rank's polling token): a plain store of 0 (MOV on amd64, in a function
// the compiler cannot inline or move memory accesses across), which
// orders every load and store before it ahead of it, all that freeing a
// lock needs; w.Store would be an XCHG, a full barrier that waits for
// the store buffer to drain. The race build uses w.Store, which the race
// detector sees as the release it is (release_other.go).
//
//go:noescape
func releaseToken(w *atomic.Uint32)
