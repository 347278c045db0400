package transporttest

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// sizes covers empty, unaligned, ring-sized and streamed payloads.
var sizes = []int{0, 1, 7, 8, 31, 4096, 4097, 16383, 16384, 32768, 65536, 300000, 1 << 20}

// orderPerSource: two sources send frames of every kind and many sizes to
// one rank; each source's frames arrive in send order, intact.
func orderPerSource(t *testing.T, newJob NewJob) {
	eps, recs := start(t, newJob, 3)
	var wg sync.WaitGroup
	for _, src := range []int{0, 2} {
		wg.Go(func() {
			for i, n := range sizes {
				if err := send(eps[src], 1, eager(src, i, n), pattern(n, src*100+i)); err != nil {
					t.Errorf("rank %d: send %d bytes: %v", src, n, err)
					return
				}
				rts := transport.Header{Kind: transport.RTS, Source: int32(src), Tag: int32(i), Length: 1 << 40, Cookie: uint64(i)}
				if err := eps[src].Send(1, rts, nil); err != nil {
					t.Errorf("rank %d: send RTS: %v", src, err)
					return
				}
			}
		})
	}
	wg.Wait()
	next := map[int32]int{}
	for range 4 * len(sizes) {
		f := recs[1].next(t)
		src := f.h.Source
		i := next[src] / 2
		if next[src]%2 == 1 {
			if f.h.Kind != transport.RTS || f.h.Length != 1<<40 || f.h.Cookie != uint64(i) || f.payload != nil {
				t.Fatalf("from rank %d: frame %d is %+v, want the RTS with cookie %d", src, next[src], f.h, i)
			}
		} else if f.h.Kind != transport.Eager || int(f.h.Tag) != i || f.h.Context != 3 || !bytes.Equal(f.payload, pattern(sizes[i], int(src)*100+i)) {
			t.Fatalf("from rank %d: frame %d: %+v with %d payload bytes; want eager tag %d with the %d bytes sent", src, next[src], f.h, len(f.payload), i, sizes[i])
		}
		next[src]++
	}
}

// concurrentSenders: goroutines of one rank send to one destination at
// once; frames of different calls never interleave and each goroutine's
// frames keep their order.
func concurrentSenders(t *testing.T, newJob NewJob) {
	const goroutines, each = 4, 50
	eps, recs := start(t, newJob, 2)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				n := 1000 + 997*g + 13*i
				if err := send(eps[0], 1, eager(0, g*each+i, n), pattern(n, g*each+i)); err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	last := make([]int, goroutines)
	for i := range last {
		last[i] = -1
	}
	for range goroutines * each {
		f := recs[1].next(t)
		tag := int(f.h.Tag)
		g, i := tag/each, tag%each
		if n := 1000 + 997*g + 13*i; !bytes.Equal(f.payload, pattern(n, tag)) {
			t.Fatalf("frame tag %d: payload of %d bytes damaged (frames interleaved?)", tag, len(f.payload))
		}
		if i <= last[g] {
			t.Fatalf("goroutine %d: frame %d after frame %d", g, i, last[g])
		}
		last[g] = i
	}
}

// payloadOwnership: once a send has completed the sender may overwrite its
// buffer, and once Deliver has returned the transport no longer writes the
// buffer it read into; neither shows in what was received.
func payloadOwnership(t *testing.T, newJob NewJob) {
	eps, recs := start(t, newJob, 2)
	var received [][]byte
	for i, n := range []int{64, 20000, 70000, 1 << 20} {
		buf := pattern(n, i)
		if err := send(eps[0], 1, eager(0, i, n), buf); err != nil {
			t.Fatal(err)
		}
		for j := range buf {
			buf[j] = ^buf[j]
		}
		received = append(received, recs[1].next(t).payload)
	}
	// More traffic after every Deliver returned: it must not reach the
	// buffers already handed out.
	for i := range 20 {
		if err := send(eps[0], 1, eager(0, 100+i, 70000), make([]byte, 70000)); err != nil {
			t.Fatal(err)
		}
		recs[1].next(t)
	}
	for i, n := range []int{64, 20000, 70000, 1 << 20} {
		if !bytes.Equal(received[i], pattern(n, i)) {
			t.Errorf("frame %d (%d bytes) changed after its send completed or its Deliver returned", i, n)
		}
	}
}

// largeBothWays: two ranks send frames far larger than any internal buffer
// to each other at the same time; neither waits for the other forever.
func largeBothWays(t *testing.T, newJob NewJob) {
	const n = 2 << 20
	eps, recs := start(t, newJob, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := range 2 {
				if err := send(eps[r], 1-r, eager(r, i, n), pattern(n, 10*r+i)); err != nil {
					t.Errorf("rank %d: send %d: %v", r, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for r := range 2 {
		for i := range 2 {
			f := recs[r].next(t)
			if int(f.h.Tag) != i || !bytes.Equal(f.payload, pattern(n, 10*(1-r)+i)) {
				t.Fatalf("rank %d: frame %d: tag %d, %d bytes: wrong frame or damaged payload", r, i, f.h.Tag, len(f.payload))
			}
		}
	}
}

// startedSends: a transport.SendStarter calls every pending completion
// exactly once, in a job where the receiver reads everything, and every
// send shorter than its DeferFrom is done when StartSend returns.
func startedSends(t *testing.T, newJob NewJob) {
	eps, recs := start(t, newJob, 2)
	s, ok := eps[0].(transport.SendStarter)
	if !ok {
		t.Skipf("%T does not start sends that complete later (transport.SendStarter)", eps[0])
	}
	deferFrom := s.DeferFrom()
	if deferFrom < 0 {
		t.Fatalf("DeferFrom() = %d, want >= 0", deferFrom)
	}
	var cs []*completion
	for i, n := range sizes {
		c := newCompletion()
		done, err := s.StartSend(1, eager(0, i, n), pattern(n, i), c)
		if err != nil {
			t.Fatalf("StartSend of %d bytes: %v", n, err)
		}
		if !done {
			if n < deferFrom {
				t.Errorf("StartSend of %d bytes pending, but DeferFrom() = %d says it completes at once", n, deferFrom)
			}
			cs = append(cs, c)
		}
	}
	for i, n := range sizes {
		if f := recs[1].next(t); int(f.h.Tag) != i || !bytes.Equal(f.payload, pattern(n, i)) {
			t.Fatalf("frame %d: tag %d, %d bytes: wrong frame or damaged payload", i, f.h.Tag, len(f.payload))
		}
	}
	for _, c := range cs {
		if err := c.wait(eps[0]); err != nil {
			t.Errorf("started send completed with %v", err)
		}
	}
	time.Sleep(10 * time.Millisecond) // a second call would come now
	for _, c := range cs {
		if n, _ := c.count(); n != 1 {
			t.Errorf("completion called %d times, want once", n)
		}
	}
}

// closeSemantics: Close is idempotent; Sends after it fail with ErrClosed;
// the peers' Sends to it start failing with a *transport.PeerError and no
// failure is reported for an orderly close.
func closeSemantics(t *testing.T, newJob NewJob) {
	eps, recs := start(t, newJob, 3)
	if err := eps[0].Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := eps[0].Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := eps[0].Send(1, eager(0, 0, 4), make([]byte, 4)); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send after Close: %v, want ErrClosed", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err := eps[1].Send(0, transport.Header{Kind: transport.CTS, Source: 1}, nil)
		if err != nil {
			var pe *transport.PeerError
			if !errors.As(err, &pe) || pe.Peer != 0 {
				t.Errorf("Send to a closed peer: %v, want a *transport.PeerError for rank 0", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Sends to a closed peer keep succeeding")
		}
		time.Sleep(time.Millisecond)
	}
	if err := eps[1].Send(2, eager(1, 7, 100), pattern(100, 7)); err != nil {
		t.Errorf("rank 1 to rank 2 after rank 0 closed: %v", err)
	}
	if f := recs[2].next(t); f.h.Tag != 7 {
		t.Errorf("rank 2 got %+v, want rank 1's frame with tag 7", f.h)
	}
	for r, rec := range recs {
		select {
		case pe := <-rec.failed:
			t.Errorf("rank %d: failure reported after an orderly close: %v", r, pe)
		default:
		}
	}
}

// peerFailure: a rank that dies without closing is reported once to its
// peers as a *transport.PeerError, Sends to it fail, other peers still work.
func peerFailure(t *testing.T, newJob NewJob) {
	eps, recs := start(t, newJob, 3)
	k, ok := eps[1].(Killer)
	if !ok {
		t.Fatalf("%T has no Kill (transporttest.Killer): the suite cannot make it fail as a crashed process does", eps[1])
	}
	k.Kill()
	for _, r := range []int{0, 2} {
		select {
		case pe := <-recs[r].failed:
			if pe.Peer != 1 {
				t.Errorf("rank %d: failure of %v, want rank 1", r, pe)
			}
		case <-time.After(timeout):
			t.Fatalf("rank %d: rank 1's failure not reported", r)
		}
	}
	var pe *transport.PeerError
	if err := eps[0].Send(1, transport.Header{Kind: transport.CTS}, nil); !errors.As(err, &pe) || pe.Peer != 1 {
		t.Errorf("Send to the failed rank 1: %v, want a *transport.PeerError for rank 1", err)
	}
	if err := eps[0].Send(2, eager(0, 9, 10), pattern(10, 9)); err != nil {
		t.Errorf("Send to live rank 2: %v", err)
	}
	if f := recs[2].next(t); f.h.Tag != 9 {
		t.Errorf("rank 2 got %+v, want tag 9", f.h)
	}
	select {
	case pe := <-recs[0].failed:
		t.Errorf("rank 0: a second failure report: %v", pe)
	default:
	}
}

// badSends: sends to itself, to ranks outside the job and with a payload
// length other than the header's fail at once.
func badSends(t *testing.T, newJob NewJob) {
	eps, _ := start(t, newJob, 2)
	for _, dst := range []int{-1, 0, 2} {
		if err := eps[0].Send(dst, eager(0, 0, 4), make([]byte, 4)); err == nil {
			t.Errorf("Send from rank 0 to %d: no error", dst)
		}
	}
	if err := eps[0].Send(1, eager(0, 0, 4), make([]byte, 3)); err == nil {
		t.Error("Send with header length 4 and 3 payload bytes: no error")
	}
}
