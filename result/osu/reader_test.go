package osu

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
)

// cell is one value expected in the row of a size (-1: no size column).
type cell struct {
	bytes int64
	field string // "reps", "tmin", "tmax", "tavg", "mbps", "msg", or an Extra key
	want  float64
}

type wantProblem struct {
	line int
	text string
}

// osuCase is what one real OSU output file must read as. Every value was
// taken from the file by eye.
type osuCase struct {
	file     string
	version  string
	bench    string
	procs    int
	rows     []int // rows per run
	aborted  []bool
	cells    []cell // in run 0
	problems []wantProblem
	info     map[string]string
	options  map[string]string
}

var osuCases = []osuCase{
	{file: "003-osu532-bibw.txt", version: "5.3.2", bench: "osu_bibw", procs: 2, rows: []int{23}, aborted: []bool{false},
		cells: []cell{{1, "mbps", 0.41}, {4194304, "mbps", 24320.34}, {1, "tavg", math.NaN()}}},
	{file: "004-osu532-latency.txt", version: "5.3.2", bench: "osu_latency", procs: 2, rows: []int{24}, aborted: []bool{false},
		cells: []cell{{0, "tavg", 1.07}, {4194304, "tavg", 355.08}, {8192, "tavg", 4.66}}},
	{file: "007-osu58-bw.txt", version: "5.8", bench: "osu_bw", procs: 2, rows: []int{23}, aborted: []bool{false},
		cells: []cell{{4194304, "mbps", 3396.41}, {1024, "mbps", 1797.95}}},
	{file: "016-osu571-allreduce-full-impi-debug.txt", version: "5.7.1", bench: "osu_allreduce", procs: 8, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{4, "tavg", 46.87}, {4, "tmin", 20.65}, {8, "tmax", 130.89}, {8, "reps", 1000}, {4, "time", 46.87}},
		info:  map[string]string{"processes_inferred": "8, the ranks of the launcher's pinning report ending at line 10"}, problems: []wantProblem{{1, `skipped 14 line(s) that are not part of any run (first at 016-osu571-allreduce-full-impi-debug.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "017-osu571-ialltoall-nbc.txt", version: "5.7.1", bench: "osu_ialltoall", procs: 8, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{4, "tavg", 390.22}, {4, "Coll. Init(us)", 7.08}, {4, "Overlap(%)", 52.52}, {8, "Pure Comm.(us)", 54.39}, {8, "Max Comm.(us)", 82.86}}, problems: []wantProblem{{1, `skipped 14 line(s) that are not part of any run (first at 017-osu571-ialltoall-nbc.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "018-osu571-mbw-mr.txt", version: "5.7.1", bench: "osu_mbw_mr", procs: 8, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{4, "mbps", 126.43}, {8, "msg", 31580641.88}},
		info:  map[string]string{"pairs": "4", "window_size": "64"}, problems: []wantProblem{{1, `skipped 14 line(s) that are not part of any run (first at 018-osu571-mbw-mr.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "020-osu571-latency-mt.txt", version: "5.7.1", bench: "osu_latency_mt", procs: 2, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{8, "tavg", 45.16}}, info: map[string]string{"sender_threads": "1", "receiver_threads": "2"}, problems: []wantProblem{{1, `skipped 10 line(s) that are not part of any run (first at 020-osu571-latency-mt.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "021-osu571-put-bibw.txt", version: "5.7.1", bench: "osu_put_bibw", procs: 2, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{4, "mbps", 1.78}}, info: map[string]string{"window_creation": "MPI_Win_allocate", "synchronization": "MPI_Win_post/start/complete/wait"}, problems: []wantProblem{{1, `skipped 10 line(s) that are not part of any run (first at 021-osu571-put-bibw.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "022-osu571-barrier.txt", version: "5.7.1", bench: "osu_barrier", procs: 8, rows: []int{1}, aborted: []bool{false},
		cells: []cell{{-1, "tavg", 41.14}, {-1, "tmin", 41.11}, {-1, "tmax", 41.15}, {-1, "reps", 1000}, {-1, "time", 41.14}}, problems: []wantProblem{{1, `skipped 14 line(s) that are not part of any run (first at 022-osu571-barrier.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "023-osu571-latency-mp.txt", version: "5.7.1", bench: "osu_latency_mp", procs: 2, rows: []int{2}, aborted: []bool{false},
		cells: []cell{{4, "tavg", 23.31}}, info: map[string]string{"forked_processes_in_sender": "2"}, problems: []wantProblem{{1, `skipped 10 line(s) that are not part of any run (first at 023-osu571-latency-mp.txt:1: "[0] MPI startup(): Multi-threaded optimized library")`}}},
	{file: "034-osu75-alltoallv-full-tail-markdown-issue.txt", version: "7.5", bench: "osu_alltoallv", procs: 384, rows: []int{1}, aborted: []bool{false},
		cells: []cell{{4096, "tavg", 467.38}, {4096, "tmin", 460.43}, {4096, "tmax", 474.05}, {4096, "reps", 1000},
			{4096, "P50 Tail Lat(us)", 407.18}, {4096, "P90 Tail Lat(us)", 584.22}, {4096, "P99 Tail Lat(us)", 634.30}},
		info:    map[string]string{"datatype": "MPI_CHAR", "processes_inferred": "384, the launcher's --np 384"},
		options: map[string]string{"m": "4096:4096", "i": "1000", "x": "100", "f": "", "z": ""}, problems: []wantProblem{{1, `skipped 3 line(s) that are not part of any run (first at 034-osu75-alltoallv-full-tail-markdown-issue.txt:1: "ref_collectives-node_count>32`}}},
	{file: "036-osu532-alltoall-full-two-runs-issue.txt", version: "5.3.2", bench: "osu_alltoall", procs: -1, rows: []int{7, 1}, aborted: []bool{true, true},
		cells:    []cell{{2, "tavg", 17615.87}, {128, "tmin", 508.83}, {64, "tmax", 22500.39}},
		problems: []wantProblem{{1, `skipped 4 line(s) that are not part of any run (first at 036-osu532-alltoall-full-two-runs-issue.txt:1: "====`}, {11, "table ends at 128 bytes, below OSU's default maximum 1048576"}}},
	{file: "038-osu70-alltoallw-avgonly-customver-issue.txt", version: "7.0-lrbison3", bench: "osu_alltoallw", procs: 64, rows: []int{13}, aborted: []bool{false},
		cells: []cell{{1, "tavg", 66.94}, {4096, "tavg", 180.19}, {4096, "tmax", math.NaN()}}, options: map[string]string{"m": "4096"}},
}

func TestReadCorpus(t *testing.T) {
	for _, c := range osuCases {
		t.Run(c.file, func(t *testing.T) { checkCase(t, c, testcorpus.Read(t, c.file)) })
	}
}

func checkCase(t *testing.T, c osuCase, data []byte) {
	t.Helper()
	runs, err := Parse(data, c.file)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(c.rows) {
		t.Fatalf("%d runs, want %d", len(runs), len(c.rows))
	}
	for i, r := range runs {
		if len(r.Rows) != c.rows[i] || r.Aborted != c.aborted[i] {
			t.Errorf("run %d: %d rows aborted %v, want %d %v", i, len(r.Rows), r.Aborted, c.rows[i], c.aborted[i])
		}
		if r.Meta.Tool != "OSU" || r.Meta.Version != c.version || r.Meta.MByte != result.MB {
			t.Errorf("run %d meta %+v", i, r.Meta)
		}
		for _, row := range r.Rows {
			if row.Benchmark != c.bench || row.Processes != c.procs || row.File != c.file || row.Line < 1 {
				t.Errorf("run %d row %+v", i, row)
				break
			}
		}
	}
	r := runs[0]
	for _, w := range c.cells {
		var row *result.Row
		for i := range r.Rows {
			if r.Rows[i].Bytes == w.bytes {
				row = &r.Rows[i]
				break
			}
		}
		if row == nil {
			t.Errorf("no row of %d bytes", w.bytes)
			continue
		}
		got := field(row, w.field)
		if !(got == w.want || math.IsNaN(got) && math.IsNaN(w.want)) {
			t.Errorf("%d bytes %s = %v, want %v", w.bytes, w.field, got, w.want)
		}
	}
	if len(r.Problems) != len(c.problems) {
		t.Errorf("problems %v, want %v", r.Problems, c.problems)
	} else {
		for i, w := range c.problems {
			if p := r.Problems[i]; p.Line != w.line || !strings.Contains(p.Msg, w.text) {
				t.Errorf("problem %v, want line %d %q", p.Error(), w.line, w.text)
			}
		}
	}
	for k, v := range c.info {
		if r.Meta.Info[k] != v {
			t.Errorf("Info[%q] = %q, want %q", k, r.Meta.Info[k], v)
		}
	}
	for k, v := range c.options {
		if got, ok := r.Meta.Options[k]; !ok || got != v {
			t.Errorf("Options[%q] = %q, want %q", k, got, v)
		}
	}
}

func field(r *result.Row, f string) float64 {
	switch f {
	case "reps":
		return float64(r.Repetitions)
	case "tmin":
		return r.TMin
	case "tmax":
		return r.TMax
	case "tavg":
		return r.TAvg
	case "time":
		return r.Time()
	case "mbps":
		return r.MBps
	case "msg":
		return r.MsgRate
	}
	if v, ok := r.Extra[f]; ok {
		return v
	}
	return math.Inf(-1)
}

// The second run of 036 is cut mid-number.
func TestReadCutRow(t *testing.T) {
	runs, err := Parse(testcorpus.Read(t, "036-osu532-alltoall-full-two-runs-issue.txt"), "036")
	if err != nil {
		t.Fatal(err)
	}
	p := runs[1].Problems
	if len(p) != 1 || p[0].Line != 18 || !strings.Contains(p[0].Msg, `row cut short "4                      90.62             83." (3 of 5 values)`) {
		t.Errorf("problems %v", p)
	}
	if runs[1].Meta.Info["aborted_benchmark"] != "osu_alltoall" {
		t.Errorf("info %v", runs[1].Meta.Info)
	}
}

// Older OSU output without '#' whose table stops early (ofi-cray/libfabric-cray#739).
func TestReadNoHashTruncated(t *testing.T) {
	text := "OSU MPI Allgather Latency Test v5.0\nSize       Avg Latency(us)\n1                      13.16\n2                      13.50\n8192                  434.72\n"
	runs, err := Parse([]byte(text), "x")
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if len(r.Rows) != 3 || r.Rows[2].TAvg != 434.72 || r.Rows[0].Benchmark != "osu_allgather" || r.Meta.Version != "5.0" {
		t.Fatalf("run %+v", r)
	}
	if !r.Aborted || len(r.Problems) != 1 || r.Problems[0].Line != 5 || !strings.Contains(r.Problems[0].Msg, "table ends at 8192 bytes") {
		t.Errorf("aborted %v problems %v", r.Aborted, r.Problems)
	}
}

// A vendor warning between rows is a problem; rows go on. A Validation
// column (OMB 7 -c) and two datatypes (-T) give two runs.
func TestReadWarningValidationDatatypes(t *testing.T) {
	text := `# OSU MPI Bi-Directional Bandwidth Test v7.5
# Datatype: MPI_CHAR.
# Size      Bandwidth (MB/s)        Validation
1                       0.93              Pass
WARNING: release_mt library was used but no multi-ep feature was enabled.
2                       1.94              Fail
# Datatype: MPI_INT.
# Size      Bandwidth (MB/s)        Validation
4                       3.88              Pass
`
	runs, err := Parse([]byte(text), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Meta.Info["datatype"] != "MPI_CHAR" || runs[1].Meta.Info["datatype"] != "MPI_INT" {
		t.Fatalf("runs %+v", runs)
	}
	r := runs[0]
	if len(r.Rows) != 2 || r.Rows[1].MBps != 1.94 || r.Rows[1].Extra["Validation"] != 0 || r.Rows[0].Extra["Validation"] != 1 {
		t.Errorf("rows %+v", r.Rows)
	}
	// The short synthetic tables also stop below OSU's default maximum.
	if len(r.Problems) != 3 || r.Problems[0].Line != 5 || !strings.Contains(r.Problems[0].Msg, "WARNING: release_mt") ||
		r.Problems[1].Line != 6 || !strings.Contains(r.Problems[1].Msg, `validation "Fail" at 2 bytes`) ||
		!strings.Contains(r.Problems[2].Msg, "table ends at 2 bytes, below OSU's default maximum 4194304") {
		t.Errorf("problems %v", r.Problems)
	}
	if runs[1].Rows[0].Benchmark != "osu_bibw" || runs[1].Rows[0].Bytes != 4 {
		t.Errorf("run 1 %+v", runs[1].Rows)
	}
}

func TestReadNotOSU(t *testing.T) {
	_, err := Parse([]byte("#---\n# Benchmarking PingPong\n"), "f")
	if !errors.Is(err, ErrNotOSU) || err.Error() != "f: not OSU output (no benchmark table found)" {
		t.Errorf("err %v", err)
	}
}

func TestBenchName(t *testing.T) {
	for desc, want := range map[string]string{
		"MPI Latency": "osu_latency", "MPI-CUDA Bandwidth": "osu_bw", "MPI Broadcast Latency": "osu_bcast",
		"MPI Non-blocking Broadcast Latency": "osu_ibcast", "MPI Reduce_scatter Latency": "osu_reduce_scatter",
		"MPI Bandwidth Persistent": "osu_bw_persistent", "MPI Multi Latency": "osu_multi_lat",
		"MPI_Get latency": "osu_get_latency", "MPI Neighborhood Allgather Latency": "osu_neighbor_allgather",
	} {
		if got, known := benchName(desc); got != want || !known {
			t.Errorf("benchName(%q) = %q %v, want %q", desc, got, known, want)
		}
	}
}
