package shm

import (
	"errors"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
)

// errDied is the cause reported when a peer's process ends without closing
// its endpoint.
var errDied = errors.New("process ended without an orderly shutdown (killed or crashed?)")

// errGone is the cause of Sends to a peer that closed its endpoint.
var errGone = errors.New("peer has closed its endpoint")

// inPeer is the consumer side of the ring from one peer, in this rank's own
// segment. Its frame state is used only by whoever holds Endpoint.polling.
type inPeer struct {
	e     *Endpoint
	rank  int
	hdr   *ringHdr
	space *bell // &hdr.space (see publishHead)
	data  []byte
	head  uint64 // consumed bytes (published to hdr.head at frame ends and while streaming)
	known uint64 // bytes known to have arrived: the current frame's first fragment, or hdr.tail as last read

	goodbye bool // the peer closed its endpoint in order (polling)

	// Current frame.
	remaining uint64 // payload bytes not yet read
	cma       bool   // the payload is read from the sender's memory
	cmaAddr   uint64 // its address in the sender
	check     frameCheck
	seq       uint64 // checksummed frames read so far
	readErr   error
	readFn    func([]byte) error
}

// outPeer is the producer side of the ring to one peer, in the peer's
// segment.
type outPeer struct {
	rank int
	dst  view // the peer's segment
	hdr  *ringHdr
	data []byte

	mu       sync.Mutex
	tail     uint64 // published bytes (guarded by mu, or strmTok while streaming)
	headSeen uint64 // the consumer's hdr.head as last read (guarded as tail)
	err      error  // sticky send error (guarded by mu)
	closed   bool   // Close has said goodbye (guarded by mu)
	cmaSent  uint32 // single-copy frames written (guarded by mu); ticket of the last one

	gone atomic.Bool // the peer said goodbye

	// A frame larger than the ring's free space, written piece by piece
	// (see stream.go) by whichever goroutine of the rank holds strmTok:
	// the sender waiting for space, or a goroutine waiting for the rest
	// of an incoming streamed frame.
	strmTok atomic.Bool // held by whoever advances strm
	strmOn  atomic.Bool // strm holds a frame not yet fully written
	strm    stream      // guarded by strmTok (by mu while strmOn is false)

	// Single-copy sends awaiting the receiver's acknowledgement, oldest
	// first (see started_linux.go). pendMu is never held while waiting.
	pendMu sync.Mutex
	pend   []startedSend
	npend  atomic.Int32 // len(pend), readable without pendMu
}

// liveness watches one peer's process through a pidfd.
type liveness struct {
	pid    int
	pidfd  int         // -1 if pidfd_open failed (no watching)
	exited atomic.Bool // the process has ended (its ring may still hold frames)
	failed atomic.Pointer[transport.PeerError]
	// killed, when set, stands in for the pidfd: the peer is a rank of
	// this process, ended when its endpoint is killed (Kill).
	killed *atomic.Bool
}

// inProcess holds the Kill flag of each rank of this process whose peers
// may still attach, by segment path: from before its segment file exists
// (Prepare) until every peer has attached (Attach) or it gives up
// (Abort). A peer found here is a rank of this process, whose end the
// shared pidfd would never show; one not found is another process.
var inProcess sync.Map // segment path -> *atomic.Bool

// dead reports whether the process has ended (the pidfd is readable), or
// for a rank of this process whether it was killed.
func (l *liveness) dead() bool {
	if l.killed != nil {
		return l.killed.Load()
	}
	if l.pidfd < 0 {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(l.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0
}

func openLiveness(pid int) *liveness {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		fd = -1
	}
	return &liveness{pid: pid, pidfd: fd}
}
