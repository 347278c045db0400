package bench

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// loopSpy is a communicator that offers to run timed loops
// (comm.LoopRunner) and offers every collective with a loop natively (by
// coll's algorithms on the communicator it wraps), records every loop it
// is offered, and declines each with comm.ErrSkip, so that the kernels'
// own loops run.
type loopSpy struct {
	comm.Comm
	mu      *sync.Mutex
	offered map[[2]int]comm.Loop // by (world rank, kind): the last loop offered
	world   int                  // the rank in the communicator the spy was made for
}

// runSpied runs o on np ranks whose communicators are loopSpies and
// returns the loops offered (by world rank and kind) and every rank's
// errors joined.
func runSpied(t *testing.T, np int, o Options) (map[[2]int]comm.Loop, error) {
	t.Helper()
	var mu sync.Mutex
	offered := map[[2]int]comm.Loop{}
	_, errs := runAll(t, np, o, func(c comm.Comm) comm.Comm {
		return &loopSpy{Comm: c, mu: &mu, offered: offered, world: c.Rank()}
	})
	return offered, errors.Join(errs...)
}

func (s *loopSpy) RunLoop(l comm.Loop) (float64, error) {
	s.mu.Lock()
	s.offered[[2]int{s.world, int(l.Kind)}] = l
	s.mu.Unlock()
	return 0, comm.ErrSkip
}

func (s *loopSpy) Allreduce(send, recv []byte, op comm.Op, dt comm.Datatype) error {
	return coll.Allreduce(s.Comm, send, recv, dt, op)
}
func (s *loopSpy) Bcast(buf []byte, root int) error { return coll.Bcast(s.Comm, buf, root) }
func (s *loopSpy) NativeBarrier() error             { return s.Comm.Barrier() }
func (s *loopSpy) Reduce(send, recv []byte, op comm.Op, dt comm.Datatype, root int) error {
	return coll.Reduce(s.Comm, send, recv, dt, op, root)
}
func (s *loopSpy) Gather(send, recv []byte, root int) error {
	return coll.Gather(s.Comm, send, recv, root)
}
func (s *loopSpy) Scatter(send, recv []byte, root int) error {
	return coll.Scatter(s.Comm, send, recv, root)
}
func (s *loopSpy) Allgather(send, recv []byte) error { return coll.Allgather(s.Comm, send, recv) }
func (s *loopSpy) Alltoall(send, recv []byte) error  { return coll.Alltoall(s.Comm, send, recv) }
func (s *loopSpy) Allgatherv(send, recv []byte, counts, displs []int) error {
	return coll.Allgatherv(s.Comm, send, recv, counts, displs)
}
func (s *loopSpy) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	return coll.Gatherv(s.Comm, send, recv, counts, displs, root)
}
func (s *loopSpy) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	return coll.Scatterv(s.Comm, send, counts, displs, recv, root)
}
func (s *loopSpy) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	return coll.Alltoallv(s.Comm, send, scounts, sdispls, recv, rcounts, rdispls)
}
func (s *loopSpy) ReduceScatterBlock(send, recv []byte, op comm.Op, dt comm.Datatype) error {
	return coll.ReduceScatterBlock(s.Comm, send, recv, dt, op)
}
func (s *loopSpy) ReduceScatter(send, recv []byte, counts []int, op comm.Op, dt comm.Datatype) error {
	bytes := make([]int, len(counts)) // the native interface counts elements, coll's bytes
	for i, n := range counts {
		bytes[i] = n * dt.Size()
	}
	return coll.ReduceScatter(s.Comm, send, recv, bytes, dt, op)
}

func (s *loopSpy) Split(color, key int) (comm.Comm, error) {
	c, err := s.Comm.Split(color, key)
	if c == nil || err != nil {
		return c, err
	}
	return &loopSpy{Comm: c, mu: s.mu, offered: s.offered, world: s.world}, nil
}

// TestKernelsOfferTheirLoops runs every benchmark with a loop a runtime
// may run itself on a communicator that declines each, under -check,
// -off_cache (of a 4 KiB cache) and -root_shift: the kernels' own loops must then run (no
// defects), and the loops offered must describe them (partners, roles,
// window, tag, collective operands, the buffers' slots).
func TestKernelsOfferTheirLoops(t *testing.T) {
	o := quick("PingPong", "PingPongAnySource", "PingPing", "Sendrecv", "Exchange", "Uniband", "Biband", "Allreduce", "Bcast", "Barrier",
		"Reduce", "Gather", "Scatter", "Allgather", "Alltoall", "Reduce_scatter_block",
		"Reduce_scatter", "Allgatherv", "Gatherv", "Scatterv", "Alltoallv", "Reduce_local")
	o.NPMin, o.Check, o.OffCache, o.RootShift, o.Params = 4, true, 4096, true, map[string]int{WindowSize.Name: 3}
	var mu sync.Mutex
	offered := map[[2]int]comm.Loop{}
	sink, errs := runAll(t, 4, o, func(c comm.Comm) comm.Comm {
		return &loopSpy{Comm: c, mu: &mu, offered: offered, world: c.Rank()}
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	for _, r := range sink.rows {
		if r.Benchmark != "Barrier" && r.Benchmark != "Reduce_local" && r.Defects != 0 { // neither is checked (NaN)
			t.Errorf("%s %d bytes on %d: %v defects after the loop was declined", r.Benchmark, r.Bytes, r.Processes, r.Defects)
		}
	}
	// The last block of each benchmark ran on 4 ranks (2 for the pairs);
	// its largest size, 8 bytes, was offered last.
	for rank := 0; rank < 4; rank++ {
		left, right := (rank+3)%4, (rank+1)%4
		want := map[comm.LoopKind]comm.Loop{
			comm.LoopSendrecv:  {Left: left, Right: right},
			comm.LoopExchange:  {Left: left, Right: right},
			comm.LoopUniband:   {Peer: (rank + 2) % 4, Starts: rank < 2, Window: 3, Tag: windowTag},
			comm.LoopBiband:    {Peer: (rank + 2) % 4, Starts: rank < 2, Window: 3, Tag: windowTag},
			comm.LoopAllreduce: {Datatype: comm.Float32, Op: comm.Sum, Sync: true, RootShift: true},
			comm.LoopBcast:     {Sync: true, RootShift: true},
			comm.LoopBarrier:   {RootShift: true},

			comm.LoopReduce:             {Datatype: comm.Float32, Op: comm.Sum, Sync: true, RootShift: true},
			comm.LoopGather:             {Sync: true, RootShift: true},
			comm.LoopScatter:            {Sync: true, RootShift: true},
			comm.LoopAllgather:          {Sync: true, RootShift: true},
			comm.LoopAlltoall:           {Sync: true, RootShift: true},
			comm.LoopReduceScatterBlock: {Datatype: comm.Float32, Op: comm.Sum, Sync: true, RootShift: true},
			comm.LoopAllgatherv:         {Sync: true, RootShift: true},
			comm.LoopGatherv:            {Sync: true, RootShift: true},
			comm.LoopScatterv:           {Sync: true, RootShift: true},
			comm.LoopAlltoallv:          {Sync: true, RootShift: true},
			comm.LoopReduceLocal:        {Datatype: comm.Float32, Op: comm.Sum, Sync: true, RootShift: true},
			comm.LoopReduceScatter:      {Datatype: comm.Float32, Op: comm.Sum, Sync: true, RootShift: true},
		}
		if rank < 2 {
			want[comm.LoopPingPong] = comm.Loop{Peer: 1 - rank, Starts: rank == 0}
			want[comm.LoopPingPing] = comm.Loop{Peer: 1 - rank}
		}
		for kind, w := range want {
			got, ok := offered[[2]int{rank, int(kind)}]
			if !ok {
				t.Errorf("rank %d: loop %d never offered", rank, kind)
				continue
			}
			if g, w := rolesOf(got), rolesOf(w); g != w {
				t.Errorf("rank %d: loop %d offered as %+v, want %+v", rank, kind, g, w)
			}
			wantBytes, sendBytes, recvBytes := 8, 8, 8
			switch kind {
			case comm.LoopBarrier:
				wantBytes, sendBytes, recvBytes = 0, 0, 0
			case comm.LoopExchange:
				sendBytes = 16
			case comm.LoopGather, comm.LoopAllgather, comm.LoopGatherv, comm.LoopAllgatherv:
				recvBytes = 4 * 8
			case comm.LoopScatter, comm.LoopReduceScatterBlock, comm.LoopReduceScatter, comm.LoopScatterv:
				sendBytes = 4 * 8
			case comm.LoopAlltoall, comm.LoopAlltoallv:
				sendBytes, recvBytes = 4*8, 4*8
			}
			if got.Bytes != wantBytes || got.Reps < 1 || got.Send.Count < 2 || got.Recv.Count < 2 ||
				len(got.Send.Buf) != got.Send.Stride*(got.Send.Count-1)+sendBytes || len(got.Recv.Buf) != got.Recv.Stride*(got.Recv.Count-1)+recvBytes {
				t.Errorf("rank %d: loop %d: %d bytes, %d repetitions, send %d slots %d apart in %d bytes, receive %d slots %d apart in %d bytes; want %d bytes in -off_cache slots",
					rank, kind, got.Bytes, got.Reps, got.Send.Count, got.Send.Stride, len(got.Send.Buf), got.Recv.Count, got.Recv.Stride, len(got.Recv.Buf), wantBytes)
			}
		}
	}
}

// loopRoles are the fields of a comm.Loop that name partners and roles.
type loopRoles struct {
	Peer, Left, Right, Window, Tag int
	Starts, Sync, RootShift        bool
	Datatype                       comm.Datatype
	Op                             comm.Op
}

func rolesOf(l comm.Loop) loopRoles {
	return loopRoles{Peer: l.Peer, Left: l.Left, Right: l.Right, Window: l.Window, Tag: l.Tag,
		Starts: l.Starts, Sync: l.Sync, RootShift: l.RootShift, Datatype: l.Datatype, Op: l.Op}
}

// TestCollectiveLoopOnlyForNative checks that a collective's loop is not
// offered when --coll selects one of coll's algorithms instead of the
// runtime's own, nor under -sync with -imb_barrier (whose barriers are
// bench's, not the runtime's).
func TestCollectiveLoopOnlyForNative(t *testing.T) {
	over, err := coll.ParseAlgorithms("allreduce=ring,bcast=binomial,barrier=tree,reduce=binomial,gather=linear,scatter=linear," +
		"allgather=ring,alltoall=pairwise,reduce_scatter_block=ring")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		set         func(o *Options)
		wantKinds   int // collective loops offered
		wantBarrier bool
	}{
		{"override", func(o *Options) { o.Algorithms = over }, 0, false},
		{"imb_barrier", func(o *Options) { o.IMBBarrier = true }, 1, true}, // Barrier has no -sync barriers
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := quick("Allreduce", "Bcast", "Barrier",
				"Reduce", "Gather", "Scatter", "Allgather", "Alltoall", "Reduce_scatter_block")
			o.NPMin = 2
			tc.set(&o)
			offered, err := runSpied(t, 2, o)
			if err != nil {
				t.Fatal(err)
			}
			kinds := 0
			for k := range offered {
				if k[0] == 0 {
					kinds++
				}
			}
			_, barrier := offered[[2]int{0, int(comm.LoopBarrier)}]
			if kinds != tc.wantKinds || barrier != tc.wantBarrier {
				t.Errorf("%d collective loops offered (Barrier's: %v); want %d (%v)", kinds, barrier, tc.wantKinds, tc.wantBarrier)
			}
		})
	}
}

// ranLoop is a communicator whose runtime runs every loop itself: it
// returns secs (or fails with err) without calling the communicator's
// methods, which a nil comm.Comm would turn into a panic.
type ranLoop struct {
	comm.Comm
	secs float64
	err  error
}

func (r ranLoop) Rank() int                          { return 0 }
func (r ranLoop) Size() int                          { return 2 }
func (r ranLoop) RunLoop(comm.Loop) (float64, error) { return r.secs, r.err }

// TestKernelUsesRunnersResult checks that a kernel whose loop the runtime
// ran returns the runtime's seconds or error and runs no loop of its own.
func TestKernelUsesRunnersResult(t *testing.T) {
	boom := errors.New("boom")
	for _, name := range []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Uniband"} {
		spec, _ := Lookup(name)
		bufs, err := newBuffers(&spec, 8, 2, &Options{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := &Env{Comm: ranLoop{secs: 1.25}, Bytes: 8, Params: map[string]int{WindowSize.Name: 2}, bufs: bufs}
		if secs, err := spec.Kernel(e, 10); secs != 1.25 || err != nil {
			t.Errorf("%s: kernel returned %v, %v; want the runtime's 1.25, nil", name, secs, err)
		}
		e.Comm = ranLoop{err: boom}
		if _, err := spec.Kernel(e, 10); !errors.Is(err, boom) {
			t.Errorf("%s: kernel returned %v; want the runtime's error", name, err)
		}
	}
}

// TestDataTypeReachesLoops checks that -data_type double is offered to a
// runtime that runs loops itself as the messages' Datatype of every loop
// that does not reduce, while the reductions keep -red_data_type's, and
// that the message sizes are whole doubles.
func TestDataTypeReachesLoops(t *testing.T) {
	o := quick("PingPong", "Exchange", "Uniband", "Bcast", "Gatherv", "Alltoall", "Allreduce", "Reduce_scatter")
	o.NPMin = 2
	o.DataType, o.DataTypeSize = mustDataType(t, "double")
	offered, err := runSpied(t, 2, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[comm.LoopKind]comm.Datatype{
		comm.LoopPingPong: comm.Float64, comm.LoopExchange: comm.Float64, comm.LoopUniband: comm.Float64,
		comm.LoopBcast: comm.Float64, comm.LoopGatherv: comm.Float64, comm.LoopAlltoall: comm.Float64,
		comm.LoopAllreduce: comm.Float32, comm.LoopReduceScatter: comm.Float32,
	}
	for kind, dt := range want {
		got, ok := offered[[2]int{0, int(kind)}]
		if !ok {
			t.Errorf("loop %d never offered", kind)
			continue
		}
		if got.Datatype != dt || got.Bytes%dt.Size() != 0 || got.Bytes == 0 {
			t.Errorf("loop %d offered with %v and %d bytes; want %v and a whole number of its elements", kind, got.Datatype, got.Bytes, dt)
		}
	}
}

// mustDataType is ParseDataType that fails t on an error.
func mustDataType(t *testing.T, s string) (string, int) {
	t.Helper()
	name, size, err := ParseDataType(s)
	if err != nil {
		t.Fatal(err)
	}
	return name, size
}

// TestDataTypeLoopKept checks that a collective loop kept from a runtime
// that runs loops itself (-sync with -imb_barrier or --sync-all, or --coll
// choosing one of coll's algorithms) under -data_type int is refused
// before any row, PingPong's first, with an *OptionError naming both
// options, since the kernel's own loop would move MPI_BYTE; with
// -data_type byte the kernel's loop runs.
func TestDataTypeLoopKept(t *testing.T) {
	over, err := coll.ParseAlgorithms("bcast=binomial")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		set        func(o *Options)
	}{
		{"imb_barrier", "-imb_barrier", func(o *Options) { o.IMBBarrier = true }},
		{"sync_all", "--sync-all", func(o *Options) { o.SyncAll = true }},
		{"coll", "--coll", func(o *Options) { o.Algorithms = over }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, dt := range []string{"byte", "int"} {
				o := quick("PingPong", "Bcast")
				o.NPMin = 2
				o.DataType, o.DataTypeSize = mustDataType(t, dt)
				tc.set(&o)
				var mu sync.Mutex
				sink, errs := runAll(t, 2, o, func(c comm.Comm) comm.Comm {
					return &loopSpy{Comm: c, mu: &mu, offered: map[[2]int]comm.Loop{}, world: c.Rank()}
				})
				err := errors.Join(errs...)
				if dt == "byte" {
					if err != nil {
						t.Fatalf("-data_type byte: %v", err)
					}
					continue
				}
				var oe *OptionError
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), "-data_type MPI_INT") || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("-data_type int: got %v; want an *OptionError naming -data_type MPI_INT and %s", err, tc.want)
				}
				if len(sink.rows) != 0 {
					t.Fatalf("-data_type int: %d rows measured before the refusal; want none", len(sink.rows))
				}
			}
		})
	}
}
