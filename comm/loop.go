package comm

import "errors"

// A runtime may run a benchmark's whole timed loop itself instead of
// letting the benchmark call Send, Recv and the collectives once per
// message. Package mpi does, in C: over an MPI library every call from Go
// is a crossing into C that costs tens of nanoseconds, while IMB-MPI1's
// loops call the library directly, so a loop driven from Go measures the
// crossings as well (docs/mpi-comparison.md has the figures). A benchmark
// describes its loop as a Loop and offers it to a Comm that implements
// LoopRunner; the runtime runs it, or declines with ErrSkip and the
// benchmark runs its own loop on the Comm's methods. Both must do the same
// calls in the same order on the same buffers, so a row means the same
// whichever ran it.

// ErrSkip is returned by LoopRunner.RunLoop when the runtime does not run
// this kind of loop, or not with these options: the caller then runs the
// loop itself with the Comm's methods (as database/sql/driver.ErrSkip asks
// database/sql to take its general path). A runtime must return it before
// it has sent or received anything for the loop.
var ErrSkip = errors.New("comm: loop not run by the runtime")

// LoopKind names the timed loop of one IMB-MPI1 benchmark (IMB 2021.x,
// src_c/IMB_*.c); the Loop fields each kind reads are listed with it.
type LoopKind int

// The loops. Every kind runs Loop.Reps repetitions on the Loop's slots
// (repetition i on slot First+i) and returns the seconds described at
// LoopRunner.RunLoop. Messages are Bytes bytes of Loop.Datatype (MPI_BYTE
// by default) with tag Tag.
const (
	// LoopPingPong is IMB_pingpong.c: the rank with Starts sends to Peer,
	// then receives from Peer; the other receives, then sends. Receives
	// name Peer, or any source under AnySource.
	LoopPingPong LoopKind = iota + 1
	// LoopPingPing is IMB_pingping.c: Isend to Peer, Recv from Peer (or
	// any source under AnySource), Wait for the send.
	LoopPingPing
	// LoopSendrecv is IMB_sendrecv.c: one Sendrecv per repetition, sending
	// to Right and receiving from Left.
	LoopSendrecv
	// LoopExchange is IMB_exchange.c: Isend of the send slot's first
	// Bytes to Right and of its next Bytes to Left (the send slot holds
	// 2*Bytes), Recv from Left and then from Right, both into the receive
	// slot's Bytes, then wait for both sends.
	LoopExchange
	// LoopUniband is IMB_bandwidth.c's IMB_uni_bandwidth: the rank with
	// Starts posts Window Isends of message k on send slot First+k to
	// Peer, its partner as many Irecvs, both wait for all, then the
	// partner sends a 1-byte acknowledgement that the rank with Starts
	// receives. Repetitions do not move the slots.
	LoopUniband
	// LoopBiband is IMB_bi_bandwidth: both ranks post Window Irecvs then
	// Window Isends, wait for all, and the acknowledgement goes as in
	// LoopUniband.
	LoopBiband
	// LoopAllreduce is IMB_allreduce.c with the library's own Allreduce:
	// Bytes/Datatype.Size() elements of Datatype combined with Op from
	// the send slot into the receive slot, each call timed on its own,
	// then under Sync a Barrier outside the timed region.
	LoopAllreduce
	// LoopBcast is IMB_bcast.c with the library's own Bcast: the root
	// (0, or (First+i) mod Size() under RootShift) sends from its send
	// slot, every other rank receives into its receive slot; timed and
	// synchronised as LoopAllreduce.
	LoopBcast
	// LoopBarrier is IMB_barrier.c with the library's own Barrier, each
	// call timed on its own.
	LoopBarrier
	// LoopReduce is IMB_reduce.c with the library's own Reduce:
	// Bytes/Datatype.Size() elements combined with Op from every rank's
	// send slot into the root's receive slot (root as LoopBcast's); timed
	// and synchronised as LoopAllreduce.
	LoopReduce
	// LoopGather is IMB_gather.c with the library's own Gather: Bytes from
	// every rank's send slot to the root (as LoopBcast's), rank j's at
	// offset j*Bytes of its receive slot, which holds Size()*Bytes; timed
	// and synchronised as LoopAllreduce.
	LoopGather
	// LoopScatter is IMB_scatter.c with the library's own Scatter: the
	// root (as LoopBcast's) sends block j of its send slot, which holds
	// Size()*Bytes, to rank j's receive slot; timed and synchronised as
	// LoopAllreduce.
	LoopScatter
	// LoopAllgather is IMB_allgather.c with the library's own Allgather:
	// Bytes from every rank's send slot to every rank, rank j's at offset
	// j*Bytes of the receive slot (Size()*Bytes); timed and synchronised
	// as LoopAllreduce.
	LoopAllgather
	// LoopAlltoall is IMB_alltoall.c with the library's own Alltoall:
	// block j (Bytes at offset j*Bytes) of the send slot goes to rank j,
	// which receives it at offset (sender)*Bytes; both slots hold
	// Size()*Bytes. Timed and synchronised as LoopAllreduce.
	LoopAlltoall
	// LoopReduceScatterBlock is IMB_reduce_scatter_block.c with the
	// library's own Reduce_scatter_block: Size()*Bytes of Datatype
	// combined with Op, every rank receiving its Bytes; timed and
	// synchronised as LoopAllreduce.
	LoopReduceScatterBlock
	// LoopAllgatherv, LoopGatherv, LoopScatterv and LoopAlltoallv are
	// IMB_allgatherv.c, IMB_gatherv.c, IMB_scatterv.c and IMB_alltoallv.c
	// with the library's own vector collectives and IMB's arguments: every
	// count Bytes bytes (Bytes/Datatype.Size() elements of a -data_type),
	// displacements packed (rank j's at j*Bytes bytes), so each moves what
	// its non-vector form moves; slots, roots, timing and synchronisation
	// as that form's.
	LoopAllgatherv
	LoopGatherv
	LoopScatterv
	LoopAlltoallv
	// LoopReduceLocal is IMB_reduce_local.c with the library's own
	// Reduce_local: Bytes/Datatype.Size() elements of the send slot
	// combined with Op into the receive slot, on every rank without
	// communication; timed and synchronised as LoopAllreduce.
	LoopReduceLocal
	// LoopReduceScatter is IMB_reduce_scatter.c (IMB-MPI1 2021.x) with the
	// library's own Reduce_scatter: Size()*Bytes of Datatype combined with
	// Op, every rank's receive count Bytes/Datatype.Size() elements, so it
	// moves what LoopReduceScatterBlock moves; timed and synchronised as
	// LoopAllreduce.
	LoopReduceScatter
)

// Reduces reports whether loops of kind k combine elements with an Op
// (Allreduce, Reduce, Reduce_scatter_block, Reduce_local, Reduce_scatter):
// their Loop.Datatype is the reduction's element type, not IMB's
// -data_type.
func (k LoopKind) Reduces() bool {
	switch k {
	case LoopAllreduce, LoopReduce, LoopReduceScatterBlock, LoopReduceLocal, LoopReduceScatter:
		return true
	}
	return false
}

// Slots is a buffer cut into Count slots Stride bytes apart, used
// cyclically: repetition r uses the bytes from (r mod Count)*Stride on.
// Without IMB's -off_cache it is one slot, so every repetition reuses the
// same bytes.
type Slots struct {
	Buf    []byte
	Stride int // bytes between the starts of two slots
	Count  int // slots, at least 1
}

// Loop describes one timed loop of one rank. The fields a kind does not
// read (see LoopKind) are ignored.
type Loop struct {
	Kind       LoopKind
	Send, Recv Slots
	Bytes      int // message size in bytes
	First      int // index of the repetition that runs first (its slot)
	Reps       int // repetitions to run
	Tag        int
	// Peer is the partner of the pair loops (PingPong, PingPing, Uniband,
	// Biband); Left and Right are the neighbours of the chain loops
	// (Sendrecv, Exchange).
	Peer, Left, Right int
	AnySource         bool // PingPong and PingPing receive from any source
	Starts            bool // PingPong: this rank sends first; Uniband, Biband: this rank receives the acknowledgement
	Window            int  // Uniband and Biband: messages in flight per repetition, at least 1
	// Collectives.
	RootShift bool // rooted collectives: the root moves every repetition
	// Datatype is the reductions' element type (the kinds whose Reduces
	// is true); for the other kinds, the datatype of their messages, 0
	// meaning MPI_BYTE (IMB's -data_type), Bytes then being a whole
	// number of its elements. Barrier ignores it.
	Datatype Datatype
	Op       Op   // the reductions' operation
	Sync     bool // collectives but Barrier: the communicator's Barrier after every timed call
	// Times, when not nil (len >= Reps), gets each repetition's seconds:
	// Times[i] for repetition i.
	Times []float64
}

// LoopRunner is implemented by a runtime that runs timed loops itself
// (package mpi, in the library's language).
type LoopRunner interface {
	// RunLoop runs l on the calling rank and returns its seconds by the
	// runtime's Wtime: the whole loop's for point-to-point kinds, the sum
	// of the timed calls' for the collective kinds (IMB's t_comp). It
	// returns ErrSkip, having done nothing, for a loop it does not run,
	// an error naming the problem for a Loop whose slots do not hold its
	// messages or whose ranks, tag or counts are invalid, and the
	// runtime's error when a call fails.
	RunLoop(l Loop) (float64, error)
}
