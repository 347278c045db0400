package shm

import (
	"sync/atomic"
	"unsafe"
)

// Segment layout. Every rank owns one segment, a file in /dev/shm mapped
// MAP_SHARED by the owner and by every peer on the same host:
//
//	offset                      size        content
//	0                           ctrlBytes   control block (control, then cmaFrom[size])
//	ctrlBytes + s*ringStride    ringStride  ring from rank s to the owner (ringHdr, then RingBytes of data)
//
// The owner consumes every ring of its own segment; rank s is the only
// producer of ring s. Each counter sits on its own 64-byte cache line.
const (
	cacheLine  = 64
	ringHdrLen = 4 * cacheLine
	ctrlFixed  = 4 * cacheLine
	pageBytes  = 4096
)

// segMagic opens every segment; segVersion is bumped on layout changes.
const segMagic = "MPBSHM01"

// bell is a futex-backed doorbell in shared memory: a sequence number that
// wakers bump, and a count of sleepers so wakers skip the system call when
// no one sleeps. Protocol (an event count): a sleeper registers
// (sleepers++), reads seq, re-checks its condition and sleeps only if
// still false; a waker makes its condition true, then, if sleepers > 0,
// bumps seq and wakes. Go's atomics are sequentially consistent, so either
// the sleeper sees the condition or the waker sees the sleeper.
type bell struct {
	seq      atomic.Uint32
	sleepers atomic.Uint32
}

// control is the fixed part of a segment's control block.
type control struct {
	magic     [8]byte
	size      uint32
	rank      uint32
	pid       uint32
	ringBytes uint32
	selfAddr  uint64 // address of this control block in the owner's address space (probe target)
	_         [cacheLine - 32]byte

	// attached counts the peers that mapped this segment; the owner
	// unlinks the file when all have.
	attached atomic.Uint32
	_        [cacheLine - 4]byte

	// bell wakes the owner's threads that sleep waiting for input;
	// want != 0 asks producers to ring it for the owner's poller.
	bell bell
	want atomic.Uint32
	_    [cacheLine - 12]byte

	_ [cacheLine]byte
}

// ringHdr heads one ring: producer and consumer counters in bytes since the
// start (monotonic; position = counter mod RingBytes), the producer's
// wait-for-space bell and the single-copy acknowledgement counter.
type ringHdr struct {
	tail atomic.Uint64 // bytes published by the producer
	_    [cacheLine - 8]byte
	head atomic.Uint64 // bytes consumed by the consumer
	_    [cacheLine - 8]byte
	// space wakes a producer waiting for the consumer to free space.
	space bell
	_     [cacheLine - 8]byte
	// acks counts single-copy frames the consumer has finished reading;
	// ackBell wakes the producer waiting for that.
	acks    atomic.Uint32
	ackBell bell
	_       [cacheLine - 12]byte
}

func init() {
	if unsafe.Sizeof(control{}) != ctrlFixed || unsafe.Sizeof(ringHdr{}) != ringHdrLen {
		panic("shm: layout size mismatch")
	}
}

// geometry is the byte layout of a job's segments.
type geometry struct {
	size      int
	ringBytes int
	ctrlBytes int
	stride    int
}

func newGeometry(size, ringBytes int) geometry {
	ctrl := (ctrlFixed + 4*size + pageBytes - 1) / pageBytes * pageBytes
	return geometry{size: size, ringBytes: ringBytes, ctrlBytes: ctrl, stride: ringHdrLen + ringBytes}
}

// total is a segment's length in bytes.
func (g geometry) total() int { return g.ctrlBytes + g.size*g.stride }

// view is one mapped segment seen through the layout.
type view struct {
	mem []byte
	g   geometry
}

func (v view) ctl() *control { return (*control)(unsafe.Pointer(&v.mem[0])) }

// cmaFrom returns the flag the owner sets when it can read rank s's memory
// directly (process_vm_readv works on s).
func (v view) cmaFrom(s int) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Pointer(&v.mem[ctrlFixed+4*s]))
}

// ring returns the header and data of the ring from rank s.
func (v view) ring(s int) (*ringHdr, []byte) {
	off := v.g.ctrlBytes + s*v.g.stride
	return (*ringHdr)(unsafe.Pointer(&v.mem[off])), v.mem[off+ringHdrLen : off+v.g.stride : off+v.g.stride]
}

// markBytes is the length of a frame's mark, the first 8 bytes of every
// frame in a ring: the frame's total length in the ring (mark, header,
// payload, padding), stored by the producer once the frame's first
// fragment is in place, atomically. The consumer looks for the next frame
// by loading the mark at its head: one cache line holds the mark and the
// header, so a small frame costs the consumer one transfer of a line from
// the producer's core, not one for the tail counter and one for the
// header. Before it publishes the end of a frame, the producer zeroes the
// mark of the frame that will follow it, so a mark the consumer reads is
// either zero or the next frame's, never stale bytes.
const markBytes = 8

// markAt returns the mark at stream position pos (8-aligned) of a ring's
// data.
func markAt(data []byte, pos uint64) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&data[pos&uint64(len(data)-1)]))
}

// ringSpans returns the ring bytes at stream positions [pos, pos+n)
// (n <= len(data)): one slice, and a second that is empty unless the span
// wraps around the ring's end.
func ringSpans(data []byte, pos uint64, n int) ([]byte, []byte) {
	off := int(pos & uint64(len(data)-1))
	if off+n <= len(data) {
		return data[off : off+n], nil
	}
	return data[off:], data[:off+n-len(data)]
}

// copyToRing copies b into the ring data at stream position pos (wrapping).
func copyToRing(data []byte, pos uint64, b []byte) {
	a, c := ringSpans(data, pos, len(b))
	copy(a, b)
	copy(c, b[len(a):])
}

// copyFromRing copies len(b) bytes at stream position pos out of the ring.
func copyFromRing(data []byte, pos uint64, b []byte) {
	a, c := ringSpans(data, pos, len(b))
	copy(b, a)
	copy(b[len(a):], c)
}

// moveToRing and moveFromRing are copyToRing and copyFromRing for
// payloads, with moveBytes; headers are copied with copy, so that the
// arrays they are built in stay on the stack.
func moveToRing(data []byte, pos uint64, b []byte) {
	a, c := ringSpans(data, pos, len(b))
	moveBytes(a, b)
	moveBytes(c, b[len(a):])
}

func moveFromRing(data []byte, pos uint64, b []byte) {
	a, c := ringSpans(data, pos, len(b))
	moveBytes(b, a)
	moveBytes(b[len(a):], c)
}

// pad8 rounds n up to a multiple of 8: frames start 8-byte aligned.
func pad8(n uint64) uint64 { return (n + 7) &^ 7 }
