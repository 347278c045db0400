package tcp

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// flipProxy copies from src to dst, flipping bit 0 of the byte at offset
// at (counted from the start of the stream), then closes dst.
func flipProxy(src, dst net.Conn, at int) {
	buf := make([]byte, 4096)
	off := 0
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if at >= off && at < off+n {
				buf[at-off] ^= 1
			}
			off += n
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
}

// TestVerifyNamesCorruptFrame sends three frames from rank 1 to rank 0
// through a proxy that flips one bit in the third frame's payload. With
// the checksum (MPBENCH_VERIFY) the first two frames arrive, the third
// never reaches the runtime, and rank 1 is reported failed with the frame
// named: its number on the connection, kind, tag and size. Without it the
// flipped frame is delivered as if nothing happened.
func TestVerifyNamesCorruptFrame(t *testing.T) {
	for _, verify := range []bool{true, false} {
		a1, b1 := tcpPair(t) // sender's connection and the proxy's end of it
		a2, b2 := tcpPair(t) // the proxy's other connection and the receiver's
		const payloadOff = 136 + 36 + transport.HeaderSize + 1000
		go flipProxy(b1, a2, payloadOff)
		send, err := newEndpoint(&Options{Rank: 1, Size: 2, CloseTimeout: time.Second, Verify: verify}, []*net.TCPConn{a1, nil}, 1)
		if err != nil {
			t.Fatal(err)
		}
		recv, err := newEndpoint(&Options{Rank: 0, Size: 2, CloseTimeout: time.Second}, []*net.TCPConn{nil, b2}, 1)
		if err != nil {
			t.Fatal(err)
		}
		col := newCollector(8)
		if err := send.Start(newCollector(1)); err != nil {
			t.Fatal(err)
		}
		if err := recv.Start(col); err != nil {
			t.Fatal(err)
		}
		small, big := make([]byte, 100), make([]byte, 4096)
		pattern(small, 1)
		pattern(big, 2)
		for _, f := range []struct {
			h transport.Header
			p []byte
		}{
			{transport.Header{Kind: transport.Eager, Source: 1, Tag: 3, Length: 100}, small},
			{transport.Header{Kind: transport.RTS, Source: 1, Tag: 5, Length: 1 << 20, Cookie: 1}, nil},
			{transport.Header{Kind: transport.Eager, Source: 1, Tag: 7, Length: 4096}, big},
		} {
			if err := send.Send(0, f.h, f.p); err != nil {
				t.Fatal(err)
			}
		}
		if !verify { // the payload offset assumes 4-byte checksums
			col.next(t)
			col.next(t)
			if fr := col.next(t); fr.h.Tag != 7 || string(fr.payload) == string(big) {
				t.Errorf("without checksums: got tag %d, payload intact %v; want the flipped frame delivered", fr.h.Tag, string(fr.payload) == string(big))
			}
			send.Close()
			recv.Close()
			continue
		}
		for _, tag := range []int32{3, 5} { // frames first: the failure may be queued already
			select {
			case fr := <-col.frames:
				if fr.h.Tag != tag {
					t.Fatalf("frame with tag %d, want %d", fr.h.Tag, tag)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("frame with tag %d missing", tag)
			}
		}
		select {
		case pe := <-col.failed:
			var fc *transport.FrameCorruptError
			if pe.Peer != 1 || !errors.As(pe, &fc) || fc.Source != 1 || fc.Seq != 3 || fc.Kind != transport.Eager || fc.Tag != 7 || fc.Length != 4096 {
				t.Fatalf("failure %v (%#v), want rank 1's frame 3, eager, tag 7, 4096 bytes", pe, fc)
			}
			t.Logf("reported: %v", pe)
		case fr := <-col.frames:
			t.Fatalf("corrupt frame delivered: %+v", fr.h)
		case <-time.After(20 * time.Second):
			t.Fatal("no failure reported within 20 s")
		}
		send.Close()
		recv.Close()
		io.Copy(io.Discard, b1)
	}
}
