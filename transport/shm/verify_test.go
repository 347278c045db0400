//go:build linux

package shm

import (
	"errors"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// failureCollector is a collector that also keeps the peer failures.
type failureCollector struct {
	*collector
	failed chan error
}

func (f *failureCollector) PeerFailed(peer int, err error) { f.failed <- err }

// TestVerifyNamesCorruptFrame writes three frames from rank 0 to rank 1
// with checksums (Options.Verify, MPBENCH_VERIFY) before rank 1 starts,
// then flips one bit of the third frame's payload: in the ring, or, for a
// single-copy frame, in the sender's buffer after the send started. Rank 1
// must deliver the first two frames, never the third, and report rank 0
// failed with the frame named (number, kind, tag, size).
func TestVerifyNamesCorruptFrame(t *testing.T) {
	for _, single := range []bool{false, true} {
		o := Options{Dir: t.TempDir(), CMABytes: -1, Verify: true}
		if single {
			o.CMABytes = 1024
		}
		eps, err := NewJob(2, o)
		if err != nil {
			t.Fatal(err)
		}
		e0, e1 := eps[0].(*Endpoint), eps[1].(*Endpoint)
		if single && !e1.SingleCopy(0) {
			t.Log("process_vm_readv is not permitted here: the single-copy case is not run")
			e0.Close()
			e1.Close()
			continue
		}
		e0.Start(newCollector())
		small, big := pattern(100, 1), pattern(4096, 2)
		for _, f := range []struct {
			h transport.Header
			p []byte
		}{
			{transport.Header{Kind: transport.Eager, Source: 0, Tag: 3, Length: 100}, small},
			{transport.Header{Kind: transport.RTS, Source: 0, Tag: 5, Length: 1 << 20, Cookie: 1}, nil},
		} {
			if err := e0.Send(1, f.h, f.p); err != nil {
				t.Fatal(err)
			}
		}
		h3 := transport.Header{Kind: transport.Eager, Source: 0, Tag: 7, Length: uint64(len(big))}
		var cmpl completion
		if single {
			if done, err := e0.StartSend(1, h3, big, &cmpl); err != nil || done {
				t.Fatalf("single-copy StartSend: done %v, %v; want pending", done, err)
			}
			big[1000] ^= 1 // after the checksum, before the receiver copies it
		} else {
			if err := e0.Send(1, h3, big); err != nil {
				t.Fatal(err)
			}
			// The ring from rank 0 as rank 1 maps it: frames of 144 and
			// 40 bytes, then the third frame's header and checksum.
			e1.in[0].data[144+40+transport.HeaderSize+crcExt+1000] ^= 1
		}
		fc := &failureCollector{collector: newCollector(), failed: make(chan error, 4)}
		if err := e1.Start(fc); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-fc.failed:
			var ce *transport.FrameCorruptError
			if !errors.As(err, &ce) || ce.Source != 0 || ce.Seq != 3 || ce.Kind != transport.Eager || ce.Tag != 7 || ce.Length != 4096 {
				t.Fatalf("single copy %v: failure %v, want rank 0's frame 3, eager, tag 7, 4096 bytes", single, err)
			}
			t.Logf("single copy %v: %v", single, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("single copy %v: no failure reported within 20 s", single)
		}
		fc.mu.Lock()
		if len(fc.frames) != 2 || fc.frames[0].h.Tag != 3 || fc.frames[1].h.Tag != 5 {
			t.Errorf("single copy %v: delivered %d frames, want tags 3 and 5 only", single, len(fc.frames))
		}
		fc.mu.Unlock()
		e0.Close()
		e1.Close()
	}
}
