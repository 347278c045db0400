// Package transport defines the seam between the mpbench message-passing
// runtime (package comm) and the byte movers below it (tcp, inmem, shm, ...).
//
// A transport moves frames between the ranks of one job. A frame is a fixed
// 32-byte Header optionally followed by Header.Length payload bytes. The
// runtime does all matching (source, tag, communicator context) and the
// eager/rendezvous protocol; a transport only guarantees that frames from one
// source rank are delivered to the Handler in the order they were sent
// (which gives MPI's non-overtaking rule) and never lost or duplicated.
//
// Transports register themselves (Register, from their package's init, as
// database/sql drivers do) with their Properties: name, eager threshold,
// reach (one process, one host, any hosts) and progress model; one that
// mpbench's launcher starts ranks on implements ProcessDriver as well.
// Package launch (which builds every rank's endpoint through
// ProcessDriver), the CLI's --transport check and help, the runtime's
// default eager threshold and comm's tests (comm/commtest) iterate the
// registry; package transport/transporttest is the conformance suite every
// transport passes. Adding a transport means its package (with its Driver
// and a call of transporttest.Run in its tests) and its line in package
// transport/all, which registers every transport.
//
// Wire layout of Header (little endian, 32 bytes):
//
//	offset  size  field
//	0       1     Kind
//	1       3     reserved (zero)
//	4       4     Context  (communicator context id)
//	8       4     Source   (sender's rank in the job, i.e. world rank)
//	12      4     Tag
//	16      8     Length   (payload bytes that follow, or announced length for RTS)
//	24      8     Cookie   (pairs RTS, CTS and Data of one rendezvous)
package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Kind says what a frame carries.
type Kind uint8

const (
	// Eager carries a whole message: Length payload bytes follow the header.
	Eager Kind = iota + 1
	// RTS (ready-to-send) announces a rendezvous message of Length bytes;
	// no payload follows.
	RTS
	// CTS (clear-to-send) is the receiver's answer to an RTS with the same
	// Cookie: a matching receive is posted; no payload follows.
	CTS
	// Data carries the payload of a rendezvous message after its CTS.
	Data
	// Control frames are runtime-internal (e.g. abort notices); Length payload
	// bytes follow.
	Control
)

// String returns the kind's protocol name.
func (k Kind) String() string {
	switch k {
	case Eager:
		return "eager"
	case RTS:
		return "rts"
	case CTS:
		return "cts"
	case Data:
		return "data"
	case Control:
		return "control"
	}
	return "unknown"
}

// HeaderSize is the encoded size of a Header in bytes.
const HeaderSize = 32

// Header is the fixed part of every frame.
type Header struct {
	Kind    Kind
	Context uint32 // communicator context id
	Source  int32  // sending rank in the job (world rank)
	Tag     int32  // message tag (MPI tag), >= 0 on the wire
	Length  uint64 // bytes of payload following (Eager, Data, Control) or announced (RTS)
	Cookie  uint64 // rendezvous identifier chosen by the sender
}

// Encode writes h into b[:HeaderSize]; b must be at least HeaderSize bytes.
func (h *Header) Encode(b []byte) {
	_ = b[HeaderSize-1]
	b[0] = byte(h.Kind)
	b[1], b[2], b[3] = 0, 0, 0
	binary.LittleEndian.PutUint32(b[4:], h.Context)
	binary.LittleEndian.PutUint32(b[8:], uint32(h.Source))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.Tag))
	binary.LittleEndian.PutUint64(b[16:], h.Length)
	binary.LittleEndian.PutUint64(b[24:], h.Cookie)
}

// Decode reads h from b[:HeaderSize]; b must be at least HeaderSize bytes.
func (h *Header) Decode(b []byte) {
	_ = b[HeaderSize-1]
	h.Kind = Kind(b[0])
	h.Context = binary.LittleEndian.Uint32(b[4:])
	h.Source = int32(binary.LittleEndian.Uint32(b[8:]))
	h.Tag = int32(binary.LittleEndian.Uint32(b[12:]))
	h.Length = binary.LittleEndian.Uint64(b[16:])
	h.Cookie = binary.LittleEndian.Uint64(b[24:])
}

// Handler receives incoming frames; package comm implements it.
type Handler interface {
	// Deliver is called once per incoming frame, from a transport goroutine.
	// Frames from one source arrive in send order; frames from different
	// sources may be delivered concurrently. If h.Length > 0 and the kind
	// carries a payload (Eager, Data, Control), Deliver must call read
	// exactly once before returning, with a buffer of exactly h.Length bytes
	// that receives the payload (read(nil) discards it). Deliver must not
	// block on the progress of other ranks (it may take locks and wake
	// waiters). A non-nil error is fatal for the transport.
	Deliver(h Header, read func(dst []byte) error) error
}

// Endpoint is one rank's attachment to a job's transport.
type Endpoint interface {
	// Rank is this endpoint's rank in the job, 0 <= Rank < Size.
	Rank() int
	// Size is the number of ranks in the job.
	Size() int
	// Start begins delivering incoming frames to h. It is called once,
	// before the first Send.
	Start(h Handler) error
	// Send writes one frame (header, then payload of len h.Length for
	// payload-carrying kinds) to rank dst != Rank(). It returns once payload
	// may be reused. It is safe for concurrent use; frames of concurrent
	// calls to one dst are never interleaved. Send may block while the
	// network is busy but must not depend on the receiving rank posting a
	// receive (the receiving transport always drains its input).
	Send(dst int, h Header, payload []byte) error
	// Close releases the endpoint; pending and later Sends fail with
	// ErrClosed.
	Close() error
}

// ErrClosed is returned by operations on a closed endpoint.
var ErrClosed = errors.New("transport: endpoint closed")

// PeerError reports that the connection to one peer rank failed, for
// example because that rank's process died.
type PeerError struct {
	Peer int   // the peer's rank
	Err  error // the underlying error
}

// Error returns "transport: rank N: <cause>".
func (e *PeerError) Error() string {
	return fmt.Sprintf("transport: rank %d: %v", e.Peer, e.Err)
}

// Unwrap returns the underlying error.
func (e *PeerError) Unwrap() error { return e.Err }

// FailureHandler may be implemented by a Handler to learn that the
// connection to a peer rank failed (for example because that rank's process
// died or its host became unreachable). A transport that detects such a
// failure calls PeerFailed at most once per peer, from a transport
// goroutine, with err of type *PeerError; after that call no more frames
// from that peer are delivered and Sends to it fail. A peer that shut down
// in an orderly way (its Endpoint was closed) is not reported, nor is any
// peer once the local Endpoint's Close has begun. PeerFailed must not block
// on the progress of other ranks.
type FailureHandler interface {
	PeerFailed(peer int, err error)
}

// Progresser may be implemented by an Endpoint that can deliver frames on
// the goroutine of a rank waiting for them (shared memory: the waiting
// goroutine polls the rings itself, saving a goroutine hand-off per
// message). The runtime calls Progress before it blocks; Handler.Deliver is
// then called from the calling goroutine as from a transport goroutine, so
// the caller must hold no lock that Deliver takes. Progress also completes
// sends started with SendStarter.StartSend whose transfer has finished
// (Completion.SendDone is called from it likewise).
type Progresser interface {
	// Progress delivers incoming frames and completes started sends until
	// done() returns true or the endpoint's spin budget (a few tens of
	// microseconds) passes without input; it returns at once on a closed
	// endpoint. done must be cheap and safe to call concurrently with
	// Deliver.
	Progress(done func() bool)
}

// Completion is told when a send started with SendStarter.StartSend has
// completed: its payload may be reused. Package comm's send requests
// implement it.
type Completion interface {
	// SendDone is called exactly once per pending StartSend, with nil or
	// the send's error (a *PeerError, ErrClosed), from a goroutine driving
	// the endpoint's progress (a Progress call or a transport goroutine)
	// that holds no lock of the runtime's. It must not block on other
	// ranks.
	SendDone(err error)
}

// SendStarter may be implemented by an Endpoint whose sends of some frames
// complete after the call returns (shared memory's single-copy transfers:
// the receiver copies the payload straight out of the sender's memory and
// acknowledges). The runtime then waits for the completion as for any
// request, driving progress meanwhile, so that a rank whose send awaits an
// acknowledgement still serves the frames sent to it.
type SendStarter interface {
	// StartSend starts sending one frame as Send does. If it returns
	// done == true or an error, the send is over (payload may be reused)
	// and c is never called. Otherwise the frame is queued in order behind
	// the earlier frames to dst (later frames to dst follow it), payload
	// must stay unchanged until c.SendDone is called, and it will be
	// called exactly once, even if the peer fails or the endpoint closes.
	StartSend(dst int, h Header, payload []byte, c Completion) (done bool, err error)
	// DeferFrom is the smallest payload, in bytes, whose send may
	// complete after StartSend returns (math.MaxInt: none). A shorter one
	// is always done when StartSend returns, so the runtime sends it with
	// Endpoint.Send and prepares no completion for it. It does not change
	// after Start.
	DeferFrom() int
}

// InlineReader may be implemented by an Endpoint whose Handler.Deliver
// read function never waits for a payload of up to InlineBytes bytes: it
// is in this process's memory (or one it maps) when Deliver is called, so
// the read is a copy and the runtime may make it while it holds its
// matching lock (one critical section per small message instead of two).
// Transports whose reads may wait for the network do not implement it.
type InlineReader interface {
	// InlineBytes is the longest payload, in bytes, whose read never
	// waits; it does not change after Start.
	InlineBytes() int
}
