package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
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
// transport.Endpoint and transport.Progresser. Create it with Listen and
// Listener.Connect.
type Endpoint struct {
	rank, size   int
	closeTimeout time.Duration
	frameStall   time.Duration // Options.FrameStall; 0: none
	spin         time.Duration
	verify       bool    // checksum every frame sent (Options.Verify)
	peers        []*peer // nil at index rank
	peerList     []*peer // the non-nil entries of peers

	startMu  sync.Mutex
	started  atomic.Bool // Start was called (set under startMu)
	released bool        // Close has closed the sockets; guarded by startMu
	h        transport.Handler
	fh       transport.FailureHandler // nil if h does not implement it

	// Progress (progress.go).
	polling  atomic.Bool   // held by whoever reads the sockets (see tryPoll)
	pollFn   func() int    // e.tryPoll, bound once
	fg       atomic.Int32  // goroutines polling in Progress
	fgRecent atomic.Bool   // a Progress call found what it waited for since the poller last looked
	blocked  atomic.Bool   // the rank sleeps until the poller delivers
	kick     chan struct{} // wakes the poller from a quiet sleep
	quiet    *time.Timer   // the poller's quiet sleep
	quietN   atomic.Uint64 // quiet sleeps begun (a test waits for one)
	wakeR    int           // read end of the pipe that ends the poller's poll(2)
	wakeW    int
	pfds     []unix.PollFd // the poller's poll set
	rfds     []unix.PollFd // tryPoll's poll set (under polling)
	stop     atomic.Bool   // the poller must return
	pollerOn bool          // the poller runs; guarded by startMu
	done     chan struct{} // closed when the poller returns

	closing   atomic.Bool
	killed    atomic.Bool
	closeOnce sync.Once
}

var (
	_ transport.Endpoint   = (*Endpoint)(nil)
	_ transport.Progresser = (*Endpoint)(nil)
)

// peer is the connection to one other rank.
type peer struct {
	rank int
	fd   int // the socket, non-blocking and outside Go's netpoller

	// Send side, guarded by mu.
	mu       sync.Mutex
	hdr      [transport.HeaderSize]byte
	crc      [4]byte
	iov      [3]unix.Iovec
	sendErr  error        // sticky: *transport.PeerError or transport.ErrClosed
	deadline atomic.Int64 // unix nanoseconds after which a blocked Send gives up; 0 none

	goodbye atomic.Bool   // peer closed its endpoint in order
	failed  atomic.Bool   // failure reported (or local handler error)
	ended   atomic.Bool   // its stream is over (end-of-stream or error): no more reads
	endedCh chan struct{} // closed when ended is set

	// Read side, used only by the goroutine holding Endpoint.polling.
	buf       []byte
	r, w      int        // unread bytes are buf[r:w]
	remaining uint64     // payload bytes of the current frame not yet read
	rcheck    frameCheck // the current frame's checksum, if it has one (rcheck.on)
	rseq      uint64     // checksummed frames read so far
	scratch   []byte     // discarded payload of a checksummed frame
	readErr   error      // I/O error met by readFn
	readFn    func([]byte) error
	e         *Endpoint
}

// newEndpoint takes the connections out of Go's netpoller (each socket is
// kept as a non-blocking descriptor that the rank polls itself) and
// returns the endpoint. local is the number of ranks on this host, for the
// busy-poll budget. On error every connection is closed.
func newEndpoint(o *Options, conns []*net.TCPConn, local int) (*Endpoint, error) {
	e := &Endpoint{rank: o.Rank, size: o.Size, closeTimeout: o.CloseTimeout, verify: o.Verify, peers: make([]*peer, o.Size),
		spin: o.Spin, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if e.spin == 0 {
		e.spin = busypoll.Budget(local)
	}
	switch {
	case o.FrameStall == 0:
		e.frameStall = DefaultFrameStall
	case o.FrameStall > 0:
		e.frameStall = o.FrameStall
	}
	var err error
	e.wakeR, e.wakeW, err = wakePipe()
	for r, c := range conns {
		if r == o.Rank || c == nil {
			continue
		}
		fd := -1
		if err == nil {
			fd, err = detach(c)
		}
		c.Close()
		if err != nil {
			continue
		}
		pr := &peer{rank: r, fd: fd, endedCh: make(chan struct{}), buf: make([]byte, readBufferBytes), e: e}
		pr.readFn = pr.readPayload
		e.peers[r] = pr
		e.peerList = append(e.peerList, pr)
	}
	if err != nil {
		for _, pr := range e.peerList {
			unix.Close(pr.fd)
		}
		unix.Close(e.wakeR)
		unix.Close(e.wakeW)
		return nil, fmt.Errorf("tcp: rank %d: taking over sockets: %w", o.Rank, err)
	}
	e.pfds = make([]unix.PollFd, 0, len(e.peerList)+1)
	e.rfds = make([]unix.PollFd, len(e.peerList))
	for i, p := range e.peerList {
		e.rfds[i] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}
	}
	e.pollFn = e.tryPoll
	return e, nil
}

// detach returns a duplicate of c's descriptor; once c is closed (which
// removes it from Go's netpoller) the duplicate is the only handle of the
// socket, still non-blocking.
func detach(c *net.TCPConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(s uintptr) { fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return -1, cerr
	}
	return fd, err
}

// Rank returns this endpoint's rank.
func (e *Endpoint) Rank() int { return e.rank }

// Size returns the number of ranks in the job.
func (e *Endpoint) Size() int { return e.size }

// Start begins delivering incoming frames to h: the rank's waiting
// goroutines read the sockets in Progress, and a poller goroutine reads
// them while none does. If h implements transport.FailureHandler it is
// told of peer failures. Start may be called once, before Close.
func (e *Endpoint) Start(h transport.Handler) error {
	if h == nil {
		return errors.New("tcp: Start with a nil Handler")
	}
	e.startMu.Lock()
	defer e.startMu.Unlock()
	if e.closing.Load() {
		return transport.ErrClosed
	}
	if e.started.Load() {
		return errors.New("tcp: Start called twice")
	}
	e.h = h
	e.fh, _ = h.(transport.FailureHandler)
	e.started.Store(true)
	e.startPoller()
	return nil
}

// startPoller starts the poller goroutine once; startMu must be held.
func (e *Endpoint) startPoller() {
	if !e.pollerOn {
		e.pollerOn = true
		go e.pollLoop()
	}
}

// carriesPayload reports whether frames of kind k are followed by
// Header.Length payload bytes.
func carriesPayload(k transport.Kind) bool {
	return k == transport.Eager || k == transport.Data || k == transport.Control
}

// Send writes one frame to rank dst with vectored writes. For Eager, Data
// and Control frames len(payload) must equal h.Length; for RTS and CTS
// payload is ignored. While the socket's buffer is full it waits for room
// (the poller goroutine meanwhile reads what peers send). It returns a
// *transport.PeerError if the connection to dst failed or dst has closed
// its endpoint, and transport.ErrClosed after Close.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	if dst < 0 || dst >= e.size || dst == e.rank {
		return fmt.Errorf("tcp: send from rank %d to rank %d: want a peer rank in 0..%d other than itself", e.rank, dst, e.size-1)
	}
	if carriesPayload(h.Kind) {
		if uint64(len(payload)) != h.Length {
			return fmt.Errorf("tcp: send %v frame: header length %d but payload of %d bytes", h.Kind, h.Length, len(payload))
		}
	} else {
		payload = nil
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
	var trailer []byte
	if e.verify {
		p.hdr[1] = flagCRC
		sum := crc32.Update(crc32.Checksum(p.hdr[:], transport.CRC32C), transport.CRC32C, payload)
		binary.LittleEndian.PutUint32(p.crc[:], sum)
		trailer = p.crc[:]
	}
	if err := e.writeFrame(p, p.hdr[:], payload, trailer); err != nil {
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
	e.startPoller() // drain-only if not started: closing is set, nothing is delivered
	e.startMu.Unlock()

	deadline := time.Now().Add(e.closeTimeout)
	if !e.killed.Load() {
		var wg sync.WaitGroup
		for _, p := range e.peerList {
			wg.Go(func() {
				p.deadline.Store(deadline.UnixNano()) // bounds a Send stuck on a full buffer
				p.mu.Lock()
				defer p.mu.Unlock()
				if p.sendErr == nil {
					var hb [transport.HeaderSize]byte
					h := transport.Header{Kind: kindGoodbye, Source: int32(e.rank)}
					h.Encode(hb[:])
					if e.writeFrame(p, hb[:], nil, nil) == nil {
						unix.Shutdown(p.fd, unix.SHUT_WR)
					}
				}
				p.sendErr = transport.ErrClosed
			})
		}
		wg.Wait()
		e.wakePoller() // the poller may sleep quietly while a Progress call returned
		timer := time.NewTimer(time.Until(deadline))
		for _, p := range e.peerList {
			select {
			case <-p.endedCh:
			case <-timer.C:
				timer.Reset(0) // expired: close the rest without waiting
			}
		}
		timer.Stop()
	}
	e.stop.Store(true)
	e.wakePoller()
	<-e.done
	for !e.polling.CompareAndSwap(false, true) {
		time.Sleep(time.Millisecond) // a Progress call finishing its frame; the sockets stay ours
	}
	e.startMu.Lock()
	e.released = true // Kill no longer touches the descriptors
	e.startMu.Unlock()
	for _, p := range e.peerList {
		p.mu.Lock()
		p.sendErr = transport.ErrClosed
		unix.Close(p.fd)
		p.fd = -1
		p.mu.Unlock()
	}
	unix.Close(e.wakeR)
	unix.Close(e.wakeW)
}

// Kill fails the endpoint as a crashing process would: every connection is
// shut down at once, without a goodbye, so peers report this rank as failed
// (fault injection for tests, transporttest.Killer). Nothing is reported
// locally; Sends fail with ErrClosed; a later Close only releases the
// sockets.
func (e *Endpoint) Kill() {
	e.startMu.Lock()
	defer e.startMu.Unlock()
	e.closing.Store(true)
	e.killed.Store(true)
	if e.released {
		return
	}
	for _, p := range e.peerList {
		unix.Shutdown(p.fd, unix.SHUT_RDWR)
	}
}
