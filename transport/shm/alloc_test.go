//go:build linux

package shm

import (
	"sync/atomic"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// countingHandler reads every payload into one buffer and counts frames,
// allocating nothing.
type countingHandler struct {
	buf []byte
	n   atomic.Int64
}

func (c *countingHandler) Deliver(h transport.Header, read func([]byte) error) error {
	if h.Length > 0 {
		if err := read(c.buf[:h.Length]); err != nil {
			return err
		}
	}
	c.n.Add(1)
	return nil
}

// TestSmallFramesAllocateNothing: sending a 1 KiB eager frame and
// delivering it on the receiver's waiting goroutine allocates nothing on
// the heap, with frame checksums off. An allocation per frame (once a
// header array that escaped to the heap through hash/crc32) makes small
// messages slower: the garbage collector then competes with the ranks'
// polling for the CPUs.
func TestSmallFramesAllocateNothing(t *testing.T) {
	t.Setenv(transport.EnvVerify, "")
	eps, err := NewJob(2, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	e0, e1 := eps[0].(*Endpoint), eps[1].(*Endpoint)
	defer e0.Close()
	defer e1.Close()
	h0, h1 := &countingHandler{buf: make([]byte, 1024)}, &countingHandler{buf: make([]byte, 1024)}
	if err := e0.Start(h0); err != nil {
		t.Fatal(err)
	}
	if err := e1.Start(h1); err != nil {
		t.Fatal(err)
	}
	payload := pattern(1024, 1)
	h := transport.Header{Kind: transport.Eager, Source: 0, Tag: 1, Length: uint64(len(payload))}
	var want int64
	delivered := func() bool { return h1.n.Load() >= want }
	one := func() {
		want++
		if err := e0.Send(1, h, payload); err != nil {
			t.Fatal(err)
		}
		for !delivered() {
			e1.Progress(delivered)
		}
	}
	one() // first use: nothing lazy is counted below
	if allocs := testing.AllocsPerRun(500, one); allocs != 0 {
		t.Errorf("%.2f heap allocations per 1 KiB frame sent and delivered, want 0", allocs)
	}
}
