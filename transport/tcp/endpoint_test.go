package tcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/auth"
)

// TestOrderPerSource sends frames of varied kinds and sizes from every rank
// to every other rank and checks that each receiver sees each source's
// frames in send order with intact payloads.
func TestOrderPerSource(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("np%d", n), func(t *testing.T) {
			eps, cols := mesh(t, n)
			const perPeer = 300
			sizes := []int{0, 1, 7, 32, 1000, 65536, 200000}
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for src, ep := range eps {
				wg.Go(func() {
					for seq := range perPeer {
						for dst := range n {
							if dst == src {
								continue
							}
							h, p := testFrame(src, dst, seq, sizes[seq%len(sizes)])
							if err := ep.Send(dst, h, p); err != nil {
								errs <- err
								return
							}
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for dst, c := range cols {
				nextSeq := make([]int, n)
				for range (n - 1) * perPeer {
					f := c.next(t)
					src := int(f.h.Source)
					want, wantP := testFrame(src, dst, nextSeq[src], sizes[nextSeq[src]%len(sizes)])
					if f.h != want || !bytes.Equal(f.payload, wantP) {
						t.Fatalf("rank %d: frame %d from rank %d: got %+v (%d bytes), want %+v (%d bytes)",
							dst, nextSeq[src], src, f.h, len(f.payload), want, len(wantP))
					}
					nextSeq[src]++
				}
			}
		})
	}
}

// testFrame builds the seq-th frame from src to dst; every fourth is an RTS,
// which announces size bytes but carries none.
func testFrame(src, dst, seq, size int) (transport.Header, []byte) {
	h := transport.Header{Kind: transport.Eager, Context: 7, Source: int32(src), Tag: int32(seq), Length: uint64(size), Cookie: uint64(dst<<32 | seq)}
	if seq%4 == 3 {
		h.Kind = transport.RTS
		return h, nil
	}
	var p []byte
	if size > 0 {
		p = make([]byte, size)
		pattern(p, src*100000+seq)
	}
	return h, p
}

// TestLargePayload moves one 64 MiB Data frame in each direction at once
// (both sides block in Send until the other's reader drains) plus 0-byte
// frames around it.
func TestLargePayload(t *testing.T) {
	eps, cols := mesh(t, 2)
	big := make([][]byte, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		big[r] = make([]byte, 64<<20)
		pattern(big[r], r)
		wg.Go(func() {
			dst := 1 - r
			for i, p := range [][]byte{nil, big[r], {}} {
				h := transport.Header{Kind: transport.Data, Source: int32(r), Tag: int32(i), Length: uint64(len(p))}
				if err := eps[r].Send(dst, h, p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for r := range 2 {
		for i, wantLen := range []int{0, 64 << 20, 0} {
			f := cols[r].next(t)
			if int(f.h.Tag) != i || int(f.h.Length) != wantLen || len(f.payload) != wantLen {
				t.Fatalf("rank %d frame %d: tag %d length %d payload %d bytes, want length %d", r, i, f.h.Tag, f.h.Length, len(f.payload), wantLen)
			}
			if wantLen > 0 && !bytes.Equal(f.payload, big[1-r]) {
				t.Fatalf("rank %d: 64 MiB payload corrupted", r)
			}
		}
	}
}

// TestConcurrentSenders has several goroutines send to one peer at once;
// frames must not interleave (each payload matches its header) and each
// goroutine's frames stay in order.
func TestConcurrentSenders(t *testing.T) {
	eps, cols := mesh(t, 3)
	const senders, each = 6, 200
	var wg sync.WaitGroup
	for src := 1; src < 3; src++ {
		for g := range senders {
			wg.Go(func() {
				for seq := range each {
					p := make([]byte, 1+(seq*997+g*131)%20000)
					pattern(p, src*1e6+g*1e4+seq)
					h := transport.Header{Kind: transport.Eager, Source: int32(src), Tag: int32(g), Length: uint64(len(p)), Cookie: uint64(seq)}
					if err := eps[src].Send(0, h, p); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	next := map[[2]int]int{}
	for range 2 * senders * each {
		f := cols[0].next(t)
		key := [2]int{int(f.h.Source), int(f.h.Tag)}
		seq := next[key]
		want := make([]byte, 1+(seq*997+key[1]*131)%20000)
		pattern(want, key[0]*1e6+key[1]*1e4+seq)
		if int(f.h.Cookie) != seq || !bytes.Equal(f.payload, want) {
			t.Fatalf("from rank %d goroutine %d: got cookie %d, want %d (payload ok: %v)", key[0], key[1], f.h.Cookie, seq, bytes.Equal(f.payload, want))
		}
		next[key]++
	}
}

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
		c, err := net.Dial("tcp", addrs[1])
		if err != nil {
			t.Fatal(err)
		}
		nonce := make([]byte, auth.NonceSize)
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
		if len(refused) != 2 || refused[0] != intruders[0] || !strings.HasPrefix(refused[1], intruders[1]) {
			t.Errorf("refused connections reported as %q, want %q", refused, intruders)
		}
	})
}

// TestPeerDeath kills rank 1's connections without a goodbye (as a dying
// process does) and expects rank 0 to get a PeerError for rank 1, and Sends
// to rank 1 to fail with it.
func TestPeerDeath(t *testing.T) {
	eps, cols := mesh(t, 3)
	for _, p := range eps[1].peers {
		if p != nil {
			p.conn.Close()
		}
	}
	for _, r := range []int{0, 2} {
		select {
		case pe := <-cols[r].failed:
			if pe.Peer != 1 {
				t.Errorf("rank %d: failure reported for rank %d, want rank 1: %v", r, pe.Peer, pe)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("rank %d: no failure reported for rank 1", r)
		}
	}
	err := eps[0].Send(1, transport.Header{Kind: transport.CTS}, nil)
	var pe *transport.PeerError
	if !errors.As(err, &pe) || pe.Peer != 1 {
		t.Errorf("Send to dead rank 1: got %v, want a *transport.PeerError for rank 1", err)
	}
	if err := eps[0].Send(2, transport.Header{Kind: transport.CTS}, nil); err != nil {
		t.Errorf("Send to live rank 2: %v", err)
	}
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
	time.Sleep(100 * time.Millisecond)
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
