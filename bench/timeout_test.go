package bench

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

func TestBenchmarkTimeLimit(t *testing.T) {
	for _, c := range []struct {
		lo, hi int
		lens   []int64
		secs   float64
		want   float64
	}{
		{10, 22, nil, 2, 22},                     // the quiet Uniband/Biband runs: (12 - 1) x 2
		{0, 22, nil, 10, 210},                    // IMB's defaults
		{20, 20, nil, 0.5, 0.5},                  // one size: at least 1 x -time
		{10, 11, nil, 60, 60},                    // PerfKitBenchmarker's -msglog 10:11 -time 60
		{0, 22, make([]int64, 30), 1, 29},        // a -msglen list longer than the -msglog span
		{0, 22, make([]int64, 3), 0.1, 2.1},      // a short list: the -msglog span (default 0:22) counts
		{5, 5, []int64{1, 2}, 3, 3},              // neither: max(.., 1)
		{0, 3, []int64{1, 2, 3, 4, 5, 6}, 2, 10}, // 6 sizes listed: (6 - 1) x 2
	} {
		o := DefaultOptions()
		o.MsgLogMin, o.MsgLogMax, o.MsgLens, o.TimeLimit = c.lo, c.hi, c.lens, c.secs
		if got := o.BenchmarkTimeLimit(); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("-msglog %d:%d, %d sizes listed, -time %v: %v s, want %v", c.lo, c.hi, len(c.lens), c.secs, got, c.want)
		}
	}
}

// vclockStep is how far VirtualTimeTest advances its rank's virtual clock
// per iteration, in seconds.
const vclockStep = 1e-3

// vclock is a communicator whose Wtime is a virtual clock of its own
// (one per rank) that only the VirtualTimeTest kernel moves, by
// vclockStep per iteration: how long a benchmark has run is then a count
// of its iterations, whatever the machine's load.
type vclock struct {
	comm.Comm
	steps *atomic.Int64
}

func (c vclock) Wtime() float64 { return float64(c.steps.Load()) * vclockStep }

func (c vclock) Split(color, key int) (comm.Comm, error) {
	s, err := c.Comm.Split(color, key)
	if s == nil || err != nil {
		return s, err
	}
	return vclock{s, c.steps}, nil
}

// virtualKernel moves its rank's vclock by n steps.
func virtualKernel(e *Env, n int) (float64, error) {
	c, ok := e.Comm.(vclock)
	if !ok {
		return 0, errors.New("virtual-time benchmarks run on a vclock only")
	}
	start := c.Wtime()
	c.steps.Add(int64(n))
	return c.Wtime() - start, nil
}

func init() {
	Register(Spec{Name: "VirtualTimeTest", Class: ParallelTransfer, ScaleTime: 1, ScaleBW: 1, Kernel: virtualKernel})
	Register(Spec{Name: "VirtualSyncTest", Class: Sync, ScaleTime: 1, Kernel: virtualKernel,
		Areas: func(int64, int) (int64, int64) { return 0, 0 }})
}

// onVclock gives each rank a vclock of its own (runAll's wrap).
func onVclock(c comm.Comm) comm.Comm { return vclock{c, new(atomic.Int64)} }

// blockSummary lists a recorded run's blocks: benchmark, processes, the
// sizes of its rows and its time-out.
func blockSummary(s *recordingSink) string {
	var out []string
	k := 0
	for _, b := range s.ends {
		var sizes []string
		for ; k < len(s.rows) && s.rows[k].Benchmark == b.Benchmark && s.rows[k].Processes == b.Processes; k++ {
			sizes = append(sizes, fmt.Sprint(s.rows[k].Bytes))
		}
		line := fmt.Sprintf("%s np %d [%s]", b.Benchmark, b.Processes, strings.Join(sizes, " "))
		if to := b.TimeOut; to != nil {
			line += fmt.Sprintf(" time-out at %d after %.3f s of %.3f s", to.Bytes, to.Elapsed, to.Limit)
		}
		out = append(out, line)
	}
	return strings.Join(out, "; ")
}

func TestRunTimeOut(t *testing.T) {
	// Each size of VirtualTimeTest runs a probe of 1 iteration of 1 ms, a
	// second probe of min(20, 1 s / 1 ms) = 20, which caps nothing
	// (1 + 0.025/0.001 > 20), 2 warm-up and 20 timed iterations, so size
	// k's probes end at 43k + 21 ms. -msglog 0:8 -time 0.025 limit the
	// benchmark to (8 - 1) x 0.025 = 175 ms: the 5th size (8 bytes) ends
	// its probes at 193 ms and times out; the 4 rows before it stay, the
	// 3-process block is not run, and Sendrecv after it (its kernel does
	// not move the clock) measures all 9 sizes at 2 and 3 processes.
	for _, policy := range []string{IterDynamic, IterOff} {
		t.Run(policy, func(t *testing.T) {
			o := quick("VirtualTimeTest", "Sendrecv")
			o.MsgLogMin, o.MsgLogMax = 0, 8
			o.TimeLimit = 0.025
			o.IterPolicy = policy
			want := "VirtualTimeTest np 2 [0 1 2 4] time-out at 8 after 0.193 s of 0.175 s"
			if policy == IterOff {
				// an untimed run of 20 where the probes were: size k's ends
				// at 42k + 20 ms; 188 > 175 at k = 4
				want = "VirtualTimeTest np 2 [0 1 2 4] time-out at 8 after 0.188 s of 0.175 s"
			}
			want += "; Sendrecv np 2 [0 1 2 4 8 16 32 64 128 256]; Sendrecv np 3 [0 1 2 4 8 16 32 64 128 256]"
			sink, errs := runAll(t, 3, o, onVclock)
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			if got := blockSummary(sink); got != want {
				t.Errorf("blocks:\n got  %s\n want %s", got, want)
			}
			if got := strings.Join(sink.calls[:6], " "); got != "begin row row row row end" {
				t.Errorf("sink calls %q, want 4 rows between begin and end", got)
			}
		})
	}
}

func TestRunTimeOutAtFirstSizeAndSync(t *testing.T) {
	// A limit below the first size's probes (IMB: -time 0.004 -msglog 0:6
	// on a busy host) times out at the first size without a row: after the
	// probe of 1 ms a second probe of min(20, 1 s / 1 ms) = 20 iterations
	// runs, and the check at 21 ms finds the limit of (6 - 1) x 0.0001 s
	// passed. A table without sizes (class Sync, as
	// Barrier) reports IMB's largest size, 2^6, as IMB-MPI1 2021.11 prints
	// it. NoTimeOut measures every size.
	o := quick("VirtualTimeTest", "VirtualSyncTest")
	o.MsgLogMin, o.MsgLogMax = 0, 6
	o.TimeLimit = 1e-4
	sink, errs := runAll(t, 2, o, onVclock)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	want := "VirtualTimeTest np 2 [] time-out at 0 after 0.021 s of 0.001 s; VirtualSyncTest np 2 [] time-out at 64 after 0.021 s of 0.001 s"
	if got := blockSummary(sink); got != want {
		t.Errorf("blocks:\n got  %s\n want %s", got, want)
	}

	o.NoTimeOut = true
	sink, errs = runAll(t, 2, o, onVclock)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	want = "VirtualTimeTest np 2 [0 1 2 4 8 16 32 64]; VirtualSyncTest np 2 [-1]"
	if got := blockSummary(sink); got != want {
		t.Errorf("NoTimeOut: blocks:\n got  %s\n want %s", got, want)
	}
}
