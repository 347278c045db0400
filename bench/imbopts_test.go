package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

func TestRankOrderMap(t *testing.T) {
	for _, c := range []struct {
		p, q, np int
		want     string
	}{
		{0, 0, 4, "[0 1 2 3]"},
		{1, 4, 4, "[0 1 2 3]"},
		{2, 2, 4, "[0 2 1 3]"},
		{4, 2, 8, "[0 4 1 5 2 6 3 7]"}, // 2 hosts of 4: rank 0 pairs with rank 4
		{2, 2, 6, "[0 2 5 1 4 3]"},     // keys 0 2 1 3 2 1: ranks beyond P*Q share keys, ties by rank
	} {
		o := DefaultOptions()
		o.Map = [2]int{c.p, c.q}
		if got := fmt.Sprint(o.RankOrder(c.np)); got != c.want {
			t.Errorf("-map %dx%d on %d: order %s, want %s", c.p, c.q, c.np, got, c.want)
		}
	}
}

func TestMapGroupsRun(t *testing.T) {
	o := quick("PingPong", "Uniband", "Sendrecv")
	o.Map = [2]int{2, 2}
	o.Multi = 1
	o.Check = true
	sink := mustRun(t, 4, o)
	if got := fmt.Sprint(sink.blocks[0].Groups); got != "[[0 2] [1 3]]" {
		t.Errorf("PingPong groups under -map 2x2: %s, want [[0 2] [1 3]]", got)
	}
	for _, r := range sink.rows {
		if r.Defects != 0 || !(r.TMax > 0) {
			t.Errorf("%s on %d group %d, %d bytes: defects %v t_max %v", r.Benchmark, r.Processes, r.Group, r.Bytes, r.Defects, r.TMax)
		}
	}
}

// barrierCounting counts Barrier calls and records message lengths sent
// by its rank.
type barrierCounting struct {
	comm.Comm
	mu       *sync.Mutex
	barriers *int
	sent     map[int]bool
}

func (c *barrierCounting) Barrier() error {
	c.mu.Lock()
	*c.barriers++
	c.mu.Unlock()
	return c.Comm.Barrier()
}

func (c *barrierCounting) Send(b []byte, dst, tag int) error {
	if tag == 0 {
		c.mu.Lock()
		c.sent[len(b)] = true
		c.mu.Unlock()
	}
	return c.Comm.Send(b, dst, tag)
}

func (c *barrierCounting) Split(color, key int) (comm.Comm, error) {
	s, err := c.Comm.Split(color, key)
	if s == nil || err != nil {
		return s, err
	}
	return &barrierCounting{Comm: s, mu: c.mu, barriers: c.barriers, sent: c.sent}, nil
}

// TestIMBBarrierAndDataType runs PingPong and Bcast with and without
// -imb_barrier: as in IMB-MPI1 2021.x, PingPong's barriers stay the
// communicator's (IMB_pingpong.c calls MPI_Barrier) and as many, while
// Bcast's, before its loops and under -sync, all become point-to-point
// ones (IMB_do_n_barriers); and under -data_type int both move whole
// elements.
func TestIMBBarrierAndDataType(t *testing.T) {
	counted := map[string][2]int{} // benchmark -> Barrier calls without and with -imb_barrier
	for _, name := range []string{"PingPong", "Bcast"} {
		for i, p2p := range []bool{false, true} {
			var mu sync.Mutex
			barriers := 0
			sent := map[int]bool{}
			o := quick(name)
			o.Settle = 0
			o.IterPolicy = IterOff // the same repetitions, so the same barriers, in both runs
			o.IMBBarrier = p2p
			o.DataType, o.DataTypeSize = "MPI_INT", 4
			o.Check = true
			sink, errs := runAll(t, 2, o, func(c comm.Comm) comm.Comm {
				return &barrierCounting{Comm: c, mu: &mu, barriers: &barriers, sent: sent}
			})
			for r, err := range errs {
				if err != nil {
					t.Fatalf("%s -imb_barrier %v: rank %d: %v", name, p2p, r, err)
				}
			}
			c := counted[name]
			c[i] = barriers
			counted[name] = c
			var got []int64
			for _, r := range sink.rowsOf(name, 2) {
				got = append(got, r.Bytes)
				if r.Defects != 0 {
					t.Errorf("%s %d bytes: %v defects", r.Benchmark, r.Bytes, r.Defects)
				}
			}
			// -msglog 0:3 of MPI_INT: 1 and 2 bytes round up to one
			// element, as IMB-MPI1 rounds every size up to whole elements
			// of its send datatype; the sweep drops the repeated 4.
			if fmt.Sprint(got) != "[0 4 8]" {
				t.Errorf("-data_type int: %s rows at #bytes %v, want [0 4 8]", name, got)
			}
			if name == "PingPong" && fmt.Sprint(sent) != "map[0:true 4:true 8:true]" {
				t.Errorf("-data_type int: PingPong message lengths %v, want 0, 4 and 8 bytes", sent)
			}
		}
	}
	if c := counted["PingPong"]; c[0] == 0 || c[1] != c[0] {
		t.Errorf("PingPong: %d calls of the communicator's Barrier, %d under -imb_barrier; want as many, more than 0", c[0], c[1])
	}
	if c := counted["Bcast"]; c[0] == 0 || c[1] != 0 {
		t.Errorf("Bcast: %d calls of the communicator's Barrier, %d under -imb_barrier; want some, then none", c[0], c[1])
	}
}

func TestRedDataTypes(t *testing.T) {
	for _, dt := range []coll.Datatype{coll.Float64, coll.Int32, coll.Char} {
		o := quick("Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block", "Reduce_local")
		o.RedType = dt
		o.MsgLogMax = 4 // 0, 1, ..., 16 bytes
		o.Check = true
		sink := mustRun(t, 3, o)
		want := "[0 4 8 16]" // whole 4-byte elements: 1, 2 become 4
		switch dt.Size() {
		case 8:
			want = "[0 8 16]"
		case 1:
			want = "[0 1 2 4 8 16]"
		}
		for _, name := range o.Benchmarks {
			var sizes []int64
			for _, r := range sink.rowsOf(name, 3) {
				sizes = append(sizes, r.Bytes)
				if r.Defects > 0 {
					t.Errorf("%v %s %d bytes: %v defects", dt, name, r.Bytes, r.Defects)
				}
			}
			if fmt.Sprint(sizes) != want {
				t.Errorf("%v %s: sizes %v, want %s", dt, name, sizes, want)
			}
		}
	}
}

// TestReductionMsgLenRepeats: a -msglen list runs every line for the
// reductions too, rounded up to whole elements as IMB does (6 bytes of
// float are 8), repeats included: a soak that repeats its sizes measures
// Allreduce and Reduce again and again, as it does every other benchmark.
func TestReductionMsgLenRepeats(t *testing.T) {
	o := quick("Allreduce", "Reduce", "Sendrecv")
	o.MsgLens = []int64{0, 1024, 6, 0, 1024}
	o.Check = true
	sink := mustRun(t, 3, o)
	want := map[string]string{"Allreduce": "[0 1024 8 0 1024]", "Reduce": "[0 1024 8 0 1024]", "Sendrecv": "[0 1024 6 0 1024]"}
	for name, w := range want {
		var sizes []int64
		for _, r := range sink.rowsOf(name, 3) {
			sizes = append(sizes, r.Bytes)
			if r.Defects > 0 {
				t.Errorf("%s %d bytes: %v defects", name, r.Bytes, r.Defects)
			}
		}
		if fmt.Sprint(sizes) != w {
			t.Errorf("%s: sizes %v, want %s", name, sizes, w)
		}
	}
}

// TestDataTypeSizesRoundUp: with -data_type double every benchmark that
// does not reduce runs its sizes rounded up to whole 8-byte elements, as
// IMB-MPI1 does with its send datatype (a -msglen list keeps each line, the
// -msglog sweep drops a size equal to the one before); the reductions keep
// -red_data_type's 4-byte float, and Barrier its single row.
func TestDataTypeSizesRoundUp(t *testing.T) {
	for _, tc := range []struct {
		msgLens []int64
		want    map[string]string
	}{
		{[]int64{0, 1024, 6, 9, 1}, map[string]string{"Sendrecv": "[0 1024 8 16 8]", "Bcast": "[0 1024 8 16 8]", "Allreduce": "[0 1024 8 12 4]", "Barrier": "[0]"}},
		{nil, map[string]string{"Sendrecv": "[0 8 16]", "Bcast": "[0 8 16]", "Allreduce": "[0 4 8 16]", "Barrier": "[0]"}}, // -msglog 0:4
	} {
		o := quick("Sendrecv", "Bcast", "Allreduce", "Barrier")
		o.MsgLogMax = 4
		o.MsgLens = tc.msgLens
		o.DataType, o.DataTypeSize = "MPI_DOUBLE", 8
		plan, err := makePlan(&o, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, bp := range plan {
			if got := fmt.Sprint(bp.sizes); got != tc.want[bp.spec.Name] {
				t.Errorf("-msglen %v: %s sizes %s, want %s", tc.msgLens, bp.spec.Name, got, tc.want[bp.spec.Name])
			}
		}
	}
}

// TestRedDataTypeCharEveryTransport runs the reductions that -check
// verifies on char elements (-red_data_type char) at 4 ranks over every
// transport, at odd sizes from eager messages to rendezvous: every result must equal the local reference (sums
// wrapping modulo 2^8) and every size must run whole, as 1-byte elements
// allow. At 128 KiB + 3 the first halving step of Rabenseifner's
// algorithms moves more than the 64 KiB eager limit, and
// Reduce_scatter_block (4 x 128 KiB) runs pairwise. Two repetitions (the -check pass fills each differently) and
// no warm-up: under the race detector on a loaded host the byte loops of
// -check's reference took a minute per transport with three and a
// warm-up.
func TestRedDataTypeCharEveryTransport(t *testing.T) {
	names := []string{"Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block"}
	sizes := []int64{0, 3, 4097, 128<<10 + 3}
	for _, tr := range []string{"shm", "tcp", "inmem", "hybrid"} {
		t.Run(tr, func(t *testing.T) {
			o := DefaultOptions()
			o.Benchmarks = names
			o.NPMin = integrityRanks
			o.MsgLens = sizes
			o.IterPolicy, o.MsgsPerSample = IterOff, 2
			o.Warmup = false
			o.Settle = 0
			o.Check = true
			o.RedType = coll.Char
			sink := &recordingSink{}
			commtest.RunOn(t, integrityEndpoints(t, tr), comm.Config{}, func(c comm.Comm) error {
				var s Sink
				if c.Rank() == 0 {
					s = sink
				}
				return Run(context.Background(), c, o, s)
			})
			for _, name := range names {
				var got []int64
				for _, r := range sink.rowsOf(name, integrityRanks) {
					got = append(got, r.Bytes)
					if r.Defects != 0 {
						t.Errorf("%s %d bytes: %v defects", name, r.Bytes, r.Defects)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(sizes) {
					t.Errorf("%s: sizes %v, want %v", name, got, sizes)
				}
			}
		})
	}
}
