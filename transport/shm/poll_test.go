//go:build linux

package shm

import (
	"sync"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// sourceRecorder records the source rank of every frame delivered.
type sourceRecorder struct {
	mu      sync.Mutex
	sources []int
}

func (s *sourceRecorder) Deliver(h transport.Header, read func([]byte) error) error {
	s.mu.Lock()
	s.sources = append(s.sources, int(h.Source))
	s.mu.Unlock()
	return nil
}

func (s *sourceRecorder) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sources)
}

// TestPollRotates: with 4 ranks all sending to rank 0 (their rings full
// of frames), a goroutine of rank 0 that polls until one more frame has
// come (as a blocking receive does) is served by each sender in turn: of
// the first 3k frames, each sender's k. With every pass starting at the
// lowest-ranked sender's ring, rank 1 alone was served as long as its
// ring held a frame.
func TestPollRotates(t *testing.T) {
	const ranks, perSender, served = 4, 30, 45
	eps, err := NewJob(ranks, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		defer ep.Close()
	}
	for r := 1; r < ranks; r++ {
		for i := range perSender {
			h := transport.Header{Kind: transport.Eager, Source: int32(r), Tag: int32(i)}
			if err := eps[r].Send(0, h, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Rank 0's poller goroutine is not started (no Start), so the test's
	// polls alone consume the rings, each until one frame more came.
	e0 := eps[0].(*Endpoint)
	rec := &sourceRecorder{}
	e0.h = rec
	for want := 1; want <= served; want++ {
		if n := e0.tryPollUntil(func() bool { return rec.count() >= want }); n != 1 {
			t.Fatalf("poll %d delivered %d frames, want 1", want, n)
		}
	}
	share := make([]int, ranks)
	for _, s := range rec.sources {
		share[s]++
	}
	for r := 1; r < ranks; r++ {
		if share[r] != served/(ranks-1) {
			t.Errorf("rank %d: %d of the first %d frames served, want %d (shares by rank %v, order %v)",
				r, share[r], served, served/(ranks-1), share, rec.sources)
		}
	}
}
