package shm

import "sync/atomic"

// storeRelease stores v in *w with release ordering only: loads and stores
// before it are visible to a core that sees v (a plain MOV on amd64, whose
// stores are not reordered with earlier loads or stores, in a function
// the compiler cannot inline or move memory accesses across). Unlike
// w.Store (XCHG, a full barrier that waits for the store buffer to
// drain), it does not order it before later loads: a store that must be
// seen before a later load of another word (the wake-up protocol of bell
// and notify) is w.Store, or is followed by a locked instruction before
// that load (N1 in start). Used for ring words in shared memory only,
// which the race detector does not watch.
//
//go:noescape
func storeRelease(w *atomic.Uint64, v uint64)
