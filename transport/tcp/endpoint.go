package tcp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// kindGoodbye is the frame kind Close sends before shutting down a
// connection; it is never delivered to the Handler.
const kindGoodbye transport.Kind = 0xFF

// flagCRC in header byte 1 marks a frame followed by the 4-byte CRC-32C
// (little endian) of its header (with this flag) and payload
// (transport.EnvVerify).
const flagCRC = 1

// readBufferBytes is the size of each peer's read buffer: small frames that
// arrive together are read with one system call.
const readBufferBytes = 64 << 10

// Endpoint is one rank's attachment to a TCP job; it implements
// transport.Endpoint. Create it with Listen and Listener.Connect.
type Endpoint struct {
	rank, size   int
	closeTimeout time.Duration
	verify       bool    // checksum every frame sent (Options.Verify)
	peers        []*peer // nil at index rank

	startMu sync.Mutex
	started bool
	h       transport.Handler
	fh      transport.FailureHandler // nil if h does not implement it

	closing   atomic.Bool
	closeOnce sync.Once
}

var _ transport.Endpoint = (*Endpoint)(nil)

// peer is the connection to one other rank.
type peer struct {
	rank int
	conn *net.TCPConn

	// Send side, guarded by mu.
	mu      sync.Mutex
	hdr     [transport.HeaderSize]byte
	crc     [4]byte
	vec     [3][]byte
	bufs    net.Buffers
	sendErr error // sticky: *transport.PeerError or transport.ErrClosed

	goodbye atomic.Bool // peer closed its endpoint in order
	failed  atomic.Bool // failure reported (or local handler error)
	done    chan struct{}

	// Read side, used only by the reader goroutine.
	br        *bufio.Reader
	rhdr      [transport.HeaderSize]byte
	remaining uint64     // payload bytes of the current frame not yet read
	rcheck    frameCheck // the current frame's checksum, if it has one (rcheck.on)
	rseq      uint64     // checksummed frames read so far
	readErr   error      // I/O error met by readFn
	readFn    func([]byte) error
}

func newEndpoint(o *Options, conns []*net.TCPConn) *Endpoint {
	e := &Endpoint{rank: o.Rank, size: o.Size, closeTimeout: o.CloseTimeout, verify: o.Verify, peers: make([]*peer, o.Size)}
	for r, c := range conns {
		if r == o.Rank || c == nil {
			continue
		}
		p := &peer{rank: r, conn: c, done: make(chan struct{}), br: bufio.NewReaderSize(c, readBufferBytes)}
		p.readFn = p.readPayload
		e.peers[r] = p
	}
	return e
}

// Rank returns this endpoint's rank.
func (e *Endpoint) Rank() int { return e.rank }

// Size returns the number of ranks in the job.
func (e *Endpoint) Size() int { return e.size }

// Start begins delivering incoming frames to h, one reader goroutine per
// peer. If h implements transport.FailureHandler it is told of peer
// failures. Start may be called once, before Close.
func (e *Endpoint) Start(h transport.Handler) error {
	if h == nil {
		return errors.New("tcp: Start with a nil Handler")
	}
	e.startMu.Lock()
	defer e.startMu.Unlock()
	if e.closing.Load() {
		return transport.ErrClosed
	}
	if e.started {
		return errors.New("tcp: Start called twice")
	}
	e.h = h
	e.fh, _ = h.(transport.FailureHandler)
	e.startReaders()
	return nil
}

// startReaders starts one reader per peer; startMu must be held.
func (e *Endpoint) startReaders() {
	e.started = true
	for _, p := range e.peers {
		if p != nil {
			go e.readLoop(p)
		}
	}
}

// carriesPayload reports whether frames of kind k are followed by
// Header.Length payload bytes.
func carriesPayload(k transport.Kind) bool {
	return k == transport.Eager || k == transport.Data || k == transport.Control
}

// Send writes one frame to rank dst with a single vectored write. For Eager,
// Data and Control frames len(payload) must equal h.Length; for RTS and CTS
// payload is ignored. It returns a *transport.PeerError if the connection to
// dst failed or dst has closed its endpoint, and transport.ErrClosed after
// Close.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	if dst < 0 || dst >= e.size || dst == e.rank {
		return fmt.Errorf("tcp: send from rank %d to rank %d: want a peer rank in 0..%d other than itself", e.rank, dst, e.size-1)
	}
	n := 1
	if carriesPayload(h.Kind) {
		if uint64(len(payload)) != h.Length {
			return fmt.Errorf("tcp: send %v frame: header length %d but payload of %d bytes", h.Kind, h.Length, len(payload))
		}
		if len(payload) > 0 {
			n = 2
		}
	}
	if e.closing.Load() {
		return transport.ErrClosed
	}
	p := e.peers[dst]
	if p == nil {
		return fmt.Errorf("tcp: rank %d has no connection to rank %d (left out at Connect)", e.rank, dst)
	}
	if p.goodbye.Load() {
		return &transport.PeerError{Peer: dst, Err: errors.New("peer has closed its endpoint")}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sendErr != nil {
		return p.sendErr
	}
	h.Encode(p.hdr[:])
	p.vec[0], p.vec[1] = p.hdr[:], payload
	if e.verify {
		p.hdr[1] = flagCRC
		sum := crc32.Checksum(p.hdr[:], transport.CRC32C)
		if n == 2 {
			sum = crc32.Update(sum, transport.CRC32C, payload)
		}
		binary.LittleEndian.PutUint32(p.crc[:], sum)
		p.vec[n] = p.crc[:]
		n++
	}
	p.bufs = p.vec[:n]
	_, err := p.bufs.WriteTo(p.conn)
	p.vec[1], p.vec[2] = nil, nil
	if err != nil {
		if e.closing.Load() {
			p.sendErr = transport.ErrClosed
		} else {
			p.sendErr = &transport.PeerError{Peer: dst, Err: err}
		}
		return p.sendErr
	}
	return nil
}

// Close says goodbye to every peer, waits up to Options.CloseTimeout for
// every peer to close its side (draining what they still send), then closes
// all connections. After Close returns no more frames are delivered and Send
// returns transport.ErrClosed. Close is idempotent and always returns nil.
func (e *Endpoint) Close() error {
	e.closeOnce.Do(e.close)
	return nil
}

func (e *Endpoint) close() {
	e.startMu.Lock()
	e.closing.Store(true)
	if !e.started {
		e.startReaders() // drain-only: closing is set, nothing is delivered
	}
	e.startMu.Unlock()

	deadline := time.Now().Add(e.closeTimeout)
	var wg sync.WaitGroup
	for _, p := range e.peers {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.conn.SetWriteDeadline(deadline) // bounds a Send stuck on a full buffer
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.sendErr == nil {
				h := transport.Header{Kind: kindGoodbye, Source: int32(e.rank)}
				h.Encode(p.hdr[:])
				if _, err := p.conn.Write(p.hdr[:]); err == nil {
					p.conn.CloseWrite()
				}
			}
			p.sendErr = transport.ErrClosed
		}()
	}
	wg.Wait()

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for _, p := range e.peers {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
		case <-timer.C:
			timer.Reset(0) // expired: close the rest without waiting
		}
	}
	for _, p := range e.peers {
		if p != nil {
			p.conn.Close()
			<-p.done
		}
	}
}

// Kill fails the endpoint as a crashing process would: every connection is
// closed at once, without a goodbye, so peers report this rank as failed
// (fault injection for tests, transporttest.Killer). Nothing is reported
// locally; Sends fail with ErrClosed; a later Close only waits for the
// readers.
func (e *Endpoint) Kill() {
	e.startMu.Lock()
	e.closing.Store(true)
	e.startMu.Unlock()
	for _, p := range e.peers {
		if p != nil {
			p.conn.Close()
		}
	}
}
