package imb

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
)

// writerTestSection is one "# Benchmarking" section cut out of a real IMB
// file: its text (starting with the blank separator line) and what the
// Writer needs to reproduce it.
type writerTestSection struct {
	text    string
	spec    TableSpec
	rows    []result.Row
	timeOut int64 // the size of the section's time-out row, -1 for none
}

// writerTestFormats maps IMB's heading lines (without a Group column and
// defects) to layouts.
var writerTestFormats = map[string]*Layout{
	"#bytes #repetitions t[usec] Mbytes/sec":                             OutTimeBW,
	"#bytes #repetitions Mbytes/sec Msg/sec":                             OutBWMsgRate,
	"#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec] Mbytes/sec": OutTimeRangeBW,
	"#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec]":            OutTimeRange,
	"#repetitions t_min[usec] t_max[usec] t_avg[usec]":                   OutSync,
}

// writerTestSections cuts the benchmark sections out of a real IMB output
// file with a minimal, test-only scan (the full reader lives elsewhere).
func writerTestSections(t *testing.T, name string) []writerTestSection {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "writer", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []writerTestSection
	for i := 1; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "#---") || !strings.HasPrefix(lines[i+1], "# Benchmarking ") {
			continue
		}
		s := writerTestSection{timeOut: -1}
		title := strings.TrimSpace(strings.TrimPrefix(lines[i+1], "# Benchmarking "))
		s.spec.Benchmark = strings.TrimPrefix(title, "Multi-")
		s.spec.Multi = result.MultiNone
		j := i + 2
		for ; !strings.HasPrefix(lines[j], "#---"); j++ {
			l := lines[j]
			switch {
			case strings.HasPrefix(l, "# #processes = "):
				s.spec.Processes, _ = strconv.Atoi(strings.TrimSpace(l[len("# #processes = "):]))
			case strings.HasPrefix(l, "# ( ") && strings.Contains(l, "groups of"):
				fmt.Sscanf(l, "# ( %d groups of %d", &s.spec.Groups, &s.spec.Processes)
				s.spec.Multi = result.MultiWorst
			case strings.Contains(l, "waiting in MPI_Barrier"):
				fmt.Sscanf(l, "# ( %d", &s.spec.Idle)
			}
		}
		heads := strings.Fields(lines[j+1])
		if heads[len(heads)-1] == "defects" {
			s.spec.Check = true
			heads = heads[:len(heads)-1]
		}
		f, ok := writerTestFormats[strings.Join(heads, " ")]
		if !ok {
			t.Fatalf("%s:%d: unknown headings %q", name, j+2, lines[j+1])
		}
		s.spec.Format = f
		k := j + 2
		for ; k < len(lines) && strings.TrimSpace(lines[k]) != "" && !strings.HasPrefix(lines[k], "#"); k++ {
			if before, _, ok := strings.Cut(lines[k], " time-out."); ok {
				s.timeOut, _ = strconv.ParseInt(strings.TrimSpace(before), 10, 64)
				k++
				break
			}
			s.rows = append(s.rows, writerTestRow(t, s.spec, strings.Fields(lines[k])))
		}
		s.text = "\n" + strings.Join(lines[i:k], "\n") + "\n"
		if k < len(lines) && strings.Contains(lines[k], "time-out.") {
			t.Fatalf("%s:%d: rows after a time-out row", name, k+1)
		}
		out = append(out, s)
		i = k
	}
	if len(out) == 0 {
		t.Fatalf("%s: no sections", name)
	}
	return out
}

// writerTestRow turns the fields of a printed row into a Row.
func writerTestRow(t *testing.T, spec TableSpec, f []string) result.Row {
	t.Helper()
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	r := result.NewRow(spec.Benchmark, spec.Processes, -1)
	r.Multi = spec.Multi
	if spec.Format != OutSync {
		r.Bytes = int64(num(f[0]))
		f = f[1:]
	}
	r.Repetitions = int64(num(f[0]))
	f = f[1:]
	switch spec.Format {
	case OutTimeBW:
		r.TMax, r.MBps = num(f[0]), num(f[1])
	case OutBWMsgRate:
		r.MBps, r.MsgRate = num(f[0]), num(f[1])
	case OutTimeRangeBW:
		r.TMin, r.TMax, r.TAvg, r.MBps = num(f[0]), num(f[1]), num(f[2]), num(f[3])
	case OutTimeRange, OutSync:
		r.TMin, r.TMax, r.TAvg = num(f[0]), num(f[1]), num(f[2])
	}
	return r
}

// writerTestTable writes one table with the Writer, ended by a time-out
// row for size timeOut unless it is -1.
func writerTestTable(t *testing.T, spec TableSpec, rows []result.Row, timeOut int64) string {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.BeginTable(spec); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if timeOut >= 0 {
		if err := w.WriteTimeOut(timeOut); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

// writerTestTrim removes trailing blanks of every line: some published
// files (PerfKitBenchmarker's test data) had them stripped.
func writerTestTrim(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// TestWriterSectionsMatchRealIMB reproduces every benchmark section of real
// IMB outputs (section header, process lines, column headings, rows) and
// compares the text byte for byte.
func TestWriterSectionsMatchRealIMB(t *testing.T) {
	cases := []struct {
		file    string
		trimmed bool // file had trailing blanks removed
		n       int  // sections expected
	}{
		{"001-imb41-mpi1-full-aarch64.txt", false, 17},
		{"006-imb2019u3-pingpong.txt", false, 1},
		{"027-imb2021.3-allreduce-np1-prompt.txt", false, 1},
		{"030-imb-uniband-csd3-impi19.txt", false, 0},
		{"010-imb2019u6-multi-pingpong.txt", true, 1},
		{"011-imb2019u6-multi-barrier.txt", true, 2},
		{"031-imb2021.11-uniband-biband-timeout.txt", false, 2},
		{"032-imb2021.11-npmin-barrier-timeout.txt", false, 3},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			secs := writerTestSections(t, c.file)
			if c.n > 0 && len(secs) != c.n {
				t.Fatalf("got %d sections, want %d", len(secs), c.n)
			}
			for _, s := range secs {
				got := writerTestTable(t, s.spec, s.rows, s.timeOut)
				want := s.text
				if c.trimmed {
					got = writerTestTrim(got)
				}
				if got != want {
					t.Errorf("section %s (np %d):\n got:\n%s\nwant:\n%s", s.spec.Benchmark, s.spec.Processes, got, want)
				}
			}
		})
	}
}

// TestWriterWholeFile2021 reproduces a complete IMB 2021.3 output: banner,
// machine lines, calling sequence, data types, benchmark list, table and
// closing line. The banner names mpbench and the format it follows, and
// mpbench's own three header lines are inserted into the expected text.
func TestWriterWholeFile2021(t *testing.T) {
	const name = "027-imb2021.3-allreduce-np1-prompt.txt"
	data, err := os.ReadFile(filepath.Join("testdata", "writer", name))
	if err != nil {
		t.Fatal(err)
	}
	want := string(data)
	want = want[strings.Index(want, "\n")+1:] // drop the shell prompt line
	want = strings.Replace(want, "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part\n", "#    mpbench 0.1.0, IMB-MPI1 2021.3 format, MPI-1 part\n", 1)
	want = strings.Replace(want, "# MPI Thread Environment: \n",
		"# MPI Thread Environment: \n"+
			"# mpbench version       : 0.1.0\n"+
			"# Transport             : tcp\n"+
			"# Mbyte                 : 1000000 bytes\n", 1)
	sec := writerTestSections(t, name)[0]

	var buf bytes.Buffer
	w := NewWriter(&buf)
	err = w.WriteHeader(RunInfo{
		Version: "0.1.0", Date: time.Date(2023, 11, 20, 19, 56, 0, 0, time.UTC),
		Machine: "x86_64", System: "Linux", Release: "5.10.134-15.al8.x86_64",
		KernelVersion: "#1 SMP Thu Jul 20 00:44:04 CST 2023", Transport: "tcp", MPIVersion: "3.1",
		Command: []string{"./IMB-MPI1", "allreduce"}, MinBytes: 0, MaxBytes: 4194304,
		Benchmarks: []string{"Allreduce"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.BeginTable(sec.spec); err != nil {
		t.Fatal(err)
	}
	for _, r := range sec.rows {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimRight(buf.String(), "\n")
	want = strings.TrimRight(want, "\n")
	if got != want {
		t.Errorf("whole file differs:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriterTimeOutSectionsHaveTheRow checks that the IMB-MPI1 2021.11
// files with time-outs were cut with their time-out rows, so that
// TestWriterSectionsMatchRealIMB compares WriteTimeOut's line with IMB's:
// after 10 and 9 rows (031), and at the first size in all three
// benchmarks, Barrier's row printing 2^6 (032).
func TestWriterTimeOutSectionsHaveTheRow(t *testing.T) {
	for file, want := range map[string][]string{
		"031-imb2021.11-uniband-biband-timeout.txt": {"Uniband 10 rows, time-out at 524288", "Biband 9 rows, time-out at 262144"},
		"032-imb2021.11-npmin-barrier-timeout.txt":  {"Sendrecv 0 rows, time-out at 0", "Biband 0 rows, time-out at 0", "Barrier 0 rows, time-out at 64"},
	} {
		var got []string
		for _, s := range writerTestSections(t, file) {
			got = append(got, fmt.Sprintf("%s %d rows, time-out at %d", s.spec.Benchmark, len(s.rows), s.timeOut))
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}

// TestWriterMultiEachTimeOut reproduces IMB-MPI1 2021.11's -multi 1
// tables that time out at their first size: a blank line, then one
// time-out row per group after its group number.
func TestWriterMultiEachTimeOut(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "writer", "033-imb2021.11-multi1-timeout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for _, c := range []struct {
		name   string
		format *Layout
	}{{"PingPong", OutTimeBW}, {"Sendrecv", OutTimeRangeBW}} {
		i := slices.Index(lines, "# Benchmarking Multi-"+c.name+" ")
		if i < 1 {
			t.Fatalf("no Multi-%s section", c.name)
		}
		want := "\n" + strings.Join(lines[i-1:i+11], "\n") + "\n"
		spec := TableSpec{Benchmark: c.name, Format: c.format, Processes: 2, Groups: 2, Multi: result.MultiEach}
		if got := writerTestTable(t, spec, nil, 0); got != want {
			t.Errorf("Multi-%s:\n got:\n%s\nwant:\n%s", c.name, got, want)
		}
	}
}

// TestWriterMultiEach checks the -multi 1 layout as IMB_output prints it:
// a leading Group column, a 5-column rule (64 dashes), and a blank line
// before the group rows of every message size.
func TestWriterMultiEach(t *testing.T) {
	spec := TableSpec{Benchmark: "PingPong", Format: OutTimeBW, Processes: 2, Groups: 2, Multi: result.MultiEach, Idle: 1}
	var rows []result.Row
	for _, size := range []int64{0, 1024} {
		for g := 0; g < 2; g++ {
			r := result.NewRow("PingPong", 2, size)
			r.Multi, r.Groups, r.Group, r.Repetitions = result.MultiEach, 2, g, 1000
			r.TMax = 10.19 + float64(g)/100 + float64(size)/1024
			r.MBps = float64(size) / r.TMax
			rows = append(rows, r)
		}
	}
	got := writerTestTable(t, spec, rows, -1)
	rule := "#" + strings.Repeat("-", 64) + "\n"
	want := "\n" + rule +
		"# Benchmarking Multi-PingPong \n" +
		"# ( 2 groups of 2 processes each running simultaneous ) \n" +
		"# Group  0:     0    1\n# \n" +
		"# Group  1:     2    3\n# \n" +
		"# ( 1 additional process waiting in MPI_Barrier)\n" +
		rule +
		"        Group       #bytes #repetitions      t[usec]   Mbytes/sec\n" +
		"\n" +
		"            0            0         1000        10.19         0.00\n" +
		"            1            0         1000        10.20         0.00\n" +
		"\n" +
		"            0         1024         1000        11.19        91.51\n" +
		"            1         1024         1000        11.20        91.43\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriterCheckAndLongGroups covers the defects column (-check; 6
// columns, 77 dashes, as in the openucx/ucx#2799 paste) and group rank
// lists longer than IMB's 16 ranks per line.
func TestWriterCheckAndLongGroups(t *testing.T) {
	spec := TableSpec{Benchmark: "Allreduce", Format: OutTimeRange, Processes: 64, Check: true}
	r := result.NewRow("Allreduce", 64, 4)
	r.Repetitions, r.TMin, r.TMax, r.TAvg, r.Defects = 1000, 13.49, 13.54, 13.51, 0
	got := writerTestTable(t, spec, []result.Row{r}, -1)
	want := "\n#" + strings.Repeat("-", 77) + "\n# Benchmarking Allreduce \n# #processes = 64 \n#" + strings.Repeat("-", 77) + "\n" +
		"       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]      defects\n" +
		"            4         1000        13.49        13.54        13.51         0.00\n"
	if got != want {
		t.Errorf("check layout:\n got:\n%s\nwant:\n%s", got, want)
	}

	spec = TableSpec{Benchmark: "PingPong", Format: OutTimeRangeBW, Processes: 18, Groups: 2, Multi: result.MultiWorst}
	got = writerTestTable(t, spec, nil, -1)
	var ranks strings.Builder
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&ranks, " %4d", i)
	}
	wantGroup0 := "# Group  0: " + ranks.String() + "\n#    16   17\n# \n"
	if !strings.Contains(got, wantGroup0) {
		t.Errorf("group 0 lines: want %q in\n%s", wantGroup0, got)
	}
	if !strings.Contains(got, "# Group  1:    18   19") {
		t.Errorf("group 1 should start at rank 18:\n%s", got)
	}
}

// TestWriterRowBeforeTable checks the misuse error.
func TestWriterRowBeforeTable(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.WriteRow(result.NewRow("PingPong", 2, 0)); err == nil {
		t.Fatal("WriteRow before BeginTable: want error")
	}
}

// TestWriterNaNPrinted makes sure an absent value is visible, not zero.
func TestWriterNaNPrinted(t *testing.T) {
	r := result.NewRow("PingPong", 2, 8)
	r.Repetitions = 10
	r.TMax = math.NaN()
	got := writerTestTable(t, TableSpec{Benchmark: "PingPong", Format: OutTimeBW, Processes: 2}, []result.Row{r}, -1)
	if !strings.Contains(got, "NaN") {
		t.Errorf("NaN time should print as NaN:\n%s", got)
	}
}

// TestWriterThreadEnv checks that the thread level of an MPI library is
// printed on IMB's "# MPI Thread Environment" line and read back by Read.
func TestWriterThreadEnv(t *testing.T) {
	for _, level := range []string{"", "MPI_THREAD_FUNNELED"} {
		var buf bytes.Buffer
		err := NewWriter(&buf).WriteHeader(RunInfo{Version: "0.1.0", Transport: "mpi (Open MPI v4.1.4)", ThreadEnv: level,
			Command: []string{"mpbench", "run"}, Benchmarks: []string{"PingPong"}})
		if err != nil {
			t.Fatal(err)
		}
		want := "# MPI Thread Environment: " + level + "\n"
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("ThreadEnv %q: header lacks %q:\n%s", level, want, buf.String())
		}
		runs, err := Read(&buf, "header.txt")
		if err != nil || len(runs) != 1 {
			t.Fatalf("Read: %d runs, %v", len(runs), err)
		}
		if got := runs[0].Meta.Info["mpi_thread_environment"]; got != level {
			t.Errorf("Read: Info[mpi_thread_environment] = %q, want %q (Info %v)", got, level, runs[0].Meta.Info)
		}
	}
}

// TestWriterMultiList checks the benchmark list under -multi as IMB 2019
// Update 6 prints it (corpus: PerfKitBenchmarker mpi_pingpong_output.txt,
// -multi 0): names without the "(Multi-)" prefix.
func TestWriterMultiList(t *testing.T) {
	var buf bytes.Buffer
	err := NewWriter(&buf).WriteHeader(RunInfo{Version: "0.1.0", Transport: "tcp", Multi: true,
		Command: []string{"mpbench", "run", "-multi", "0"}, Benchmarks: []string{"PingPong", "Barrier"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# List of Benchmarks to run:\n\n# PingPong\n# Barrier\n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("header ends\n%s\nwant it to end %q", buf.String()[max(0, buf.Len()-80):], want)
	}
}

// TestWriterBannerNamesMpbench checks that the header names mpbench, not
// Intel's program, that "# MPI Version" holds the MPI standard version
// with the runtime on its own line, and that Read takes the file as
// mpbench's, complete and without problems.
func TestWriterBannerNamesMpbench(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	err := w.WriteHeader(RunInfo{Version: "0.2.0", Transport: "shm", MPIVersion: "3.1", DataType: "MPI_INT",
		RedDataType: "MPI_DOUBLE", Map: "2x2 (world ranks in group order: 0 2 1 3)",
		Reports: []InfoLine{{Name: "Single copy", Value: "process_vm_readv for 2 of 4 reader-sender pairs on one host, the rings for 2; refused: rank 1 from 0,2"}},
		Command: []string{"mpbench", "run"}, Benchmarks: []string{"Uniband"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.BeginTable(TableSpec{Benchmark: "Uniband", Format: OutBWMsgRate, Processes: 2}); err != nil {
		t.Fatal(err)
	}
	row := result.NewRow("Uniband", 2, 1024)
	row.Repetitions, row.MBps, row.MsgRate = 100, 2048, 2e6
	if err := w.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, line := range []string{
		"#    mpbench 0.2.0, IMB-MPI1 2021.3 format, MPI-1 part\n",
		"# MPI Version           : 3.1\n",
		"# Transport             : shm\n",
		"# Single copy           : process_vm_readv for 2 of 4 reader-sender pairs on one host, the rings for 2; refused: rank 1 from 0,2\n",
		"# Map                   : 2x2 (world ranks in group order: 0 2 1 3)\n",
		"# MPI_Datatype                   :   MPI_INT \n",
		"# MPI_Datatype for reductions    :   MPI_DOUBLE \n",
		"       #bytes #repetitions   Mbytes/sec      Msg/sec\n         1024          100      2048.00      2000000\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("output lacks %q:\n%s", line, text)
		}
	}
	if strings.Contains(text, "Intel") {
		t.Errorf("output names Intel's program:\n%s", text)
	}
	runs, err := Read(strings.NewReader(text), "mpbench.txt")
	if err != nil || len(runs) != 1 || runs[0].Aborted || len(runs[0].Problems) != 0 || len(runs[0].Rows) != 1 {
		t.Fatalf("Read: %v, %+v", err, runs)
	}
	m := runs[0].Meta
	if m.Tool != "mpbench" || m.Version != "0.2.0" || m.Transport != "shm" || m.MByte != 1e6 ||
		m.Info["imb_version"] != CompatVersion || m.Info["mpi_version"] != "3.1" || m.Info["datatype"] != "MPI_INT" ||
		m.Info["single_copy"] != "process_vm_readv for 2 of 4 reader-sender pairs on one host, the rings for 2; refused: rank 1 from 0,2" {
		t.Errorf("Read meta: %+v", m)
	}
	if r := runs[0].Rows[0]; r.Bytes != 1024 || r.MBps != 2048 || r.MsgRate != 2e6 || !math.IsNaN(r.TMax) {
		t.Errorf("Read row: %+v", r)
	}
}

// TestWriterTailAndSpreads checks the -show_tail line in the format of
// PerfKitBenchmarker's patched IMB (print_tail: "[ v, v, ..., max ]",
// %0.2f) and the --percentiles block, and that Read gives the row both:
// the tail in Extra and the block as the row's Spread (without samples).
func TestWriterTailAndSpreads(t *testing.T) {
	var samples []float64
	for i := 1; i <= 1000; i++ {
		samples = append(samples, float64(i)/100)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteHeader(RunInfo{Version: "0.1.0", Transport: "shm", MPIVersion: "3.1", Command: []string{"mpbench", "run"}, Benchmarks: []string{"PingPong"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginTable(TableSpec{Benchmark: "PingPong", Format: OutTimeBW, Processes: 2}); err != nil {
		t.Fatal(err)
	}
	row := result.NewRow("PingPong", 2, 8)
	row.Repetitions, row.TMax, row.MBps = 1000, 5.005, 1.6
	row.Spread = result.NewSpread(0, samples)
	if err := errors.Join(w.WriteRow(row), w.WriteTail(row.Spread), w.WriteSpreads([]result.Row{row}), w.Close()); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"            8         1000         5.00         1.60\n[ 0.01, 1.01, 2.51, 5.01, 7.51, 9.01, 9.51, 9.91, 9.96, 10.00, 10.00, 10.00 ]\n",
		"\n# Repetition times [usec] of the rank measured (rows: the first rank; collectives: the slowest)\n" +
			"#      #bytes         rank            n          min          p50          p90          p99          max           CV\n" +
			"#           8            0         1000         0.01         5.00         9.00         9.90        10.00       0.5771\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks\n%s\ngot:\n%s", want, text)
		}
	}
	runs, err := Read(strings.NewReader(text), "tail.txt")
	if err != nil || len(runs) != 1 || len(runs[0].Problems) != 0 || len(runs[0].Rows) != 1 || runs[0].Aborted {
		t.Fatalf("Read: %v %+v", err, runs)
	}
	got := runs[0].Rows[0]
	if s := got.Spread; s == nil || s.Rank != 0 || s.N != 1000 || s.Min != 0.01 || s.P50 != 5 || s.P90 != 9 || s.P99 != 9.9 || s.Max != 10 || s.CV != 0.5771 || s.Samples != nil {
		t.Errorf("read back spread %+v", s)
	}
	if got.Extra["tail_p50"] != 5.01 {
		t.Errorf("read back tail %v", got.Extra)
	}
}

// TestReadSpreadsMultiEach checks that under -multi 1 each line of the
// --percentiles block goes to the row of its group and size, and that a
// line matching no row is a problem, not a silent loss.
func TestReadSpreadsMultiEach(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteHeader(RunInfo{Version: "0.1.0", Transport: "shm", MPIVersion: "3.1", Command: []string{"mpbench", "run"}, Benchmarks: []string{"PingPong"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginTable(TableSpec{Benchmark: "PingPong", Format: OutTimeBW, Processes: 2, Groups: 2, Multi: result.MultiEach}); err != nil {
		t.Fatal(err)
	}
	var rows []result.Row
	for _, bytes := range []int64{0, 4} {
		for g := range 2 {
			row := result.NewRow("PingPong", 2, bytes)
			row.Multi, row.Groups, row.Group, row.Repetitions, row.TMax = result.MultiEach, 2, g, 3, 1
			row.Spread = result.NewSpread(2*g, []float64{float64(g + 1), float64(bytes + 1), 2})
			rows = append(rows, row)
			if err := w.WriteRow(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := errors.Join(w.WriteSpreads(rows), w.Close()); err != nil {
		t.Fatal(err)
	}
	runs, err := Read(strings.NewReader(buf.String()), "multi.txt")
	if err != nil || len(runs) != 1 || len(runs[0].Problems) != 0 || len(runs[0].Rows) != 4 {
		t.Fatalf("Read: %v %+v\n%s", err, runs, buf.String())
	}
	for i, r := range runs[0].Rows {
		want := rows[i].Spread
		if s := r.Spread; s == nil || s.Rank != want.Rank || s.N != 3 || s.Min != want.Min || s.Max != want.Max {
			t.Errorf("row %d (group %d, %d B): spread %+v, want %+v", i, r.Group, r.Bytes, s, want)
		}
	}
	bad := strings.Replace(buf.String(), "#           1            4            2", "#           1            8            2", 1)
	runs, _ = Read(strings.NewReader(bad), "bad.txt")
	if len(runs) != 1 || len(runs[0].Problems) != 1 || !strings.Contains(runs[0].Problems[0].Msg, "8 bytes matches no row") {
		t.Errorf("a line for a size without a row: problems %+v", runs[0].Problems)
	}
}
