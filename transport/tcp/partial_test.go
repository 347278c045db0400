package tcp

import (
	"sync"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestLeftOutPeers: ranks 0 and 1 leave each other out (another transport
// joins them); both still connect to rank 2, frames flow on the pairs that
// exist, and a Send on the missing pair fails at once.
func TestLeftOutPeers(t *testing.T) {
	lns, addrs := listenAll(t, 3)
	views := [][]string{
		{addrs[0], "", addrs[2]},
		{"", addrs[1], addrs[2]},
		addrs,
	}
	eps := make([]*Endpoint, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r, ln := range lns {
		wg.Go(func() { eps[r], errs[r] = ln.Connect(t.Context(), views[r]) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() { closeAll(eps) })
	cols := make([]*collector, 3)
	for r, ep := range eps {
		cols[r] = newCollector(4)
		ep.Start(cols[r])
	}
	for src := range 2 {
		if err := eps[src].Send(2, transport.Header{Kind: transport.CTS, Source: int32(src), Cookie: 7}, nil); err != nil {
			t.Fatalf("rank %d to 2: %v", src, err)
		}
		if err := eps[2].Send(src, transport.Header{Kind: transport.CTS, Source: 2, Cookie: uint64(src)}, nil); err != nil {
			t.Fatalf("rank 2 to %d: %v", src, err)
		}
		if f := cols[src].next(t); f.h.Source != 2 || f.h.Cookie != uint64(src) {
			t.Errorf("rank %d got %+v, want rank 2's frame", src, f.h)
		}
	}
	for range 2 {
		if f := cols[2].next(t); f.h.Cookie != 7 {
			t.Errorf("rank 2 got %+v", f.h)
		}
	}
	if err := eps[0].Send(1, transport.Header{Kind: transport.CTS}, nil); err == nil {
		t.Error("send on a left-out pair: no error")
	}
}
