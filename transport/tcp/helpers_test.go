package tcp

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// frame is a delivered frame with its payload copied out.
type frame struct {
	h       transport.Header
	payload []byte
}

// collector is a Handler that queues every frame and peer failure.
type collector struct {
	frames chan frame
	failed chan *transport.PeerError
}

func newCollector(depth int) *collector {
	return &collector{frames: make(chan frame, depth), failed: make(chan *transport.PeerError, 16)}
}

func (c *collector) Deliver(h transport.Header, read func([]byte) error) error {
	var p []byte
	if carriesPayload(h.Kind) && h.Length > 0 {
		p = make([]byte, h.Length)
		if err := read(p); err != nil {
			return err
		}
	}
	c.frames <- frame{h, p}
	return nil
}

func (c *collector) PeerFailed(peer int, err error) {
	pe, _ := err.(*transport.PeerError)
	if pe == nil || pe.Peer != peer {
		pe = &transport.PeerError{Peer: -1, Err: err}
	}
	c.failed <- pe
}

// next returns the next frame or fails the test after a timeout.
func (c *collector) next(t testing.TB) frame {
	t.Helper()
	select {
	case f := <-c.frames:
		return f
	case pe := <-c.failed:
		t.Fatalf("peer failure instead of a frame: %v", pe)
	case <-time.After(20 * time.Second):
		t.Fatal("no frame within 20 s")
	}
	return frame{}
}

// listenAll binds n listeners with the given secrets (nil: testSecret).
func listenAll(t testing.TB, n int, secrets ...[]byte) ([]*Listener, []string) {
	t.Helper()
	lns := make([]*Listener, n)
	addrs := make([]string, n)
	for r := range n {
		s := testSecret
		if r < len(secrets) && secrets[r] != nil {
			s = secrets[r]
		}
		ln, err := Listen(Options{Rank: r, Size: n, Secret: s, CloseTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		lns[r], addrs[r] = ln, ln.Addr()
	}
	return lns, addrs
}

// connectAll runs Connect on every listener concurrently.
func connectAll(ctx context.Context, lns []*Listener, addrs []string) ([]*Endpoint, []error) {
	eps := make([]*Endpoint, len(lns))
	errs := make([]error, len(lns))
	var wg sync.WaitGroup
	for r, ln := range lns {
		wg.Go(func() { eps[r], errs[r] = ln.Connect(ctx, addrs) })
	}
	wg.Wait()
	return eps, errs
}

// mesh builds an n-rank job over loopback with a collector on every rank;
// the endpoints are closed (concurrently, as ranks of a job do) at cleanup.
func mesh(t testing.TB, n int) ([]*Endpoint, []*collector) {
	t.Helper()
	lns, addrs := listenAll(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	eps, errs := connectAll(ctx, lns, addrs)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	cols := make([]*collector, n)
	for r, ep := range eps {
		cols[r] = newCollector(4096)
		if err := ep.Start(cols[r]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { closeAll(eps) })
	return eps, cols
}

func closeAll(eps []*Endpoint) {
	var wg sync.WaitGroup
	for _, ep := range eps {
		if ep != nil {
			wg.Go(func() { ep.Close() })
		}
	}
	wg.Wait()
}

// pattern fills b with bytes derived from seed.
func pattern(b []byte, seed int) {
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
}
