// Package transporttest is the conformance suite every transport passes:
// per-source order, concurrent senders, payload ownership, large frames in
// both directions at once, started sends (transport.SendStarter), invalid
// sends, close semantics and peer failure. Package transport/all's
// TestConformance runs it on every registered transport, over the
// in-process jobs of its driver (transport.Driver.NewJob), so a registered
// transport is tested with nothing to add; a transport's own tests may run
// it again on other configurations, with a function that connects the
// ranks of a job in one process:
//
//	transporttest.Run(t, func(n int) ([]transport.Endpoint, error) { return shm.NewJob(n, shm.Options{CMABytes: -1}) })
//
// The contract itself is documented on transport.Endpoint, transport.Handler,
// transport.SendStarter and transport.FailureHandler.
package transporttest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// NewJob returns n connected endpoints of one job (endpoint i has rank i),
// not yet started.
type NewJob func(n int) ([]transport.Endpoint, error)

// Killer is implemented by every transport's endpoints: Kill makes the
// rank fail as a crashed process does (no goodbye to any peer, nothing
// sent or delivered after it), which its peers must detect and report
// (the suite's PeerFailure; an endpoint without Kill fails it).
type Killer interface{ Kill() }

// timeout bounds every wait of the suite: generous, for loaded machines
// running the race detector.
const timeout = 60 * time.Second

// Run runs the suite as subtests of t.
func Run(t *testing.T, newJob NewJob) {
	t.Run("OrderPerSource", func(t *testing.T) { orderPerSource(t, newJob) })
	t.Run("ConcurrentSenders", func(t *testing.T) { concurrentSenders(t, newJob) })
	t.Run("PayloadOwnership", func(t *testing.T) { payloadOwnership(t, newJob) })
	t.Run("LargeFramesBothWays", func(t *testing.T) { largeBothWays(t, newJob) })
	t.Run("StartedSends", func(t *testing.T) { startedSends(t, newJob) })
	t.Run("BadSends", func(t *testing.T) { badSends(t, newJob) })
	t.Run("Close", func(t *testing.T) { closeSemantics(t, newJob) })
	t.Run("PeerFailure", func(t *testing.T) { peerFailure(t, newJob) })
}

// frame is a delivered frame with its payload copied out.
type frame struct {
	h       transport.Header
	payload []byte
}

// recorder is a Handler that queues frames and peer failures.
type recorder struct {
	frames chan frame
	failed chan *transport.PeerError
}

func newRecorder() *recorder {
	return &recorder{frames: make(chan frame, 1<<14), failed: make(chan *transport.PeerError, 64)}
}

func (r *recorder) Deliver(h transport.Header, read func([]byte) error) error {
	var p []byte
	if carriesPayload(h.Kind) && h.Length > 0 {
		p = make([]byte, h.Length)
		if err := read(p); err != nil {
			return err
		}
	}
	r.frames <- frame{h, p}
	return nil
}

func (r *recorder) PeerFailed(peer int, err error) {
	pe, ok := err.(*transport.PeerError)
	if !ok || pe.Peer != peer {
		pe = &transport.PeerError{Peer: -1, Err: fmt.Errorf("PeerFailed(%d, %v): want a *transport.PeerError for that peer", peer, err)}
	}
	r.failed <- pe
}

// next returns the next frame, failing t after timeout or on a failure report.
func (r *recorder) next(t *testing.T) frame {
	t.Helper()
	select {
	case f := <-r.frames:
		return f
	case pe := <-r.failed:
		t.Fatalf("peer failure instead of a frame: %v", pe)
	case <-time.After(timeout):
		t.Fatalf("no frame within %v", timeout)
	}
	return frame{}
}

func carriesPayload(k transport.Kind) bool {
	return k == transport.Eager || k == transport.Data || k == transport.Control
}

// start makes a job of n ranks with a recorder each, closed at cleanup.
func start(t *testing.T, newJob NewJob, n int) ([]transport.Endpoint, []*recorder) {
	t.Helper()
	eps, err := newJob(n)
	if err != nil {
		t.Fatalf("job of %d ranks: %v", n, err)
	}
	if len(eps) != n {
		t.Fatalf("job of %d ranks has %d endpoints", n, len(eps))
	}
	recs := make([]*recorder, n)
	for i, ep := range eps {
		if ep.Rank() != i || ep.Size() != n {
			t.Fatalf("endpoint %d is rank %d of %d, want %d of %d", i, ep.Rank(), ep.Size(), i, n)
		}
		recs[i] = newRecorder()
		if err := ep.Start(recs[i]); err != nil {
			t.Fatalf("rank %d: Start: %v", i, err)
		}
	}
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, ep := range eps {
			wg.Go(func() { ep.Close() })
		}
		wg.Wait()
	})
	return eps, recs
}

// pattern returns n bytes that differ with seed.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// eager is an Eager header from src with tag for a payload of n bytes.
func eager(src, tag, n int) transport.Header {
	return transport.Header{Kind: transport.Eager, Context: 3, Source: int32(src), Tag: int32(tag), Length: uint64(n)}
}

// send sends a frame and waits until its payload may be reused, driving
// progress if the endpoint starts sends that complete later.
func send(ep transport.Endpoint, dst int, h transport.Header, p []byte) error {
	s, ok := ep.(transport.SendStarter)
	if !ok {
		return ep.Send(dst, h, p)
	}
	c := newCompletion()
	done, err := s.StartSend(dst, h, p, c)
	if done || err != nil {
		return err
	}
	return c.wait(ep)
}

// completion is a transport.Completion that counts its calls.
type completion struct {
	mu    sync.Mutex
	calls int
	err   error
	ch    chan struct{}
}

func newCompletion() *completion { return &completion{ch: make(chan struct{}, 1)} }

func (c *completion) SendDone(err error) {
	c.mu.Lock()
	c.calls++
	c.err = err
	c.mu.Unlock()
	select {
	case c.ch <- struct{}{}:
	default:
	}
}

func (c *completion) count() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, c.err
}

// wait drives ep's progress (if it has any to drive) until c is called;
// it returns the send's error, or one saying it never completed.
func (c *completion) wait(ep transport.Endpoint) error {
	deadline := time.Now().Add(timeout)
	done := func() bool { n, _ := c.count(); return n > 0 }
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("started send not completed within %v", timeout)
		}
		if p, ok := ep.(transport.Progresser); ok {
			p.Progress(done)
		}
		select {
		case <-c.ch:
		case <-time.After(time.Millisecond):
		}
	}
	_, err := c.count()
	return err
}
