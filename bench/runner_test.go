package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/result"
)

// quick returns options for fast multi-rank tests: sizes 0, 1, 2, 4, 8
// bytes, at most 20 repetitions.
func quick(names ...string) Options {
	o := DefaultOptions()
	o.MsgLogMin, o.MsgLogMax = 0, 3
	o.MsgsPerSample = 20
	o.Benchmarks = names
	return o
}

// runAll runs Run on np ranks and returns rank 0's sink and every rank's
// error.
func runAll(t *testing.T, np int, o Options, wrap func(c comm.Comm) comm.Comm) (*recordingSink, []error) {
	t.Helper()
	sink := &recordingSink{}
	errs := make([]error, np)
	var mu sync.Mutex
	commtest.Run(t, np, comm.Config{}, func(c comm.Comm) error {
		if wrap != nil {
			c = wrap(c)
		}
		var s Sink
		if c.Rank() == 0 {
			s = sink
		}
		err := Run(context.Background(), c, o, s)
		mu.Lock()
		errs[c.Rank()] = err
		mu.Unlock()
		return nil
	})
	return sink, errs
}

func mustRun(t *testing.T, np int, o Options) *recordingSink {
	t.Helper()
	sink, errs := runAll(t, np, o, nil)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return sink
}

// wantScaleBW are IMB's byte factors (scale_bw).
var wantScaleBW = map[string]float64{"PingPong": 1, "PingPing": 1, "Sendrecv": 2, "Exchange": 4}

func TestRunEveryBenchmark(t *testing.T) {
	for _, np := range []int{2, 3, 4} {
		t.Run(fmt.Sprint("np", np), func(t *testing.T) {
			o := quick("PingPong", "PingPing", "Sendrecv", "Exchange")
			o.NPMin = np // one process count per parallel benchmark
			sink := mustRun(t, np, o)
			wantSizes := []int64{0, 1, 2, 4, 8}
			for _, name := range o.Benchmarks {
				procs := np
				if name == "PingPong" || name == "PingPing" {
					procs = 2
				}
				rows := sink.rowsOf(name, procs)
				if len(rows) != len(wantSizes) {
					t.Fatalf("%s: %d rows at %d processes, want %d", name, len(rows), procs, len(wantSizes))
				}
				for i, r := range rows {
					if r.Bytes != wantSizes[i] {
						t.Errorf("%s row %d: %d bytes, want %d", name, i, r.Bytes, wantSizes[i])
					}
					if r.Repetitions < 1 || r.Repetitions > 20 {
						t.Errorf("%s %d bytes: %d repetitions, want 1..20", name, r.Bytes, r.Repetitions)
					}
					if !(r.TMin > 0 && r.TMin <= r.TAvg && r.TAvg <= r.TMax) {
						t.Errorf("%s %d bytes: t_min %v t_avg %v t_max %v: want 0 < min <= avg <= max", name, r.Bytes, r.TMin, r.TAvg, r.TMax)
					}
					want := wantScaleBW[name] * float64(r.Bytes) / r.TMax
					if math.Abs(r.MBps-want) > 1e-9*math.Max(1, want) {
						t.Errorf("%s %d bytes: %v Mbytes/sec, want %v*bytes/t_max = %v", name, r.Bytes, r.MBps, wantScaleBW[name], want)
					}
					if r.Multi != result.MultiNone || r.Groups != 1 || r.Group != -1 || !math.IsNaN(r.Defects) {
						t.Errorf("%s %d bytes: multi %d groups %d group %d defects %v", name, r.Bytes, r.Multi, r.Groups, r.Group, r.Defects)
					}
				}
			}
			// Blocks: idle ranks and one group of the first ranks.
			for _, b := range sink.blocks {
				if b.Idle != np-b.Processes || len(b.Groups) != 1 || b.Groups[0][0] != 0 || len(b.Groups[0]) != b.Processes {
					t.Errorf("%s block: processes %d idle %d groups %v", b.Benchmark, b.Processes, b.Idle, b.Groups)
				}
				if b.ScaleBW != wantScaleBW[b.Benchmark] {
					t.Errorf("%s block: ScaleBW %v", b.Benchmark, b.ScaleBW)
				}
			}
			if got := strings.Join(sink.calls, " "); strings.Count(got, "begin") != 4 || strings.Count(got, "end") != 4 {
				t.Errorf("sink calls %q: want 4 blocks", got)
			}
		})
	}
}

func TestRunMiBandwidth(t *testing.T) {
	o := quick("Sendrecv")
	o.MByte = result.MiB
	sink := mustRun(t, 2, o)
	for _, r := range sink.rows {
		want := 2 * float64(r.Bytes) / r.TMax * 1e6 / result.MiB
		if math.Abs(r.MBps-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%d bytes: %v MiB/sec, want %v", r.Bytes, r.MBps, want)
		}
	}
}

func TestRunNPMinSweep(t *testing.T) {
	o := quick("PingPong", "Sendrecv", "Exchange")
	o.MsgLogMax = 0 // sizes 0, 1
	o.NPMin = 1
	o.Check = true // also on one process, where the chain sends to itself
	sink := mustRun(t, 5, o)
	var procs []int
	for _, b := range sink.blocks {
		procs = append(procs, b.Processes)
	}
	// PingPong on 2 only; Sendrecv and Exchange on 1, 2, 4 and always np = 5.
	if got, want := fmt.Sprint(procs), "[2 1 2 4 5 1 2 4 5]"; got != want {
		t.Fatalf("block process counts %s, want %s", got, want)
	}
	if n := len(sink.rows); n != 9*2 {
		t.Errorf("%d rows, want 18", n)
	}
	for _, r := range sink.rows {
		if r.Defects != 0 {
			t.Errorf("%s on %d: %v defects", r.Benchmark, r.Processes, r.Defects)
		}
	}
}

func TestRunMulti(t *testing.T) {
	for _, tc := range []struct {
		multi, np     int
		name          string
		groups, procs int
		rowsPerSize   int
	}{
		{result.MultiWorst, 4, "PingPong", 2, 2, 1},
		{result.MultiEach, 5, "PingPong", 2, 2, 2},
		{result.MultiEach, 4, "Exchange", 1, 4, 1},
		{result.MultiEach, 6, "Sendrecv", 2, 3, 2},
	} {
		t.Run(fmt.Sprintf("%s/multi%d/np%d", tc.name, tc.multi, tc.np), func(t *testing.T) {
			o := quick(tc.name)
			o.MsgLogMax = 1 // sizes 0, 1, 2
			o.Multi = tc.multi
			o.NPMin = tc.procs
			o.Check = true
			sink := mustRun(t, tc.np, o)
			b := sink.blocks[0]
			if len(b.Groups) != tc.groups || b.Processes != tc.procs || b.Idle != tc.np-tc.groups*tc.procs || b.Multi != tc.multi {
				t.Fatalf("block %+v: want %d groups of %d", b, tc.groups, tc.procs)
			}
			for g, ranks := range b.Groups {
				if ranks[0] != g*tc.procs || len(ranks) != tc.procs {
					t.Errorf("group %d = %v", g, ranks)
				}
			}
			rows := sink.rowsOf(tc.name, tc.procs)
			if len(rows) != 3*tc.rowsPerSize {
				t.Fatalf("%d rows, want %d", len(rows), 3*tc.rowsPerSize)
			}
			for i, r := range rows {
				wantGroup := -1
				if tc.multi == result.MultiEach {
					wantGroup = i % tc.groups
				}
				if r.Group != wantGroup || r.Groups != tc.groups || r.Multi != tc.multi {
					t.Errorf("row %d: group %d of %d multi %d, want group %d of %d", i, r.Group, r.Groups, r.Multi, wantGroup, tc.groups)
				}
				if !(r.TMin > 0 && r.TMin <= r.TAvg && r.TAvg <= r.TMax) || r.Defects != 0 {
					t.Errorf("row %d: times %v %v %v, defects %v", i, r.TMin, r.TAvg, r.TMax, r.Defects)
				}
			}
		})
	}
}

func TestRunCheckPasses(t *testing.T) {
	for _, offCache := range []int64{0, 4096} {
		o := quick("PingPong", "PingPing", "Sendrecv", "Exchange")
		o.Check = true
		o.OffCache = offCache
		o.NPMin = 3
		sink := mustRun(t, 3, o)
		if len(sink.rows) != 4*5 {
			t.Fatalf("off_cache %d: %d rows, want 20", offCache, len(sink.rows))
		}
		for _, r := range sink.rows {
			if r.Defects != 0 {
				t.Errorf("off_cache %d: %s %d bytes: defects %v, want 0", offCache, r.Benchmark, r.Bytes, r.Defects)
			}
		}
		for _, b := range sink.blocks {
			if !b.Check {
				t.Errorf("%s block: Check false under -check", b.Benchmark)
			}
		}
	}
}

// corrupting flips one byte of the receive buffer of the nth receive (1-based)
// of at least minBytes bytes on one rank.
type corrupting struct {
	comm.Comm
	minBytes int
	nth      int
	seen     int
}

func (c *corrupting) hit(buf []byte) {
	if len(buf) >= c.minBytes {
		c.seen++
		if c.seen == c.nth {
			buf[len(buf)/2] ^= 0x40
		}
	}
}

func (c *corrupting) Recv(buf []byte, src, tag int) (comm.Status, error) {
	st, err := c.Comm.Recv(buf, src, tag)
	if err == nil && tag < tagResult-10 {
		c.hit(buf[:st.Count])
	}
	return st, err
}

func (c *corrupting) Sendrecv(sb []byte, dst, stag int, rb []byte, src, rtag int) (comm.Status, error) {
	st, err := c.Comm.Sendrecv(sb, dst, stag, rb, src, rtag)
	if err == nil {
		c.hit(rb[:st.Count])
	}
	return st, err
}

// Split keeps the wrapper on the group communicators the kernels use.
func (c *corrupting) Split(color, key int) (comm.Comm, error) {
	n, err := c.Comm.Split(color, key)
	if n == nil || err != nil {
		return n, err
	}
	return &corrupting{Comm: n, minBytes: c.minBytes, nth: c.nth}, nil
}

func TestRunCheckCatchesCorruption(t *testing.T) {
	for _, name := range []string{"PingPong", "PingPing", "Sendrecv", "Exchange"} {
		t.Run(name, func(t *testing.T) {
			o := quick(name)
			o.MsgLogMin, o.MsgLogMax = 2, 5 // 0, 4, 8, 16, 32
			o.Check = true
			o.NPMin = 3
			o.MsgsPerSample = 5
			// The corrupted receive is the last one of the 16-byte size
			// on rank 1 (probe, 5 warm-up, 5 timed, 5 checked: in Exchange
			// two receives per iteration).
			perIter := 1
			if name == "Exchange" {
				perIter = 2
			}
			nth := 2 * 16 * perIter // receives of >= 16 bytes: 16 per size (1+5+5+5)
			sink, errs := runAll(t, 3, o, func(c comm.Comm) comm.Comm {
				if c.Rank() != 1 {
					return c
				}
				return &corrupting{Comm: c, minBytes: 16, nth: nth}
			})
			// Rows up to the failing size reach the sink, the failing row
			// with its defect count.
			if n := len(sink.rows); n != 5 || sink.rows[4].Defects != 1 || sink.rows[3].Defects != 0 {
				t.Errorf("%d rows reported, defects of the last %v: want 5 rows, 1 defect in the 32-byte row", n, sink.rows[len(sink.rows)-1].Defects)
			}
			t.Logf("rank 2: %v", errs[2])
			var ce *CheckError
			if !errors.As(errs[0], &ce) {
				t.Fatalf("rank 0 returned %v, want a *CheckError", errs[0])
			}
			if ce.Benchmark != name || ce.Bytes != 32 || ce.Rank != 1 || ce.Defects != 1 {
				t.Errorf("CheckError %+v: want %s, rank 1, 1 defect", ce, name)
			}
			for r, err := range errs {
				if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "rank 1") ||
					!strings.Contains(err.Error(), "bytes") || !strings.Contains(err.Error(), "byte ") {
					t.Errorf("rank %d: error %v: want one naming %s, size, rank 1 and the byte offset", r, err, name)
				}
			}
		})
	}
}

func TestRunRendezvous(t *testing.T) {
	// Messages above the eager limit take the rendezvous path; crossing
	// sends (PingPing, Exchange) must not deadlock and data must arrive.
	o := quick("PingPong", "PingPing", "Sendrecv", "Exchange")
	o.MsgLogMax = 6 // up to 64 bytes
	o.Check = true
	o.NPMin = 3
	sink := &recordingSink{}
	commtest.Run(t, 3, comm.Config{EagerLimit: 4}, func(c comm.Comm) error {
		var s Sink
		if c.Rank() == 0 {
			s = sink
		}
		return Run(context.Background(), c, o, s)
	})
	if len(sink.rows) != 4*8 {
		t.Fatalf("%d rows, want 32", len(sink.rows))
	}
	for _, r := range sink.rows {
		if r.Defects != 0 {
			t.Errorf("%s %d bytes: %v defects", r.Benchmark, r.Bytes, r.Defects)
		}
	}
}

func TestErrfOmitsMissingSize(t *testing.T) {
	commtest.Run(t, 1, comm.Config{}, func(c comm.Comm) error {
		r := &blockRun{plan: blockPlan{block: Block{Benchmark: "Sendrecv", Processes: 2}}, world: c}
		if got, want := r.errf(-1, "split: %w", errors.New("closed")).Error(), "bench: Sendrecv: 2 processes: rank 0: split: closed"; got != want {
			t.Errorf("errf(-1) = %q, want %q", got, want)
		}
		if got, want := r.errf(0, "x").Error(), "bench: Sendrecv: 2 processes: 0 bytes: rank 0: x"; got != want {
			t.Errorf("errf(0) = %q, want %q", got, want)
		}
		return nil
	})
}
