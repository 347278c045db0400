package app

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestOthersComputing checks the overlap of a call with the union of the
// other ranks' kernels: overlapping kernels count once, the rank's own
// kernels and other calls not at all.
func TestOthersComputing(t *testing.T) {
	spans := []Span{
		{Rank: 0, Op: "Bcast", Group: "row", Bytes: 8, StartNs: 10000000000, Wall: 4},   // [10, 14)
		{Rank: 0, Op: "gemm", Kernel: true, StartNs: 9000000000, Wall: 10},              // its own: ignored
		{Rank: 1, Op: "gemm", Kernel: true, StartNs: 9000000000, Wall: 2},               // [10, 11) inside
		{Rank: 2, Op: "gemm", Kernel: true, StartNs: 10500000000, Wall: 1},              // [10.5, 11.5): half already counted
		{Rank: 3, Op: "gemm", Kernel: true, StartNs: 12000000000, Wall: 5},              // [12, 14)
		{Rank: 3, Op: "Bcast", Group: "col", Bytes: 8, StartNs: 11000000000, Wall: 0.5}, // not a kernel; sees rank 0's and 1's
		{Rank: 1, Op: "Sync", Group: "row", StartNs: 20000000000, Wall: 1},              // nobody computes
	}
	othersComputing(spans)
	for i, want := range []float64{3.5, 0, 0, 0, 0, 0.5, 0} {
		if math.Abs(spans[i].OthersComputing-want) > 1e-12 {
			t.Errorf("span %d (%s of rank %d): others computing %g, want %g", i, spans[i].Op, spans[i].Rank, spans[i].OthersComputing, want)
		}
	}
}

// TestGatherTrace traces two Bcasts on a split communicator, a Sync and a
// kernel on 3 ranks and checks what rank 0 gathers: every span of every
// rank, in order, with its group, size and measured times; the untimed
// Split before ResetClock is dropped.
func TestGatherTrace(t *testing.T) {
	var got []Span
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		ac := NewComm(c, coll.Algorithms{})
		ac.StartTrace()
		half, err := ac.Split(c.Rank()%2, c.Rank())
		if err != nil {
			return err
		}
		half = half.Named("half")
		ac.ResetClock()
		buf := make([]byte, 1000)
		for root := range 2 {
			if err := half.Sync(); err != nil {
				return err
			}
			if err := half.Bcast(buf, root%half.Size()); err != nil {
				return err
			}
		}
		ac.Kernel("sum", func() {
			for i := range buf {
				buf[i]++
			}
		})
		spans, err := GatherTrace(ac)
		if c.Rank() == 0 {
			got = spans
		} else if spans != nil {
			t.Errorf("rank %d got %d spans", c.Rank(), len(spans))
		}
		return err
	})
	if len(got) != 3*5 {
		t.Fatalf("%d spans, want 15: %+v", len(got), got)
	}
	for i, s := range got {
		r, k := i/5, i%5
		want := []string{"Sync half 0", "Bcast half 1000", "Sync half 0", "Bcast half 1000", "sum  0"}[k]
		if s.Rank != r || s.Op+" "+s.Group+" "+strconv.FormatInt(s.Bytes, 10) != want || s.Kernel != (k == 4) {
			t.Errorf("span %d: %+v, want rank %d %q", i, s, r, want)
		}
		// (a thread exiting between the two readings can make the
		// difference negative: only NaN is wrong)
		if _, err := os.Stat("/proc/self/schedstat"); err == nil && math.IsNaN(s.RunDelay) {
			t.Errorf("span %d: run delay %g with schedstat present", i, s.RunDelay)
		}
		// sleeps: a count of blocking waits (getrusage's ru_nvcsw), whole
		if runtime.GOOS == "linux" && !(s.Sleeps >= 0 && s.Sleeps == math.Trunc(s.Sleeps)) {
			t.Errorf("span %d: sleeps %g, want a whole number >= 0", i, s.Sleeps)
		}
		if !(s.Wall >= 0) || !(s.StartNs > 1e18) || math.IsNaN(s.CPU) || s.CPU < 0 || s.OthersComputing > s.Wall+1e-9 {
			t.Errorf("span %d: times %+v", i, s)
		}
	}
	var b strings.Builder
	if err := WriteTraceSummary(&b, got); err != nil || !strings.Contains(b.String(), "      2 Bcast(half)        2 ") {
		t.Errorf("summary (%v):\n%s", err, b.String())
	}
}
