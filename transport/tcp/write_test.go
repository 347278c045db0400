package tcp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestLimitIOV checks the cut of a frame's buffers to one writev(2)'s
// share: inside a buffer (which is shortened and its length returned), on
// a boundary between two (nothing shortened), and inside the first.
func TestLimitIOV(t *testing.T) {
	for _, tc := range []struct {
		lens          []uint64
		max           uint64
		k, cut        int
		full, cutLen  uint64
		passedInTotal uint64
	}{
		{[]uint64{32, 1 << 20, 4}, 512 << 10, 2, 1, 1 << 20, 512<<10 - 32, 512 << 10},
		{[]uint64{512 << 10, 100}, 512 << 10, 1, -1, 0, 0, 512 << 10},
		{[]uint64{3 << 20}, 512 << 10, 1, 0, 3 << 20, 512 << 10, 512 << 10},
		{[]uint64{32, 512<<10 - 32, 1 << 20}, 512 << 10, 2, -1, 0, 0, 512 << 10},
	} {
		iov := make([]unix.Iovec, len(tc.lens))
		for i, n := range tc.lens {
			iov[i].Len = n
		}
		k, cut, full := limitIOV(iov, tc.max)
		if k != tc.k || cut != tc.cut || full != tc.full {
			t.Errorf("%v cut at %d: got k %d, cut %d, full %d; want %d, %d, %d", tc.lens, tc.max, k, cut, full, tc.k, tc.cut, tc.full)
			continue
		}
		if cut >= 0 && iov[cut].Len != tc.cutLen {
			t.Errorf("%v cut at %d: buffer %d shortened to %d, want %d", tc.lens, tc.max, cut, iov[cut].Len, tc.cutLen)
		}
		if got := iovBytes(iov[:k]); got != tc.passedInTotal {
			t.Errorf("%v cut at %d: the call gets %d bytes, want %d", tc.lens, tc.max, got, tc.passedInTotal)
		}
	}
}
