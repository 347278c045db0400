package imb

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

func readerParse(t *testing.T, text string) []result.Run {
	t.Helper()
	runs, err := Parse([]byte(text), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// Pallas PMB with CRLF line ends, a Windows executable and -multi 1: one
// row per group with a leading Group column, and a blank line between the
// heading and the rows (the PMB users-list sample).
func TestReaderPMBMultiEachCRLF(t *testing.T) {
	text := strings.ReplaceAll(`#---------------------------------------------------
#    PALLAS MPI Benchmark Suite V2.2, MPI-1 part    
#---------------------------------------------------
# Calling sequence was: 

# C:\pmb\PMB-MPI1.exe -multi 1 PingPong

#----------------------------------------------------------------
# Benchmarking Multi-PingPong 
# ( 2 groups of 2 processes each running simultaneous ) 
# Group    0                     : 0 1
# Group    1                     : 2 3
#----------------------------------------------------------------
        Group       #bytes #repetitions      t[usec]   Mbytes/sec

            0            0         1000        10.19         0.00
            1            0         1000        10.22         0.00
            0            1         1000        10.31         0.09
            1            1         1000        10.40         0.09


# All processes entering MPI_Finalize
`, "\n", "\r\n")
	runs := readerParse(t, text)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Meta.Tool != "PMB-MPI1" || r.Meta.Version != "2.2" || r.Meta.MByte != result.MiB || r.Aborted {
		t.Errorf("meta %+v aborted %v", r.Meta, r.Aborted)
	}
	if r.Meta.Options["multi"] != "1" {
		t.Errorf("options %v", r.Meta.Options)
	}
	if len(r.Rows) != 4 || len(r.Problems) != 0 {
		t.Fatalf("rows %d problems %v", len(r.Rows), r.Problems)
	}
	row := r.Rows[3]
	if row.Benchmark != "PingPong" || row.Multi != result.MultiEach || row.Groups != 2 || row.Group != 1 ||
		row.Processes != 2 || row.Bytes != 1 || row.TMax != 10.40 || row.MBps != 0.09 || row.Line != 19 {
		t.Errorf("row %+v", row)
	}
}

// IMB built with -DCHECK: "#-" section lines, a defects column, rank
// error lines between rows and an MPI_Abort message (intel/mpi-benchmarks#22).
func TestReaderCheckModeAbort(t *testing.T) {
	text := `#- Benchmarking Reduce_scatter
#- #processes = 16
       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]      defects
            0         1000         0.15         0.27         0.19         0.00
15: Error Reduce_scatter,size = 4,sample #0
Process 15: Got invalid buffer:
            4         1000         1.57         4.66         2.41         0.00
application called MPI_Abort(MPI_COMM_WORLD, 16) - process 15
`
	r := readerParse(t, text)[0]
	if len(r.Rows) != 2 || r.Rows[1].TMax != 4.66 || r.Rows[1].Defects != 0 || r.Rows[1].Processes != 16 || r.Rows[1].Line != 7 {
		t.Fatalf("rows %+v", r.Rows)
	}
	if !r.Aborted || r.Meta.Info["aborted_benchmark"] != "Reduce_scatter" {
		t.Errorf("aborted %v info %v", r.Aborted, r.Meta.Info)
	}
	want := []struct {
		line int
		text string
	}{
		{5, `Reduce_scatter: between rows: unexpected text: "15: Error Reduce_scatter,size = 4,sample #0" (2 lines, 5 to 6)`},
		{8, `Reduce_scatter: between rows: abort: "application called MPI_Abort(MPI_COMM_WORLD, 16) - process 15"`},
		{8, "Reduce_scatter: output ends without"},
	}
	if len(r.Problems) != len(want) {
		t.Fatalf("problems %v", r.Problems)
	}
	for i, w := range want {
		if p := r.Problems[i]; p.Line != w.line || !strings.HasPrefix(p.Msg, w.text) {
			t.Errorf("problem %d = %v, want line %d %q", i, p.Error(), w.line, w.text)
		}
	}
}

// Failed samples print a message instead of numbers; they become problems,
// not rows, and the table goes on.
func TestReaderFailedSamples(t *testing.T) {
	text := `#    Intel(R) MPI Benchmarks 2021.6, MPI-1 part
#----------------------------------------------------------------
# Benchmarking Biband
# #processes = 2
#----------------------------------------------------------------
       #bytes #repetitions   Mbytes/sec      Msg/sec
            0         1000         0.00      1530262
      2097152 time-out.; Time limit (secs_per_sample * msg_sizes_list_len) is over; use "-time X" or SECS_PER_SAMPLE=X (IMB_settings.h) to increase time limit.
      4194304 out-of-mem.; needed X=   2.001 GB; use flag "-mem X" or MAX_MEM_USAGE>=X (IMB_mem_info.h)


# All processes entering MPI_Finalize
`
	r := readerParse(t, text)[0]
	if r.Aborted || len(r.Rows) != 1 || r.Rows[0].MsgRate != 1530262 {
		t.Fatalf("aborted %v rows %+v", r.Aborted, r.Rows)
	}
	if len(r.Problems) != 2 || r.Problems[0].Line != 8 || r.Problems[1].Line != 9 ||
		!strings.Contains(r.Problems[0].Msg, `Biband: failed sample "2097152": time-out.`) ||
		!strings.Contains(r.Problems[1].Msg, "out-of-mem.; needed X=   2.001 GB") {
		t.Errorf("problems %v", r.Problems)
	}
}

// Junk glued before a separator (IMB-IO's "partn#---"), IMB-NBC's overlap
// columns and tiny repetition counts (intel/mpi-benchmarks#62).
func TestReaderGluedSeparatorOverlapColumns(t *testing.T) {
	text := `#    Intel(R) MPI Benchmarks 2021.3, MPI-IO partn#----------------------------------------------------------------
# Benchmarking Iread_indv
# #processes = 1
# ( 3 additional processes waiting in MPI_Barrier)
partn#----------------------------------------------------------------
       #bytes #repetitions t_ovrl[usec] t_pure[usec]  t_CPU[usec]   overlap[%]
            0         1000      9989.04         0.01      9989.50       100.00
            1            2  62446331.28      2787.53      9989.50         0.00
`
	r := readerParse(t, text)[0]
	if r.Meta.Tool != "IMB-IO" || r.Meta.Version != "2021.3" || r.Meta.Info["world_size"] != "4" {
		t.Errorf("meta %+v", r.Meta)
	}
	if len(r.Rows) != 2 {
		t.Fatalf("rows %+v problems %v", r.Rows, r.Problems)
	}
	row := r.Rows[1]
	if row.Repetitions != 2 || row.Extra["t_ovrl[usec]"] != 62446331.28 || row.Extra["overlap[%]"] != 0 || !math.IsNaN(row.TMax) {
		t.Errorf("row %+v", row)
	}
	if !r.Aborted || len(r.Problems) != 1 || r.Problems[0].Line != 8 {
		t.Errorf("problems %v", r.Problems)
	}
}

// Two complete runs in one file (IMB-MPI1 then IMB-EXT) give two runs, a
// run cut by the next banner is aborted, and a row wrapped by a pasting
// tool is joined.
func TestReaderConcatenatedRuns(t *testing.T) {
	text := `#    Intel(R) MPI Benchmarks 2019 Update 3, MPI-1 part
# Benchmarking PingPong
# #processes = 2
       #bytes #repetitions      t[usec]   Mbytes/sec
            0         1000         1.10         0.00
            1         1000
                                   1.14         0.88
# All processes entering MPI_Finalize
#    Intel (R) MPI Benchmarks 2017, MPI-2 part
# Benchmarking Unidir_Put
# #processes = 2
       #bytes #repetitions      t[usec]   Mbytes/sec
            0         1000         0.26         0.00
#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part
# Benchmarking Barrier
# #processes = 4
 #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
       100000        91.24        91.24        91.24
# All processes entering MPI_Finalize
`
	runs := readerParse(t, text)
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	if r := runs[0]; r.Aborted || len(r.Rows) != 2 || r.Rows[1].TMax != 1.14 || r.Rows[1].Line != 6 || r.Meta.MByte != result.MB {
		t.Errorf("run 0 %+v", r)
	}
	if r := runs[1]; !r.Aborted || r.Meta.Tool != "IMB-EXT" || r.Meta.MByte != result.MiB || len(r.Rows) != 1 ||
		len(r.Problems) != 1 || r.Problems[0].Line != 14 || !strings.Contains(r.Problems[0].Msg, "a new run starts at line 14") {
		t.Errorf("run 1 %+v", r)
	}
	if r := runs[2]; r.Aborted || len(r.Rows) != 1 || r.Rows[0].Bytes != -1 || r.Rows[0].Processes != 4 {
		t.Errorf("run 2 %+v", r)
	}
}

// Lines tagged by mpirun --tag-output, with stderr lines between rows.
func TestReaderTagOutput(t *testing.T) {
	text := `[1,0]<stdout>:# Benchmarking Alltoall
[1,0]<stdout>:# #processes = 2176
[1,0]<stdout>:       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
[1,0]<stdout>:            0         1000         0.01         0.02         0.01
[1,7]<stderr>:[host07:1234] warning: something slow
[1,0]<stdout>:            1         1000        10.00        11.00        10.50
`
	r := readerParse(t, text)[0]
	if len(r.Rows) != 2 || r.Rows[1].TAvg != 10.50 || r.Rows[1].Processes != 2176 {
		t.Fatalf("rows %+v", r.Rows)
	}
	if len(r.Problems) != 2 || r.Problems[0].Line != 5 || !strings.Contains(r.Problems[0].Msg, "warning: something slow") {
		t.Errorf("problems %v", r.Problems)
	}
}

func TestReaderNotIMB(t *testing.T) {
	for _, text := range []string{"", "hello\nworld\n", "# OSU MPI Latency Test v5.3.2\n# Size          Latency (us)\n0    1.07\n"} {
		_, err := Parse([]byte(text), "f.txt")
		if !errors.Is(err, ErrNotIMB) || !strings.HasPrefix(err.Error(), "f.txt: not IMB output") {
			t.Errorf("%q: err %v", text, err)
		}
	}
}

func TestVersionMByte(t *testing.T) {
	for _, c := range []struct {
		v     string
		want  float64
		known bool
	}{
		{"2.3", result.MiB, true}, {"V3.2.2", result.MiB, true}, {"4.1", result.MiB, true},
		{"2017 update 2", result.MiB, true}, {"2018 Update 1", result.MB, true},
		{"2019 Update 6", result.MB, true}, {"2021.3", result.MB, true}, {"", result.MB, false},
	} {
		got, known := VersionMByte(c.v)
		if got != c.want || known != c.known {
			t.Errorf("VersionMByte(%q) = %v, %v", c.v, got, known)
		}
	}
}
