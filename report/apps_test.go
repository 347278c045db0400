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
	if len(rep.Apps) != 1 || rep.Apps[0].Err == nil || !strings.Contains(rep.Apps[0].section().Parts[0].Text, "no run on 1 process to take C1 from; give the file of one with this one") ||
		strings.Contains(rep.Apps[0].section().Parts[0].Text, "--c1") {
		t.Errorf("without N = 1: %+v", rep.Apps)
	}
}

// TestAnalyzeMeasuredCommByCall: the measured communication of an
// application row is its comm_calls_max_s (the slowest rank's time in each
// call, summed), as mpbench scaling prints it, not comm_max_s.
func TestAnalyzeMeasuredCommByCall(t *testing.T) {
	rows := []result.Row{appRow(1, 4, 0), appRow(4, 3, 0.0144)}
	rows[1].Extra["comm_calls_max_s"] = 0.01574
	rep := Analyze("mm.jsonl", 1, 1, result.Run{Rows: rows}, Options{})
	if len(rep.Apps) != 1 || rep.Apps[0].Table == nil || rep.Apps[0].Table.Rows[1].MeasuredCommS != 0.01574 {
		t.Fatalf("apps %+v", rep.Apps)
	}
}

// TestAnalyzeScalingOfCommand: a scaling file of an external command
// (rows without the applications' columns, named by the command) is
// analysed as an application's sweep: one scaling table, no benchmark
// analysis; in a file whose rows were named by the launcher (mpirun) and
// whose metadata lacks scaling_command, the command is taken from the
// command line and the rows are named by the program it ran (lmp).
func TestAnalyzeScalingOfCommand(t *testing.T) {
	row := func(name string, np int, tSec float64) result.Row {
		r := result.NewRow(name, np, -1)
		r.Repetitions, r.TMax = 1, tSec*1e6
		return r
	}
	for _, tc := range []struct {
		meta result.Meta
		rows []result.Row
		name string
	}{
		{result.Meta{Tool: "mpbench", Command: "mpbench scaling --np 1,2,4 --json lj.jsonl -- mpirun -np {np} lmp -in in.lj"},
			[]result.Row{row("mpirun", 1, 8), row("mpirun", 2, 4.5), row("mpirun", 4, 3)}, "lmp"},
		{result.Meta{Tool: "mpbench", Command: "mpbench scaling --np 1,2,4 -- sleep 0.{np}", Info: map[string]string{"scaling_command": "sleep 0.{np}"}},
			[]result.Row{row("sleep", 1, 0.1), row("sleep", 2, 0.2), row("sleep", 4, 0.4)}, "sleep"},
	} {
		rep := Analyze("sc.jsonl", 1, 1, result.Run{Meta: tc.meta, Rows: tc.rows}, Options{})
		if len(rep.Apps) != 1 || rep.Apps[0].Name != tc.name || rep.Apps[0].Table == nil || len(rep.Apps[0].Table.Rows) != 3 || len(rep.Sizeless) != 0 || len(rep.Series) != 0 {
			t.Errorf("%s: apps %+v, sizeless %v", tc.name, rep.Apps, rep.Sizeless)
			continue
		}
		if r := rep.Apps[0].Table.Rows[1]; r.Nodes != 2 || !math.IsNaN(r.MeasuredCommS) || r.TotalS != tc.rows[1].TMax/1e6 {
			t.Errorf("%s: N = 2 row %+v", tc.name, r)
		}
		if cs := appCurves(rep.Apps[0]); len(cs) != 2 {
			t.Errorf("%s: plot curves %d, want T(N) and C1/N", tc.name, len(cs))
		}
	}
}
