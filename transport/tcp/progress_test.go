package tcp

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// TestProgressReadsOnCaller: while a goroutine of the rank polls (fg > 0),
// the poller goroutine stays quiet, so a frame that arrives is read and
// delivered by a Progress call and by nothing else.
func TestProgressReadsOnCaller(t *testing.T) {
	eps, cols := mesh(t, 2)
	e := eps[0]
	e.fg.Add(1) // as if a Progress call were polling: the poller stays quiet
	// Two quiet sleeps begun after fg rose (the first may have been
	// decided before): the poller saw fg up, is past any read it had
	// begun before and looks at fg again before the next one.
	for n, deadline := e.quietN.Load(), time.Now().Add(10*time.Second); e.quietN.Load() <= n+1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the poller began no quiet sleep within 10 s of a Progress call")
		}
	}
	if err := eps[1].Send(0, transport.Header{Kind: transport.CTS, Source: 1, Cookie: 7}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-cols[0].frames:
		t.Fatalf("frame %+v delivered while the rank polled but did not call Progress", f.h)
	case <-time.After(50 * time.Millisecond):
	}
	got := func() bool { return len(cols[0].frames) > 0 }
	deadline := time.Now().Add(10 * time.Second)
	for !got() && time.Now().Before(deadline) {
		e.Progress(got)
	}
	e.fg.Add(-1)
	if f := cols[0].next(t); f.h.Kind != transport.CTS || f.h.Cookie != 7 {
		t.Fatalf("got %+v, want rank 1's CTS with cookie 7", f.h)
	}
}

// TestBothWaysFullBuffers: two ranks send each other frames far larger than
// their (small) socket buffers at the same time; each Send waits for room
// while its rank's poller goroutine reads what the other sends, so both
// complete and every payload arrives whole.
func TestBothWaysFullBuffers(t *testing.T) {
	lns := make([]*Listener, 2)
	addrs := make([]string, 2)
	for r := range lns {
		ln, err := Listen(Options{Rank: r, Size: 2, Secret: testSecret, SocketBufferBytes: 64 << 10, CloseTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		lns[r], addrs[r] = ln, ln.Addr()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	eps, errs := connectAll(ctx, lns, addrs)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	defer closeAll(eps)
	cols := []*collector{newCollector(16), newCollector(16)}
	for r, ep := range eps {
		if err := ep.Start(cols[r]); err != nil {
			t.Fatal(err)
		}
	}
	const frames, size = 4, 4 << 20
	payloads := make([][]byte, 2)
	for r := range payloads {
		payloads[r] = make([]byte, size)
		pattern(payloads[r], r)
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	for r, ep := range eps {
		wg.Go(func() {
			for i := range frames {
				h := transport.Header{Kind: transport.Eager, Source: int32(r), Tag: int32(i), Length: size}
				if err := ep.Send(1-r, h, payloads[r]); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	for r, c := range cols {
		for i := range frames {
			f := c.next(t)
			if f.h.Tag != int32(i) || !bytes.Equal(f.payload, payloads[1-r]) {
				t.Fatalf("rank %d, frame %d: got tag %d and a damaged or missing payload", r, i, f.h.Tag)
			}
		}
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
}
