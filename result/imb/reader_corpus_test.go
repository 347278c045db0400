package imb

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
)

// readerCell is one value expected in a row, found by benchmark, process
// count and size (the first matching row; Aggregate -1 matches any mode).
type readerCell struct {
	bench     string
	procs     int
	bytes     int64
	aggregate int
	field     string // "reps", "tmin", "tmax", "tavg", "mbps", "msg", "defects", or an Extra key
	want      float64
}

// readerWantProblem is a problem expected at a line, whose message holds
// the given text.
type readerWantProblem struct {
	line int
	text string
}

// readerCase is what one real IMB output file must read as (run 0 unless
// a test says otherwise). Every value was taken from the file by eye.
type readerCase struct {
	file     string
	runs     int
	tool     string
	version  string
	mbyte    float64
	aborted  bool
	rows     int
	sections []string // benchmark of each table, in order (consecutive rows of one section collapse)
	cells    []readerCell
	problems []readerWantProblem // all problems, in order
	info     map[string]string
	options  map[string]string
}

var readerCorpusCases = []readerCase{
	{
		file: "001-imb41-mpi1-full-aarch64.txt", runs: 1, tool: "IMB-MPI1", version: "4.1", mbyte: result.MiB, rows: 379,
		sections: []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Allreduce", "Reduce", "Reduce_scatter",
			"Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Bcast", "Barrier"},
		cells: []readerCell{
			{"PingPong", 2, 4194304, -1, "reps", 10}, {"PingPong", 2, 4194304, -1, "tmax", 36946.39},
			{"PingPong", 2, 4194304, -1, "mbps", 108.26}, {"PingPong", 2, 1048576, -1, "tmax", 9645.94},
			{"PingPong", 2, 0, -1, "tmin", math.NaN()},
			{"Sendrecv", 2, 1048576, -1, "tmin", 18251.95}, {"Sendrecv", 2, 1048576, -1, "tavg", 18279.70},
			{"Sendrecv", 2, 1048576, -1, "mbps", 109.25}, {"Exchange", 2, 1048576, -1, "tmax", 28757.30},
			{"Allreduce", 2, 4, -1, "tmax", 290.69}, {"Allreduce", 2, 4, -1, "mbps", math.NaN()},
			{"Barrier", 2, -1, -1, "tavg", 287.38}, {"Barrier", 2, -1, -1, "reps", 1000},
		},
		info: map[string]string{"machine": "aarch64", "mpi_version": "2.1", "max_msglen": "4194304", "world_size": "2"},
	},
	{
		file: "002-imb41-ext-intranode.txt", runs: 1, tool: "IMB-EXT", version: "4.1", mbyte: result.MiB, rows: 242,
		sections: []string{"Window", "Unidir_Get", "Unidir_Get", "Unidir_Put", "Unidir_Put", "Bidir_Get", "Bidir_Get",
			"Bidir_Put", "Bidir_Put", "Accumulate", "Accumulate"},
		cells: []readerCell{
			{"Window", 2, 4194304, -1, "tmin", 213.69}, {"Window", 2, 0, -1, "reps", 100},
			{"Unidir_Get", 2, 4194304, 1, "mbps", 2327.32}, {"Unidir_Get", 2, 4194304, 0, "tmax", 2798.89},
			{"Unidir_Get", 2, 0, 0, "tmax", 6.28}, {"Unidir_Put", 2, 0, 1, "tmax", 0.26},
		},
	},
	{
		file: "005-imb2018u1-pingpong-wrapped.txt", runs: 1, tool: "IMB-MPI1", version: "2018 Update 1", mbyte: result.MB, rows: 24,
		sections: []string{"PingPong"},
		cells:    []readerCell{{"PingPong", 2, 4194304, -1, "mbps", 11937.62}, {"PingPong", 2, 0, -1, "tmax", 1.09}},
		problems: []readerWantProblem{{1, `skipped 2 line(s) that are not part of any run (first at 005-imb2018u1-pingpong-wrapped.txt:1: "Nodes:, host[01-02]")`}},
	},
	{
		file: "006-imb2019u3-pingpong.txt", runs: 1, tool: "IMB-MPI1", version: "2019 Update 3", mbyte: result.MB, rows: 24,
		sections: []string{"PingPong"},
		cells:    []readerCell{{"PingPong", 2, 4194304, -1, "mbps", 11940.07}, {"PingPong", 2, 65536, -1, "reps", 640}},
		problems: []readerWantProblem{{1, `skipped 2 line(s) that are not part of any run (first at 006-imb2019u3-pingpong.txt:1: "Nodes:, host[01-02]")`}},
	},
	{
		file: "008-imb2017-pingpong-wrapped-callseq.txt", runs: 1, tool: "IMB-MPI1", version: "2017", mbyte: result.MiB, rows: 26,
		sections: []string{"PingPong"},
		cells:    []readerCell{{"PingPong", 2, 16777216, -1, "tmax", 3617.98}, {"PingPong", 2, 16777216, -1, "reps", 1000}},
		options:  map[string]string{"iter": "1000", "msglog": "0:24", "iter_policy": "off", "time": "200"},
		info:     map[string]string{"max_msglen": "16777216", "selected": "PingPong"},
		problems: []readerWantProblem{{1, `skipped 1 line(s) that are not part of any run (first at 008-imb2017-pingpong-wrapped-callseq.txt:1: "#HOSTS=1")`}},
	},
	{
		file: "010-imb2019u6-multi-pingpong.txt", runs: 1, tool: "IMB-MPI1", version: "2019 Update 6", mbyte: result.MB, rows: 2,
		sections: []string{"PingPong"},
		cells: []readerCell{
			{"PingPong", 2, 1024, -1, "tmin", 56.92}, {"PingPong", 2, 1024, -1, "tmax", 61.39},
			{"PingPong", 2, 2048, -1, "mbps", 29.77}, {"PingPong", 2, 2048, -1, "reps", 100000},
		},
		options: map[string]string{"multi": "0", "off_cache": "-1", "zero_size": "off"},
		info:    map[string]string{"world_size": "4", "min_msglen": "1024"},
	},
	{
		file: "011-imb2019u6-multi-barrier.txt", runs: 1, tool: "IMB-MPI1", version: "2019 Update 6", mbyte: result.MB, rows: 2,
		sections: []string{"Barrier", "Barrier"},
		cells:    []readerCell{{"Barrier", 2, -1, -1, "tmax", 81.05}, {"Barrier", 4, -1, -1, "tmax", 91.24}},
	},
	{
		file: "013-imb2019-impi-debug-prefix.txt", runs: 1, tool: "IMB", mbyte: result.MB, aborted: true,
		problems: []readerWantProblem{{1, "skipped 10 line(s) that are not part of any run"}, {11, "no benchmark table"}},
	},
	{
		file: "014-imb2019u6-pingpong-showtail.txt", runs: 1, tool: "IMB-MPI1", version: "2019 Update 6", mbyte: result.MB, rows: 2,
		sections: []string{"PingPong"},
		cells: []readerCell{
			{"PingPong", 2, 1024, -1, "mbps", 569.96}, {"PingPong", 2, 1024, -1, "tail_p50", 1.81},
			{"PingPong", 2, 1024, -1, "tail_max", 215.10}, {"PingPong", 2, 0, -1, "tail_min", 0.83},
		},
	},
	{
		file: "015-imbrma2019-invalid-benchmark-names.txt", runs: 1, tool: "IMB-RMA", mbyte: result.MB, aborted: true, rows: 2,
		sections: []string{"One_put_all"},
		cells:    []readerCell{{"One_put_all", 2, 1, -1, "tmax", 10.01}},
		problems: []readerWantProblem{{15, "Invalid benchmark name -zero_size"}, {27, "version unknown"}, {28, "One_put_all: output ends"}},
		info:     map[string]string{"aborted_benchmark": "One_put_all", "max_msglen": "1"},
	},
	{
		file: "025-imb2017u2-alltoallv-darwin.txt", runs: 1, tool: "IMB-MPI1", version: "2017 update 2", mbyte: result.MiB, rows: 24,
		sections: []string{"Alltoallv"},
		cells:    []readerCell{{"Alltoallv", 2, 1, -1, "tmax", 0.38}, {"Alltoallv", 2, 0, -1, "tmax", 0.12}},
		info:     map[string]string{"system": "Darwin"},
	},
	{
		file: "027-imb2021.3-allreduce-np1-prompt.txt", runs: 1, tool: "IMB-MPI1", version: "2021.3", mbyte: result.MB, rows: 22,
		sections: []string{"Allreduce"},
		cells:    []readerCell{{"Allreduce", 1, 4194304, -1, "tavg", 291.86}, {"Allreduce", 1, 2097152, -1, "tmin", 146.44}},
	},
	{
		file: "028-imbp2p-pingpong-msgsec-snippet.txt", runs: 1, tool: "IMB-P2P", mbyte: result.MB, aborted: true, rows: 9,
		sections: []string{"PingPong"},
		cells:    []readerCell{{"PingPong", 4, 1, -1, "msg", 81627}, {"PingPong", 4, 65536, -1, "reps", 12800}},
		problems: []readerWantProblem{{7, "version unknown"}, {15, "PingPong: output ends"}},
		options:  map[string]string{"msglen": "msglen"},
	},
	{
		file: "030-imb-uniband-csd3-impi19.txt", runs: 1, tool: "IMB-MPI1", version: "2019 Update 6", mbyte: result.MB, rows: 120,
		sections: []string{"Uniband", "Uniband", "Uniband", "Uniband", "Uniband"},
		cells: []readerCell{
			{"Uniband", 2, 524288, -1, "mbps", 12152.08}, {"Uniband", 4, 524288, -1, "msg", 21995},
			{"Uniband", 28, 524288, -1, "mbps", 12341.93}, {"Uniband", 2, 0, -1, "tmax", math.NaN()},
		},
		info:     map[string]string{"world_size": "28"},
		problems: []readerWantProblem{{1, `skipped 1 line(s) that are not part of any run (first at 030-imb-uniband-csd3-impi19.txt:1: "[0] MPI startup(): I_MPI_OFA`}},
	},
	{
		file: "031-imb2017-alltoall-spreadsheet-paste-issue.txt", runs: 1, tool: "IMB-MPI1", version: "2017", mbyte: result.MiB, aborted: true, rows: 10,
		sections: []string{"Alltoall"},
		cells:    []readerCell{{"Alltoall", 16, 256, -1, "tavg", 10.24}, {"Alltoall", 16, 0, -1, "tmin", 0.16}},
		problems: []readerWantProblem{{27, `row cut short "512 1000"`}, {27, "Alltoall: output ends"}},
		info:     map[string]string{"world_size": "32", "aborted_benchmark": "Alltoall"},
	},
	{
		file: "032-imb-allreduce-check-defects-timestamped-issue.txt", runs: 1, tool: "IMB", mbyte: result.MB, aborted: true, rows: 7,
		sections: []string{"Allreduce"},
		cells:    []readerCell{{"Allreduce", 64, 128, -1, "tmax", 18.86}, {"Allreduce", 64, 128, -1, "defects", 0}},
		problems: []readerWantProblem{{13, `row cut short "256"`}, {13, "Allreduce: output ends"}},
	},
	{
		file: "033-imb-allreduce-np1024-hang-truncated-issue.txt", runs: 1, tool: "IMB", mbyte: result.MB, aborted: true, rows: 13,
		sections: []string{"Allreduce"},
		cells:    []readerCell{{"Allreduce", 1024, 8192, -1, "tavg", 230.49}},
		problems: []readerWantProblem{{23, `row cut short "163"`}, {23, "Allreduce: output ends"}},
	},
	{
		file: "037-imb23-sendrecv-segfault-mailinglist.txt", runs: 1, tool: "IMB-MPI1", version: "2.3", mbyte: result.MiB, aborted: true,
		problems: []readerWantProblem{{2, `skipped 1 line(s) that are not part of any run (first at 037-imb23-sendrecv-segfault-mailinglist.txt:2: "salloc: Granted job allocation 90732")`},
			{3, "cannot resize completion queue"}, {4, "cannot resize completion queue"},
			{26, "abort: \"[host01:06482] *** Process received signal ***\""}, {53, "no benchmark table"}},
		info:    map[string]string{"machine": "x86_64", "system": "Linux", "aborted_benchmark": "Sendrecv"},
		options: map[string]string{"npmin": "16"},
	},
}

func TestReaderCorpus(t *testing.T) {
	for _, c := range readerCorpusCases {
		t.Run(c.file, func(t *testing.T) {
			runs, err := Parse(testcorpus.Read(t, c.file), c.file)
			if err != nil {
				t.Fatal(err)
			}
			readerCheckCase(t, c, runs)
		})
	}
}

// readerCheckCase compares the runs read from c.file with c.
func readerCheckCase(t *testing.T, c readerCase, runs []result.Run) {
	t.Helper()
	if len(runs) != c.runs {
		t.Fatalf("%d runs, want %d", len(runs), c.runs)
	}
	r := runs[0]
	m := r.Meta
	if m.Tool != c.tool || m.Version != c.version || m.MByte != c.mbyte {
		t.Errorf("meta tool %q version %q mbyte %v, want %q %q %v", m.Tool, m.Version, m.MByte, c.tool, c.version, c.mbyte)
	}
	if r.Aborted != c.aborted {
		t.Errorf("aborted %v, want %v", r.Aborted, c.aborted)
	}
	if len(r.Rows) != c.rows {
		t.Errorf("%d rows, want %d", len(r.Rows), c.rows)
	}
	if got := readerSections(r.Rows); strings.Join(got, ",") != strings.Join(c.sections, ",") {
		t.Errorf("sections %v, want %v", got, c.sections)
	}
	for _, cell := range c.cells {
		row := readerFind(r.Rows, cell)
		if row == nil {
			t.Errorf("no row %s np=%d bytes=%d", cell.bench, cell.procs, cell.bytes)
			continue
		}
		got := readerField(row, cell.field)
		if !(got == cell.want || math.IsNaN(got) && math.IsNaN(cell.want)) {
			t.Errorf("%s np=%d bytes=%d %s = %v, want %v", cell.bench, cell.procs, cell.bytes, cell.field, got, cell.want)
		}
		if row.File != c.file || row.Line <= 0 {
			t.Errorf("row position %s:%d", row.File, row.Line)
		}
	}
	if len(r.Problems) != len(c.problems) {
		t.Errorf("%d problems, want %d: %v", len(r.Problems), len(c.problems), r.Problems)
	} else {
		for i, p := range c.problems {
			got := r.Problems[i]
			if got.Line != p.line || !strings.Contains(got.Msg, p.text) || got.File != c.file {
				t.Errorf("problem %d = %v, want line %d with %q", i, got.Error(), p.line, p.text)
			}
		}
	}
	for k, v := range c.info {
		if m.Info[k] != v {
			t.Errorf("Info[%q] = %q, want %q", k, m.Info[k], v)
		}
	}
	for k, v := range c.options {
		if m.Options[k] != v {
			t.Errorf("Options[%q] = %q, want %q", k, m.Options[k], v)
		}
	}
}

// readerSections lists the benchmark of each run of consecutive rows with
// the same benchmark, process count and IMB-EXT mode.
func readerSections(rows []result.Row) []string {
	var out []string
	last := ""
	for _, r := range rows {
		key := fmt.Sprint(r.Benchmark, "/", r.Processes, "/", r.Multi, "/", readerModeKey(r))
		if key != last {
			out = append(out, r.Benchmark)
		}
		last = key
	}
	return out
}

func readerModeKey(r result.Row) string {
	if v, ok := r.Extra["aggregate"]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func readerFind(rows []result.Row, c readerCell) *result.Row {
	for i := range rows {
		r := &rows[i]
		if r.Benchmark != c.bench || r.Processes != c.procs || r.Bytes != c.bytes {
			continue
		}
		if c.aggregate >= 0 && r.Extra["aggregate"] != float64(c.aggregate) {
			continue
		}
		return r
	}
	return nil
}

func readerField(r *result.Row, f string) float64 {
	switch f {
	case "reps":
		return float64(r.Repetitions)
	case "tmin":
		return r.TMin
	case "tmax":
		return r.TMax
	case "tavg":
		return r.TAvg
	case "mbps":
		return r.MBps
	case "msg":
		return r.MsgRate
	case "defects":
		return r.Defects
	}
	v, ok := r.Extra[f]
	if !ok {
		return math.Inf(-1)
	}
	return v
}
