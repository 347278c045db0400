package tcp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// TestManyRanks builds a 16-rank mesh (120 simultaneous connects) and has
// every rank send one frame to every other.
func TestManyRanks(t *testing.T) {
	const n = 16
	eps, cols := mesh(t, n)
	for src, ep := range eps {
		for dst := range n {
			if dst != src {
				if err := ep.Send(dst, transport.Header{Kind: transport.CTS, Source: int32(src), Cookie: uint64(dst)}, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for dst, c := range cols {
		seen := map[int32]bool{}
		for range n - 1 {
			f := c.next(t)
			if f.h.Cookie != uint64(dst) || seen[f.h.Source] {
				t.Fatalf("rank %d: unexpected frame %+v", dst, f.h)
			}
			seen[f.h.Source] = true
		}
	}
}

// failingHandler rejects every frame.
type failingHandler struct{ *collector }

func (f failingHandler) Deliver(transport.Header, func([]byte) error) error {
	return errors.New("no buffer for this frame")
}

// TestHandlerError: an error from Deliver is fatal for that connection; both
// ends learn of it as a failure of the other rank.
func TestHandlerError(t *testing.T) {
	lns, addrs := listenAll(t, 2)
	eps, errs := connectAll(t.Context(), lns, addrs)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { closeAll(eps) })
	bad, good := failingHandler{newCollector(1)}, newCollector(1)
	eps[0].Start(bad)
	eps[1].Start(good)
	if err := eps[1].Send(0, transport.Header{Kind: transport.Eager, Source: 1, Length: 3}, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	for r, c := range []*collector{bad.collector, good} {
		select {
		case pe := <-c.failed:
			if pe.Peer != 1-r {
				t.Errorf("rank %d: failure of rank %d reported, want rank %d", r, pe.Peer, 1-r)
			}
			if r == 0 && !strings.Contains(pe.Error(), "no buffer for this frame") {
				t.Errorf("rank 0: %v does not carry the handler's error", pe)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("rank %d: no failure reported", r)
		}
	}
}

// TestCloseBeforeStart: an endpoint closed without ever starting still
// takes part in the orderly shutdown, and Start after Close fails.
func TestCloseBeforeStart(t *testing.T) {
	lns, addrs := listenAll(t, 2)
	eps, errs := connectAll(t.Context(), lns, addrs)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c := newCollector(1)
	eps[1].Start(c)
	closeAll(eps)
	if err := eps[0].Start(newCollector(1)); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Start after Close: got %v, want ErrClosed", err)
	}
	select {
	case pe := <-c.failed:
		t.Errorf("spurious failure: %v", pe)
	default:
	}
}
