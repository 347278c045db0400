package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/mpbench/mpbench/transport"
)

// errNoShutdown describes a connection that ended without a goodbye frame.
var errNoShutdown = errors.New("connection closed without an orderly shutdown (peer process died?)")

// readLoop reads frames from p until the connection ends, delivering them
// to the Handler (or discarding them once Close has begun).
func (e *Endpoint) readLoop(p *peer) {
	defer close(p.done)
	for {
		if _, err := io.ReadFull(p.br, p.rhdr[:]); err != nil {
			if err == io.EOF {
				err = errNoShutdown
			}
			e.readFailed(p, err)
			return
		}
		var h transport.Header
		h.Decode(p.rhdr[:])
		if err := checkHeader(h, p.rank); err != nil {
			e.readFailed(p, err)
			return
		}
		p.rcheck.on = false
		if p.rhdr[1]&flagCRC != 0 && h.Kind != kindGoodbye {
			p.rseq++
			p.rcheck = frameCheck{on: true, h: h, seq: p.rseq, sum: crc32.Checksum(p.rhdr[:], transport.CRC32C)}
			if !carriesPayload(h.Kind) || h.Length == 0 {
				if err := p.checkTrailer(); err != nil { // before the runtime sees the frame
					e.readFailed(p, err)
					return
				}
			}
		}
		if h.Kind == kindGoodbye {
			p.goodbye.Store(true)
			// The peer sends nothing more; read to its end of stream so
			// that our socket is drained before it is closed.
			io.Copy(io.Discard, p.br)
			return
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
			e.readFailed(p, p.readErr)
			return
		}
		if herr != nil {
			e.handlerFailed(p, herr)
			return
		}
	}
}

// checkHeader refuses a frame header that no mpbench rank sends on the
// connection from rank src: an unknown kind, or another source rank. The
// stream is then out of step (or corrupt) and nothing after it can be
// trusted.
func checkHeader(h transport.Header, src int) error {
	if h.Kind != kindGoodbye && (h.Kind < transport.Eager || h.Kind > transport.Control) || h.Source != int32(src) {
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
	switch {
	case p.rcheck.on && n > 0:
		err = p.readChecked(dst, n)
	case dst == nil:
		_, err = p.br.Discard(int(n))
	default:
		_, err = io.ReadFull(p.br, dst)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		p.readErr = err
	}
	return err
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
		if _, err := io.ReadFull(p.br, dst); err != nil {
			return err
		}
		p.rcheck.sum = crc32.Update(p.rcheck.sum, transport.CRC32C, dst)
	} else {
		for n > 0 {
			b, err := p.br.Peek(int(min(n, uint64(p.br.Size()))))
			if err != nil {
				return err
			}
			p.rcheck.sum = crc32.Update(p.rcheck.sum, transport.CRC32C, b)
			p.br.Discard(len(b))
			n -= uint64(len(b))
		}
	}
	return p.checkTrailer()
}

// checkTrailer reads the 4-byte checksum after the current frame and
// compares it with the one computed.
func (p *peer) checkTrailer() error {
	var b [4]byte
	if _, err := io.ReadFull(p.br, b[:]); err != nil {
		return err
	}
	c := &p.rcheck
	if want := binary.LittleEndian.Uint32(b[:]); want != c.sum {
		return &transport.FrameCorruptError{Transport: "tcp", Source: p.rank, Seq: c.seq, Kind: c.h.Kind, Tag: c.h.Tag,
			Length: c.h.Length, Got: c.sum, Want: want}
	}
	return nil
}

// readFailed handles the end of p's stream without a goodbye: a failure of
// that peer unless the local Close has begun.
func (e *Endpoint) readFailed(p *peer, err error) {
	if e.closing.Load() || p.goodbye.Load() {
		return
	}
	e.reportFailure(p, &transport.PeerError{Peer: p.rank, Err: err})
}

// handlerFailed handles a non-nil error from Deliver, which is fatal for the
// connection: it is closed (the peer sees a failure) and reported.
func (e *Endpoint) handlerFailed(p *peer, err error) {
	e.reportFailure(p, &transport.PeerError{Peer: p.rank, Err: fmt.Errorf("handler: %w", err)})
}

func (e *Endpoint) reportFailure(p *peer, perr *transport.PeerError) {
	if !p.failed.CompareAndSwap(false, true) {
		return
	}
	p.conn.Close() // unblocks a Send stuck on this peer
	p.mu.Lock()
	if p.sendErr == nil {
		p.sendErr = perr
	}
	p.mu.Unlock()
	if e.fh != nil && !e.closing.Load() {
		e.fh.PeerFailed(p.rank, perr)
	}
}
