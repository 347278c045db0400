package inmem_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// recorder is a Handler keeping every frame it gets.
type recorder struct {
	mu      sync.Mutex
	headers []transport.Header
	bodies  [][]byte
	failed  []int
}

func (r *recorder) Deliver(h transport.Header, read func([]byte) error) error {
	var body []byte
	if h.Kind != transport.RTS && h.Kind != transport.CTS && h.Length > 0 {
		body = make([]byte, h.Length)
		if err := read(body); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.headers = append(r.headers, h)
	r.bodies = append(r.bodies, body)
	return nil
}

func (r *recorder) PeerFailed(peer int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, peer)
}

func start(t *testing.T, n int) ([]transport.Endpoint, []*recorder) {
	t.Helper()
	eps := inmem.New(n)
	recs := make([]*recorder, n)
	for i, ep := range eps {
		recs[i] = new(recorder)
		if err := ep.Start(recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return eps, recs
}

// TestKill: a killed rank is reported to its peers once, and Sends to and
// from it fail.
func TestKill(t *testing.T) {
	eps, recs := start(t, 3)
	eps[2].(*inmem.Endpoint).Kill()
	eps[2].(*inmem.Endpoint).Kill()
	for _, r := range recs[:2] {
		if len(r.failed) != 1 || r.failed[0] != 2 {
			t.Errorf("PeerFailed calls %v, want [2]", r.failed)
		}
	}
	err := eps[0].Send(2, transport.Header{Kind: transport.CTS}, nil)
	var pe *transport.PeerError
	if !errors.As(err, &pe) || pe.Peer != 2 || !errors.Is(err, inmem.ErrKilled) {
		t.Errorf("Send to killed rank: %v", err)
	}
	if err := eps[2].Send(0, transport.Header{Kind: transport.CTS}, nil); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send from killed rank: %v, want ErrClosed", err)
	}
}
