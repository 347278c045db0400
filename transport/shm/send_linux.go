package shm

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
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

// flagCRC in header byte 1 marks a frame whose extension (after the
// single-copy one, if any) holds the CRC-32C (4 bytes little endian, 4
// unused) of its header, flags included, and payload
// (transport.EnvVerify).
const (
	flagCRC = 2
	crcExt  = 8
)

// flagAlign in header byte 1 marks a frame whose payload starts on a
// cache line of the ring: zero bytes (alignGap) follow the header and its
// extensions. The sender sets it for payloads of at least alignPayload
// bytes copied through the ring, whose copies in and out then run on
// whole lines (see moveBytes).
const (
	flagAlign    = 4
	alignPayload = longMove
)

// flagLine in header byte 1 marks a frame padded to end on a cache line
// of the ring: its mark counts the bytes up to that line, so the frame
// after it starts on a line. writeWhole sets it on every frame it
// publishes whose padded length still fits in a fragment: a small frame's
// mark and header (and a payload of up to 24 bytes) then share one line,
// which the consumer's core fetches once from the producer's, where an
// unpadded 40-byte frame spans two lines every other frame.
const flagLine = 8

// alignGap is the number of bytes from stream position pos to the next
// cache line.
func alignGap(pos uint64) uint64 { return -pos & (cacheLine - 1) }

// carriesPayload reports whether frames of kind k are followed by
// Header.Length payload bytes.
func carriesPayload(k transport.Kind) bool {
	return k == transport.Eager || k == transport.Data || k == transport.Control
}

// Send writes one frame to rank dst: header and payload are copied into
// the ring to dst, in pieces as the receiver frees space if they do not
// fit; a payload of at least Options.CMABytes is instead announced by
// address and read by the receiver straight from this process's memory,
// and Send waits for its acknowledgement, delivering the frames that
// arrive meanwhile. For Eager, Data and Control frames len(payload) must
// equal h.Length. Errors: a *transport.PeerError if dst failed or closed
// its endpoint, transport.ErrClosed after Close.
func (e *Endpoint) Send(dst int, h transport.Header, payload []byte) error {
	p, ticket, pending, err := e.start(dst, h, payload, nil)
	if err != nil || !pending {
		return err
	}
	err = e.waitAck(p, ticket, len(payload))
	e.reap()
	runtime.KeepAlive(payload)
	return err
}

// StartSend is Send for a runtime that drives progress
// (transport.SendStarter): a single-copy frame is announced and the call
// returns at once; c is told when the receiver has read the payload (by a
// Progress call or the poller goroutine, whichever sees the
// acknowledgement first), or that the send failed. Other frames are
// written as by Send and reported done.
func (e *Endpoint) StartSend(dst int, h transport.Header, payload []byte, c transport.Completion) (bool, error) {
	_, _, pending, err := e.start(dst, h, payload, c)
	return !pending, err
}

// DeferFrom is Options.CMABytes when single copy is on, else math.MaxInt
// (transport.SendStarter): only single-copy frames complete after
// StartSend returns.
func (e *Endpoint) DeferFrom() int {
	if e.cmaMin > 0 {
		return e.cmaMin
	}
	return math.MaxInt
}

// InlineBytes is the longest payload of a frame that is always published
// in one piece, so that Deliver finds it whole in the ring and its read
// only copies it (transport.InlineReader): a fragment less the longest
// header and alignment gap, and shorter than a single-copy frame's, whose
// read is a system call.
func (e *Endpoint) InlineBytes() int {
	n := int(fragmentBytes(uint64(e.own.g.ringBytes))) - maxHeader - cacheLine
	if e.cmaMin > 0 {
		n = min(n, e.cmaMin-1)
	}
	return n
}

// start writes a frame to dst. A single-copy frame is queued as a started
// send with completion c before its header is published, and start
// reports pending with its ticket; other frames are written whole.
func (e *Endpoint) start(dst int, h transport.Header, payload []byte, c transport.Completion) (p *outPeer, ticket uint32, pending bool, err error) {
	if dst < 0 || dst >= e.size || dst == e.rank {
		return nil, 0, false, fmt.Errorf("shm: send from rank %d to rank %d: want a peer rank in 0..%d other than itself", e.rank, dst, e.size-1)
	}
	var body []byte
	if carriesPayload(h.Kind) {
		if uint64(len(payload)) != h.Length {
			return nil, 0, false, fmt.Errorf("shm: send %v frame: header length %d but payload of %d bytes", h.Kind, h.Length, len(payload))
		}
		body = payload
	}
	p = e.out[dst]
	if p == nil {
		return nil, 0, false, fmt.Errorf("shm: rank %d is not on this host: no shared-memory ring to it", dst)
	}
	if e.closing.Load() {
		return nil, 0, false, transport.ErrClosed
	}
	if err := e.peerState(dst); err != nil {
		return nil, 0, false, err
	}
	p.mu.Lock()
	whole, ticket, pending, err := e.startLocked(p, h, body, c)
	p.mu.Unlock()
	if whole {
		// N1: the frame's mark was stored with release ordering only
		// (writeWhole); the locked instruction of Unlock (sync.Mutex's
		// Unlock is an atomic add, LOCK XADD on amd64; storeRelease is
		// a sequentially consistent Store elsewhere) orders it before
		// notify's loads, as the wake-up protocol needs (see bell), at
		// the cost of one full barrier per frame instead of two.
		p.dst.ctl().notify()
	}
	return p, ticket, pending, err
}

// startLocked is start's part under p.mu: it reports whole for a frame
// writeWhole published, whose consumer the caller notifies after
// unlocking.
func (e *Endpoint) startLocked(p *outPeer, h transport.Header, body []byte, c transport.Completion) (whole bool, ticket uint32, pending bool, err error) {
	if p.closed {
		return false, 0, false, transport.ErrClosed
	}
	if p.err != nil {
		return false, 0, false, p.err
	}
	cma := e.cmaMin > 0 && len(body) >= e.cmaMin && p.dst.cmaFrom(e.rank).Load() == 1
	var flags byte
	switch {
	case cma:
		flags = flagCMA
	case len(body) >= alignPayload:
		flags = flagAlign
	}
	if e.verify {
		flags |= flagCRC
	}
	if !cma && e.writeWhole(p, &h, flags, body) {
		return true, 0, false, nil
	}
	var hb [maxHeader]byte
	hl := encodeHeader(hb[:], &h, flags, body)
	if !cma {
		err = e.write(p, hb[:hl], body, time.Time{})
		if err != nil && err != transport.ErrClosed {
			p.err = err
		}
		return false, 0, false, err
	}
	ticket = p.cmaSent + 1
	p.push(startedSend{ticket: ticket, payload: body, c: c})
	if err = e.write(p, hb[:hl], nil, time.Time{}); err != nil {
		if err != transport.ErrClosed {
			p.err = err
		}
		if p.unpush(ticket) {
			return false, 0, false, err
		}
		// A failure already completed it (with its error) through c.
		return false, ticket, true, nil
	}
	p.cmaSent = ticket
	return false, ticket, true, nil
}

// encodeHeader writes h, flags (header byte 1) and the extensions they
// call for into b (at least maxHeader-markBytes bytes) and returns their
// length: for flagCMA the payload's address and 8 zero bytes, for flagCRC
// the checksum of the header and body and 4 zero bytes.
func encodeHeader(b []byte, h *transport.Header, flags byte, body []byte) int {
	h.Encode(b)
	b[1] = flags
	hl := transport.HeaderSize
	if flags&flagCMA != 0 {
		binary.LittleEndian.PutUint64(b[hl:], addrOf(body))
		binary.LittleEndian.PutUint64(b[hl+8:], 0)
		hl += cmaExt
	}
	if flags&flagCRC != 0 {
		sum := crc32.Update(headerSum([transport.HeaderSize]byte(b[:transport.HeaderSize])), transport.CRC32C, body)
		binary.LittleEndian.PutUint64(b[hl:], uint64(sum))
		hl += crcExt
	}
	return hl
}

// writeWhole writes a frame that is published in one piece (at most a
// fragment), fits in the ring's free space and does not wrap around the
// ring's end straight into the ring: the header is encoded in place, the
// payload copied once, and the frame published by one release store of
// its mark, after everything else. It reports false, having written
// nothing, for any other frame (write then streams it). Caller holds p.mu
// (so no streamed frame of p is unfinished), flags has no flagCMA, and
// the caller notifies the consumer after unlocking p.mu (N1 in start).
func (e *Endpoint) writeWhole(p *outPeer, h *transport.Header, flags byte, body []byte) bool {
	ringBytes := uint64(len(p.data))
	hl := uint64(markBytes + transport.HeaderSize)
	if flags&flagCRC != 0 {
		hl += crcExt
	}
	if flags&flagAlign != 0 {
		hl += alignGap(p.tail + hl)
	}
	total := hl + pad8(uint64(len(body)))
	frag := fragmentBytes(ringBytes)
	if padded := total + alignGap(p.tail+total); padded <= frag {
		total = padded
		flags |= flagLine
	}
	off := p.tail & (ringBytes - 1)
	if total > frag || off+total > ringBytes {
		return false
	}
	if ringBytes-(p.tail-p.headSeen) < total+markBytes {
		p.headSeen = p.hdr.head.Load() // see advance
		if ringBytes-(p.tail-p.headSeen) < total+markBytes {
			return false
		}
	}
	frame := p.data[off : off+total : off+total]
	encodeHeader(frame[markBytes:], h, flags, body)
	moveBytes(frame[hl:], body)
	p.tail += total
	storeRelease(markAt(p.data, p.tail), 0) // the next frame's, before this one is there
	storeRelease(&p.hdr.tail, p.tail)
	storeRelease(markAt(p.data, p.tail-total), total) // the frame is there
	return true
}

// headerSum is the CRC-32C of an encoded header. It takes the header by
// value: a slice of the caller's array handed to hash/crc32 would move
// that array to the heap on every frame, checksummed or not (an
// allocation per message, which made small messages slower).
func headerSum(hb [transport.HeaderSize]byte) uint32 {
	return crc32.Checksum(hb[:], transport.CRC32C)
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
// as it goes and waking the consumer. Caller holds p.mu. A frame that
// does not fit in the free space is streamed (see stream.go). With a zero
// deadline it waits for space until the peer fails or leaves or Close
// begins; with a deadline (Close's goodbye) it waits until then.
func (e *Endpoint) write(p *outPeer, hdr, body []byte, deadline time.Time) error {
	hlen := markBytes + uint64(len(hdr))
	if hdr[1]&flagAlign != 0 {
		hlen += alignGap(p.tail + hlen)
	}
	p.strm = stream{body: body, total: hlen + pad8(uint64(len(body))), hlen: int(hlen)}
	copy(p.strm.hdr[markBytes:], hdr)
	if e.advance(p) {
		p.strm = stream{}
		return nil
	}
	return e.streamOut(p, deadline)
}

// fill copies bytes [from, from+k) of the frame stream hdr|body|padding
// into p's ring at its tail, hdr starting with the mark, which advance
// stores.
func (e *Endpoint) fill(p *outPeer, hdr, body []byte, from, k uint64) {
	pos := p.tail
	end := from + k
	if from < markBytes {
		pos += markBytes - from
		from = markBytes
	}
	if hl := uint64(len(hdr)); from < hl {
		n := min(hl, end) - from
		copyToRing(p.data, pos, hdr[from:from+n])
		pos += n
		from += n
	}
	hl := uint64(len(hdr))
	if bl := uint64(len(body)); from < hl+bl && from < end {
		n := min(hl+bl, end) - from
		moveToRing(p.data, pos, body[from-hl:from-hl+n])
	}
	// Padding bytes are never read: nothing to write.
}

// waitAck waits until the receiver has read the single-copy frame with
// this ticket, delivering incoming frames meanwhile: the receiver may be
// waiting here too, for a single-copy frame of ours it has not read (both
// ranks of a Sendrecv or PingPing). Reading n bytes takes a while: the
// sender keeps polling for about that long (at 8 GB/s) when it has a CPU
// of its own, then sleeps while its poller goroutine serves its rings.
func (e *Endpoint) waitAck(p *outPeer, ticket uint32, n int) error {
	acked := func() bool { return p.acked(ticket) }
	spin := e.spin
	if spin > 0 && !e.oversubscribed {
		spin += time.Duration(n/8) * time.Nanosecond
	}
	if e.pollUntil(acked, spin) {
		return nil
	}
	e.askPoller()
	return e.waitFor(p.rank, acked, &p.hdr.ackBell, 0, time.Time{})
}

// pollUntil polls the rings and completes started sends until cond holds
// or d passes; it reports whether cond held.
func (e *Endpoint) pollUntil(cond func() bool, d time.Duration) bool {
	return e.spinUntil(func() bool {
		if cond() {
			return true
		}
		e.tryPoll()
		return false
	}, d)
}

// waitFor spins for up to spin, then sleeps on b until cond holds. It
// gives up with the peer's error if the peer fails or leaves, with
// transport.ErrClosed when Close begins (zero deadline), or when the
// deadline passes.
func (e *Endpoint) waitFor(peer int, cond func() bool, b *bell, spin time.Duration, deadline time.Time) error {
	if e.spinUntil(cond, spin) {
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

// spinUntil polls cond for up to d; it reports whether cond held. When
// the host's ranks outnumber its CPUs it yields the CPU (sched_yield)
// between two polls.
func (e *Endpoint) spinUntil(cond func() bool, d time.Duration) bool {
	if d <= 0 {
		return cond()
	}
	start := time.Now()
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if e.oversubscribed {
			busypoll.Yield()
		}
		if (i&63 == 63 || (e.oversubscribed && i&7 == 7)) && time.Since(start) > d {
			return false
		}
	}
}

// clearWant stops producers ringing the owner's bell for its poller. It
// writes the word only if it is set: producers read its cache line for
// every frame they publish, and a store on every wait of the owner would
// move that line to the owner's core and back each time.
func (c *control) clearWant() {
	if c.want.Load() != 0 {
		c.want.Store(0)
	}
}

// notify wakes the segment owner's sleeping threads if any asked for it.
func (c *control) notify() {
	if c.want.Load() != 0 || c.bell.sleepers.Load() != 0 {
		c.bell.seq.Add(1)
		futexWakeAll(&c.bell.seq)
	}
}
