package shm

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// kindGoodbye is the frame Close writes to every peer; never delivered.
const kindGoodbye transport.Kind = 0xFF

// flagCMA in header byte 1 marks a frame whose payload stays in the
// sender's memory: an 8-byte address follows the header, then 8 bytes of
// padding, and the receiver reads the payload with process_vm_readv and
// acknowledges through ringHdr.acks.
const flagCMA = 1

// cmaExt is the length of a single-copy frame's extension after the header.
const cmaExt = 16

// carriesPayload reports whether frames of kind k are followed by
// Header.Length payload bytes.
func carriesPayload(k transport.Kind) bool {
	return k == transport.Eager || k == transport.Data || k == transport.Control
}

// Send writes one frame to rank dst: header and payload are copied into
// the ring to dst, in pieces as the receiver frees space if they do not
// fit; a payload of at least Options.CMABytes is instead announced by
// address and read by the receiver straight from this process's memory,
// and Send waits for its acknowledgement. For Eager, Data and Control
// frames len(payload) must equal h.Length. Errors: a *transport.PeerError if
// dst failed or closed its endpoint, transport.ErrClosed after Close.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	if dst < 0 || dst >= e.size || dst == e.rank {
		return fmt.Errorf("shm: send from rank %d to rank %d: want a peer rank in 0..%d other than itself", e.rank, dst, e.size-1)
	}
	var body []byte
	if carriesPayload(h.Kind) {
		if uint64(len(payload)) != h.Length {
			return fmt.Errorf("shm: send %v frame: header length %d but payload of %d bytes", h.Kind, h.Length, len(payload))
		}
		body = payload
	}
	p := e.out[dst]
	if p == nil {
		return fmt.Errorf("shm: rank %d is not on this host: no shared-memory ring to it", dst)
	}
	if e.closing.Load() {
		return transport.ErrClosed
	}
	if err := e.peerState(dst); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return transport.ErrClosed
	}
	if p.err != nil {
		return p.err
	}
	var hb [transport.HeaderSize + cmaExt]byte
	h.Encode(hb[:])
	hl := transport.HeaderSize
	cma := e.cmaMin > 0 && len(body) >= e.cmaMin && p.dst.cmaFrom(e.rank).Load() == 1
	var ticket uint32
	if cma {
		hb[1] = flagCMA
		binary.LittleEndian.PutUint64(hb[transport.HeaderSize:], addrOf(body))
		hl += cmaExt
		ticket = p.hdr.acks.Load() + 1
	}
	var err error
	if cma {
		err = e.write(p, hb[:hl], nil, time.Time{})
		if err == nil {
			err = e.waitAck(p, ticket, len(body))
		}
	} else {
		err = e.write(p, hb[:hl], body, time.Time{})
	}
	runtime.KeepAlive(payload)
	if err != nil && err != transport.ErrClosed {
		p.err = err
	}
	return err
}

// peerState returns the error of a Send to peer: it failed or left.
func (e *Endpoint) peerState(peer int) error {
	l := e.live[peer]
	if perr := l.failed.Load(); perr != nil {
		return perr
	}
	if e.out[peer].gone.Load() {
		return &transport.PeerError{Peer: peer, Err: errGone}
	}
	if l.exited.Load() {
		return &transport.PeerError{Peer: peer, Err: errDied} // nothing will read it
	}
	return nil
}

// write copies hdr, body and padding to 8 bytes into p's ring, publishing
// as it goes and waking the consumer. Caller holds p.mu. With a zero
// deadline it waits for space until the peer fails or leaves or Close
// begins; with a deadline (Close's goodbye) it waits until then.
func (e *Endpoint) write(p *outPeer, hdr, body []byte, deadline time.Time) error {
	ringBytes := uint64(len(p.data))
	total := uint64(len(hdr)) + pad8(uint64(len(body)))
	var done uint64
	for done < total {
		rem := total - done
		need := rem
		if need > ringBytes/2 {
			need = ringBytes / 4 // stream in pieces of at least a quarter ring
		}
		space := ringBytes - (p.tail - p.hdr.head.Load())
		if space < need {
			if err := e.waitSpace(p, need, deadline); err != nil {
				return err
			}
			continue
		}
		k := min(space&^7, rem)
		e.fill(p, hdr, body, done, k)
		p.tail += k
		done += k
		p.hdr.tail.Store(p.tail)
		p.dst.ctl().notify()
	}
	return nil
}

// fill copies bytes [from, from+k) of the frame stream hdr|body|padding
// into p's ring at its tail.
func (e *Endpoint) fill(p *outPeer, hdr, body []byte, from, k uint64) {
	pos := p.tail
	end := from + k
	if hl := uint64(len(hdr)); from < hl {
		n := min(hl, end) - from
		copyToRing(p.data, pos, hdr[from:from+n])
		pos += n
		from += n
	}
	hl := uint64(len(hdr))
	if bl := uint64(len(body)); from < hl+bl && from < end {
		n := min(hl+bl, end) - from
		copyToRing(p.data, pos, body[from-hl:from-hl+n])
	}
	// Padding bytes are never read: nothing to write.
}

// waitSpace waits until p's ring has need free bytes.
func (e *Endpoint) waitSpace(p *outPeer, need uint64, deadline time.Time) error {
	ringBytes := uint64(len(p.data))
	free := func() bool { return ringBytes-(p.tail-p.hdr.head.Load()) >= need }
	return e.waitFor(p.rank, free, &p.hdr.space, e.spin, deadline)
}

// waitAck waits until the receiver has read the single-copy frame with
// this ticket. Reading n bytes takes a while: the sender keeps spinning
// for about that long (at 8 GB/s) when it has a CPU of its own.
func (e *Endpoint) waitAck(p *outPeer, ticket uint32, n int) error {
	acked := func() bool { return int32(p.hdr.acks.Load()-ticket) >= 0 }
	spin := e.spin
	if spin > 0 && !e.oversubscribed {
		spin += time.Duration(n/8) * time.Nanosecond
	}
	if spinUntil(acked, spin) {
		return nil
	}
	// The receiver may be waiting here too, for a single-copy frame of
	// ours it has not read (both ranks of a Sendrecv or PingPing): while
	// this rank sleeps, its poller must read incoming frames at once, not
	// after a quiet slice, or both stall for up to a millisecond a frame.
	e.askPoller()
	return e.waitFor(p.rank, acked, &p.hdr.ackBell, 0, time.Time{})
}

// waitFor spins for up to spin, then sleeps on b until cond holds. It
// gives up with the peer's error if the peer fails or leaves, with
// transport.ErrClosed when Close begins (zero deadline), or when the
// deadline passes.
func (e *Endpoint) waitFor(peer int, cond func() bool, b *bell, spin time.Duration, deadline time.Time) error {
	if spinUntil(cond, spin) {
		return nil
	}
	lastCheck := time.Now()
	for !cond() {
		if deadline.IsZero() && e.closing.Load() {
			return transport.ErrClosed
		}
		if err := e.peerState(peer); err != nil {
			return err
		}
		now := time.Now()
		if !deadline.IsZero() && now.After(deadline) {
			return fmt.Errorf("shm: rank %d: timed out waiting for rank %d", e.rank, peer)
		}
		if now.Sub(lastCheck) >= livenessEvery {
			lastCheck = now
			e.checkPeer(peer)
		}
		b.sleep(cond, sleepSlice)
	}
	return nil
}

// spinUntil polls cond for up to d; it reports whether cond held.
func spinUntil(cond func() bool, d time.Duration) bool {
	if d <= 0 {
		return cond()
	}
	start := time.Now()
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if i&63 == 63 && time.Since(start) > d {
			return false
		}
	}
}

// notify wakes the segment owner's sleeping threads if any asked for it.
func (c *control) notify() {
	if c.want.Load() != 0 || c.bell.sleepers.Load() != 0 {
		c.bell.seq.Add(1)
		futexWakeAll(&c.bell.seq)
	}
}
