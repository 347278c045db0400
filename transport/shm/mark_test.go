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

// TestSmallFramesOnLines: a frame published whole is padded to end on a
// cache line of the ring, so the frame after it starts on one (a small
// frame's mark and header then share one line); frames streamed in
// pieces or across the ring's end are not padded, and the next whole
// frame starts on a line again. Every frame arrives intact and in order,
// with checksums and without.
func TestSmallFramesOnLines(t *testing.T) {
	for _, verify := range []bool{false, true} {
		const ring = 4096
		eps, cs := newJob(t, 2, Options{Size: 2, RingBytes: ring, CMABytes: -1, Verify: verify})
		p := eps[0].out[1]
		hl := uint64(markBytes + transport.HeaderSize)
		if verify {
			hl += crcExt
		}
		frag := fragmentBytes(ring)
		sizes := []int{0, 1, 8, 16, 24, 25, 40, 100, 0, 600, 8, 2000, 0, 3, 440}
		var sent [][]byte
		aligned := 0
		for lap := range 12 {
			for i, n := range sizes {
				payload := pattern(n, lap*len(sizes)+i)
				p.mu.Lock()
				before := p.tail
				p.mu.Unlock()
				h := transport.Header{Kind: transport.Eager, Source: 0, Tag: int32(len(sent)), Length: uint64(n)}
				if err := eps[0].Send(1, h, payload); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, payload)
				p.mu.Lock()
				after := p.tail
				p.mu.Unlock()
				cs[1].wait(t, 1) // so the next frame finds the ring empty
				whole := hl + pad8(uint64(n))
				padded := (whole + cacheLine - 1) &^ (cacheLine - 1)
				if before%cacheLine != 0 || padded > frag || before%ring+padded > ring {
					continue // streamed, or the frame before was
				}
				aligned++
				if after-before != padded {
					t.Fatalf("verify %v, frame %d (%d-byte payload) at ring position %d: took %d bytes, want %d (padded to a cache line)",
						verify, len(sent)-1, n, before, after-before, padded)
				}
			}
		}
		if aligned < len(sizes) {
			t.Fatalf("verify %v: only %d frames started on a cache line and were written whole", verify, aligned)
		}
		frames := cs[1].wait(t, 0)
		if len(frames) != len(sent) {
			t.Fatalf("verify %v: %d frames delivered, want %d", verify, len(frames), len(sent))
		}
		for k, f := range frames {
			if f.h.Tag != int32(k) || !bytes.Equal(f.payload, sent[k]) {
				t.Fatalf("verify %v, frame %d: tag %d, %d bytes; want tag %d and the %d bytes sent", verify, k, f.h.Tag, len(f.payload), k, len(sent[k]))
			}
		}
	}
}
