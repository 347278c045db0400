package comm

import (
	"math/bits"
	"sync"
)

// Buffers for unexpected eager messages come from size-classed pools: class
// c holds buffers of capacity 2^c bytes, so a buffer is at most twice the
// message and the receive hot path allocates nothing once warm.
var bufPools [64]sync.Pool

// sizeClass returns the class whose buffers hold n > 0 bytes.
func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

// getBuf returns a pooled buffer of length n > 0.
func getBuf(n int) *[]byte {
	c := sizeClass(n)
	if p, ok := bufPools[c].Get().(*[]byte); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, 1<<c)
	return &b
}

// putBuf returns a buffer obtained from getBuf.
func putBuf(p *[]byte) {
	bufPools[sizeClass(cap(*p))].Put(p)
}
