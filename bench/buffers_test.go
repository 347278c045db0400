package bench

import (
	"bytes"
	"testing"
)

func TestAreaWithoutOffCache(t *testing.T) {
	a, err := newArea(100, 100, 0, 0, 1000, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.area(0)) != 100 || &a.area(0)[0] != &a.area(7)[0] {
		t.Error("without -off_cache every repetition must reuse one 100-byte buffer")
	}
}

func TestAreaOffCache(t *testing.T) {
	const cache, line = 4096, 64
	for _, c := range []struct {
		size          int64
		reps          int
		stride, slots int // IMB_init_buffers_iter's offs and cache_iter
	}{
		{0, 1000, 64, 128},
		{1, 1000, 128, 64},
		{100, 1000, 192, 43},
		{128, 1000, 192, 43},
		{5000, 1000, 5120, 2},
		{100, 3, 192, 3},     // never more slots than repetitions
		{10000, 1, 10112, 1}, // one repetition, one slot
	} {
		a, err := newArea(c.size, c.size, cache, line, c.reps, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.stride != c.stride || a.slots != c.slots {
			t.Errorf("%d bytes, %d repetitions: %d slots %d bytes apart, want IMB's %d slots %d bytes apart",
				c.size, c.reps, a.slots, a.stride, c.slots, c.stride)
			continue
		}
		start := func(rep int) int { return cap(a.buf) - cap(a.buf[(rep%a.slots)*a.stride:]) }
		for rep := 0; rep < 3*a.slots; rep++ {
			s := a.area(rep)
			if int64(len(s)) != c.size {
				t.Fatalf("%d bytes: repetition %d area of %d bytes", c.size, rep, len(s))
			}
			// The next slot starts at least 2 lines after the line
			// holding this slot's last byte.
			if rep%a.slots != a.slots-1 && c.size > 0 && start(rep+1)/line-(start(rep)+int(c.size)-1)/line < 2 {
				t.Errorf("%d bytes: repetition %d ends in line %d, the next starts in line %d", c.size, rep, (start(rep)+int(c.size)-1)/line, start(rep+1)/line)
			}
		}
		if start(a.slots) != 0 || a.slots > 1 && start(1) == 0 {
			t.Errorf("%d bytes: slots must cycle through the buffer", c.size)
		}
	}
}

func TestPatternDistinguishes(t *testing.T) {
	const n = 256
	base := make([]byte, n)
	Pattern(base, 1, n, 3, 0)
	for name, other := range map[string][3]int{"rank": {2, n, 3}, "repetition": {1, n, 4}, "size": {1, n + 1, 3}} {
		b := make([]byte, n)
		Pattern(b, other[0], int64(other[1]), other[2], 0)
		if count, _ := firstDefect(b, base); count < n/2 {
			t.Errorf("other %s: only %d of %d bytes differ", name, count, n)
		}
	}
	// Piecewise generation at an offset equals the whole.
	part := make([]byte, n-13)
	Pattern(part, 1, n, 3, 13)
	if !bytes.Equal(part, base[13:]) {
		t.Error("Pattern at offset 13 differs from the whole pattern's tail")
	}
	got := make([]byte, n)
	poison(got, base)
	if count, first := firstDefect(got, base); count != n || first != 0 {
		t.Errorf("poisoned buffer: %d defects first at %d, want every byte", count, first)
	}
	copy(got, base)
	got[77] ^= 1
	if count, first := firstDefect(got, base); count != 1 || first != 77 {
		t.Errorf("one flipped byte: %d defects first at %d", count, first)
	}
}

func TestAreaReusesMemory(t *testing.T) {
	big, _ := newArea(1000, 1000, 0, 0, 1000, nil, nil)
	again, _ := newArea(500, 500, 0, 0, 1000, big.buf, nil)
	if len(again.area(0)) != 500 || &again.buf[0] != &big.buf[0] {
		t.Error("a smaller area must reuse the larger one's memory")
	}
	larger, _ := newArea(2000, 2000, 0, 0, 1000, big.buf, nil)
	if len(larger.area(0)) != 2000 {
		t.Errorf("a larger area has %d bytes, want 2000", len(larger.area(0)))
	}
}

// TestAreaWritten checks that a new area holds written data, no byte left
// zero (never-written memory would be the kernel's shared zero page), and
// that consecutive 4 KiB pages differ.
func TestAreaWritten(t *testing.T) {
	a, err := newArea(3<<12+5, 3<<12+5, 0, 0, 1000, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(a.buf, 0); i >= 0 {
		t.Fatalf("byte %d of a new %d-byte area is zero: the area was not written", i, len(a.buf))
	}
	for p := 1; p < 3; p++ {
		if bytes.Equal(a.buf[(p-1)<<12:p<<12], a.buf[p<<12:(p+1)<<12]) {
			t.Errorf("pages %d and %d hold the same bytes", p-1, p)
		}
	}
}
