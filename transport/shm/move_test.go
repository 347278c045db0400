//go:build linux

package shm

import (
	"bytes"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestMoveBytes: moveBytes copies what copy copies, at every length around
// the switch to the string-move instruction and at unaligned offsets of
// either side, and touches nothing beyond.
func TestMoveBytes(t *testing.T) {
	src := pattern(80<<10, 3)
	for _, n := range []int{0, 1, 7, 64, longMove - 1, longMove, longMove + 1, 16<<10 + 7, 65536} {
		for _, so := range []int{0, 1, 8, 40, 63} {
			for _, do := range []int{0, 3, 8, 40, 64} {
				dst := bytes.Repeat([]byte{0xAA}, n+do+64)
				moveBytes(dst[do:do+n], src[so:so+n])
				if !bytes.Equal(dst[do:do+n], src[so:so+n]) {
					t.Fatalf("n %d, src offset %d, dst offset %d: bytes differ", n, so, do)
				}
				for i, b := range append(dst[:do:do], dst[do+n:]...) {
					if b != 0xAA {
						t.Fatalf("n %d, src offset %d, dst offset %d: byte %d outside the copy written", n, so, do, i)
					}
				}
			}
		}
	}
}

// TestPieces: the pieces a frame is published in cover it exactly, none
// longer than a fragment, every piece after the first starts on a cache
// line of the ring, and a frame of more than one fragment but less than
// two (less a cache line) goes in two pieces of about half of it.
func TestPieces(t *testing.T) {
	const frag = 16 << 10
	for _, start := range []uint64{0, 8, 40, 56, 64, 1<<20 - 8} {
		for _, total := range []uint64{48, frag - 8, frag, frag + 8, 3 * frag / 2, 2*frag - 8, 2 * frag, 3*frag + 40, 1 << 20} {
			pos, left := start, total
			var pieces []uint64
			for left > 0 {
				k := pieceBytes(pos, left, frag)
				if k == 0 || k > frag {
					t.Fatalf("start %d, frame %d: piece of %d bytes at %d", start, total, k, pos)
				}
				pieces = append(pieces, k)
				pos += k
				left -= k
				if left > 0 && pos%cacheLine != 0 {
					t.Fatalf("start %d, frame %d: a piece starts at %d, not on a cache line", start, total, pos)
				}
			}
			if total > frag && total+cacheLine <= 2*frag && (len(pieces) != 2 || pieces[0]+cacheLine <= total/2 || pieces[0] >= total/2+cacheLine) {
				t.Fatalf("start %d, frame %d: pieces %v, want two, the first of %d-%d bytes", start, total, pieces, total/2-cacheLine+1, total/2+cacheLine-1)
			}
		}
	}
}

// TestDefaultRingBytes: 1 MiB rings up to 9 ranks, halved as the job
// grows so that one rank's 2 x (size-1) rings stay within 16 MiB, and
// never below 128 KiB.
func TestDefaultRingBytes(t *testing.T) {
	for _, c := range []struct{ size, want int }{
		{1, 1 << 20}, {2, 1 << 20}, {9, 1 << 20}, {10, 512 << 10}, {16, 512 << 10}, {17, 512 << 10},
		{18, 256 << 10}, {33, 256 << 10}, {34, 128 << 10}, {65, 128 << 10}, {1000, 128 << 10},
	} {
		if got := DefaultRingBytes(c.size); got != c.want {
			t.Errorf("DefaultRingBytes(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}

// TestAlignedPayloads: a payload of at least alignPayload bytes copied
// through the ring starts on a cache line of it whatever the ring position
// of its frame, shorter ones follow their header, and all arrive intact,
// with checksums and without.
func TestAlignedPayloads(t *testing.T) {
	for _, verify := range []bool{false, true} {
		const ring = 16 << 10
		eps, cs := newJob(t, 2, Options{Size: 2, RingBytes: ring, CMABytes: -1, Verify: verify})
		p := eps[0].out[1]
		sizes := []int{alignPayload, 0, 24, alignPayload + 1, 8, 3*ring + 5, alignPayload - 8, 16, 40000, 0}
		var sent [][]byte
		for lap := range 6 {
			for i, n := range sizes {
				payload := pattern(n, lap*len(sizes)+i)
				h := transport.Header{Kind: transport.Eager, Source: 0, Tag: int32(len(sent)), Length: uint64(n)}
				if err := eps[0].Send(1, h, payload); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, payload)
				p.mu.Lock()
				end := p.tail
				p.mu.Unlock()
				// The payload ends the frame, padded to 8 bytes.
				at := end - pad8(uint64(n))
				if n >= alignPayload && at%cacheLine != 0 {
					t.Fatalf("verify %v, frame %d: %d-byte payload at ring position %d, not on a cache line", verify, len(sent)-1, n, at)
				}
			}
		}
		frames := cs[1].wait(t, len(sent))
		for k, f := range frames {
			if f.h.Tag != int32(k) || !bytes.Equal(f.payload, sent[k]) {
				t.Fatalf("verify %v, frame %d: tag %d, %d bytes; want tag %d and the %d bytes sent", verify, k, f.h.Tag, len(f.payload), k, len(sent[k]))
			}
		}
	}
}
