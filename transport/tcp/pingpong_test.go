package tcp

import (
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// echoHandler reads each payload into a reused buffer and signals arrival.
type echoHandler struct {
	buf []byte
	got chan transport.Header
}

func (e *echoHandler) Deliver(h transport.Header, read func([]byte) error) error {
	if carriesPayload(h.Kind) && h.Length > 0 {
		if err := read(e.buf[:h.Length]); err != nil {
			return err
		}
	}
	e.got <- h
	return nil
}

// pingPongPair builds a 2-rank mesh whose rank 1 echoes every frame back
// with the same length; it returns rank 0 and its handler.
func pingPongPair(tb testing.TB, maxBytes int) (*Endpoint, *echoHandler) {
	tb.Helper()
	lns, addrs := listenAll(tb, 2)
	eps, errs := connectAll(tb.Context(), lns, addrs)
	for r, err := range errs {
		if err != nil {
			tb.Fatalf("rank %d: %v", r, err)
		}
	}
	hs := []*echoHandler{{make([]byte, maxBytes), make(chan transport.Header, 1)}, {make([]byte, maxBytes), make(chan transport.Header, 1)}}
	for r, ep := range eps {
		if err := ep.Start(hs[r]); err != nil {
			tb.Fatal(err)
		}
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case h := <-hs[1].got:
				h.Source = 1
				if eps[1].Send(0, h, hs[1].buf[:h.Length]) != nil {
					return
				}
			case <-stop:
				return
			}
		}
	}()
	tb.Cleanup(func() { close(stop); closeAll(eps) })
	return eps[0], hs[0]
}

// TestRoundTripAllocs checks that a round trip of a 100-byte frame (Send,
// both readers, both deliveries) allocates nothing.
func TestRoundTripAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ep, h := pingPongPair(t, 100)
	p := make([]byte, 100)
	hdr := transport.Header{Kind: transport.Eager, Length: 100}
	allocs := testing.AllocsPerRun(200, func() {
		if err := ep.Send(1, hdr, p); err != nil {
			t.Fatal(err)
		}
		<-h.got
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per round trip, want 0", allocs)
	}
}

// BenchmarkPingPong measures the round trip of one frame and its echo over
// loopback (ns/op is the round-trip time; MB/s counts both directions'
// payload, 1 MB = 10^6 bytes).
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{0, 1 << 20} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			ep, h := pingPongPair(b, size)
			p := make([]byte, size)
			hdr := transport.Header{Kind: transport.Eager, Length: uint64(size)}
			b.SetBytes(2 * int64(size))
			for b.Loop() {
				if err := ep.Send(1, hdr, p); err != nil {
					b.Fatal(err)
				}
				<-h.got
			}
		})
	}
}
