//go:build linux

package shm

import (
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// orderRecorder records frames and failure reports in the order they come.
type orderRecorder struct {
	mu     sync.Mutex
	events []string
	failed chan struct{}
}

func (o *orderRecorder) Deliver(h transport.Header, read func([]byte) error) error {
	if h.Length > 0 {
		if err := read(make([]byte, h.Length)); err != nil {
			return err
		}
	}
	o.mu.Lock()
	o.events = append(o.events, h.Kind.String())
	o.mu.Unlock()
	return nil
}

func (o *orderRecorder) PeerFailed(peer int, err error) {
	o.mu.Lock()
	o.events = append(o.events, "failed")
	o.mu.Unlock()
	close(o.failed)
}

// TestExitedPeerDrained: frames a peer wrote before its process ended are
// delivered before its failure is reported (a rank that sends its last
// message and exits is not a lost message), and Sends to it fail.
func TestExitedPeerDrained(t *testing.T) {
	dir := t.TempDir()
	eps, err := NewJob(2, Options{Dir: dir, CMABytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	e0, e1 := eps[0].(*Endpoint), eps[1].(*Endpoint)
	defer e0.Close()
	for i := range 3 {
		if err := e1.Send(0, transport.Header{Kind: transport.Eager, Source: 1, Tag: int32(i), Length: 100}, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	// The process "ends" without a goodbye (e1 is never closed).
	e0.live[1].exited.Store(true)
	rec := &orderRecorder{failed: make(chan struct{})}
	if err := e0.Start(rec); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rec.failed:
	case <-time.After(10 * time.Second):
		t.Fatal("failure of the exited peer never reported")
	}
	rec.mu.Lock()
	got := rec.events
	rec.mu.Unlock()
	if len(got) != 4 || got[0] != "eager" || got[2] != "eager" || got[3] != "failed" {
		t.Errorf("events %v, want three eager frames, then the failure", got)
	}
	if err := e0.Send(1, transport.Header{Kind: transport.CTS, Source: 0}, nil); err == nil {
		t.Error("send to an exited peer: no error")
	}
}
