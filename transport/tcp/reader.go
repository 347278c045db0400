package tcp

import (
	"errors"
	"fmt"
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
	if dst == nil {
		_, err = p.br.Discard(int(n))
	} else {
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
