package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// collectives are the IMB-MPI1 collective and sync benchmarks in IMB's
// default order.
var collectives = []string{"Allreduce", "Reduce", "Reduce_local", "Reduce_scatter", "Reduce_scatter_block",
	"Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Bcast", "Barrier"}

// reductions have sizes in whole MPI_FLOAT elements.
var reductions = map[string]bool{"Allreduce": true, "Reduce": true, "Reduce_local": true,
	"Reduce_scatter": true, "Reduce_scatter_block": true}

func TestCollectivesRegisteredInIMBOrder(t *testing.T) {
	var got []string
	for _, n := range DefaultNames() {
		if s, _ := Lookup(n); s.Class == Collective || s.Class == Sync {
			got = append(got, n)
		}
	}
	if !reflect.DeepEqual(got, collectives) {
		t.Errorf("default collective benchmarks %v, want IMB's order %v", got, collectives)
	}
}

// checkRows asserts the rows of one benchmark at procs processes: one per
// expected size, positive times in order, no defects, an algorithm where
// the benchmark calls a collective.
func checkRows(t *testing.T, sink *recordingSink, name string, procs int, sizes []int64) {
	t.Helper()
	rows := sink.rowsOf(name, procs)
	if name == "Barrier" {
		sizes = []int64{-1}
	}
	if len(rows) != len(sizes) {
		t.Fatalf("%s at %d processes: %d rows, want %d", name, procs, len(rows), len(sizes))
	}
	for i, r := range rows {
		if r.Bytes != sizes[i] {
			t.Errorf("%s row %d: %d bytes, want %d", name, i, r.Bytes, sizes[i])
		}
		const slack = 1e-9
		if r.Repetitions < 1 || !(r.TMin > 0) || r.TMin > r.TAvg*(1+slack) || r.TAvg > r.TMax*(1+slack) {
			t.Errorf("%s %d bytes at %d processes: %d repetitions, t_min %v t_avg %v t_max %v: want positive and ordered",
				name, r.Bytes, procs, r.Repetitions, r.TMin, r.TAvg, r.TMax)
		}
		if !math.IsNaN(r.MBps) {
			t.Errorf("%s: bandwidth %v, want none (IMB prints no Mbytes/sec for collectives)", name, r.MBps)
		}
		if s, _ := Lookup(name); s.Expect != nil && r.Defects != 0 {
			t.Errorf("%s %d bytes at %d processes: %v defects under -check", name, r.Bytes, procs, r.Defects)
		}
		if (r.Algorithm == "") != (name == "Reduce_local") {
			t.Errorf("%s %d bytes: algorithm %q", name, r.Bytes, r.Algorithm)
		}
	}
}

func TestCollectivesEveryProcessCount(t *testing.T) {
	for np := 1; np <= 5; np++ {
		t.Run(fmt.Sprint("np", np), func(t *testing.T) {
			o := quick(collectives...)
			o.NPMin = np
			o.Check = true
			sink := mustRun(t, np, o)
			for _, name := range collectives {
				sizes := []int64{0, 1, 2, 4, 8}
				if reductions[name] {
					sizes = []int64{0, 4, 8}
				}
				checkRows(t, sink, name, np, sizes)
			}
		})
	}
}

func TestCollectivesNineRanksRendezvous(t *testing.T) {
	// Nine ranks (odd, not a power of two) with sizes above the default
	// eager limit, so that every algorithm's rendezvous path is checked.
	// One job per collective, so that each gets commtest's time limit:
	// all of them in one job under -race on a loaded 2-CPU host took more.
	for _, name := range collectives {
		t.Run(name, func(t *testing.T) {
			o := quick(name)
			o.NPMin = 9
			o.MsgLens = []int64{0, 7, 70000}
			o.MsgsPerSample = 3
			o.Check = true
			o.RootShift = true
			sink := mustRun(t, 9, o)
			sizes := o.MsgLens
			if reductions[name] {
				sizes = []int64{0, 8, 70000} // 7 bytes rounded up to 2 floats, as IMB does
			}
			checkRows(t, sink, name, 9, sizes)
		})
	}
}

func TestRootShiftRotatesRoot(t *testing.T) {
	e := &Env{Comm: sized{n: 3}, RootShift: true, first: 2}
	var got []int
	for i := 0; i < 4; i++ {
		got = append(got, e.Root(i))
	}
	if !reflect.DeepEqual(got, []int{2, 0, 1, 2}) {
		t.Errorf("roots of iterations 0..3 from repetition 2 on 3 ranks: %v, want [2 0 1 2]", got)
	}
	e.RootShift = false
	if e.Root(1) != 0 {
		t.Errorf("root without -root_shift: %d, want 0", e.Root(1))
	}
	// Under -check every repetition's expected data names its root: a
	// kernel that did not rotate would report defects.
	rooted := []string{"Bcast", "Reduce", "Gather", "Gatherv", "Scatter", "Scatterv"}
	o := quick(rooted...)
	o.NPMin, o.Check, o.RootShift = 4, true, true
	sink := mustRun(t, 4, o)
	for _, name := range rooted {
		sizes := []int64{0, 1, 2, 4, 8}
		if reductions[name] {
			sizes = []int64{0, 4, 8}
		}
		checkRows(t, sink, name, 4, sizes)
	}
}

func TestAlgorithmOverrideAndDefaultTable(t *testing.T) {
	o := quick("Bcast", "Allreduce", "Barrier")
	o.NPMin = 4
	o.MsgLens = []int64{8, 4096}
	sink := mustRun(t, 4, o)
	want := map[string][]string{
		"Bcast":     {"binomial", "binomial"},
		"Allreduce": {"recursive_doubling", "rabenseifner"}, // MPICH: above 2048 bytes
		"Barrier":   {"linear"},                             // from 4 to 7 ranks (Open MPI's rule)
	}
	for name, algs := range want {
		var got []string
		for _, r := range sink.rowsOf(name, 4) {
			got = append(got, r.Algorithm)
		}
		if !reflect.DeepEqual(got, algs) {
			t.Errorf("default table: %s rows' algorithms %v, want %v", name, got, algs)
		}
	}
	for _, b := range sink.blocks {
		if b.Benchmark == "Allreduce" {
			if got := AlgorithmText(b.Algorithms); got != "recursive_doubling (8-8 bytes), rabenseifner (4096-4096 bytes)" {
				t.Errorf("Allreduce block algorithms %q", got)
			}
		}
	}

	var err error
	if o.Algorithms, err = coll.ParseAlgorithms("bcast=pipeline:seg=1024,allreduce=ring,barrier=tree"); err != nil {
		t.Fatal(err)
	}
	o.Check = true
	sink = mustRun(t, 4, o)
	want = map[string][]string{
		"Bcast":     {"pipeline:seg=1024", "pipeline:seg=1024"},
		"Allreduce": {"ring", "ring"},
		"Barrier":   {"tree"},
	}
	for name, algs := range want {
		var got []string
		for _, r := range sink.rowsOf(name, 4) {
			got = append(got, r.Algorithm)
			if r.Defects != 0 && name != "Barrier" {
				t.Errorf("override: %s %d bytes: %v defects", name, r.Bytes, r.Defects)
			}
		}
		if !reflect.DeepEqual(got, algs) {
			t.Errorf("override: %s rows' algorithms %v, want %v", name, got, algs)
		}
	}
	for _, b := range sink.blocks {
		if len(b.Algorithms) != 1 {
			t.Errorf("override: %s block has %d algorithm spans, want 1", b.Benchmark, len(b.Algorithms))
		}
	}
}

func TestCheckCatchesWrongContribution(t *testing.T) {
	// Rank 2 contributes a wrong first element (or byte) at 8 bytes: the
	// -check pass must fail with an error naming benchmark, size and a
	// rank that received the wrong result.
	for _, tc := range []struct {
		name     string
		wantRank int // first world rank whose result is wrong
	}{
		{"Allreduce", 0}, {"Reduce_scatter_block", 0}, {"Allgather", 0}, {"Alltoall", 0},
		{"Gather", 0}, {"Reduce", 0}, {"Scatter", 3}, {"Bcast", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rooted := tc.name == "Scatter" || tc.name == "Bcast"
			corruptSend = func(e *Env, rep int, send []byte) {
				if e.Bytes != 8 || rep != 1 {
					return
				}
				switch me := e.Comm.Rank(); {
				case rooted && me == 0:
					// Only root 0 sends: its last byte is Scatter's block
					// for rank 3 and part of every rank's Bcast.
					send[len(send)-1] ^= 0x10
				case !rooted && me == 2:
					binary.NativeEndian.PutUint32(send, math.Float32bits(1000))
				}
			}
			t.Cleanup(func() { corruptSend = nil })
			o := quick(tc.name)
			o.NPMin = 4
			o.MsgLens = []int64{4, 8, 16}
			o.MsgsPerSample = 3
			o.Check = true
			sink, errs := runAll(t, 4, o, nil)
			if rows := sink.rowsOf(tc.name, 4); len(rows) != 2 || rows[0].Defects != 0 || !(rows[1].Defects > 0) {
				t.Errorf("rows %d (want 2: 4 bytes clean, 8 bytes with defects)", len(rows))
			}
			var ce *CheckError
			if !errors.As(errs[0], &ce) {
				t.Fatalf("rank 0 returned %v, want a *CheckError", errs[0])
			}
			if ce.Benchmark != tc.name || ce.Bytes != 8 || ce.Rank != tc.wantRank {
				t.Errorf("CheckError %+v: want %s, 8 bytes, rank %d", ce, tc.name, tc.wantRank)
			}
			for r, err := range errs {
				msg := fmt.Sprint(err)
				if !strings.Contains(msg, tc.name) || !strings.Contains(msg, "8 bytes") ||
					!strings.Contains(msg, fmt.Sprintf("rank %d", tc.wantRank)) || !strings.Contains(msg, "repetition 1") {
					t.Errorf("rank %d: error %q: want one naming %s, 8 bytes, rank %d and repetition 1", r, msg, tc.name, tc.wantRank)
				}
			}
		})
	}
}

// TestAlignSizes: reduction sizes are rounded up to whole elements, as
// IMB's size loop does; the -msglog sweep drops sizes that round to the one
// before, a -msglen list keeps every line, repeats included.
func TestAlignSizes(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		elem  int
		list  bool
		want  []int64
	}{
		{[]int64{0, 1, 2, 4, 8, 16}, 4, false, []int64{0, 4, 8, 16}},                                // -msglog 0:4, float
		{[]int64{1, 2, 4, 8, 16}, 8, false, []int64{8, 16}},                                         // -msglog 0:4 -zero_size off, double
		{[]int64{0, 1, 2, 4, 8, 10, 12, 3}, 4, true, []int64{0, 4, 4, 4, 8, 12, 12, 4}},             // a -msglen list
		{[]int64{0, 1024, 65536, 0, 1024, 65536}, 4, true, []int64{0, 1024, 65536, 0, 1024, 65536}}, // repeated sizes
		{[]int64{3, 4097, 131075}, 1, true, []int64{3, 4097, 131075}},                               // char
	} {
		if got := alignSizes(tc.sizes, tc.elem, tc.list); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("alignSizes(%v, %d, list %v) = %v, want %v", tc.sizes, tc.elem, tc.list, got, tc.want)
		}
	}
}

func TestFillReductionSumsExactly(t *testing.T) {
	// Values are small integers, so float32 sums of many ranks are exact
	// and independent of the order of addition.
	buf := make([]byte, 64)
	sum := make([]float64, 16)
	for r := 0; r < 100; r++ {
		FillReduction(buf, coll.Float32, r, 64, 3)
		for k := range sum {
			v := math.Float32frombits(binary.NativeEndian.Uint32(buf[4*k:]))
			if v != float32(int(v)) || v < -128 || v > 127 {
				t.Fatalf("rank %d element %d: %v, want an integer in -128..127", r, k, v)
			}
			sum[k] += float64(v)
		}
	}
	distinct := map[float64]bool{}
	for _, s := range sum {
		distinct[s] = true
	}
	if len(distinct) < 8 {
		t.Errorf("sums of 100 ranks take %d distinct values over 16 elements: pattern too uniform", len(distinct))
	}
}

// sized is a stand-in communicator for Env.Root: only Size is used.
type sized struct {
	comm.Comm
	n int
}

func (s sized) Size() int { return s.n }
