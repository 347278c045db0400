package app

import (
	"math"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestGatherCallMax checks Report.Gather's per-call maxima on 3 ranks
// whose calls took rank-dependent times: call k's slowest rank changes
// from call to call, so the sum of the maxima (3 + 5 + 2 = 10 s) exceeds
// the largest sum over one rank (rank 0: 1 + 5 + 2 = 8 s), and the row
// keeps it as comm_calls_max_s; the Align barriers' times, set to the
// same, give align_calls_max_s. Ranks with different call counts give
// NaN, left out of the row.
func TestGatherCallMax(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls func(rank int) []float64
		want  float64
	}{
		{"same calls", func(r int) []float64 { return []float64{1 + float64(r), 5 - float64(r), 2} }, 10},
		{"no calls", func(int) []float64 { return nil }, 0},
		{"different counts", func(r int) []float64 { return make([]float64, 2+r%2) }, math.NaN()},
	} {
		var rep *Report
		commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
			ac := NewComm(c, coll.Algorithms{})
			ac.clock.perCall = tc.calls(c.Rank())
			ac.clock.align = tc.calls(c.Rank())
			var sum float64
			for _, s := range ac.clock.perCall {
				sum += s
			}
			r := &Report{App: "test", NP: 3}
			err := r.Gather(ac, RankTimes{Total: 20, Comm: sum})
			if c.Rank() == 0 {
				rep = r
			}
			return err
		})
		got := rep.CommCallMax
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: CommCallMax %g, want %g", tc.name, got, tc.want)
		}
		v, ok := rep.Row().Extra["comm_calls_max_s"]
		if ok == math.IsNaN(tc.want) || ok && v != tc.want {
			t.Errorf("%s: row's comm_calls_max_s %g (present %v), want %g", tc.name, v, ok, tc.want)
		}
		// The Align barriers' maxima sum the same way; a run without
		// any has none (NaN, not in the row).
		wantAlign := tc.want
		if tc.name == "no calls" {
			wantAlign = math.NaN()
		}
		a, ok := rep.Row().Extra["align_calls_max_s"]
		if got := rep.AlignCallMax; !(got == wantAlign || math.IsNaN(got) && math.IsNaN(wantAlign)) || ok == math.IsNaN(wantAlign) || ok && a != wantAlign {
			t.Errorf("%s: AlignCallMax %g, row's align_calls_max_s %g (present %v), want %g", tc.name, got, a, ok, wantAlign)
		}
		if tc.name == "same calls" && rep.Max().Comm != 8 {
			t.Errorf("largest sum over one rank %g, want 8", rep.Max().Comm)
		}
	}
}

// TestCallSecondsCounted checks that every timed call adds its own time
// to CallSeconds (summing to CommSeconds) and ResetClock clears them.
func TestCallSecondsCounted(t *testing.T) {
	commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
		ac := NewComm(c, coll.Algorithms{})
		if err := ac.Barrier(); err != nil {
			return err
		}
		ac.ResetClock()
		buf := make([]byte, 64)
		for range 3 {
			if err := ac.Bcast(buf, 0); err != nil {
				return err
			}
		}
		if err := ac.Sync(); err != nil { // waiting: not a call
			return err
		}
		calls := ac.CallSeconds()
		var sum float64
		for _, s := range calls {
			sum += s
		}
		if len(calls) != 3 || int64(len(calls)) != ac.CommCalls() || math.Abs(sum-ac.CommSeconds()) > 1e-12 {
			t.Errorf("rank %d: calls %v (sum %g) against %d calls, %g s", c.Rank(), calls, sum, ac.CommCalls(), ac.CommSeconds())
		}
		return nil
	})
}
