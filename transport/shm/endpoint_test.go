//go:build linux

package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// collector is a Handler that records every frame with its payload.
type collector struct {
	mu     sync.Mutex
	frames []frame
	got    chan struct{}
}

type frame struct {
	h       transport.Header
	payload []byte
}

func newCollector() *collector { return &collector{got: make(chan struct{}, 1<<16)} }

func (c *collector) Deliver(h transport.Header, read func([]byte) error) error {
	var p []byte
	if carriesPayload(h.Kind) && h.Length > 0 {
		p = make([]byte, h.Length)
		if err := read(p); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.frames = append(c.frames, frame{h, p})
	c.mu.Unlock()
	c.got <- struct{}{}
	return nil
}

func (c *collector) wait(t *testing.T, n int) []frame {
	t.Helper()
	for range n {
		select {
		case <-c.got:
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting for %d frames", n)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]frame(nil), c.frames...)
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func newJob(t *testing.T, n int, o Options) ([]*Endpoint, []*collector) {
	t.Helper()
	o.Dir = t.TempDir()
	eps, err := NewJob(n, o)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(o.Dir, "*")); len(left) != 0 {
		t.Errorf("segment files left after attach: %v", left)
	}
	out := make([]*Endpoint, n)
	cs := make([]*collector, n)
	for i, ep := range eps {
		out[i] = ep.(*Endpoint)
		cs[i] = newCollector()
		if err := ep.Start(cs[i]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, ep := range out {
			ep.Close()
		}
	})
	return out, cs
}

// TestDiscardedPayload: a Handler that does not read still leaves the
// stream in step and acknowledges a single-copy frame.
func TestDiscardedPayload(t *testing.T) {
	dir := t.TempDir()
	eps, err := NewJob(2, Options{Dir: dir, RingBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer eps[0].Close()
	defer eps[1].Close()
	var mu sync.Mutex
	var tags []int32
	done := make(chan struct{})
	h := handlerFunc(func(h transport.Header, read func([]byte) error) error {
		mu.Lock()
		defer mu.Unlock()
		tags = append(tags, h.Tag)
		if len(tags) == 3 {
			close(done)
		}
		return nil
	})
	eps[0].Start(newCollector())
	eps[1].Start(h)
	for i, n := range []int{100, 40000, 10} {
		if err := eps[0].Send(1, transport.Header{Kind: transport.Eager, Source: 0, Tag: int32(i), Length: uint64(n)}, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("frames after a discarded payload never arrived")
	}
	if fmt.Sprint(tags) != "[0 1 2]" {
		t.Errorf("tags %v, want [0 1 2]", tags)
	}
}

type handlerFunc func(transport.Header, func([]byte) error) error

func (f handlerFunc) Deliver(h transport.Header, read func([]byte) error) error { return f(h, read) }

func asPeerError(err error, pe **transport.PeerError) bool {
	p, ok := err.(*transport.PeerError)
	*pe = p
	return ok
}

// TestRemoveJob removes a crashed start-up's files and only the job's.
func TestRemoveJob(t *testing.T) {
	dir := t.TempDir()
	secret := []byte("s1")
	p, err := Prepare(Options{Rank: 0, Size: 2, Secret: secret, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, JobPrefix([]byte("s2"))+"0")
	os.WriteFile(other, nil, 0o600)
	removed, err := RemoveJob(dir, secret)
	if err != nil || len(removed) != 1 || removed[0] != p.Path() {
		t.Fatalf("RemoveJob = %v, %v; want [%s]", removed, err, p.Path())
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another job's file was removed: %v", err)
	}
}

// TestOptions rejects bad ring sizes and ranks.
func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{Rank: 0, Size: 2, Secret: []byte("x"), RingBytes: 5000},
		{Rank: 0, Size: 2, Secret: []byte("x"), RingBytes: 1024},
		{Rank: 2, Size: 2, Secret: []byte("x")},
		{Rank: 0, Size: 2},
	} {
		o.Dir = t.TempDir()
		if _, err := Prepare(o); err == nil {
			t.Errorf("Prepare(%+v): no error", o)
		}
	}
}
