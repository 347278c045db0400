package analysis

import (
	"math"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestCountTimesSeedBarrier: seed 003's Barrier times 151, 177 and 670
// usec at 2, 4 and 8 processes give one row per count with the growth
// between counts; -multi rows stay apart and give their slowest group.
func TestCountTimesSeedBarrier(t *testing.T) {
	var rows []result.Row
	for _, c := range []struct {
		n int
		t float64
	}{{8, 670}, {2, 151}, {4, 177}} {
		r := result.NewRow("Barrier", c.n, -1)
		r.TMin, r.TMax, r.TAvg = c.t*0.9, c.t, c.t*0.95
		rows = append(rows, r)
	}
	for g, tm := range []float64{50, 60} {
		r := result.NewRow("Barrier", 2, -1)
		r.Multi, r.Groups, r.Group, r.TMax = result.MultiEach, 2, g, tm
		rows = append(rows, r)
	}
	sized := result.NewRow("PingPong", 2, 8)
	sized.TMax = 3
	rows = append(rows, sized)
	got := CountTimes(rows)
	if len(got) != 4 {
		t.Fatalf("%d rows, want 3 counts and one -multi row: %+v", len(got), got)
	}
	want := []struct {
		n      int
		t, gro float64
	}{{2, 151, math.NaN()}, {4, 177, 177.0 / 151}, {8, 670, 670.0 / 177}}
	for i, w := range want {
		g := got[i]
		if g.Processes != w.n || g.Usec != w.t || g.Multi || !(g.Growth == w.gro || math.IsNaN(g.Growth) && math.IsNaN(w.gro)) {
			t.Errorf("row %d: %+v, want %d ranks %g usec growth %g", i, g, w.n, w.t, w.gro)
		}
	}
	if m := got[3]; !m.Multi || m.Processes != 4 || m.Usec != 60 || !math.IsNaN(m.Growth) {
		t.Errorf("-multi row %+v, want 4 ranks, the slowest group's 60 usec", m)
	}
}
