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
	br.report(1000, 50, recs)
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
