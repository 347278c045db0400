package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
)

// errNoShutdown describes a connection that ended without a goodbye frame.
var errNoShutdown = errors.New("connection closed without an orderly shutdown (peer process died?)")

// waitSlice bounds one blocking poll(2) of a read or write waiting for its
// socket, so that Close and a Send's deadline are noticed.
const waitSlice = 100 * time.Millisecond

// maxFrameBytes bounds the Length of every frame header: 2^48 bytes (256
// TiB) is the largest allocation Go makes on 64-bit Linux (its runtime's
// maxAlloc), so no rank holds a message that long. A longer length comes
// from a stream out of step or corrupt: read as a payload it would swallow
// every later frame of that peer, and from 2^63 on it overflows the
// runtime's int lengths.
const maxFrameBytes = 1 << 48

// DefaultFrameStall is how long a rank waits for the rest of a frame whose
// header has arrived (Options.FrameStall) before it fails the sending peer.
// The peer's whole frame is written at once, so a frame that stops
// half-way for this long means the peer is stopped, its host or the
// network is gone, or the stream is out of step; meanwhile no other peer's
// frames are read. mpbench's launcher fails a stopped rank after 10 s, so
// under it this limit is never the first to act.
const DefaultFrameStall = 60 * time.Second

// pollPeer reads what p's socket holds without blocking and delivers every
// frame whose header has arrived (reading the rest of a payload that is
// still on its way). It returns the number of frames delivered. The
// caller holds e.polling.
//
// Invariant between two calls: p.buf holds no complete header, so a
// rank's input is never left sitting in a buffer while the socket is
// empty.
func (e *Endpoint) pollPeer(p *peer) int {
	if p.ended.Load() {
		return 0
	}
	n, err := p.fill()
	if err != nil {
		e.endStream(p, err)
		return 0
	}
	if n == 0 {
		return 0
	}
	return e.deliverBuffered(p)
}

// fill reads what p's socket holds into p.buf without blocking, first
// moving the unread bytes to the front when less than half the buffer is
// free behind them. It returns the bytes read (0: the socket was empty), or
// the error that ended the stream (io.EOF at end-of-stream).
func (p *peer) fill() (int, error) {
	if p.r == p.w {
		p.r, p.w = 0, 0
	} else if p.r > 0 && len(p.buf)-p.w < len(p.buf)/2 {
		p.w = copy(p.buf, p.buf[p.r:p.w])
		p.r = 0
	}
	n, err := p.read(p.buf[p.w:])
	if err == unix.EAGAIN {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	p.w += n
	return n, nil
}

// read is one non-blocking read(2) from p's socket into b: the bytes
// read, unix.EAGAIN if there were none, io.EOF at end-of-stream.
func (p *peer) read(b []byte) (int, error) {
	for {
		n, err := unix.Read(p.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// deliverBuffered delivers every frame whose header is in p.buf and
// returns how many it delivered. After a goodbye everything is discarded.
func (e *Endpoint) deliverBuffered(p *peer) int {
	k := 0
	for !p.ended.Load() && p.w-p.r >= transport.HeaderSize {
		if p.goodbye.Load() {
			p.r = p.w // the peer sends nothing more; drain to its end of stream
			break
		}
		var h transport.Header
		h.Decode(p.buf[p.r:])
		p.r += transport.HeaderSize
		if err := checkHeader(h, p.rank); err != nil {
			e.endStream(p, err)
			return k
		}
		p.rcheck.on = false
		if p.buf[p.r-transport.HeaderSize+1]&flagCRC != 0 && h.Kind != kindGoodbye {
			p.rseq++
			p.rcheck = frameCheck{on: true, h: h, seq: p.rseq, sum: crc32.Checksum(p.buf[p.r-transport.HeaderSize:p.r], transport.CRC32C)}
			if !carriesPayload(h.Kind) || h.Length == 0 {
				if err := p.checkTrailer(); err != nil { // before the runtime sees the frame
					e.endStream(p, err)
					return k
				}
			}
		}
		if h.Kind == kindGoodbye {
			p.goodbye.Store(true)
			continue
		}
		p.remaining, p.readErr = 0, nil
		if carriesPayload(h.Kind) {
			p.remaining = h.Length
		}
		var herr error
		if !e.closing.Load() {
			herr = e.h.Deliver(h, p.readFn)
		}
		if p.readErr == nil && p.remaining > 0 {
			p.readFn(nil) // keep the stream in step if the handler did not read
		}
		if p.readErr != nil {
			e.endStream(p, p.readErr)
			return k
		}
		if herr != nil {
			e.handlerFailed(p, herr)
			return k
		}
		k++
	}
	return k
}

// checkHeader refuses a frame header that no mpbench rank sends on the
// connection from rank src: an unknown kind, another source rank, or a
// length above maxFrameBytes. The
// stream is then out of step (or corrupt) and nothing after it can be
// trusted.
func checkHeader(h transport.Header, src int) error {
	if h.Kind != kindGoodbye && (h.Kind < transport.Eager || h.Kind > transport.Control) || h.Source != int32(src) || h.Length > maxFrameBytes {
		return fmt.Errorf("corrupt frame header from rank %d (kind %d, source %d, tag %d, %d bytes): the stream is out of step", src, h.Kind, h.Source, h.Tag, h.Length)
	}
	return nil
}

// readPayload is the read function passed to Deliver: it reads exactly the
// current frame's remaining payload into dst, or discards it if dst is nil.
func (p *peer) readPayload(dst []byte) error {
	n := p.remaining
	if dst != nil && uint64(len(dst)) != n {
		return fmt.Errorf("tcp: read of a %d-byte payload into a %d-byte buffer", n, len(dst))
	}
	p.remaining = 0
	var err error
	if p.rcheck.on && n > 0 {
		err = p.readChecked(dst, n)
	} else {
		err = p.e.readFull(p, dst, n)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		p.readErr = err
		return err
	}
	return nil
}

// frameCheck is the checksum state of a frame that carries one (flagCRC).
type frameCheck struct {
	on  bool // the frame carries a checksum
	h   transport.Header
	seq uint64 // frame number on the connection
	sum uint32 // CRC-32C so far
}

// readChecked reads the n payload bytes of a checksummed frame into dst
// (or discards them, dst nil), then its checksum, and fails with a
// *transport.FrameCorruptError when they differ: the handler's read
// returns the error, so the runtime never completes a message with a
// corrupt payload.
func (p *peer) readChecked(dst []byte, n uint64) error {
	if dst != nil {
		if err := p.e.readFull(p, dst, n); err != nil {
			return err
		}
		p.rcheck.sum = crc32.Update(p.rcheck.sum, transport.CRC32C, dst)
		return p.checkTrailer()
	}
	if p.scratch == nil {
		p.scratch = make([]byte, readBufferBytes)
	}
	for n > 0 {
		b := p.scratch[:min(n, uint64(len(p.scratch)))]
		if err := p.e.readFull(p, b, uint64(len(b))); err != nil {
			return err
		}
		p.rcheck.sum = crc32.Update(p.rcheck.sum, transport.CRC32C, b)
		n -= uint64(len(b))
	}
	return p.checkTrailer()
}

// checkTrailer reads the 4-byte checksum after the current frame and
// compares it with the one computed.
func (p *peer) checkTrailer() error {
	var b [4]byte
	if err := p.e.readFull(p, b[:], 4); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	c := &p.rcheck
	if want := binary.LittleEndian.Uint32(b[:]); want != c.sum {
		return &transport.FrameCorruptError{Transport: "tcp", Source: p.rank, Seq: c.seq, Kind: c.h.Kind, Tag: c.h.Tag,
			Length: c.h.Length, Got: c.sum, Want: want}
	}
	return nil
}

// readFull reads the next n bytes of p's stream into dst (nil: discards
// them): first what p.buf holds, then from the socket, straight into dst
// when at least a buffer's worth is missing. It waits for the socket while
// the sender is still writing the frame: reading again without blocking,
// yielding the CPU between two tries, for up to the spin budget from the
// last byte read (the rest of a frame follows at the sender's copying
// speed, and a thread asleep in poll(2) is woken for every segment that
// arrives), then in poll(2), at most e.frameStall without a byte (then a
// *stallError).
func (e *Endpoint) readFull(p *peer, dst []byte, n uint64) error {
	var idle time.Time // when the reads started finding nothing, while spinning
	for off := uint64(0); off < n; {
		if p.r < p.w {
			c := min(uint64(p.w-p.r), n-off)
			if dst != nil {
				copy(dst[off:off+c], p.buf[p.r:])
			}
			p.r += int(c)
			off += c
			continue
		}
		p.r, p.w = 0, 0
		var m int
		var err error
		if dst != nil && n-off >= uint64(len(p.buf)) {
			m, err = p.read(dst[off:])
			off += uint64(m)
		} else {
			m, err = p.read(p.buf)
			p.w = m
		}
		if m > 0 {
			idle = time.Time{}
		}
		if err == unix.EAGAIN && e.spin > 0 {
			now := time.Now()
			if idle.IsZero() {
				idle = now
			}
			if now.Sub(idle) < e.spin {
				busypoll.Yield()
				continue
			}
		}
		if err == unix.EAGAIN {
			idle = time.Time{}
			err = e.waitFD(p, unix.POLLIN, e.frameStall)
			if err == errIdle {
				err = &stallError{got: off, want: n, idle: e.frameStall}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// stallError is a frame that stopped half-way: got of its want bytes (of
// payload, or of the checksum after it) arrived, then nothing for idle.
type stallError struct {
	got, want uint64
	idle      time.Duration
}

// Error says how far the frame got and how long nothing followed.
func (s *stallError) Error() string {
	return fmt.Sprintf("a frame stopped half-way: %d of %d bytes arrived, then nothing for %v (the rank stopped, its host or the network gone, or its stream out of step)", s.got, s.want, s.idle)
}

// waitFD waits until p's socket is ready for events (POLLIN or POLLOUT),
// has failed, or is shut down; it gives up with transport.ErrClosed once
// the endpoint's poller has been stopped (Close), with errDeadline after
// p.deadline, and with errIdle after idle (if > 0) without the socket
// becoming ready.
func (e *Endpoint) waitFD(p *peer, events int16, idle time.Duration) error {
	pf := []unix.PollFd{{Fd: int32(p.fd), Events: events}}
	var giveUp int64
	if idle > 0 {
		giveUp = time.Now().Add(idle).UnixNano()
	}
	for {
		if e.stop.Load() {
			return transport.ErrClosed
		}
		if dl := p.deadline.Load(); dl != 0 && time.Now().UnixNano() > dl {
			return errDeadline
		}
		n, err := unix.Poll(pf, int(waitSlice/time.Millisecond))
		if err != nil && err != unix.EINTR {
			return err
		}
		if n > 0 {
			return nil
		}
		// Only a poll that found nothing counts: a rank that was not
		// scheduled for a while finds what arrived meanwhile first.
		if giveUp != 0 && time.Now().UnixNano() > giveUp {
			return errIdle
		}
	}
}

// errDeadline ends a Send that Close's deadline caught waiting for room.
var errDeadline = errors.New("write deadline of Close passed with the socket's buffer full")

// errIdle ends a wait of waitFD that its idle limit caught.
var errIdle = errors.New("socket idle")

// endStream notes that p's stream is over: an orderly end after a goodbye,
// else (unless the local Close has begun) a failure of that peer.
func (e *Endpoint) endStream(p *peer, err error) {
	if p.ended.Swap(true) {
		return
	}
	defer close(p.endedCh) // after the report: Close waits for it
	if e.closing.Load() || p.goodbye.Load() {
		return
	}
	if err == io.EOF {
		err = errNoShutdown
	}
	e.reportFailure(p, &transport.PeerError{Peer: p.rank, Err: err})
}

// handlerFailed handles a non-nil error from Deliver, which is fatal for the
// connection: it is shut down (the peer sees a failure) and reported.
func (e *Endpoint) handlerFailed(p *peer, err error) {
	if !p.ended.Swap(true) {
		defer close(p.endedCh) // after the report, as in endStream
	}
	e.reportFailure(p, &transport.PeerError{Peer: p.rank, Err: fmt.Errorf("handler: %w", err)})
}

// reportFailure shuts p's socket down (which also ends a Send stuck on it),
// makes later Sends to p fail with perr, and tells the Handler, once.
func (e *Endpoint) reportFailure(p *peer, perr *transport.PeerError) {
	if !p.failed.CompareAndSwap(false, true) {
		return
	}
	unix.Shutdown(p.fd, unix.SHUT_RDWR)
	p.mu.Lock()
	if p.sendErr == nil {
		p.sendErr = perr
	}
	p.mu.Unlock()
	if e.fh != nil && !e.closing.Load() {
		e.fh.PeerFailed(p.rank, perr)
	}
}
