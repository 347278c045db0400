package tcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/auth"
)

// TestBadSecretRejected checks that a rank with a wrong secret cannot join,
// and that a stray connection with a wrong secret does not stop a good mesh.
func TestBadSecretRejected(t *testing.T) {
	t.Run("wrong peer", func(t *testing.T) {
		lns, addrs := listenAll(t, 2, nil, []byte("not-the-secret"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		eps, errs := connectAll(ctx, lns, addrs)
		closeAll(eps)
		if errs[0] == nil || !strings.Contains(errs[0].Error(), "wrong job secret") {
			t.Errorf("rank 0: got %v, want a rejection for a wrong job secret", errs[0])
		}
		if errs[1] == nil {
			t.Error("rank 1 (wrong secret) connected")
		}
	})
	t.Run("stray connection", func(t *testing.T) {
		lns, addrs := listenAll(t, 2)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		eps := make([]*Endpoint, 2)
		errs := make([]error, 2)
		done := make(chan struct{})
		var refusedMu sync.Mutex
		var refused []string
		lns[1].opts.Refused = func(remote string, reason error) {
			refusedMu.Lock()
			refused = append(refused, remote+": "+reason.Error())
			refusedMu.Unlock()
		}
		go func() { eps[1], errs[1] = lns[1].Connect(ctx, addrs); close(done) }()
		nonce := make([]byte, auth.NonceSize)
		// A rank that dies after its hello (it hangs up before its MAC)
		// is not a refused stranger: the launcher reports its death.
		c0, err := net.Dial("tcp", addrs[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := (&hello{rank: 0, size: 2, nonce: nonce}).write(c0); err != nil {
			t.Fatal(err)
		}
		if _, err := readHello(c0, true); err != nil {
			t.Fatal(err)
		}
		c0.(*net.TCPConn).SetLinger(0) // a reset, as from a killed process
		c0.Close()
		c, err := net.Dial("tcp", addrs[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := (&hello{rank: 0, size: 2, nonce: nonce}).write(c); err != nil {
			t.Fatal(err)
		}
		reply, err := readHello(c, true)
		if err != nil || reply.status != statusOK || reply.rank != 1 {
			t.Fatalf("intruder got reply %+v, %v", reply, err)
		}
		// A MAC made with a guessed secret.
		c.Write(auth.Sum([]byte("guess"), roleDialer, macParts(nonce, reply.nonce, 0, 1, 2)...))
		var st [1]byte
		_, err = io.ReadFull(c, st[:])
		c.Close()
		if err != nil || st[0] != statusBadSecret {
			t.Fatalf("intruder got status %d, %v; want %d", st[0], err, statusBadSecret)
		}
		// Another client that is not an mpbench peer at all.
		c2, err := net.Dial("tcp", addrs[1])
		if err != nil {
			t.Fatal(err)
		}
		c2.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		io.Copy(io.Discard, c2)
		c2.Close()
		intruders := []string{c.LocalAddr().String() + ": failed authentication (wrong job secret)",
			c2.LocalAddr().String() + ": not an mpbench tcp peer"}
		eps[0], errs[0] = lns[0].Connect(ctx, addrs)
		<-done
		defer closeAll(eps)
		for r, err := range errs {
			if err != nil {
				t.Fatalf("rank %d after a rejected intruder: %v", r, err)
			}
		}
		refusedMu.Lock()
		defer refusedMu.Unlock()
		sort.Strings(refused) // handshakes run concurrently: reports come in any order
		if intruders[0] > intruders[1] {
			intruders[0], intruders[1] = intruders[1], intruders[0]
		}
		if len(refused) != 2 || !strings.HasPrefix(refused[0], intruders[0]) || !strings.HasPrefix(refused[1], intruders[1]) {
			t.Errorf("refused connections reported as %q, want %q", refused, intruders)
		}
	})
}

// TestOrderlyClose closes ranks at different times, rank 0 first right after
// sending a large frame: nothing may be reported as a failure and the frame
// must arrive whole.
func TestOrderlyClose(t *testing.T) {
	eps, cols := mesh(t, 3)
	p := make([]byte, 16<<20)
	pattern(p, 42)
	if err := eps[0].Send(2, transport.Header{Kind: transport.Eager, Length: uint64(len(p))}, p); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { eps[0].Close(); close(closed) }()
	for deadline := time.Now().Add(10 * time.Second); !eps[0].closing.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Close had not begun 10 s after it was called")
		}
	}
	if err := eps[0].Send(1, transport.Header{Kind: transport.CTS}, nil); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Send after Close: got %v, want ErrClosed", err)
	}
	if err := eps[1].Send(2, transport.Header{Kind: transport.CTS, Source: 1}, nil); err != nil {
		t.Errorf("rank 1 to rank 2 while rank 0 closes: %v", err)
	}
	// Frames of different sources may arrive in either order.
	bySource := map[int32]frame{}
	for range 2 {
		f := cols[2].next(t)
		bySource[f.h.Source] = f
	}
	if f := bySource[0]; !bytes.Equal(f.payload, p) {
		t.Fatal("16 MiB frame sent before Close arrived damaged or not at all")
	}
	if f, ok := bySource[1]; !ok || f.h.Kind != transport.CTS {
		t.Fatalf("got %+v, want rank 1's CTS", f.h)
	}
	closeAll(eps[1:])
	<-closed
	for r, c := range cols {
		select {
		case pe := <-c.failed:
			t.Errorf("rank %d: spurious failure after orderly close: %v", r, pe)
		default:
		}
	}
}
