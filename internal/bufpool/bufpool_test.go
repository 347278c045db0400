package bufpool

import "testing"

// TestGetLengthAndCapacity checks that a buffer has the length asked for and
// the capacity of its size class, the next power of two.
func TestGetLengthAndCapacity(t *testing.T) {
	for _, tc := range []struct{ n, cap int }{{1, 1}, {3, 4}, {4096, 4096}, {4097, 8192}, {131072, 131072}} {
		p := Get(tc.n)
		if len(*p) != tc.n || cap(*p) != tc.cap {
			t.Errorf("Get(%d): len %d cap %d, want len %d cap %d", tc.n, len(*p), cap(*p), tc.n, tc.cap)
		}
		Put(p)
	}
}

// TestReuseAllocatesNothing checks that a warm Get/Put pair allocates no
// new buffer.
func TestReuseAllocatesNothing(t *testing.T) {
	Put(Get(65536))
	allocs := testing.AllocsPerRun(100, func() { Put(Get(65536)) })
	if allocs > 0.5 {
		t.Errorf("warm Get/Put of 64 KiB: %v allocations per pair, want 0", allocs)
	}
}

// TestShorterLengthInSameClass checks that a reused buffer is cut to the
// new length within its class.
func TestShorterLengthInSameClass(t *testing.T) {
	p := Get(1000)
	Put(p)
	q := Get(600)
	if len(*q) != 600 || cap(*q) != 1024 {
		t.Errorf("Get(600) after Put of a 1000-byte buffer: len %d cap %d, want 600 and 1024", len(*q), cap(*q))
	}
	Put(q)
}
