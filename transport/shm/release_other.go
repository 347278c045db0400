//go:build !amd64 || race

package shm

import "sync/atomic"

// releaseToken frees a token taken with w.CompareAndSwap(0, 1); see
// release_amd64.go.
func releaseToken(w *atomic.Uint32) { w.Store(0) }
