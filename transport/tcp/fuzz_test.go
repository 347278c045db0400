package tcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/auth"
)

// FuzzReadHello checks the decoder of the handshake's first message on any
// bytes: it accepts exactly the inputs that start with the magic and
// version and are long enough, what it accepts is written back byte for
// byte (the two unused bytes as zero), and its errors are one line.
// Run: go test ./transport/tcp -run '^$' -fuzz '^FuzzReadHello$' -fuzztime 30s
func FuzzReadHello(f *testing.F) {
	var buf bytes.Buffer
	(&hello{rank: 3, size: 8, nonce: make([]byte, auth.NonceSize), mac: make([]byte, auth.MACSize)}).write(&buf)
	f.Add(buf.Bytes(), true)
	f.Add(buf.Bytes()[:helloSize], false)
	f.Add([]byte("GET / HTTP/1.0\r\n\r\n"), false)
	f.Add([]byte("MPBT\x02\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x80"), true)
	f.Fuzz(func(t *testing.T, data []byte, withMAC bool) {
		h, err := readHello(bytes.NewReader(data), withMAC)
		n := helloSize
		if withMAC {
			n = replySize
		}
		valid := len(data) >= n && string(data[:4]) == helloMagic && data[4] == helloVersion
		if err != nil {
			if valid || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q for %d bytes (valid: %v)", err, len(data), valid)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted %q", data)
		}
		var back bytes.Buffer
		if err := h.write(&back); err != nil {
			t.Fatal(err)
		}
		want := append([]byte{}, data[:n]...)
		want[6], want[7] = 0, 0
		if !bytes.Equal(back.Bytes(), want) {
			t.Fatalf("hello %+v written back as %x, read from %x", h, back.Bytes(), want)
		}
	})
}

// pipeListener is one loopback listener shared by FuzzFrameStream's calls.
var pipeListener = sync.OnceValues(func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") })

// tcpPair returns both ends of a fresh loopback TCP connection.
func tcpPair(t testing.TB) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := pipeListener()
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a := <-accepted
	if a == nil {
		t.Fatal("accept failed")
	}
	return a.(*net.TCPConn), d.(*net.TCPConn)
}

// boundedCollector is a Handler that keeps the headers of delivered frames
// and reads payloads up to 1 MiB (larger ones are discarded), and records
// every peer failure.
type boundedCollector struct {
	mu      sync.Mutex
	headers []transport.Header
	failed  []*transport.PeerError
}

func (c *boundedCollector) Deliver(h transport.Header, read func([]byte) error) error {
	c.mu.Lock()
	c.headers = append(c.headers, h)
	c.mu.Unlock()
	if !carriesPayload(h.Kind) || h.Length == 0 {
		return nil
	}
	if h.Length > 1<<20 {
		return read(nil)
	}
	return read(make([]byte, h.Length))
}

func (c *boundedCollector) PeerFailed(peer int, err error) {
	pe, _ := err.(*transport.PeerError)
	c.mu.Lock()
	c.failed = append(c.failed, pe)
	c.mu.Unlock()
}

// frameBytes encodes frames from src, each with its payload of Length
// bytes, at most 256.
func frameBytes(src int, hs ...transport.Header) []byte {
	var out []byte
	for _, h := range hs {
		h.Source = int32(src)
		var b [transport.HeaderSize]byte
		h.Encode(b[:])
		out = append(out, b[:]...)
		if carriesPayload(h.Kind) {
			out = append(out, make([]byte, min(h.Length, 256))...) // a stream cut short beyond 256 bytes
		}
	}
	return out
}

// FuzzFrameStream sends any bytes as rank 1's stream to rank 0's endpoint
// and closes it: the reader must end (no hang, no panic), deliver only
// frames with a known kind and rank 1 as source, and report rank 1 failed,
// unless the stream held a goodbye frame, once and naming rank 1.
// Run: go test ./transport/tcp -run '^$' -fuzz '^FuzzFrameStream$' -fuzztime 30s
func FuzzFrameStream(f *testing.F) {
	f.Add(frameBytes(1, transport.Header{Kind: transport.Eager, Tag: 5, Length: 100}, transport.Header{Kind: transport.RTS, Length: 1 << 40, Cookie: 9},
		transport.Header{Kind: transport.Data, Length: 3, Cookie: 9}, transport.Header{Kind: kindGoodbye}))
	f.Add(frameBytes(1, transport.Header{Kind: transport.Control, Length: 1 << 62}))
	f.Add(frameBytes(0, transport.Header{Kind: transport.Eager, Length: 1}))
	f.Add(frameBytes(1, transport.Header{Kind: transport.Eager, Length: 50})[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := tcpPair(t)
		e, err := newEndpoint(&Options{Rank: 0, Size: 2, CloseTimeout: 50 * time.Millisecond}, []*net.TCPConn{nil, a}, 1)
		if err != nil {
			t.Fatal(err)
		}
		var h boundedCollector
		if err := e.Start(&h); err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.Close()
		select {
		case <-e.peers[1].endedCh:
		case <-time.After(20 * time.Second):
			t.Fatalf("the stream of %d bytes from rank 1 is not over 20 s after it ended", len(data))
		}
		e.Close()
		goodbye := e.peers[1].goodbye.Load()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, hd := range h.headers {
			if checkHeader(hd, 1) != nil || hd.Kind == kindGoodbye {
				t.Fatalf("delivered a frame with header %+v", hd)
			}
		}
		if goodbye && len(h.failed) != 0 || !goodbye && len(h.failed) != 1 {
			t.Fatalf("goodbye %v, failures reported %v", goodbye, h.failed)
		}
		for _, pe := range h.failed {
			if pe == nil || pe.Peer != 1 || strings.ContainsAny(pe.Error(), "\r\n") {
				t.Fatalf("failure %v: want one line naming rank 1", pe)
			}
		}
	})
}

// TestStrangersAtRankPort connects strangers to every rank's TCP port while
// the mesh is being built: one sends random bytes, one a valid-looking
// hello claiming a lower rank and then nothing, one stays silent, one sends
// a megabyte. The ranks must connect long before the handshake timeout (a
// silent stranger holds only its own connection) and then move frames.
func TestStrangersAtRankPort(t *testing.T) {
	const n, timeout = 3, 60 * time.Second
	lns := make([]*Listener, n)
	addrs := make([]string, n)
	for r := range n {
		ln, err := Listen(Options{Rank: r, Size: n, Secret: testSecret, CloseTimeout: 5 * time.Second, HandshakeTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		lns[r], addrs[r] = ln, ln.Addr()
	}
	rng := rand.New(rand.NewPCG(17, 4))
	var strangers []net.Conn
	defer func() {
		for _, c := range strangers {
			c.Close()
		}
	}()
	for _, addr := range addrs {
		for kind := range 4 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			strangers = append(strangers, c)
			switch kind {
			case 0:
				junk := make([]byte, 1+rng.IntN(200))
				for i := range junk {
					junk[i] = byte(rng.Uint32())
				}
				c.Write(junk)
			case 1:
				b := make([]byte, helloSize)
				copy(b, helloMagic)
				b[4] = helloVersion
				binary.LittleEndian.PutUint32(b[12:], n) // rank 0 of a job of n
				c.Write(b)
			case 3:
				go c.Write(make([]byte, 1<<20))
			}
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	eps, errs := connectAll(ctx, lns, addrs)
	defer closeAll(eps)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if d := time.Since(start); d > timeout/2 {
		t.Fatalf("the mesh took %v with strangers at the ports; a silent stranger holds a handshake %v", d, timeout)
	}
	cols := make([]*collector, n)
	for r, ep := range eps {
		cols[r] = newCollector(4)
		if err := ep.Start(cols[r]); err != nil {
			t.Fatal(err)
		}
	}
	p := make([]byte, 4096)
	pattern(p, 7)
	for src := range n {
		dst := (src + 1) % n
		if err := eps[src].Send(dst, transport.Header{Kind: transport.Eager, Source: int32(src), Tag: 11, Length: uint64(len(p))}, p); err != nil {
			t.Fatal(err)
		}
		if fr := cols[dst].next(t); fr.h.Source != int32(src) || !bytes.Equal(fr.payload, p) {
			t.Fatalf("rank %d got %+v from rank %d", dst, fr.h, src)
		}
	}
}
