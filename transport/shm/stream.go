//go:build linux

package shm

import (
	"runtime"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
)

// stream is a frame being written into a ring: the bytes
// hdr[:hlen]|body|padding, done of total written so far. The header, its
// extensions and the gap that aligns the payload (flagAlign, zero bytes)
// are copied in: a slice of the sender's array kept here would move that
// array to the heap on every frame.
type stream struct {
	hdr         [maxHeader + cacheLine]byte
	hlen        int
	body        []byte
	done, total uint64
}

// maxHeader is the longest frame header: the mark, transport.Header and
// both extensions.
const maxHeader = markBytes + transport.HeaderSize + cmaExt + crcExt

// Streaming a frame larger than a fragment (single copy refused or below
// its threshold): the sender copies the frame into the ring a fragment
// (fragmentBytes) at a time and publishes each fragment as soon as it is
// copied; the receiver copies each fragment out as soon as it is published
// and frees its space at once. The two copies of a long frame thus overlap,
// the sender copying fragment k+1 while the receiver copies fragment k, as
// in the copy-in/copy-out paths of Open MPI's vader and MPICH's shared
// memory. Both copies must keep going on both sides, also when two ranks
// stream frames to each other at once: a rank whose sender waits for space
// reads its own rings meanwhile (streamOut), and a rank reading an incoming
// streamed frame writes its own streamed frames meanwhile (advanceStreams
// from read, after each fragment, and from waitData). Without the second,
// two ranks each reading the other's frame would each wait for the other
// to write more; without the first, each would wait for its poller
// goroutine.
//
// The frame's state lives in its outPeer (strm). The sender holds p.mu for
// the whole frame, so frames never interleave; the copying itself is done
// by whichever goroutine of the rank holds strmTok.

// maxFragment bounds fragmentBytes.
const maxFragment = 32 << 10

// fragmentBytes is the longest piece of a frame the sender publishes at a
// time and the receiver frees at a time, in a ring of ringBytes: an eighth
// of the ring, at most maxFragment (32 KiB from rings of 256 KiB: fewer
// pieces, each costing both sides a few cache-line transfers of the
// counters and marks, than the 16 KiB of before; measured in
// docs/runtime-progress.md, "Ring and fragment size"). A frame of at most
// one fragment is published whole.
func fragmentBytes(ringBytes uint64) uint64 { return min(ringBytes/8, maxFragment) }

// pieceBytes is the length of the next piece the producer publishes of
// a frame whose next left bytes go to stream position pos: all of them if
// they fit in a fragment of frag bytes (a multiple of cacheLine); about
// half of them if they fit in two, so that the receiver starts copying a
// frame of just over a fragment (a 32 KiB eager message with 32 KiB
// fragments) after half of it, not after nearly all; else a fragment.
// Every piece but the last ends on a cache line, so that every later
// piece, and with flagAlign the payload, starts and is copied on one (a
// copy to or from an unaligned ring position is slower, see moveBytes).
// The consumer knows a frame's first piece is there when its mark is.
func pieceBytes(pos, left, frag uint64) uint64 {
	if left <= frag {
		return left
	}
	k := frag
	if left < 2*frag {
		k = min(left/2+cacheLine-1, frag)
	}
	return k - (pos+k)&(cacheLine-1)
}

// advance writes as much of p.strm as the ring's free space allows, a
// fragment at a time, publishing each, and reports whether the frame is
// complete. The caller holds p.strmTok, or p.mu while p.strmOn is false.
func (e *Endpoint) advance(p *outPeer) bool {
	s := &p.strm
	ringBytes := uint64(len(p.data))
	frag := fragmentBytes(ringBytes)
	for s.done < s.total {
		k := pieceBytes(p.tail, s.total-s.done, frag) // the first holds the whole header
		// Room for k bytes and for the next frame's mark after them.
		if ringBytes-(p.tail-p.headSeen) < k+markBytes {
			// Read the consumer's counter only when the last value seen
			// leaves too little space: its cache line is written by the
			// consumer's core, and reading it for every frame would put a
			// transfer of that line on every send's path.
			p.headSeen = p.hdr.head.Load()
			if ringBytes-(p.tail-p.headSeen) < k+markBytes {
				return false
			}
		}
		e.fill(p, s.hdr[:s.hlen], s.body, s.done, k)
		start := p.tail - s.done
		p.tail += k
		s.done += k
		if s.done == s.total {
			storeRelease(markAt(p.data, p.tail), 0) // the next frame's, before this one ends
		}
		// The last store of a piece is a full barrier (Store, not
		// storeRelease): notify's loads must not pass it, or a consumer
		// that registered as a sleeper just then would not be woken.
		if s.done == k {
			storeRelease(&p.hdr.tail, p.tail)
			markAt(p.data, start).Store(s.total) // the frame is there
		} else {
			p.hdr.tail.Store(p.tail)
		}
		p.dst.ctl().notify()
	}
	return true
}

// tryAdvance advances p's streamed frame if it has one and no other
// goroutine is advancing it; it reports whether the frame is complete
// (false if another goroutine holds it).
func (e *Endpoint) tryAdvance(p *outPeer) bool {
	if !p.strmOn.Load() || !p.strmTok.CompareAndSwap(false, true) {
		return false
	}
	done := false
	if p.strmOn.Load() { // the frame may have ended before the token was free
		done = e.advance(p)
	}
	p.strmTok.Store(false)
	return done
}

// advanceStreams advances every streamed frame of this rank that no other
// goroutine is advancing; it reports whether one is still unfinished.
func (e *Endpoint) advanceStreams() bool {
	open := false
	for _, p := range e.outList {
		if p.strmOn.Load() && !e.tryAdvance(p) {
			open = true
		}
	}
	return open
}

// streamOut finishes writing p.strm (already started by write; caller
// holds p.mu). It polls, advancing the frame and reading the rank's own
// rings (whose streamed frames advance this one while they wait, see
// waitData), as long as fragments go out or frames arrive and then for up
// to the spin budget more (a frame of megabytes streams for longer than
// the budget and must not end up waiting for a futex wake-up per
// fragment), counted as a polling goroutine of the rank so that the poller
// goroutine stays quiet meanwhile; then it sleeps until the consumer frees
// space, while the poller goroutine reads the rank's rings. It gives up as
// waitFor does.
func (e *Endpoint) streamOut(p *outPeer, deadline time.Time) error {
	p.strmOn.Store(true)
	complete := false // the frame is written and this goroutine holds the token
	finished := func() bool {
		if !complete && p.strmTok.CompareAndSwap(false, true) {
			complete = e.advance(p)
			if !complete {
				p.strmTok.Store(false)
			}
		}
		return complete
	}
	published := p.hdr.tail.Load()
	poll := func() int {
		n := e.tryPoll()
		if t := p.hdr.tail.Load(); t != published { // a fragment went out
			published = t
			n++
		}
		return n
	}
	var err error
	if !e.polled(finished, poll) {
		e.askPoller()
		err = e.waitFor(p.rank, finished, &p.hdr.space, 0, deadline)
	}
	for !complete && !p.strmTok.CompareAndSwap(false, true) {
		// Another goroutine of this rank is copying a piece: let it
		// run, on this processor if need be.
		busypoll.Yield()
		runtime.Gosched()
	}
	p.strmOn.Store(false)
	p.strm = stream{}
	p.strmTok.Store(false)
	return err
}
