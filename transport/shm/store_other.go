//go:build !amd64

package shm

import "sync/atomic"

// storeRelease is w.Store where no cheaper release store is written.
func storeRelease(w *atomic.Uint64, v uint64) { w.Store(v) }

// prefetch does nothing where no prefetch instruction is written.
func prefetch(w *atomic.Uint64) {}
