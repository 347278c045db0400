//go:build linux

package shm

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
)

// completion records SendDone calls.
type completion struct {
	mu    sync.Mutex
	calls int
	err   error
}

func (c *completion) SendDone(err error) {
	c.mu.Lock()
	c.calls++
	c.err = err
	c.mu.Unlock()
}

func (c *completion) result() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, c.err
}

// TestStartSendCompletesInProgress: a single-copy StartSend returns before
// the receiver has read the payload, and the sender's own Progress
// completes it once the receiver has, exactly once and in order with the
// frames behind it.
func TestStartSendCompletesInProgress(t *testing.T) {
	eps, cs := newJob(t, 2, Options{CMABytes: 1024})
	if !eps[1].SingleCopy(0) {
		t.Skip("process_vm_readv is not permitted here: no single-copy sends to start (the copy path is tested by TestFramesInOrder)")
	}
	var cmpl [3]completion
	payloads := [][]byte{pattern(4096, 1), pattern(100, 2), pattern(70000, 3)}
	for i, p := range payloads {
		h := transport.Header{Kind: transport.Eager, Source: 0, Tag: int32(i), Length: uint64(len(p))}
		done, err := eps[0].StartSend(1, h, p, &cmpl[i])
		if err != nil {
			t.Fatal(err)
		}
		if want := len(p) < 1024; done != want {
			t.Errorf("StartSend of %d bytes: done %v, want %v", len(p), done, want)
		}
	}
	frames := cs[1].wait(t, 3)
	for i, f := range frames {
		if int(f.h.Tag) != i || !bytes.Equal(f.payload, payloads[i]) {
			t.Fatalf("frame %d: tag %d, %d bytes: wrong frame or payload", i, f.h.Tag, len(f.payload))
		}
	}
	all := func() bool {
		n0, _ := cmpl[0].result()
		n2, _ := cmpl[2].result()
		return n0 == 1 && n2 == 1
	}
	for !all() {
		eps[0].Progress(all)
	}
	for i := range cmpl {
		n, err := cmpl[i].result()
		if want := 1; i == 1 {
			want = 0
			if n != want {
				t.Errorf("send %d (ring copy) got %d completions, want none", i, n)
			}
		} else if n != want || err != nil {
			t.Errorf("send %d: %d completions, error %v; want 1, nil", i, n, err)
		}
	}
}

// TestStartSendFailsOnClose: a started send whose receiver never reads it
// completes with ErrClosed when the sender closes, once.
func TestStartSendFailsOnClose(t *testing.T) {
	o := Options{CMABytes: 1024, Dir: t.TempDir()}
	raw, err := NewJob(2, o)
	if err != nil {
		t.Fatal(err)
	}
	eps := []*Endpoint{raw[0].(*Endpoint), raw[1].(*Endpoint)}
	defer eps[1].Close()
	if !eps[1].SingleCopy(0) {
		eps[0].Close()
		t.Skip("process_vm_readv is not permitted here: no single-copy sends to start")
	}
	eps[0].Start(newCollector()) // rank 1 is never started: nothing reads
	var c completion
	p := pattern(8192, 4)
	done, err := eps[0].StartSend(1, transport.Header{Kind: transport.Eager, Length: uint64(len(p))}, p, &c)
	if done || err != nil {
		t.Fatalf("StartSend: done %v, %v; want pending", done, err)
	}
	if n, _ := c.result(); n != 0 {
		t.Fatalf("completed %d times before anyone read it", n)
	}
	eps[0].Close()
	if n, err := c.result(); n != 1 || !errors.Is(err, transport.ErrClosed) {
		t.Errorf("after Close: %d completions, error %v; want 1, ErrClosed", n, err)
	}
}

// TestSimultaneousSingleCopySends: two ranks send single-copy frames to
// each other at once with the synchronous Send, each Send serving incoming
// frames while it waits for its acknowledgement; every frame arrives in
// order and intact.
func TestSimultaneousSingleCopySends(t *testing.T) {
	eps, cs := newJob(t, 2, Options{CMABytes: 1024})
	if !eps[1].SingleCopy(0) || !eps[0].SingleCopy(1) {
		t.Skip("process_vm_readv is not permitted here")
	}
	const rounds = 200
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			p := pattern(32<<10, r)
			for i := range rounds {
				h := transport.Header{Kind: transport.Eager, Source: int32(r), Tag: int32(i), Length: uint64(len(p))}
				if err := eps[r].Send(1-r, h, p); err != nil {
					t.Errorf("rank %d send %d: %v", r, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for r := range 2 {
		frames := cs[r].wait(t, rounds)
		for i, f := range frames {
			if int(f.h.Tag) != i || !bytes.Equal(f.payload, pattern(32<<10, 1-r)) {
				t.Fatalf("rank %d frame %d: tag %d: wrong frame or payload", r, i, f.h.Tag)
			}
		}
	}
}

// TestCopyPathPerPeer: the start-up probe's answer is kept per peer: with
// single copy refused by the kernel for one peer (simulated: the probe of
// rank 2 returns PathRefused, as EPERM from Yama or seccomp would), that
// peer's large payloads are copied through the ring and arrive intact,
// while the other peer's still go by single copy; with single copy turned
// off every peer is PathOff.
func TestCopyPathPerPeer(t *testing.T) {
	eps, cs := newJob(t, 3, Options{CMABytes: 1024})
	if eps[0].CopyPath(1) != PathSingle {
		t.Skipf("process_vm_readv is not permitted here (%v): nothing to refuse", eps[0].CopyPath(1))
	}
	o := Options{CMABytes: 1024}
	o.probe = func(pid int, c *control) CopyPath { // called by the ranks concurrently
		if c.rank == 2 {
			return PathRefused
		}
		return cmaProbe(pid, c)
	}
	eps, cs = newJob(t, 3, o)
	for reader, ep := range eps {
		for src := range 3 {
			want := PathSingle
			switch {
			case src == reader:
				want = PathNone
			case src == 2:
				want = PathRefused
			}
			if got := ep.CopyPath(src); got != want {
				t.Errorf("rank %d reading rank %d: %v, want %v", reader, src, got, want)
			}
			if ep.SingleCopy(src) != (want == PathSingle) {
				t.Errorf("rank %d reading rank %d: SingleCopy %v with path %v", reader, src, ep.SingleCopy(src), want)
			}
		}
	}
	for src := 1; src < 3; src++ {
		p := pattern(70000, src)
		if err := eps[src].Send(0, transport.Header{Kind: transport.Eager, Source: int32(src), Tag: 5, Length: uint64(len(p))}, p); err != nil {
			t.Fatal(err)
		}
		frames := cs[0].wait(t, 1)
		if f := frames[len(frames)-1]; f.h.Source != int32(src) || !bytes.Equal(f.payload, pattern(70000, src)) {
			t.Fatalf("70000 bytes from rank %d (path %v): wrong frame or payload", src, eps[0].CopyPath(src))
		}
	}
	eps, _ = newJob(t, 2, Options{CMABytes: -1})
	if p := eps[1].CopyPath(0); p != PathOff {
		t.Errorf("CMABytes -1: path %v, want %v", p, PathOff)
	}
}

// TestProbePath: the probe's error names the path: EPERM and EACCES are
// the ptrace policy, ENOSYS a kernel or filter without the call.
func TestProbePath(t *testing.T) {
	for _, c := range []struct {
		err   error
		magic bool
		want  CopyPath
	}{
		{nil, true, PathSingle},
		{fmt.Errorf("shm: process_vm_readv of 8 bytes from pid 7: %w", unix.EPERM), false, PathRefused},
		{unix.EACCES, false, PathRefused},
		{fmt.Errorf("wrapped: %w", unix.ENOSYS), false, PathUnsupported},
		{unix.ESRCH, false, PathFailed},
		{nil, false, PathFailed},
	} {
		if got := probePath(c.err, c.magic); got != c.want {
			t.Errorf("probePath(%v, %v) = %v, want %v", c.err, c.magic, got, c.want)
		}
	}
}
