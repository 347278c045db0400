package read

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
)

// corpusSummary is what every file of the corpus (testdata/corpus) reads as: runs,
// rows in all runs, problems in all runs and how many runs are aborted.
// The per-file details are tested in result/imb and result/osu.
var corpusSummary = []struct {
	file                            string
	format                          string // Detect's name
	runs, rows, problems, abortions int
}{
	{"001-imb41-mpi1-full-aarch64.txt", "imb", 1, 379, 0, 0},
	{"002-imb41-ext-intranode.txt", "imb", 1, 242, 0, 0},
	{"003-osu532-bibw.txt", "osu", 1, 23, 0, 0},
	{"004-osu532-latency.txt", "osu", 1, 24, 0, 0},
	{"005-imb2018u1-pingpong-wrapped.txt", "imb", 1, 24, 1, 0},
	{"006-imb2019u3-pingpong.txt", "imb", 1, 24, 1, 0},
	{"007-osu58-bw.txt", "osu", 1, 23, 0, 0},
	{"008-imb2017-pingpong-wrapped-callseq.txt", "imb", 1, 26, 1, 0},
	{"010-imb2019u6-multi-pingpong.txt", "imb", 1, 2, 0, 0},
	{"011-imb2019u6-multi-barrier.txt", "imb", 1, 2, 0, 0},
	{"013-imb2019-impi-debug-prefix.txt", "imb", 1, 0, 2, 1},
	{"014-imb2019u6-pingpong-showtail.txt", "imb", 1, 2, 0, 0},
	{"015-imbrma2019-invalid-benchmark-names.txt", "imb", 1, 2, 3, 1},
	{"016-osu571-allreduce-full-impi-debug.txt", "osu", 1, 2, 1, 0},
	{"017-osu571-ialltoall-nbc.txt", "osu", 1, 2, 1, 0},
	{"018-osu571-mbw-mr.txt", "osu", 1, 2, 1, 0},
	{"020-osu571-latency-mt.txt", "osu", 1, 2, 1, 0},
	{"021-osu571-put-bibw.txt", "osu", 1, 2, 1, 0},
	{"022-osu571-barrier.txt", "osu", 1, 1, 1, 0},
	{"023-osu571-latency-mp.txt", "osu", 1, 2, 1, 0},
	{"025-imb2017u2-alltoallv-darwin.txt", "imb", 1, 24, 0, 0},
	{"027-imb2021.3-allreduce-np1-prompt.txt", "imb", 1, 22, 0, 0},
	{"028-imbp2p-pingpong-msgsec-snippet.txt", "imb", 1, 9, 2, 1},
	{"030-imb-uniband-csd3-impi19.txt", "imb", 1, 120, 1, 0},
	{"031-imb2017-alltoall-spreadsheet-paste-issue.txt", "imb", 1, 10, 2, 1},
	{"032-imb-allreduce-check-defects-timestamped-issue.txt", "imb", 1, 7, 2, 1},
	{"033-imb-allreduce-np1024-hang-truncated-issue.txt", "imb", 1, 13, 2, 1},
	{"034-osu75-alltoallv-full-tail-markdown-issue.txt", "osu", 1, 1, 1, 0},
	{"036-osu532-alltoall-full-two-runs-issue.txt", "osu", 2, 8, 3, 2},
	{"037-imb23-sendrecv-segfault-mailinglist.txt", "imb", 1, 0, 5, 1},
	{"038-osu70-alltoallw-avgonly-customver-issue.txt", "osu", 1, 13, 0, 0},
}

func TestCorpusEveryFile(t *testing.T) {
	dir := testcorpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(corpusSummary) {
		t.Errorf("corpus has %d files, the table %d: add the new files", len(files), len(corpusSummary))
	}
	for _, c := range corpusSummary {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			data := testcorpus.Read(t, c.file)
			if f := Detect(data); f != c.format {
				t.Errorf("Detect = %q, want %q", f, c.format)
			}
			runs, err := File(path)
			if err != nil {
				t.Fatal(err)
			}
			rows, problems, aborted := 0, 0, 0
			for _, r := range runs {
				rows += len(r.Rows)
				problems += len(r.Problems)
				if r.Aborted {
					aborted++
				}
				for _, p := range r.Problems {
					if p.File != path || p.Line < 1 {
						t.Errorf("problem position %v", p.Error())
					}
				}
			}
			if len(runs) != c.runs || rows != c.rows || problems != c.problems || aborted != c.abortions {
				t.Errorf("runs %d rows %d problems %d aborted %d, want %d %d %d %d",
					len(runs), rows, problems, aborted, c.runs, c.rows, c.problems, c.abortions)
			}
		})
	}
}

func TestNotBenchmark(t *testing.T) {
	for _, text := range []string{"", "hello\n# just a comment\n1 2 3\n", "{\"a\":1}\n"} {
		_, err := Read(strings.NewReader(text), "notes.txt")
		if !errors.Is(err, ErrNotBenchmark) || err.Error() != "notes.txt: not benchmark output (no benchmark table found)" {
			t.Errorf("%q: err %v", text, err)
		}
	}
	// A table of file names quoting IMB's markers ("# Benchmarking
	// Multi-PingPong', ...", "Intel (R) MPI Benchmarks") is not IMB output.
	if _, err := File(filepath.Join(filepath.Dir(testcorpus.Dir(t)), "MANIFEST.tsv")); !errors.Is(err, ErrNotBenchmark) {
		t.Errorf("corpus manifest: err %v, want not benchmark output", err)
	}
	// IMB's banner rule alone, after launcher lines, is IMB output that
	// ended early (a log cut right after the banner).
	runs, err := Read(strings.NewReader("[0] MPI startup(): I_MPI_DEBUG=5\n#"+strings.Repeat("-", 60)+"\n"), "cut.txt")
	if err != nil || len(runs) != 1 || !runs[0].Aborted {
		t.Errorf("banner rule alone: %d runs, err %v; want one aborted run", len(runs), err)
	}
	if _, err := File(filepath.Join(t.TempDir(), "missing.txt")); err == nil || errors.Is(err, ErrNotBenchmark) {
		t.Errorf("missing file: %v", err)
	}
}

// mpbench's own files are read back through Read: JSON Lines and CSV from
// result/rowfile, and the IMB-format text of result/imb's Writer.
func TestRowFileAndIMBWriterRoundTrip(t *testing.T) {
	meta := result.Meta{Tool: "mpbench", Version: "0.1.0", MByte: result.MB, Transport: "tcp"}
	row := result.NewRow("PingPong", 2, 1024)
	row.Repetitions, row.TMax, row.MBps = 1000, 2.01, 509.55

	for _, c := range []struct {
		format string
		w      func(*bytes.Buffer) rowfile.Writer
	}{
		{"jsonl", func(b *bytes.Buffer) rowfile.Writer { return rowfile.NewJSONLWriter(b) }},
		{"csv", func(b *bytes.Buffer) rowfile.Writer { return rowfile.NewCSVWriter(b) }},
	} {
		var b bytes.Buffer
		w := c.w(&b)
		if err := w.WriteMeta(meta); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRow(row); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteEnd(nil); err != nil {
			t.Fatal(err)
		}
		if f := Detect(b.Bytes()); f != c.format {
			t.Errorf("Detect = %q, want %q", f, c.format)
		}
		runs, err := Read(&b, "r")
		if err != nil || len(runs) != 1 || len(runs[0].Rows) != 1 || runs[0].Rows[0].MBps != 509.55 || runs[0].Aborted {
			t.Errorf("%v: runs %+v err %v", c.format, runs, err)
		}
	}

	var b bytes.Buffer
	w := imb.NewWriter(&b)
	if err := w.WriteHeader(imb.RunInfo{Version: "0.1.0", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Transport: "tcp", MByte: result.MB, Command: []string{"mpbench", "run", "pingpong"},
		MinBytes: 0, MaxBytes: 1024, Benchmarks: []string{"PingPong"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginTable(imb.TableSpec{Benchmark: "PingPong", Format: imb.OutTimeBW, Processes: 2, Multi: result.MultiNone}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runs, err := Read(&b, "imb.txt")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v err %v", runs, err)
	}
	r := runs[0]
	if r.Meta.Tool != "mpbench" || r.Meta.Version != "0.1.0" || r.Meta.Transport != "tcp" || r.Meta.MByte != result.MB || r.Aborted || len(r.Problems) != 0 {
		t.Errorf("meta %+v aborted %v problems %v", r.Meta, r.Aborted, r.Problems)
	}
	if len(r.Rows) != 1 || r.Rows[0].Bytes != 1024 || r.Rows[0].TMax != 2.01 || r.Rows[0].MBps != 509.55 || r.Rows[0].Processes != 2 {
		t.Errorf("rows %+v", r.Rows)
	}
}

// BenchmarkReadCorpus reads every corpus file once per iteration.
// Run: go test ./result/read -run '^$' -bench ReadCorpus
func BenchmarkReadCorpus(b *testing.B) {
	dir := testcorpus.Dir(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	var data [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	b.ResetTimer()
	for b.Loop() {
		for i, d := range data {
			if _, err := Read(bytes.NewReader(d), files[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestMixedToolsOneFile: a log with an IMB run then two OSU runs, and one
// with an OSU run then an IMB run, with shell prompts, a checksum line,
// job-scheduler mail and a job-step line between them: every run is read,
// in file order, with its rows on the file's own line numbers, and the
// lines of no run are counted in one problem per run.
func TestMixedToolsOneFile(t *testing.T) {
	type want struct {
		tool, bench string
		procs, rows int
		firstLine   int    // file line of the first row
		skipped     string // the run's skipped-lines problem, "" for none
	}
	for _, c := range []struct {
		file string
		runs []want
	}{
		{"imb-then-osu.txt", []want{
			{"IMB-MPI1", "PingPong", 2, 12, 39, `skipped 3 line(s) that are not part of any run (first at imb-then-osu.txt:1: "$ srun -N 2 hostname")`},
			{"OSU", "osu_allreduce", 8, 9, 60, `skipped 1 line(s) that are not part of any run (first at imb-then-osu.txt:55: "md5sum: 3b5d5c3712955042212316173ccf37be  imb.out")`},
			{"OSU", "osu_bw", 2, 23, 73, `skipped 2 line(s) that are not part of any run (first at imb-then-osu.txt:97: "From: SLURM workload manager <slurm@cluster>")`},
		}},
		{"osu-then-imb.txt", []want{
			{"OSU", "osu_latency", 2, 11, 5, ""},
			{"IMB-MPI1", "PingPong", 2, 10, 51, `skipped 1 line(s) that are not part of any run (first at osu-then-imb.txt:16: "Job 1235 step 1 completed")`},
		}},
	} {
		data, err := os.ReadFile(testcorpus.Class(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		runs, err := Read(bytes.NewReader(data), c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(runs) != len(c.runs) {
			t.Fatalf("%s: %d runs, want %d", c.file, len(runs), len(c.runs))
		}
		lines := strings.Split(string(data), "\n")
		for i, w := range c.runs {
			r := runs[i]
			if r.Meta.Tool != w.tool || len(r.Rows) != w.rows || r.Rows[0].Benchmark != w.bench || r.Rows[0].Processes != w.procs ||
				r.Rows[0].Line != w.firstLine || r.Aborted {
				t.Errorf("%s run %d: %s %d rows of %s on %d, first at line %d, aborted %v; want %+v", c.file, i, r.Meta.Tool, len(r.Rows),
					r.Rows[0].Benchmark, r.Rows[0].Processes, r.Rows[0].Line, r.Aborted, w)
				continue
			}
			if f := strings.Fields(lines[r.Rows[0].Line-1]); f[0] != strconv.FormatInt(r.Rows[0].Bytes, 10) {
				t.Errorf("%s run %d: row line %d reads %q, not the row of %d B", c.file, i, r.Rows[0].Line, lines[r.Rows[0].Line-1], r.Rows[0].Bytes)
			}
			var got []string
			for _, p := range r.Problems {
				got = append(got, p.Msg)
			}
			if w.skipped == "" && len(got) != 0 || w.skipped != "" && (len(got) != 1 || got[0] != w.skipped) {
				t.Errorf("%s run %d: problems %q, want %q", c.file, i, got, w.skipped)
			}
		}
		if c.file == "imb-then-osu.txt" && runs[1].Meta.Info["processes_inferred"] != "8, the launcher's -np 8" {
			t.Errorf("osu_allreduce: processes_inferred %q", runs[1].Meta.Info["processes_inferred"])
		}
	}
}

// endless is a stream of zeros that never ends, as /dev/zero reads.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadTooLarge: input beyond maxInput (lowered here to 1 MiB) fails
// with ErrTooLarge after reading maxInput+1 bytes, for a stream that never
// ends and for a regular file (refused from its size, unread); input of
// exactly maxInput bytes is read as usual (here: in no format).
func TestReadTooLarge(t *testing.T) {
	defer func(m int64) { maxInput = m }(maxInput)
	maxInput = 1 << 20
	src := &endless{}
	_, err := Read(src, "/dev/zero")
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "/dev/zero: more than 256 MiB") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Read of an endless stream: %v, want one line wrapping ErrTooLarge", err)
	}
	if src.n > maxInput+64<<10 {
		t.Errorf("read %d bytes of an endless stream, want about %d", src.n, maxInput+1)
	}
	if _, err := Read(bytes.NewReader(make([]byte, maxInput)), "z"); !errors.Is(err, ErrNotBenchmark) {
		t.Errorf("Read of %d zero bytes: %v, want ErrNotBenchmark", maxInput, err)
	}
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, make([]byte, maxInput+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := File(path); !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("File of %d bytes: %v, want ErrTooLarge naming the path", maxInput+1, err)
	}
}
