package shm

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// framesPerPass bounds the frames taken from one ring before the next
// ring gets its turn.
const framesPerPass = 16

// pollAll consumes complete frames from every ring; caller holds
// e.polling. It returns the number of frames consumed, as soon as stop
// (if not nil) holds after one (see tryPollUntil).
//
// A pass starts at the ring after the one whose frame ended the last pass
// early (e.nextIn, guarded by e.polling), else one ring further than the
// last pass started: a waiting goroutine's poll usually ends at the first
// frame, and with a fixed start the lowest-ranked sender would be served
// whenever it had a frame in its ring, the others only when it had none
// (TestPollRotates).
func (e *Endpoint) pollAll(stop func() bool) int {
	n := 0
	rings := len(e.inList)
	first := e.nextIn
	if first >= rings {
		first = 0
	}
	e.nextIn = first + 1
	for i := range rings {
		j := first + i
		if j >= rings {
			j -= rings
		}
		p := e.inList[j]
		if p.goodbye || e.live[p.rank].failed.Load() != nil {
			continue
		}
		l := e.live[p.rank]
		exited := l.exited.Load() // read before the ring: all it wrote is there
		for k := 0; k < framesPerPass || exited; k++ {
			ok, err := e.pollOne(p)
			if err != nil {
				e.peerFailed(p.rank, err)
				break
			}
			if !ok {
				if exited && !p.goodbye {
					e.peerFailed(p.rank, errDied)
				}
				break
			}
			n++
			if stop != nil && stop() {
				e.nextIn = j + 1
				return n
			}
		}
	}
	return n
}

// pollOne consumes and delivers the next frame of p, if its mark says its
// first fragment has arrived (see markBytes).
func (e *Endpoint) pollOne(p *inPeer) (bool, error) {
	start := p.head
	mark := markAt(p.data, start).Load()
	if mark == 0 {
		return false, nil
	}
	prefetch(markAt(p.data, start+mark)) // the next frame's
	p.known = start + pieceBytes(start, mark, fragmentBytes(uint64(len(p.data))))
	var hb [maxHeader]byte
	base := start + markBytes
	copyFromRing(p.data, base, hb[:transport.HeaderSize])
	var h transport.Header
	h.Decode(hb[:])
	hl := uint64(transport.HeaderSize)
	p.cma = hb[1]&flagCMA != 0
	if p.cma {
		copyFromRing(p.data, base+hl, hb[hl:maxHeader-markBytes])
		p.cmaAddr = binary.LittleEndian.Uint64(hb[hl:])
		hl += cmaExt
	}
	p.check.on = hb[1]&flagCRC != 0 && h.Kind != kindGoodbye
	if p.check.on {
		copyFromRing(p.data, base+hl, hb[hl:hl+crcExt])
		p.seq++
		p.check = frameCheck{on: true, h: h, seq: p.seq, want: binary.LittleEndian.Uint32(hb[hl:]),
			sum: headerSum([transport.HeaderSize]byte(hb[:transport.HeaderSize]))}
		hl += crcExt
		if (!carriesPayload(h.Kind) || h.Length == 0) && p.check.sum != p.check.want {
			return false, p.check.corrupt(p.rank)
		}
	}
	if hb[1]&flagAlign != 0 {
		hl += alignGap(base + hl)
	}
	p.head = base + hl
	if h.Kind == kindGoodbye {
		p.goodbye = true
		e.out[p.rank].gone.Store(true)
		e.publishHead(p)
		e.failStarted(p.rank, &transport.PeerError{Peer: p.rank, Err: errGone})
		return true, nil
	}
	if int(h.Source) != p.rank {
		return false, fmt.Errorf("shm: ring from rank %d carries a frame from rank %d (corrupt stream)", p.rank, h.Source)
	}
	p.remaining, p.readErr = 0, nil
	if carriesPayload(h.Kind) {
		p.remaining = h.Length
	}
	end := base + hl
	if !p.cma {
		end += pad8(p.remaining)
	}
	if hb[1]&flagLine != 0 {
		end += alignGap(end)
	}
	if end-start != mark {
		return false, fmt.Errorf("shm: ring from rank %d: frame of %d bytes marked %d (corrupt stream)", p.rank, end-start, mark)
	}
	var herr error
	if !e.closing.Load() {
		herr = e.h.Deliver(h, p.readFn)
	}
	if p.readErr == nil && p.remaining > 0 {
		p.readFn(nil)
	}
	if p.cma {
		// Acknowledge even a failed read: the sender must not wait for
		// a copy that will never be made.
		p.hdr.acks.Add(1)
		p.hdr.ackBell.ring()
		// The sender may sleep in its runtime while its poller waits to
		// complete the send.
		e.out[p.rank].dst.ctl().notify()
	}
	if p.readErr != nil {
		return false, p.readErr
	}
	p.head = end
	e.publishHead(p)
	if herr != nil {
		return false, fmt.Errorf("handler: %w", herr)
	}
	return true, nil
}

// publishHead makes consumed bytes free for the producer. It rings the
// space bell through p.space, not p.hdr.space: the compiler checks
// p.hdr for nil by loading its first byte, which is the producer's tail
// word, and that load took the tail's cache line from the producer's
// core for every frame (a line transfer on the consumer's path, and
// another when the producer stores the next tail).
func (e *Endpoint) publishHead(p *inPeer) {
	p.hdr.head.Store(p.head)
	p.space.ring()
}

// read is the read function given to Deliver: it copies the current
// frame's payload into dst (dst nil: discards it), from the sender's
// memory for a single-copy frame, else from the ring as the producer
// publishes it.
func (p *inPeer) read(dst []byte) error {
	n := p.remaining
	if dst != nil && uint64(len(dst)) != n {
		return fmt.Errorf("shm: read of a %d-byte payload into a %d-byte buffer", n, len(dst))
	}
	p.remaining = 0
	if p.cma {
		if dst != nil && n > 0 {
			p.readErr = cmaRead(p.e.live[p.rank].pid, dst, p.cmaAddr)
			if p.readErr == nil && p.check.on {
				p.readErr = p.check.verify(p.rank, dst)
			}
		}
		return p.readErr
	}
	var off uint64
	frag := fragmentBytes(uint64(len(p.data)))
	for off < n {
		avail := p.known - p.head
		if avail == 0 {
			p.known = p.hdr.tail.Load()
			avail = p.known - p.head
		}
		if avail == 0 {
			p.e.publishHead(p) // the producer may be waiting for space
			if err := p.e.waitData(p); err != nil {
				p.readErr = err
				return err
			}
			continue
		}
		k := min(avail, n-off, frag)
		if dst != nil {
			moveFromRing(p.data, p.head, dst[off:off+k])
		}
		p.head += k
		off += k
		if off < n {
			// Streaming: free each fragment at once (the producer may wait
			// for it), and keep this rank's own streamed frames going.
			p.e.publishHead(p)
			p.e.advanceStreams()
		}
	}
	if p.check.on && dst != nil && n > 0 {
		p.readErr = p.check.verify(p.rank, dst)
	}
	return p.readErr
}

// frameCheck is the checksum of the frame being read, when it carries one
// (flagCRC). A payload that is discarded (read(nil)) is not checked: the
// runtime never uses it.
type frameCheck struct {
	on   bool
	h    transport.Header
	seq  uint64 // frame number on the ring
	want uint32 // checksum sent
	sum  uint32 // checksum of the header, computed here
}

// verify checks the payload p read whole from rank src.
func (c *frameCheck) verify(src int, p []byte) error {
	c.sum = crc32.Update(c.sum, transport.CRC32C, p)
	if c.sum != c.want {
		return c.corrupt(src)
	}
	return nil
}

func (c *frameCheck) corrupt(src int) error {
	return &transport.FrameCorruptError{Transport: "shm", Source: src, Seq: c.seq, Kind: c.h.Kind, Tag: c.h.Tag,
		Length: c.h.Length, Got: c.sum, Want: c.want}
}

// waitData waits for more bytes of a frame being streamed by p's rank,
// writing this rank's own streamed frames meanwhile (see stream.go). While
// one of those is unfinished it sleeps at most streamSlice at a time: the
// space its consumer frees rings another bell.
func (e *Endpoint) waitData(p *inPeer) error {
	arrived := func() bool { return p.hdr.tail.Load() != p.head }
	progress := func() bool {
		e.advanceStreams()
		return arrived()
	}
	c := e.own.ctl()
	if e.spinUntil(progress, e.spin) {
		return nil
	}
	lastCheck := time.Now()
	for {
		open := e.advanceStreams()
		if arrived() {
			return nil
		}
		if e.closing.Load() {
			return transport.ErrClosed
		}
		if now := time.Now(); now.Sub(lastCheck) >= livenessEvery {
			lastCheck = now
			if e.live[p.rank].dead() {
				return errDied
			}
		}
		slice := sleepSlice
		if open {
			slice = streamSlice
		}
		c.bell.sleep(arrived, slice)
	}
}
