package tcp

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// rawPeers returns rank 0's endpoint of a job of n ranks whose peers 1..n-1
// are raw loopback connections the test writes to (index r: rank r's end),
// started with a collector.
func rawPeers(t *testing.T, n int, o Options) (*Endpoint, []*net.TCPConn, *collector) {
	t.Helper()
	o.Rank, o.Size = 0, n
	if o.CloseTimeout == 0 {
		o.CloseTimeout = 50 * time.Millisecond
	}
	ours := make([]*net.TCPConn, n)
	theirs := make([]*net.TCPConn, n)
	for r := 1; r < n; r++ {
		ours[r], theirs[r] = tcpPair(t)
	}
	e, err := newEndpoint(&o, ours, 1)
	if err != nil {
		t.Fatal(err)
	}
	col := newCollector(16)
	if err := e.Start(col); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range theirs[1:] {
			c.Close()
		}
		e.Close()
	})
	return e, theirs, col
}

// waitFailure returns the next peer failure, failing the test after limit.
func waitFailure(t *testing.T, col *collector, limit time.Duration) *transport.PeerError {
	t.Helper()
	select {
	case pe := <-col.failed:
		return pe
	case f := <-col.frames:
		t.Fatalf("frame %+v delivered; want a peer failure", f.h)
	case <-time.After(limit):
		t.Fatalf("no peer failure within %v", limit)
	}
	return nil
}

// TestFrameStoppedHalfWay: a live peer that sends a frame's header and
// part of its payload, then nothing, is failed after Options.FrameStall
// with a line naming it and how much arrived; meanwhile the reader was
// held, and afterwards another peer's frames are delivered again. Before
// the limit existed the reader waited for the rest for ever.
func TestFrameStoppedHalfWay(t *testing.T) {
	const stall = 300 * time.Millisecond
	_, peers, col := rawPeers(t, 3, Options{FrameStall: stall})
	start := time.Now()
	half := frameBytes(1, transport.Header{Kind: transport.Eager, Tag: 3, Length: 1 << 20}) // header and 256 payload bytes
	if _, err := peers[1].Write(half); err != nil {
		t.Fatal(err)
	}
	pe := waitFailure(t, col, 30*time.Second)
	if d := time.Since(start); d < stall {
		t.Errorf("rank 1 failed %v after its half frame, before the %v limit", d, stall)
	}
	if pe.Peer != 1 || !strings.Contains(pe.Error(), "a frame stopped half-way") || !strings.Contains(pe.Error(), "of 1048576 bytes arrived, then nothing for 300ms") {
		t.Fatalf("failure %q: want rank 1's frame stopped half-way, with the bytes that arrived", pe)
	}
	whole := frameBytes(2, transport.Header{Kind: transport.Eager, Tag: 4, Length: 100})
	if _, err := peers[2].Write(whole); err != nil {
		t.Fatal(err)
	}
	if fr := col.next(t); fr.h.Source != 2 || fr.h.Tag != 4 || len(fr.payload) != 100 {
		t.Fatalf("after rank 1's failure got %+v, want rank 2's 100-byte frame", fr.h)
	}
}

// TestFrameLengthBeyondAnyBuffer: a header announcing more bytes than any
// rank can hold (2^62) fails its peer at once, even with no stall limit
// and the peer's connection open, and nothing after it is delivered: read
// as a payload it would have swallowed the peer's later frames for ever.
func TestFrameLengthBeyondAnyBuffer(t *testing.T) {
	for _, h := range []transport.Header{
		{Kind: transport.Control, Length: 1 << 62},
		{Kind: transport.Eager, Length: maxFrameBytes + 1},
		{Kind: transport.RTS, Length: 1 << 63, Cookie: 1},
	} {
		_, peers, col := rawPeers(t, 2, Options{FrameStall: -1})
		stream := append(frameBytes(1, h), frameBytes(1, transport.Header{Kind: transport.Eager, Tag: 9, Length: 8})...)
		if _, err := peers[1].Write(stream); err != nil {
			t.Fatal(err)
		}
		pe := waitFailure(t, col, 20*time.Second)
		if pe.Peer != 1 || !strings.Contains(pe.Error(), "corrupt frame header from rank 1") {
			t.Fatalf("%v frame of %d bytes: failure %q, want rank 1's corrupt header", h.Kind, h.Length, pe)
		}
		select {
		case fr := <-col.frames:
			t.Fatalf("%v frame of %d bytes: then delivered %+v", h.Kind, h.Length, fr.h)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
