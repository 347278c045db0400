package comm

import "sync/atomic"

// interleave, when set by the package's own tests, is called at the points
// of the protocol where another goroutine may overtake the caller (a lock
// was just released, a wake-up or a frame is about to be sent). Tests make
// it sleep or yield at random so that the interleavings a heavily loaded
// machine produces only once in thousands of runs turn up in a short test.
// Nil in normal operation: one atomic load per point.
var interleave atomic.Pointer[func(point string)]

// yieldPoint calls the test hook at a named interleaving point.
func yieldPoint(point string) {
	if f := interleave.Load(); f != nil {
		(*f)(point)
	}
}
