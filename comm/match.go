package comm

import (
	"sync"

	"github.com/mpbench/mpbench/internal/bufpool"
)

// matchQueue holds one context's posted receives and unexpected messages,
// each in arrival order (MPI-3.1 §3.5: a receive matches the earliest
// matching unexpected message; a message matches the earliest matching
// posted receive). Lists are intrusive and doubly linked, so removal from
// the middle is O(1) and matching allocates nothing. Guarded by engine.mu.
type matchQueue struct {
	postedHead, postedTail *request
	unexpHead, unexpTail   *message
}

// msgKind is what an unexpected message holds.
type msgKind uint8

const (
	msgEager msgKind = iota + 1 // payload buffered in bufp
	msgRTS                      // a rendezvous announcement: no payload yet
	msgSelf                     // a rendezvous send to self: payload in sreq.buf
)

// message is an unexpected message: arrived before a matching receive.
type message struct {
	next, prev *message
	kind       msgKind
	src        int // sender's world rank
	tag        int32
	n          int     // message length in bytes
	bufp       *[]byte // msgEager with n > 0: pooled payload copy
	cookie     uint64  // msgRTS
	sreq       *request
}

var messagePool = sync.Pool{New: func() any { return new(message) }}

func getMessage() *message { return messagePool.Get().(*message) }

// putMessage releases m and its payload buffer.
func putMessage(m *message) {
	if m.bufp != nil {
		bufpool.Put(m.bufp)
	}
	*m = message{}
	messagePool.Put(m)
}

// matches reports whether a receive for (wantSrc, wantTag), either of which
// may be a wildcard, matches a message from src with tag.
func matches(wantSrc int, wantTag int32, src int, tag int32) bool {
	return (wantSrc == AnySource || wantSrc == src) && (wantTag == AnyTag || wantTag == tag)
}

// takePosted removes and returns the earliest posted receive matching a
// message from src with tag, or nil.
func (q *matchQueue) takePosted(src int, tag int32) *request {
	for r := q.postedHead; r != nil; r = r.next {
		if matches(r.peer, r.tag, src, tag) {
			q.unlinkPosted(r)
			return r
		}
	}
	return nil
}

// takeUnexpected removes and returns the earliest unexpected message
// matching a receive for (src, tag), or nil.
func (q *matchQueue) takeUnexpected(src int, tag int32) *message {
	for m := q.unexpHead; m != nil; m = m.next {
		if matches(src, tag, m.src, m.tag) {
			q.unlinkUnexpected(m)
			return m
		}
	}
	return nil
}

func (q *matchQueue) pushPosted(r *request) {
	r.next, r.prev = nil, q.postedTail
	if q.postedTail != nil {
		q.postedTail.next = r
	} else {
		q.postedHead = r
	}
	q.postedTail = r
}

func (q *matchQueue) unlinkPosted(r *request) {
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		q.postedHead = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		q.postedTail = r.prev
	}
	r.next, r.prev = nil, nil
}

func (q *matchQueue) pushUnexpected(m *message) {
	m.next, m.prev = nil, q.unexpTail
	if q.unexpTail != nil {
		q.unexpTail.next = m
	} else {
		q.unexpHead = m
	}
	q.unexpTail = m
}

func (q *matchQueue) unlinkUnexpected(m *message) {
	if m.prev != nil {
		m.prev.next = m.next
	} else {
		q.unexpHead = m.next
	}
	if m.next != nil {
		m.next.prev = m.prev
	} else {
		q.unexpTail = m.prev
	}
	m.next, m.prev = nil, nil
}
