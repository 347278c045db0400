package bench

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// Kernel runs n iterations of a benchmark's communication pattern on the
// calling rank of e.Comm and returns the elapsed wall time in seconds
// (from e.Comm.Wtime), as IMB's kernels do (*time -= MPI_Wtime(); loop;
// *time += MPI_Wtime()). Iteration i uses e.Send(i) and e.Recv(i). The
// runner divides by n and applies Spec.ScaleTime. A kernel only moves bytes:
// warm-up, repetitions, barriers, checks and aggregation are the runner's.
type Kernel func(e *Env, n int) (seconds float64, err error)

// Spec registers one benchmark (IMB's BENCHMARK(fn, Name) with its flags,
// src_cpp/MPI1/MPI1_benchmark.cpp).
type Spec struct {
	Name    string // IMB name, e.g. "PingPong"; looked up case-insensitively
	Class   *Class // its kind: table layout, rates, process counts
	Default bool   // in the default run list (IMB's DEFAULT flag)
	// Pair: the benchmark runs on exactly 2 processes per group (IMB's
	// single-transfer benchmarks); otherwise on every process count of the
	// -npmin sweep.
	Pair bool
	// Rooted marks IMB's collectives with a root (has_root in
	// IMB_mem_manager.c: Bcast, Reduce, Gather, Gatherv, Scatter,
	// Scatterv), whose counts -iter_policy auto takes from multiple_np's
	// rule instead of the probes (Options.SampleRepetitions).
	Rooted bool
	// ScaleTime multiplies the measured time per iteration (0.5 for
	// PingPong's half round trip); 0 means 1.
	ScaleTime float64
	// ScaleBW is IMB's scale_bw, which the class's Rates use:
	// Mbytes/sec = ScaleBW*bytes/t_max (Bandwidth). 0 means the benchmark
	// has no bandwidth (collectives).
	ScaleBW float64
	// Areas gives the sizes in bytes of the send and receive areas one
	// iteration uses for message size bytes on procs processes, IMB's
	// s_len and r_len (the SENDBUF_SIZE_* and RECVBUF_SIZE_* flags of
	// MPI1_benchmark.cpp); nil means (bytes, bytes). Exchange uses
	// (2*bytes, bytes).
	Areas func(bytes int64, procs int) (send, recv int64)
	// LibraryBarrier: the two barriers before each call of the kernel are
	// the communicator's own Barrier even under -imb_barrier, as IMB's
	// point-to-point kernels call MPI_Barrier themselves
	// (IMB_pingpong.c, IMB_pingping.c, IMB_sendrecv.c, IMB_exchange.c,
	// IMB_bandwidth.c). Otherwise -imb_barrier makes them, and the
	// barriers of -sync, package bench's point-to-point barrier, as IMB's
	// collective kernels and Barrier do (IMB_do_n_barriers, which calls
	// IMB_Barrier when IMB_internal_barrier is set).
	LibraryBarrier bool
	// Expect, when set, enables -check: it writes into want (len = receive
	// area) what the calling rank's receive area must hold after one
	// iteration of repetition rep when every rank r of e.Comm has
	// Pattern(r, e.Bytes, rep, ...) in its send area. nil: -check is not
	// supported and rows carry no defects value.
	Expect func(e *Env, rep int, want []byte)
	// Received, when set, gives the number of leading bytes of the calling
	// rank's receive area that one iteration of repetition rep writes (0
	// at ranks that receive nothing, such as the root of Bcast or the
	// non-roots of Reduce and Gather); -check compares only those. nil
	// means the whole area.
	Received func(e *Env, rep int) int64
	// Fill, when set, writes the -check send area of repetition rep on the
	// calling rank instead of Pattern (reductions need values whose sum is
	// exact in any order; see FillReduction).
	Fill func(e *Env, rep int, send []byte)
	// Reduction marks a reduction benchmark: its buffers hold elements of
	// Options.RedType (-red_data_type, IMB's default MPI_FLOAT), and sizes
	// are rounded up to whole elements as IMB does; the -msglog sweep drops
	// a size that rounds to the one before (-msglog 0:2 gives 0 and 4 for
	// float), a -msglen list keeps every line (alignSizes).
	Reduction bool
	// Collective is the package coll name of the collective the kernel
	// calls ("bcast", "reduce_scatter", ...), used to report the
	// algorithm per message size; "" for none.
	Collective string
	Kernel     Kernel
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Spec{} // by lower-case name
)

// Register adds a benchmark. It panics on an empty name, a nil class or
// kernel, a class without a Layout, a duplicate name, or a class parameter
// that differs from another class's of the same name (programmer errors, as
// database/sql.Register does); call it from an init function.
func Register(s Spec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s.Name == "" || s.Kernel == nil || s.Class == nil || s.Class.Layout == nil {
		panic("bench: Register: spec needs a Name, a Kernel and a Class with a Layout")
	}
	key := strings.ToLower(s.Name)
	if _, dup := registry[key]; dup {
		panic("bench: Register called twice for " + s.Name)
	}
	checkClassParams(s.Class)
	registry[key] = s
}

// Lookup returns the benchmark registered under name, ignoring case as IMB
// does.
func Lookup(name string) (Spec, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	s, ok := registry[strings.ToLower(name)]
	return s, ok
}

// imbOrder is IMB-MPI1's run order (the "# List of Benchmarks to run" of
// IMB 2021.x, then its non-default benchmarks). Names() follows it so that
// a benchmark's file only has to register itself.
var imbOrder = []string{
	"PingPong", "PingPongSpecificSource", "PingPongAnySource",
	"PingPing", "PingPingSpecificSource", "PingPingAnySource",
	"Sendrecv", "Exchange", "Uniband", "Biband",
	"Allreduce", "Reduce", "Reduce_local", "Reduce_scatter", "Reduce_scatter_block",
	"Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter", "Scatterv",
	"Alltoall", "Alltoallv", "Bcast", "Barrier",
}

// Names returns the registered benchmark names in IMB's run order; names
// IMB does not know come last, alphabetically.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	rank := func(name string) int {
		for i, n := range imbOrder {
			if strings.EqualFold(n, name) {
				return i
			}
		}
		return len(imbOrder)
	}
	names := make([]string, 0, len(registry))
	for _, s := range registry {
		names = append(names, s.Name)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// DefaultNames returns the names of the benchmarks registered with
// Default, in run order: what runs when Options.Benchmarks is empty.
func DefaultNames() []string {
	var out []string
	for _, n := range Names() {
		if s, _ := Lookup(n); s.Default {
			out = append(out, n)
		}
	}
	return out
}

// Env is what a kernel sees: the group communicator, the message size and
// the buffers of one measurement.
type Env struct {
	Comm  comm.Comm // the group's communicator: active ranks of this group only
	Bytes int64     // message size in bytes
	Sync  bool      // Options.Sync: collectives barrier between timed calls
	// IMBBarrier is Options.IMBBarrier: those barriers are package bench's
	// point-to-point barrier, not the communicator's.
	IMBBarrier bool
	// RootShift is Options.RootShift: rooted collectives move the root
	// every iteration (see Root).
	RootShift bool
	// Algorithms is Options.Algorithms, the collective algorithm selection
	// kernels pass to package coll.
	Algorithms coll.Algorithms
	// RedType is the element type of reductions (Options.RedType).
	RedType coll.Datatype
	// DataType is the datatype of the messages of the benchmarks that do
	// not reduce (Options.DataType), for a runtime that runs timed loops
	// itself (comm.Loop.Datatype); 0 is MPI_BYTE. Bytes is a whole number
	// of its elements.
	DataType comm.Datatype
	// Params are the block's class parameters by name (Block.Params),
	// e.g. WindowSize's "window_size": the messages Uniband and Biband
	// keep in flight per iteration.
	Params map[string]int
	bufs   *buffers
	first  int // repetition index of the kernel's iteration 0
	// reps, when not nil (len >= the kernel's n), receives the time in
	// seconds of each iteration i in reps[i] (see tick): the
	// per-repetition distribution behind the row's mean.
	reps []float64
	// syncComm, when not nil, is the communicator of the barrier after
	// each timed collective call under Sync (Options.SyncAll: every
	// active rank); nil means Comm.
	syncComm comm.Comm
}

// tick records iteration i's time when e keeps per-repetition times: the
// seconds from *last to now, after which *last is now. A kernel sets
// *last to its start time and calls tick at the end of every iteration;
// without per-repetition times it reads no clock.
func (e *Env) tick(i int, last *float64) {
	if e.reps == nil {
		return
	}
	now := e.Comm.Wtime()
	e.reps[i] = now - *last
	*last = now
}

// Send returns the send area of iteration i (len = Spec.Areas send size).
// Under -off_cache consecutive iterations get areas at least two cache
// lines apart, cycling through a buffer larger than the cache.
func (e *Env) Send(i int) []byte { return e.bufs.send.area(e.first + i) }

// Recv returns the receive area of iteration i (len = Spec.Areas receive
// size), placed as Send's.
func (e *Env) Recv(i int) []byte { return e.bufs.recv.area(e.first + i) }

// areas returns the area sizes of s for bytes on procs processes.
func (s *Spec) areas(bytes int64, procs int) (send, recv int64) {
	if s.Areas == nil {
		return bytes, bytes
	}
	return s.Areas(bytes, procs)
}

// String describes the spec for error messages.
func (s Spec) String() string { return fmt.Sprintf("%s (%s)", s.Name, s.Class) }
