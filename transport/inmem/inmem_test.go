package inmem_test

import (
	"bytes"
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

// TestOrderAndCopy: frames from each source arrive in send order with
// their payloads, and the payload was copied (the sender may reuse its
// buffer when Send returns).
func TestOrderAndCopy(t *testing.T) {
	eps, recs := start(t, 3)
	if eps[1].Rank() != 1 || eps[1].Size() != 3 {
		t.Fatalf("rank %d size %d", eps[1].Rank(), eps[1].Size())
	}
	var wg sync.WaitGroup
	for _, src := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 3)
			for i := range 100 {
				buf[0], buf[1], buf[2] = byte(src), byte(i), 0xAB
				h := transport.Header{Kind: transport.Eager, Source: int32(src), Tag: int32(i), Length: 3}
				if err := eps[src].Send(0, h, buf); err != nil {
					t.Error(err)
					return
				}
				buf[2] = 0 // reuse
			}
		}()
	}
	wg.Wait()
	next := map[int32]int32{}
	for i, h := range recs[0].headers {
		if h.Tag != next[h.Source] {
			t.Fatalf("from rank %d: tag %d, want %d", h.Source, h.Tag, next[h.Source])
		}
		next[h.Source]++
		if want := []byte{byte(h.Source), byte(h.Tag), 0xAB}; !bytes.Equal(recs[0].bodies[i], want) {
			t.Fatalf("frame %d: payload %v, want %v", i, recs[0].bodies[i], want)
		}
	}
	if next[1] != 100 || next[2] != 100 {
		t.Fatalf("got %v frames per source", next)
	}
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

// TestBadSends: invalid destinations and length mismatches are refused.
func TestBadSends(t *testing.T) {
	eps, _ := start(t, 2)
	h := transport.Header{Kind: transport.Eager, Length: 4}
	for _, dst := range []int{-1, 0, 2} {
		if err := eps[0].Send(dst, h, make([]byte, 4)); err == nil {
			t.Errorf("Send to %d succeeded", dst)
		}
	}
	if err := eps[0].Send(1, h, make([]byte, 3)); err == nil {
		t.Error("Send with Length 4 and 3 payload bytes succeeded")
	}
	if err := eps[0].Close(); err != nil {
		t.Fatal(err)
	}
	if err := eps[0].Send(1, h, make([]byte, 4)); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if err := eps[1].Send(0, h, make([]byte, 4)); err == nil {
		t.Error("Send to a closed endpoint succeeded")
	}
}
