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

// prefetch asks the CPU to bring the cache line holding *w into this
// core's cache (PREFETCHT0) without waiting for it: the consumer issues it
// for the slot of a ring's next mark when it starts on a frame, so the
// line, which the producer wrote last, travels while the frame is
// delivered instead of when the consumer next looks at the ring.
//
//go:noescape
func prefetch(w *atomic.Uint64)
