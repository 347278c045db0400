package app

import (
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// Comm is the communicator an application runs on: a comm.Comm, the
// collective algorithms to use on it (a zero coll.Algorithms takes coll's
// decision table, or the MPI library's own collectives on an MPI
// communicator), and a clock that adds up the wall time (seconds, by the
// communicator's Wtime) spent inside every call made through Comm. The
// communicators Split returns share that clock, so CommSeconds is the
// rank's whole communication time.
//
// Calls that are not part of the measured run (verification, gathering
// the report) go to Raw and are not counted.
type Comm struct {
	c        comm.Comm
	alg      coll.Algorithms
	clock    *clock
	trace    *tracer // shared with the communicators split from c
	name     string  // Group of this communicator's trace spans
	progress func(done, total int64)
}

// clock accumulates the time inside communication calls of one rank.
type clock struct {
	seconds float64
	calls   int64
	wait    float64   // seconds in Sync and Align barriers, not in seconds
	perCall []float64 // each call's seconds, in call order (their sum is seconds)
	align   []float64 // each Align barrier's seconds, in order (also in wait)
}

// NewComm wraps c, whose collectives run with alg.
func NewComm(c comm.Comm, alg coll.Algorithms) *Comm {
	return &Comm{c: c, alg: alg, clock: &clock{}, trace: &tracer{}}
}

// Rank is the calling process's rank in this communicator.
func (c *Comm) Rank() int { return c.c.Rank() }

// Size is the number of ranks in this communicator.
func (c *Comm) Size() int { return c.c.Size() }

// Wtime is the communicator's wall clock in seconds (MPI_Wtime).
func (c *Comm) Wtime() float64 { return c.c.Wtime() }

// Raw returns the underlying communicator, for calls that must not count
// as the application's communication.
func (c *Comm) Raw() comm.Comm { return c.c }

// Algorithms returns the collective algorithms of c.
func (c *Comm) Algorithms() coll.Algorithms { return c.alg }

// CommSeconds is the wall time spent so far inside c's calls (and those of
// communicators split from it), in seconds.
func (c *Comm) CommSeconds() float64 { return c.clock.seconds }

// CommCalls is the number of calls counted in CommSeconds.
func (c *Comm) CommCalls() int64 { return c.clock.calls }

// CallSeconds returns the wall time of each call counted in CommSeconds,
// in call order, seconds (the clock's own slice: read, do not keep).
func (c *Comm) CallSeconds() []float64 { return c.clock.perCall }

// WaitSeconds is the wall time spent so far in Sync and Align, in
// seconds.
func (c *Comm) WaitSeconds() float64 { return c.clock.wait }

// AlignSeconds returns the wall time of each Align barrier so far, in
// order, seconds (the clock's own slice: read, do not keep).
func (c *Comm) AlignSeconds() []float64 { return c.clock.align }

// Sync is a barrier whose time counts as waiting, not as communication:
// an application calls it before a collective so that the collective's
// time is its transfer alone, as IMB measures collectives (the ranks enter
// it together), and the time ranks spend waiting for each other (load
// imbalance, a root still computing) is told apart.
func (c *Comm) Sync() error {
	s, err := c.span("Sync", 0, false, func() error { return c.alg.Barrier(c.c) })
	c.clock.wait += s
	return err
}

// Align is a second barrier, entered straight after Sync; its time
// counts as waiting and is kept per barrier (AlignSeconds). A rank that
// waits in Sync longer than its transport's busy-poll budget sleeps, and
// leaves Sync only once it is woken and has a CPU, after the ranks that
// came last (on a virtual machine whose CPU went idle, a millisecond or
// more later). Every rank enters Align as soon as it has left Sync and
// polls there, so Align ends within a barrier's latency on every rank:
// a collective called next starts from ranks that left a barrier
// together, as IMB's repetitions do, and Align's time on the rank that
// left Sync first is how much later the last rank left it.
func (c *Comm) Align() error {
	s, err := c.span("Align", 0, false, func() error { return c.alg.Barrier(c.c) })
	c.clock.wait += s
	c.clock.align = append(c.clock.align, s)
	return err
}

// SetProgress makes Progress call f (nil: no reporting). Communicators
// split from c afterwards report to f too.
func (c *Comm) SetProgress(f func(done, total int64)) { c.progress = f }

// Progress reports that the calling rank has done done of the total units
// of its timed part (EP's batches, the block product's steps). An
// application calls it between units; it costs a nil check when nothing
// listens, and what listens (the CLI's progress line) must be as cheap.
func (c *Comm) Progress(done, total int64) {
	if c.progress != nil {
		c.progress(done, total)
	}
}

// ResetClock sets CommSeconds, CommCalls and WaitSeconds to zero, drops
// the calls' and Align's times and the trace's spans, at the start of a
// timed part.
func (c *Comm) ResetClock() {
	*c.clock = clock{}
	c.trace.spans = nil
}

// timed runs f, call op on bytes bytes, and adds its wall time to the
// clock.
func (c *Comm) timed(op string, bytes int, f func() error) error {
	s, err := c.span(op, bytes, false, f)
	c.clock.seconds += s
	c.clock.calls++
	c.clock.perCall = append(c.clock.perCall, s)
	return err
}

// Split partitions c by color, ordered by key (MPI_Comm_split); the new
// communicator shares c's clock and algorithms. A rank passing
// comm.Undefined gets nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	var s comm.Comm
	err := c.timed("Split", 0, func() (err error) { s, err = c.c.Split(color, key); return err })
	if err != nil || s == nil {
		return nil, err
	}
	return &Comm{c: s, alg: c.alg, clock: c.clock, trace: c.trace, progress: c.progress}, nil
}

// Barrier is MPI_Barrier.
func (c *Comm) Barrier() error {
	return c.timed("Barrier", 0, func() error { return c.alg.Barrier(c.c) })
}

// Bcast broadcasts buf from root (MPI_Bcast).
func (c *Comm) Bcast(buf []byte, root int) error {
	return c.timed("Bcast", len(buf), func() error { return c.alg.Bcast(c.c, buf, root) })
}

// Allreduce combines send of every rank with op into recv on every rank
// (MPI_Allreduce); lengths in bytes, elements of dt.
func (c *Comm) Allreduce(send, recv []byte, dt coll.Datatype, op coll.Op) error {
	return c.timed("Allreduce", len(send), func() error { return c.alg.Allreduce(c.c, send, recv, dt, op) })
}

// Reduce combines send of every rank with op into recv on root
// (MPI_Reduce).
func (c *Comm) Reduce(send, recv []byte, dt coll.Datatype, op coll.Op, root int) error {
	return c.timed("Reduce", len(send), func() error { return c.alg.Reduce(c.c, send, recv, dt, op, root) })
}

// Alltoall sends block i of send (len(send)/Size() bytes) to rank i and
// receives rank i's block into block i of recv (MPI_Alltoall).
func (c *Comm) Alltoall(send, recv []byte) error {
	return c.timed("Alltoall", len(send), func() error { return c.alg.Alltoall(c.c, send, recv) })
}
