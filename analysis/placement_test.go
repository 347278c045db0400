package analysis

import (
	"slices"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestPlacementOf: the ranks of a series and their hosts, from the run's
// rank-to-host map: 2 hosts of 2 ranks filled by slot (PingPong within a
// host, Allreduce on 4 ranks between hosts), -multi 1 PingPong pairs of
// ranks 2g, 2g+1 mapped by node (every pair between hosts), -multi 0 over
// both groups, and -map 2x2 (IMB's order pairs ranks 0 and 2).
func TestPlacementOf(t *testing.T) {
	bySlot := result.Meta{Info: map[string]string{"rank_hosts": "n0,n0,n1,n1"}}
	byNode := result.Meta{Info: map[string]string{"rank_hosts": "n0,n1,n0,n1"}}
	mapped := result.Meta{Info: map[string]string{"rank_hosts": "n0,n0,n1,n1"}, Options: map[string]string{"map": "2x2"}}
	pp := SeriesKey{Benchmark: "PingPong", Processes: 2, Multi: result.MultiNone, Groups: 1, Group: -1}
	for _, tc := range []struct {
		name   string
		k      SeriesKey
		m      result.Meta
		groups [][]int
		cross  int
		text   string
	}{
		{"pingpong by slot", pp, bySlot, [][]int{{0, 1}}, 0, "within one host: ranks on n0: 0-1"},
		{"allreduce np 4", SeriesKey{Benchmark: "Allreduce", Processes: 4, Multi: result.MultiNone, Groups: 1, Group: -1}, bySlot,
			[][]int{{0, 1, 2, 3}}, 1, "between hosts: ranks on n0: 0-1; n1: 2-3"},
		{"multi 1 group 1 by node", SeriesKey{Benchmark: "PingPong", Processes: 2, Multi: result.MultiEach, Groups: 2, Group: 1}, byNode,
			[][]int{{2, 3}}, 1, "between hosts: ranks on n0: 2; n1: 3"},
		{"multi 0 by slot", SeriesKey{Benchmark: "PingPong", Processes: 2, Multi: result.MultiWorst, Groups: 2, Group: -1}, bySlot,
			[][]int{{0, 1}, {2, 3}}, 0, "0 of 2 groups between hosts, 2 within one host"},
		{"multi 0 by node", SeriesKey{Benchmark: "PingPong", Processes: 2, Multi: result.MultiWorst, Groups: 2, Group: -1}, byNode,
			[][]int{{0, 1}, {2, 3}}, 2, "2 of 2 groups between hosts, 0 within one host (group 0: n0: 0; n1: 1)"},
		{"-map 2x2", pp, mapped, [][]int{{0, 2}}, 1, "between hosts: ranks on n0: 0; n1: 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := PlacementOf(tc.k, tc.m)
			if !ok {
				t.Fatal("no placement")
			}
			if !slices.EqualFunc(p.Groups, tc.groups, slices.Equal) || p.Crossing() != tc.cross || p.String() != tc.text {
				t.Errorf("groups %v crossing %d %q, want %v %d %q", p.Groups, p.Crossing(), p.String(), tc.groups, tc.cross, tc.text)
			}
		})
	}
	if _, ok := PlacementOf(pp, result.Meta{}); ok {
		t.Error("placement without a rank-to-host map")
	}
	if _, ok := PlacementOf(SeriesKey{Benchmark: "Allreduce", Processes: 8, Multi: result.MultiNone, Groups: 1, Group: -1}, bySlot); ok {
		t.Error("placement of 8 ranks from a map of 4")
	}
}
