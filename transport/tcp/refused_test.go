package tcp

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// TestSilentConnectionNotReported: a connection still in its handshake
// when every rank is in is closed by the acceptor; that is not a refusal,
// and nothing is reported (a job stopped during wire-up printed "refused a
// connection ...: use of closed network connection" for its own peers).
func TestSilentConnectionNotReported(t *testing.T) {
	lns, addrs := listenAll(t, 2)
	var mu sync.Mutex
	var refused []string
	lns[1].opts.Refused = func(remote string, reason error) {
		mu.Lock()
		refused = append(refused, remote+": "+reason.Error())
		mu.Unlock()
	}
	silent, err := net.Dial("tcp", addrs[1]) // sends nothing
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	eps, errs := connectAll(ctx, lns, addrs)
	closeAll(eps)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, silent) // until the acceptor closes it
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 0 {
		t.Errorf("reported as refused: %q", refused)
	}
}

// TestDialHandshakeEndsWithContext: a peer that accepts and then says
// nothing (a rank stopped in the middle of its handshake) holds the
// dialer's Connect until ctx ends, not for the 30 s of the default
// handshake timeout.
func TestDialHandshakeEndsWithContext(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0") // rank 1: accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	held := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	defer func() {
		for len(held) > 0 {
			(<-held).Close()
		}
	}()
	ln, err := Listen(Options{Rank: 0, Size: 2, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	ep, err := ln.Connect(ctx, []string{ln.Addr(), silent.Addr().String()})
	if err == nil {
		ep.Close()
		t.Fatal("Connect succeeded against a silent peer")
	}
	// The context ends after 0.5 s; the default handshake timeout is
	// 30 s. 15 s leaves a loaded host room and still tells them apart.
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Connect returned after %v, past its context's 0.5 s: %v", d, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Connect: %v, want the context's deadline named", err)
	}
}
