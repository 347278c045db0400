package hybrid

import (
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// recorder records the sources of delivered frames.
type recorder struct {
	mu   sync.Mutex
	srcs []int32
	got  chan struct{}
}

func (r *recorder) Deliver(h transport.Header, read func([]byte) error) error {
	r.mu.Lock()
	r.srcs = append(r.srcs, h.Source)
	r.mu.Unlock()
	r.got <- struct{}{}
	return nil
}

// TestRoutes: three ranks, 0 and 1 joined by job A, every pair with 2 by
// job B; each Send takes its route and arrives once.
func TestRoutes(t *testing.T) {
	a, b := inmem.New(3), inmem.New(3)
	routes := [][]int{{0, 0, 1}, {0, 0, 1}, {1, 1, 1}}
	eps := make([]*Endpoint, 3)
	recs := make([]*recorder, 3)
	for r := range 3 {
		ep, err := New(r, 3, []Part{{"a", a[r]}, {"b", b[r]}}, routes[r])
		if err != nil {
			t.Fatal(err)
		}
		eps[r] = ep
		recs[r] = &recorder{got: make(chan struct{}, 8)}
		if err := ep.Start(recs[r]); err != nil {
			t.Fatal(err)
		}
	}
	if eps[0].Name() != "a+b" || eps[2].Name() != "b" {
		t.Errorf("names %q, %q; want a+b and b (rank 2 uses only b)", eps[0].Name(), eps[2].Name())
	}
	for src := range 3 {
		for dst := range 3 {
			if src != dst {
				if err := eps[src].Send(dst, transport.Header{Kind: transport.CTS, Source: int32(src)}, nil); err != nil {
					t.Fatalf("%d to %d: %v", src, dst, err)
				}
			}
		}
	}
	for r, rec := range recs {
		for range 2 {
			select {
			case <-rec.got:
			case <-time.After(20 * time.Second):
				t.Fatalf("rank %d: frames missing, got from %v", r, rec.srcs)
			}
		}
		if len(rec.srcs) != 2 {
			t.Errorf("rank %d got frames from %v, want 2", r, rec.srcs)
		}
	}
	if err := eps[0].Send(0, transport.Header{Kind: transport.CTS}, nil); err == nil {
		t.Error("send to self: no error")
	}
	for _, ep := range eps {
		ep.Close()
	}
}

// TestBadRoutes rejects a route table of the wrong length or to a missing
// part.
func TestBadRoutes(t *testing.T) {
	a := inmem.New(2)
	if _, err := New(0, 2, []Part{{"a", a[0]}}, []int{0}); err == nil {
		t.Error("short route table: no error")
	}
	if _, err := New(0, 2, []Part{{"a", a[0]}}, []int{0, 3}); err == nil {
		t.Error("route to part 3 of 1: no error")
	}
}
