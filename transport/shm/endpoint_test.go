package shm

import (
	"bytes"
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

// TestFramesInOrder sends frames of every kind and many sizes, including
// payloads many times the ring that must be streamed, and checks order and
// content, with and without single copy.
func TestFramesInOrder(t *testing.T) {
	sizes := []int{0, 1, 7, 8, 31, 4096, 4097, 16383, 16384, 65536, 300000, 1 << 20}
	for _, cma := range []int{-1, 0} {
		t.Run(fmt.Sprintf("cma%d", cma), func(t *testing.T) {
			eps, cs := newJob(t, 3, Options{RingBytes: 16 << 10, CMABytes: cma})
			if got := eps[1].SingleCopy(0); got != (cma == 0) {
				t.Logf("single copy from rank 0: %v (process_vm_readv permitted here?)", got)
			}
			var wg sync.WaitGroup
			for src := range 3 {
				if src == 1 {
					continue
				}
				wg.Go(func() {
					for i, n := range sizes {
						h := transport.Header{Kind: transport.Eager, Context: 7, Source: int32(src), Tag: int32(i), Length: uint64(n)}
						if err := eps[src].Send(1, h, pattern(n, src*100+i)); err != nil {
							t.Errorf("rank %d send %d bytes: %v", src, n, err)
							return
						}
						if err := eps[src].Send(1, transport.Header{Kind: transport.RTS, Source: int32(src), Tag: int32(i), Length: 1 << 40, Cookie: uint64(i)}, nil); err != nil {
							t.Errorf("rank %d send RTS: %v", src, err)
						}
					}
				})
			}
			wg.Wait()
			frames := cs[1].wait(t, 4*len(sizes))
			next := map[int32]int{}
			for _, f := range frames {
				src := f.h.Source
				i := next[src] / 2
				if next[src]%2 == 1 {
					if f.h.Kind != transport.RTS || f.h.Length != 1<<40 || f.h.Cookie != uint64(i) || f.payload != nil {
						t.Fatalf("from %d: frame %d is %+v, want the RTS with cookie %d", src, next[src], f.h, i)
					}
				} else if f.h.Kind != transport.Eager || int(f.h.Tag) != i || !bytes.Equal(f.payload, pattern(sizes[i], int(src)*100+i)) {
					t.Fatalf("from %d: frame %d: %+v, %d payload bytes differ from the %d sent", src, next[src], f.h, len(f.payload), sizes[i])
				}
				next[src]++
			}
		})
	}
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

// TestSendErrors: bad destinations and lengths, and sends after Close.
func TestSendErrors(t *testing.T) {
	eps, _ := newJob(t, 2, Options{})
	if err := eps[0].Send(0, transport.Header{Kind: transport.CTS}, nil); err == nil {
		t.Error("send to self: no error")
	}
	if err := eps[0].Send(2, transport.Header{Kind: transport.CTS}, nil); err == nil {
		t.Error("send to rank 2 of 2: no error")
	}
	if err := eps[0].Send(1, transport.Header{Kind: transport.Eager, Length: 3}, []byte{1}); err == nil {
		t.Error("length mismatch: no error")
	}
	eps[0].Close()
	if err := eps[0].Send(1, transport.Header{Kind: transport.CTS}, nil); err != transport.ErrClosed {
		t.Errorf("send after close: %v, want ErrClosed", err)
	}
	// The peer learns of the orderly close: its sends fail, no failure report.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := eps[1].Send(0, transport.Header{Kind: transport.CTS, Source: 1}, nil)
		if err != nil {
			var pe *transport.PeerError
			if !asPeerError(err, &pe) || pe.Peer != 0 {
				t.Errorf("send to a closed peer: %v, want a PeerError for rank 0", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sends to a closed peer keep succeeding")
		}
		time.Sleep(time.Millisecond)
	}
}

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
