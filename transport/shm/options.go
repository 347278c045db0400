package shm

import (
	"fmt"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// DefaultDir is where segments are created: the tmpfs of POSIX shared
// memory.
const DefaultDir = "/dev/shm"

// DefaultRingBytes is the size of each ring (one per ordered pair of ranks
// on a host) in a job of size ranks when Options.RingBytes is 0: 1 MiB,
// halved while the rings one rank writes and reads, 2 x (size-1) of them,
// would hold more than 16 MiB (ringBudget), down to 128 KiB (from 65
// ranks on, the rings' memory grows with the job again). A frame streamed
// through a ring has up to a ring of fragments in flight: with 128 KiB
// rings, two ranks streaming to each other at 128 KiB-1 MiB (PingPing,
// Sendrecv, Exchange) waited on each other for space, and ran 1.3-1.5x
// slower than with 512 KiB or 1 MiB rings (docs/runtime-progress.md, "Ring
// and fragment size"). At 16 ranks the rings are 512 KiB: at most 15 MiB
// of them per rank.
func DefaultRingBytes(size int) int {
	r := maxRingBytes
	for r > minRingBytes && 2*(size-1)*r > ringBudget {
		r /= 2
	}
	return r
}

// Bounds of DefaultRingBytes, and the ring memory per rank it keeps to.
const (
	maxRingBytes = 1 << 20
	minRingBytes = 128 << 10
	ringBudget   = 16 << 20
)

// DefaultCMABytes is the smallest payload sent by single copy
// (process_vm_readv) when Options.CMABytes is 0; shorter payloads are
// copied through the ring, the sender filling fragments while the
// receiver empties them. A process_vm_readv costs several microseconds
// before the first byte moves (the kernel pins the sender's pages), and
// the pipelined ring measured faster below 1 MiB; from 1 MiB single copy
// is as fast for one transfer and faster for transfers both ways at once,
// which move half as many bytes through memory
// (docs/runtime-progress.md, "The single-copy threshold").
const DefaultCMABytes = 1 << 20

// CMASetting is the environment variable MPBENCH_SHM_CMA, which sets
// Options.CMABytes for ranks started by a launcher: the smallest payload in
// bytes read by single copy, -1 to copy every payload through the rings (0
// when unset: DefaultCMABytes).
var CMASetting = transport.IntSetting{Env: "MPBENCH_SHM_CMA",
	Want:  "the smallest payload in bytes read by single copy, or -1 to copy through the rings",
	Valid: func(n int) bool { return n >= -1 }}

// Options configure one rank's shared-memory endpoint.
type Options struct {
	// Rank is this rank, 0 <= Rank < Size.
	Rank int
	// Size is the number of ranks in the job.
	Size int
	// Secret is the job secret; segment names derive from it (JobPrefix).
	Secret []byte
	// Dir is the directory of the segment files; "" means DefaultDir.
	Dir string
	// RingBytes is each ring's data size in bytes, a power of two >= 4096;
	// 0 means DefaultRingBytes(Size). All ranks of a job must agree.
	RingBytes int
	// CMABytes is the smallest payload in bytes the receiver reads straight
	// from the sender's memory with process_vm_readv (when the kernel
	// permits it); 0 means DefaultCMABytes, negative disables single copy.
	CMABytes int
	// Spin is how long a waiting thread polls before it sleeps on a futex.
	// 0 means 500 µs when the ranks on this host do not outnumber its CPUs
	// (a rank then has a CPU to itself, and a shorter spin lets a pair of
	// ranks fall into waking each other through futexes for every
	// message), else 1 ms during which the rank yields its CPU
	// (sched_yield) between two looks at its rings, so the ranks sharing a
	// CPU take turns without futex wake-ups; negative means never spin.
	Spin time.Duration
	// Verify puts a CRC-32C of header and payload in every frame sent
	// (transport.EnvVerify; false means as MPBENCH_VERIFY says). Frames
	// that carry one are checked on arrival whatever this says.
	Verify bool

	// probe replaces the start-up probe of single copy (cmaProbe) in
	// tests, to simulate a kernel that refuses it.
	probe func(pid int, c *control) CopyPath
}

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if c.Size < 1 || c.Rank < 0 || c.Rank >= c.Size {
		return c, fmt.Errorf("shm: rank %d, size %d: need size >= 1 and 0 <= rank < size", c.Rank, c.Size)
	}
	if len(c.Secret) == 0 {
		return c, fmt.Errorf("shm: empty job secret: segment names derive from it")
	}
	if c.Dir == "" {
		c.Dir = DefaultDir
	}
	if c.RingBytes == 0 {
		c.RingBytes = DefaultRingBytes(c.Size)
	}
	if c.RingBytes < 4096 || c.RingBytes&(c.RingBytes-1) != 0 || c.RingBytes > 1<<30 {
		return c, fmt.Errorf("shm: ring of %d bytes: want a power of two from 4096 to 2^30", c.RingBytes)
	}
	if c.CMABytes == 0 {
		c.CMABytes = DefaultCMABytes
	}
	return c, nil
}

// SegmentBytes is the size in bytes of one rank's segment in /dev/shm (its
// control block and the rings it reads, DefaultRingBytes each) in a job of
// size ranks on a host.
func SegmentBytes(size int) int64 {
	return int64(newGeometry(size, DefaultRingBytes(size)).total())
}
