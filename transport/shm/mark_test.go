//go:build linux

package shm

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestNextMarkZeroed: once a frame is written, the slot where the next
// frame of the ring will start holds zero, also where an earlier lap of
// the ring left payload bytes that read as a valid mark, so the consumer
// never takes stale bytes for a frame; and every frame arrives intact.
func TestNextMarkZeroed(t *testing.T) {
	const ring = 4096
	eps, cs := newJob(t, 2, Options{Size: 2, RingBytes: ring, CMABytes: -1})
	// A 0-byte frame takes markBytes+HeaderSize bytes of the ring: fill
	// the ring with that value, so that stale bytes at any 8-aligned
	// position read as the mark of such a frame.
	empty := uint64(markBytes + transport.HeaderSize)
	stale := make([]byte, 3*ring/4)
	for i := 0; i < len(stale); i += 8 {
		binary.LittleEndian.PutUint64(stale[i:], empty)
	}
	p := eps[0].out[1]
	sizes := []int{len(stale), 0, 0, 24, 0, len(stale), 8, 0, 1000, 0, 0, 16, 0}
	for lap := range 8 {
		for i, n := range sizes {
			payload := make([]byte, n)
			if n == len(stale) {
				copy(payload, stale)
			}
			h := transport.Header{Kind: transport.Eager, Source: 0, Tag: int32(lap*len(sizes) + i), Length: uint64(n)}
			if err := eps[0].Send(1, h, payload); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			next := markAt(p.data, p.tail).Load()
			p.mu.Unlock()
			if next != 0 {
				t.Fatalf("lap %d, frame %d (%d bytes): next frame's mark slot holds %d, want 0", lap, i, n, next)
			}
		}
	}
	frames := cs[1].wait(t, 8*len(sizes))
	for k, f := range frames {
		n := sizes[k%len(sizes)]
		if f.h.Tag != int32(k) || len(f.payload) != n {
			t.Fatalf("frame %d: tag %d, %d bytes; want tag %d, %d bytes", k, f.h.Tag, len(f.payload), k, n)
		}
		if n == len(stale) && !bytes.Equal(f.payload, stale) {
			t.Fatalf("frame %d: payload differs from what was sent", k)
		}
	}
}
