package bench

import (
	"math"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// recs are synthetic per-rank times (usec) and defect counts of 4 active
// ranks in 2 groups of 2.
var recs = []record{{value: 2}, {value: 4}, {value: 1}, {value: 9}}

func reportRows(t *testing.T, multi int, mbyte float64) []result.Row {
	t.Helper()
	spec, _ := Lookup("Sendrecv")
	sink := &recordingSink{}
	br := &blockRun{sink: sink, plan: blockPlan{spec: spec, block: Block{
		Benchmark: "Sendrecv", Class: ParallelTransfer, Processes: 2, Multi: multi,
		Groups: [][]int{{0, 1}, {2, 3}}, MByte: mbyte, ScaleBW: 2,
	}}}
	br.report(1000, 50, recs, nil)
	return sink.rows
}

func TestReportMultiWorst(t *testing.T) {
	rows := reportRows(t, result.MultiWorst, result.MB)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	if r.TMin != 1 || r.TMax != 9 || r.TAvg != 4 || r.Groups != 2 || r.Group != -1 || r.Repetitions != 50 {
		t.Errorf("row %+v: want t_min 1, t_max 9, t_avg 4 over all groups", r)
	}
	if want := 2 * 1000 / 9.0; math.Abs(r.MBps-want) > 1e-12 {
		t.Errorf("Mbytes/sec %v, want 2*1000/9", r.MBps)
	}
}

func TestReportMultiEach(t *testing.T) {
	rows := reportRows(t, result.MultiEach, result.MiB)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for g, want := range [][3]float64{{2, 4, 3}, {1, 9, 5}} {
		r := rows[g]
		if r.Group != g || r.TMin != want[0] || r.TMax != want[1] || r.TAvg != want[2] {
			t.Errorf("group %d row %+v: want t_min/t_max/t_avg %v", g, r, want)
		}
		if mb := 2 * 1000 / want[1] * 1e6 / result.MiB; math.Abs(r.MBps-mb) > 1e-9 {
			t.Errorf("group %d: %v MiB/sec, want %v", g, r.MBps, mb)
		}
	}
}

// TestReportSpreadRank checks whose repetition times a row's spread holds:
// the first rank of the row's span for point-to-point benchmarks, the
// slowest for collectives, named by world rank (groups under -map are not
// consecutive).
func TestReportSpreadRank(t *testing.T) {
	samples := [][]float64{{2, 2}, {4, 4}, {1, 1}, {9, 8}}
	for _, c := range []struct {
		class *Class
		want  []int // spread rank per row (-multi 1: one row per group)
	}{{ParallelTransfer, []int{0, 1}}, {Collective, []int{2, 3}}} {
		sink := &recordingSink{}
		br := &blockRun{sink: sink, plan: blockPlan{block: Block{
			Benchmark: "X", Class: c.class, Processes: 2, Multi: result.MultiEach,
			Groups: [][]int{{0, 2}, {1, 3}}, MByte: result.MB,
		}}}
		br.report(1000, 2, recs, samples)
		for i, row := range sink.rows {
			s := row.Spread
			if s == nil || s.Rank != c.want[i] || s.N != 2 {
				t.Fatalf("%v row %d: spread %+v, want world rank %d's", c.class, i, s, c.want[i])
			}
		}
		if c.class == Collective && sink.rows[1].Spread.Max != 9 {
			t.Errorf("collective group 1: spread max %v, want 9 (the slowest rank's times)", sink.rows[1].Spread.Max)
		}
	}
}
