package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/result"
)

func repsOf(rows []result.Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, fmt.Sprintf("%d:%d", r.Bytes, r.Repetitions))
	}
	return strings.Join(s, " ")
}

func TestRunIMBSchedule(t *testing.T) {
	o := quick("PingPong")
	o.MsgsPerSample = 1000
	o.TimeLimit = 1e6                                     // the volume schedule only, even on a loaded machine (-time has its own tests)
	o.MsgLens = []int64{32768, 65536, 131072, 4194304, 8} // 8 bytes after 4 MiB: larger sizes bound a listed size from below only (IMB's numiters)
	sink := mustRun(t, 2, o)
	if got, want := repsOf(sink.rows), "32768:1000 65536:640 131072:320 4194304:10 8:1000"; got != want {
		t.Errorf("repetitions %s, want %s", got, want)
	}
}

// slowFirst is PingPong whose first call per message size (the probe)
// sleeps slowFirstDelay on each rank, as a cold or descheduled iteration
// does.
const slowFirstDelay = 20 * time.Millisecond

var slowFirstSeen sync.Map // *Env -> struct{}

func init() {
	Register(Spec{Name: "SlowFirstTest", Class: SingleTransfer, Pair: true, ScaleTime: 0.5, ScaleBW: 1,
		Kernel: func(e *Env, n int) (float64, error) {
			start := e.Comm.Wtime()
			if _, seen := slowFirstSeen.LoadOrStore(e, struct{}{}); !seen {
				time.Sleep(slowFirstDelay)
			}
			if _, err := pingPong(e, n, false); err != nil {
				return 0, err
			}
			return e.Comm.Wtime() - start, nil
		}})
}

func TestRunSlowProbeDoesNotCap(t *testing.T) {
	// One 20 ms probe iteration per size under -time 1 would give
	// 1 + 1/0.02 = 51 repetitions at every size; IMB's second probe (50
	// iterations, a second's worth by the first) shows 200 fit.
	o := quick("SlowFirstTest")
	o.MsgsPerSample = 200
	o.TimeLimit = 1
	sink := mustRun(t, 2, o)
	if got, want := repsOf(sink.rows), "0:200 1:200 2:200 4:200 8:200"; got != want {
		t.Errorf("repetitions %s, want %s", got, want)
	}
}

func TestRunIterPolicyOff(t *testing.T) {
	o := quick("PingPong")
	o.MsgLens = []int64{1 << 20, 0}
	o.MsgsPerSample = 50
	o.IterPolicy = IterOff
	o.TimeLimit = 1e-9 // no cap under -iter_policy off
	o.NoTimeOut = true // nor IMB's time-out, which this limit reaches at once
	sink := mustRun(t, 2, o)
	if got, want := repsOf(sink.rows), "1048576:50 0:50"; got != want {
		t.Errorf("repetitions %s, want %s", got, want)
	}
}

func TestRunTimeLimitCaps(t *testing.T) {
	o := quick("Sendrecv")
	o.TimeLimit = 1e-9 // any probe exceeds it: one repetition per size
	o.NoTimeOut = true // without IMB's time-out, which would end the benchmark at 0 bytes
	o.NPMin = 3
	sink := mustRun(t, 3, o)
	if got, want := repsOf(sink.rows), "0:1 1:1 2:1 4:1 8:1"; got != want {
		t.Errorf("repetitions %s, want %s", got, want)
	}
}

func TestRunOneIteration(t *testing.T) {
	// -iter 1 with one warm-up iteration and -check: exactly one timed
	// repetition per size, and the check passes.
	o := quick("PingPong", "Exchange")
	o.MsgsPerSample = 1
	o.Check = true
	sink := mustRun(t, 2, o)
	for _, r := range sink.rows {
		if r.Repetitions != 1 || r.Defects != 0 {
			t.Errorf("%s %d bytes: %d repetitions, %v defects; want 1, 0", r.Benchmark, r.Bytes, r.Repetitions, r.Defects)
		}
	}
}

// cancelSink cancels the run after its first row.
type cancelSink struct {
	recordingSink
	cancel context.CancelFunc
}

func (s *cancelSink) Row(b Block, r result.Row) error {
	s.cancel()
	return s.recordingSink.Row(b, r)
}

func TestRunCancelStopsBetweenSizes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &cancelSink{cancel: cancel}
	errs := make([]error, 3)
	var mu sync.Mutex
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		var s Sink
		if c.Rank() == 0 {
			s = sink
		}
		err := Run(ctx, c, quick("PingPong", "Sendrecv"), s) // rank 2 idles in PingPong
		mu.Lock()
		errs[c.Rank()] = err
		mu.Unlock()
		return nil
	})
	for r, err := range errs {
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "PingPong") {
			t.Errorf("rank %d: %v, want an error naming PingPong and wrapping context.Canceled", r, err)
		}
	}
	if got := strings.Join(sink.calls, " "); got != "begin row end" {
		t.Errorf("sink calls %q, want one row then end", got)
	}
}

func TestRunSinkErrorReachesEveryRank(t *testing.T) {
	sinkErr := errors.New("disk full")
	o := quick("Exchange")
	o.NPMin = 2 // blocks at 2 and 3 processes; the error comes in the first
	sink := &recordingSink{rowErr: sinkErr}
	errs := make([]error, 3)
	var mu sync.Mutex
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
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
	if !errors.Is(errs[0], sinkErr) {
		t.Errorf("rank 0: %v, want the sink's error", errs[0])
	}
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "Exchange") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if len(sink.rows) != 1 || len(sink.blocks) != 1 {
		t.Errorf("%d rows in %d blocks after the sink failed, want 1 row in 1 block", len(sink.rows), len(sink.blocks))
	}
}

func TestRunPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		np   int
		o    func() Options
		want string
	}{
		{1, func() Options { return quick("PingPong") }, "bench: PingPong needs 2 processes, 1 running: run with -np 2 or more"},
		{2, func() Options { o := quick("Sendrecv"); o.NPMin = 4; return o }, "bench: Sendrecv: -npmin 4: only 2 processes are running"},
		{2, func() Options { return quick("Bogus") }, `bench: unknown benchmark "Bogus"; accepted names (any case): PingPong`},
		{2, func() Options { o := quick("Sendrecv"); o.MsgLogMax = 40; return o }, "bench: -msglog 0:40: expected"},
	} {
		_, errs := runAll(t, tc.np, tc.o(), nil)
		for r, err := range errs {
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("rank %d: %v, want %q", r, err, tc.want)
			}
		}
	}
}

func TestRunSyncBlockHasNoSize(t *testing.T) {
	// A Sync-class benchmark (as Barrier will be) runs one row without a
	// size and without bandwidth.
	spec := Spec{Name: "TestSync", Class: Sync, Kernel: func(e *Env, n int) (float64, error) {
		start := e.Comm.Wtime()
		for i := 0; i < n; i++ {
			if err := e.Comm.Barrier(); err != nil {
				return 0, err
			}
		}
		return e.Comm.Wtime() - start, nil
	}}
	registryMu.Lock()
	registry["testsync"] = spec
	registryMu.Unlock()
	t.Cleanup(func() {
		registryMu.Lock()
		delete(registry, "testsync")
		registryMu.Unlock()
	})
	o := quick("TestSync")
	o.NPMin = 3
	sink := mustRun(t, 3, o)
	if len(sink.rows) != 1 {
		t.Fatalf("%d rows, want 1", len(sink.rows))
	}
	r := sink.rows[0]
	if r.Bytes != -1 || r.Repetitions != 20 || !(r.TMax > 0) || r.MBps == r.MBps {
		t.Errorf("row %+v: want bytes -1, 20 repetitions, no bandwidth", r)
	}
}

func TestRunParallelTransferOnOneProcess(t *testing.T) {
	// IMB runs Sendrecv and Exchange on one process (the chain's neighbour
	// is the rank itself), as IMB 2021.3 does Allreduce with #processes = 1.
	o := quick("Sendrecv", "Exchange")
	o.NPMin = 1
	o.Check = true
	sink := mustRun(t, 1, o)
	if len(sink.rows) != 10 {
		t.Fatalf("%d rows, want 5 sizes x 2 benchmarks", len(sink.rows))
	}
	for _, r := range sink.rows {
		if r.Processes != 1 || r.Defects != 0 || r.Repetitions != 20 {
			t.Errorf("%s %d bytes: %d processes, %v defects, %d repetitions; want 1, 0, 20", r.Benchmark, r.Bytes, r.Processes, r.Defects, r.Repetitions)
		}
	}
}

// TestRunIterPolicyMultipleNPAndAuto runs -iter 100 -msglog 0:3 on 4
// ranks: under multiple_np every benchmark's counts are multiples of its
// process count falling with the size (MultipleNPRepetitions), Barrier's
// those of 8 bytes, with no -time cap (1e-9 s here); under auto only Bcast
// does, the others probe (their base count under a generous -time).
func TestRunIterPolicyMultipleNPAndAuto(t *testing.T) {
	byBench := func(rows []result.Row) map[string]string {
		m := map[string][]result.Row{}
		for _, r := range rows {
			m[r.Benchmark] = append(m[r.Benchmark], r)
		}
		out := map[string]string{}
		for name, rs := range m {
			out[name] = repsOf(rs)
		}
		return out
	}
	for _, tc := range []struct {
		policy string
		limit  float64
		want   map[string]string
	}{
		{IterMultipleNP, 1e-9, map[string]string{
			"PingPong":  "0:50 1:50 2:50 4:50 8:32",
			"Allreduce": "0:32 4:32 8:20",
			"Bcast":     "0:32 1:32 2:32 4:32 8:20",
			"Barrier":   "-1:20", // a row without a size
		}},
		{IterAuto, 1e6, map[string]string{
			"PingPong":  "0:100 1:100 2:100 4:100 8:100",
			"Allreduce": "0:100 4:100 8:100",
			"Bcast":     "0:32 1:32 2:32 4:32 8:20",
			"Barrier":   "-1:100",
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			o := quick("PingPong", "Allreduce", "Bcast", "Barrier")
			o.NPMin = 4
			o.MsgsPerSample = 100
			o.IterPolicy = tc.policy
			o.TimeLimit = tc.limit
			o.NoTimeOut = true
			got := byBench(mustRun(t, 4, o).rows)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: repetitions %s, want %s", name, got[name], want)
				}
			}
		})
	}
}
