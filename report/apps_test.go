package report

import (
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

func appRow(np int, tSec, commSec float64) result.Row {
	r := result.NewRow("matmul", np, 1000)
	r.Repetitions, r.TMax = 1, tSec*1e6
	r.Extra = map[string]float64{"comm_max_s": commSec, "compute_max_s": tSec - commSec}
	return r
}

// TestAnalyzeAppRows checks that application rows get the scaling table
// (C1 = 4 s from N = 1; N = 2 at 2.5 s: C1/N 2, estimate 0.5, speedup 1.6;
// N = 4 at 3 s: slower, so adding processes stops paying at 4) and take no
// part in the benchmark analyses (no sweep, no anomaly).
func TestAnalyzeAppRows(t *testing.T) {
	run := result.Run{Meta: result.Meta{Tool: "mpbench", MByte: result.MB},
		Rows: []result.Row{appRow(1, 4, 0), appRow(2, 2.5, 0.4), appRow(4, 3, 1.5), appRow(2, 2.7, 0.6), appRow(2, 2.3, 0.5)}}
	rep := Analyze("mm.jsonl", 1, 1, run, Options{})
	if len(rep.Series) != 0 || len(rep.Flags) != 0 || len(rep.Apps) != 1 {
		t.Fatalf("series %d, flags %v, apps %d", len(rep.Series), rep.Flags, len(rep.Apps))
	}
	tb := rep.Apps[0].Table
	if tb == nil || tb.C1S != 4 || len(tb.Rows) != 3 || tb.StopsAt != 4 || tb.Best != 2 {
		t.Fatalf("table %+v (%v)", tb, rep.Apps[0].Err)
	}
	r2 := tb.Rows[1]
	if math.Abs(r2.TotalS-2.5) > 1e-12 || math.Abs(r2.CommS-0.5) > 1e-12 || math.Abs(r2.Speedup-1.6) > 1e-12 || r2.MeasuredCommS != 0.5 || r2.Repeats != 3 {
		t.Errorf("N = 2 row %+v", r2)
	}
	var found bool
	for _, s := range rep.Sections(0) {
		if strings.HasPrefix(s.Title, "Application matmul (size 1000)") && len(s.Tables()) == 1 && len(s.Tables()[0].Rows) == 3 {
			found = true
		}
	}
	if !found {
		t.Error("no application section with a 3-row table")
	}
	if cs := appCurves(rep.Apps[0]); len(cs) != 3 || len(cs[2].xy) != 2 {
		t.Errorf("plot curves %d (measured communication above 1 process: %d points)", len(cs), len(cs[2].xy))
	}
	// Without a one-process run there is no C1: the section says so.
	rep = Analyze("mm.jsonl", 1, 1, result.Run{Rows: []result.Row{appRow(2, 2.5, 0.4), appRow(4, 3, 1.5)}}, Options{})
	if len(rep.Apps) != 1 || rep.Apps[0].Err == nil || !strings.Contains(rep.Apps[0].section().Parts[0].Text, "no one-process run") {
		t.Errorf("without N = 1: %+v", rep.Apps)
	}
}
