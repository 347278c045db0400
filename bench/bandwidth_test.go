package bench

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/result"
)

func TestBandwidthRowsAndRates(t *testing.T) {
	for _, tc := range []struct {
		np, npmin int
		procs     string // block process counts
	}{
		{2, 2, "[2]"},
		{3, 2, "[2]"},     // np rounded down to even, one rank idle
		{5, 3, "[4]"},     // npmin rounded up to even
		{6, 1, "[2 4 6]"}, // npmin 1 runs from 2
	} {
		t.Run(fmt.Sprintf("np%d/npmin%d", tc.np, tc.npmin), func(t *testing.T) {
			o := quick("Uniband", "Biband")
			o.NPMin = tc.npmin
			o.Params = map[string]int{WindowSize.Name: 4}
			o.Check = true
			sink := mustRun(t, tc.np, o)
			var procs []int
			for _, b := range sink.blocks {
				if b.Benchmark == "Uniband" {
					procs = append(procs, b.Processes)
				}
				if b.Params[WindowSize.Name] != 4 || b.Class != ParallelTransferMsgRate || b.Idle != tc.np-b.Processes {
					t.Errorf("%s block on %d: window %d class %v idle %d", b.Benchmark, b.Processes, b.Params[WindowSize.Name], b.Class, b.Idle)
				}
			}
			if got := fmt.Sprint(procs); got != tc.procs {
				t.Fatalf("Uniband process counts %s, want %s", got, tc.procs)
			}
			for _, r := range sink.rows {
				scale := map[string]float64{"Uniband": 1, "Biband": 2}[r.Benchmark]
				wantRate := scale * 1e6 * 4 * float64(r.Processes/2) / r.TMax
				if !(r.TMax > 0) || math.Abs(r.MsgRate-wantRate) > 1e-9*wantRate {
					t.Errorf("%s %d bytes on %d: Msg/sec %v, want %v (t_max %v)", r.Benchmark, r.Bytes, r.Processes, r.MsgRate, wantRate, r.TMax)
				}
				if want := wantRate * float64(r.Bytes) / 1e6; math.Abs(r.MBps-want) > 1e-9*math.Max(1, want) {
					t.Errorf("%s %d bytes: %v Mbytes/sec, want %v", r.Benchmark, r.Bytes, r.MBps, want)
				}
				if r.Defects != 0 {
					t.Errorf("%s %d bytes on %d: %v defects", r.Benchmark, r.Bytes, r.Processes, r.Defects)
				}
			}
			if len(sink.rows) != 2*5*len(procs) {
				t.Errorf("%d rows, want %d", len(sink.rows), 2*5*len(procs))
			}
		})
	}
}

func TestBandwidthMiBAndMulti(t *testing.T) {
	o := quick("Biband")
	o.MByte = result.MiB
	o.Multi = result.MultiEach
	o.OffCache = 4096
	o.Check = true
	o.NoTimeOut = true // the blocks' groups are checked, not IMB's time-out, which a loaded host reaches before the group of 4
	sink := mustRun(t, 4, o)
	if len(sink.blocks) != 2 || len(sink.blocks[0].Groups) != 2 || len(sink.blocks[1].Groups) != 1 {
		t.Fatalf("blocks %+v: want 2 groups of 2, then 1 group of 4", sink.blocks)
	}
	for _, r := range sink.rows {
		want := 2 * 1e6 * 256 * float64(r.Processes/2) / r.TMax * float64(r.Bytes) / result.MiB
		if math.Abs(r.MBps-want) > 1e-9*math.Max(1, want) || r.Defects != 0 {
			t.Errorf("group %d %d bytes: %v MiB/sec, want %v; defects %v rate %v tmax %v", r.Group, r.Bytes, r.MBps, want, r.Defects, r.MsgRate, r.TMax)
		}
	}
}

// counting counts a rank's non-blocking calls and records receive sources.
type counting struct {
	comm.Comm
	mu             sync.Mutex
	isend, irecv   int
	sources        map[int]int // receive source -> count
	ackRecv, ackTo int
}

func (c *counting) Isend(b []byte, dst, tag int) (comm.Request, error) {
	c.mu.Lock()
	c.isend++
	c.mu.Unlock()
	return c.Comm.Isend(b, dst, tag)
}

func (c *counting) Irecv(b []byte, src, tag int) (comm.Request, error) {
	c.mu.Lock()
	c.irecv++
	c.mu.Unlock()
	return c.Comm.Irecv(b, src, tag)
}

func (c *counting) Recv(b []byte, src, tag int) (comm.Status, error) {
	c.mu.Lock()
	c.sources[src]++
	if len(b) == 1 {
		c.ackRecv++
	}
	c.mu.Unlock()
	return c.Comm.Recv(b, src, tag)
}

func (c *counting) Send(b []byte, dst, tag int) error {
	if len(b) == 1 {
		c.ackTo++
	}
	return c.Comm.Send(b, dst, tag)
}

// kernelCalls runs kernel for n iterations on np ranks with 64-byte
// messages, records each rank's calls, and also the per-repetition times.
func kernelCalls(t *testing.T, np, n, window int, kernel Kernel) []*counting {
	t.Helper()
	out := make([]*counting, np)
	commtest.Run(t, np, comm.Config{}, func(c comm.Comm) error {
		cc := &counting{Comm: c, sources: map[int]int{}}
		out[c.Rank()] = cc
		a := func() *area { return &area{buf: make([]byte, 64), size: 64, stride: 64, slots: 1} }
		e := &Env{Comm: cc, Bytes: 64, Params: map[string]int{WindowSize.Name: window}, bufs: &buffers{send: a(), recv: a()}, reps: make([]float64, n)}
		secs, err := kernel(e, n)
		if err != nil {
			return err
		}
		sum := 0.0
		for i, r := range e.reps {
			if !(r > 0) {
				return fmt.Errorf("rank %d: repetition %d took %v s", c.Rank(), i, r)
			}
			sum += r
		}
		if sum > secs*(1+1e-9) {
			return fmt.Errorf("rank %d: repetitions sum to %v s, above the loop's %v s", c.Rank(), sum, secs)
		}
		return nil
	})
	return out
}

func TestWindowKernelCalls(t *testing.T) {
	const n, w = 5, 3
	uni := kernelCalls(t, 4, n, w, Spec{}.kernelOf("Uniband"))
	for r, c := range uni {
		sender := r < 2
		wantSend, wantRecv := 0, n*w
		if sender {
			wantSend, wantRecv = n*w, 0
		}
		if c.isend != wantSend || c.irecv != wantRecv {
			t.Errorf("Uniband rank %d: %d Isend %d Irecv, want %d and %d", r, c.isend, c.irecv, wantSend, wantRecv)
		}
		if sender && (c.ackRecv != n || c.sources[r+2] != n) || !sender && c.ackTo != n {
			t.Errorf("Uniband rank %d: %d acks received (from %v), %d sent; want %d", r, c.ackRecv, c.sources, c.ackTo, n)
		}
	}
	bi := kernelCalls(t, 2, n, w, Spec{}.kernelOf("Biband"))
	for r, c := range bi {
		if c.isend != n*w || c.irecv != n*w {
			t.Errorf("Biband rank %d: %d Isend %d Irecv, want %d each", r, c.isend, c.irecv, n*w)
		}
	}
}

func TestAnySourceVariants(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  func(rank int) int
	}{
		{"PingPong", func(r int) int { return 1 - r }},
		{"PingPongSpecificSource", func(r int) int { return 1 - r }},
		{"PingPongAnySource", func(int) int { return comm.AnySource }},
		{"PingPing", func(r int) int { return 1 - r }},
		{"PingPingSpecificSource", func(r int) int { return 1 - r }},
		{"PingPingAnySource", func(int) int { return comm.AnySource }},
	} {
		const n = 7
		for r, c := range kernelCalls(t, 2, n, 1, Spec{}.kernelOf(tc.name)) {
			if c.sources[tc.src(r)] != n || len(c.sources) != 1 {
				t.Errorf("%s rank %d: receives by source %v, want %d from %d", tc.name, r, c.sources, n, tc.src(r))
			}
		}
		spec, _ := Lookup(tc.name)
		if spec.Default != (tc.name == "PingPong" || tc.name == "PingPing") {
			t.Errorf("%s: Default %v", tc.name, spec.Default)
		}
	}
	o := quick("PingPongAnySource", "PingPingAnySource", "PingPongSpecificSource")
	o.Check = true
	for _, r := range mustRun(t, 3, o).rows {
		if r.Defects != 0 || !(r.TMax > 0) {
			t.Errorf("%s %d bytes: defects %v t %v", r.Benchmark, r.Bytes, r.Defects, r.TMax)
		}
	}
}

// kernelOf returns the registered kernel of name (test helper).
func (Spec) kernelOf(name string) Kernel {
	s, ok := Lookup(name)
	if !ok {
		panic(name)
	}
	return s.Kernel
}

func TestPerRepetitionSpread(t *testing.T) {
	o := quick("PingPong", "PingPing", "Sendrecv", "Exchange", "Uniband", "Bcast", "Allreduce", "Barrier")
	o.PerRepetition = true
	o.IterPolicy = IterOff // 20 repetitions at every size
	sink := mustRun(t, 3, o)
	for _, r := range sink.rows {
		s := r.Spread
		if s == nil || s.N != int(r.Repetitions) || len(s.Samples) != s.N {
			t.Fatalf("%s %d bytes: spread %+v for %d repetitions", r.Benchmark, r.Bytes, s, r.Repetitions)
		}
		if !(s.Min > 0 && s.Min <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.Max) {
			t.Errorf("%s %d bytes: order statistics %+v", r.Benchmark, r.Bytes, *s)
		}
		mean := 0.0
		for _, x := range s.Samples {
			mean += x / float64(s.N)
		}
		// The laps add up to the rank's loop time, whose mean per
		// repetition lies within the row's t_min..t_max.
		lo, hi := r.TMin, r.TMax
		if math.IsNaN(lo) {
			lo = hi
		}
		if !(mean >= 0.97*lo && mean <= 1.03*hi) {
			t.Errorf("%s %d bytes: mean repetition time %v usec outside t_min %v .. t_max %v", r.Benchmark, r.Bytes, mean, r.TMin, r.TMax)
		}
	}
}
