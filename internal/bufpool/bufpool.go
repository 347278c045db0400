// Package bufpool keeps byte buffers for reuse in size classes: class c
// holds buffers of capacity 2^c bytes, so a buffer is at most twice the
// length asked for, and a hot path that takes and returns its buffers
// allocates nothing once warm.
//
// Reuse matters for timing, not only for garbage: a fresh buffer of more
// than a few pages costs a page fault per 4 KiB page on first touch plus
// its zeroing, which for a 128 KiB scratch buffer of a collective is more
// than the collective's data movement on shared memory.
package bufpool

import (
	"math/bits"
	"sync"
)

var pools [64]sync.Pool

// class returns the size class whose buffers hold n > 0 bytes.
func class(n int) int { return bits.Len(uint(n - 1)) }

// Get returns a buffer of length n > 0 whose contents are undefined (a
// reused buffer keeps what its last user wrote). Give it back with Put.
func Get(n int) *[]byte {
	c := class(n)
	if p, ok := pools[c].Get().(*[]byte); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, 1<<c)
	return &b
}

// Put returns a buffer obtained from Get; the caller must not use it
// afterwards.
func Put(p *[]byte) {
	pools[class(cap(*p))].Put(p)
}
