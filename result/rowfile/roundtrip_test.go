package rowfile

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// codec is one of the two row-file formats.
type codec struct {
	name  string
	write func(w io.Writer) Writer
	read  func(r io.Reader, name string) ([]result.Run, error)
}

var codecs = []codec{
	{"jsonl", func(w io.Writer) Writer { return NewJSONLWriter(w) }, ReadJSONL},
	{"csv", func(w io.Writer) Writer { return NewCSVWriter(w) }, ReadCSV},
}

// testMeta is a run's metadata with awkward values (commas, quotes, '=').
func testMeta() result.Meta {
	return result.Meta{
		Tool: "mpbench", Version: "0.1.0", MByte: result.MiB, Date: "2026-01-02T15:04:05Z",
		Host: "node1", Transport: "tcp", Command: `mpbench run -np 4 -msglog 0:3 "ping,pong"`,
		Options: map[string]string{"np": "4", "msglog": "0:3", "msglen": "a=b.txt"},
		Info:    map[string]string{"cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz, rev 1", "cores": "2", "go": "go1.26.8"},
	}
}

// testRows covers every field: absent values, Barrier's missing size,
// -multi 1 groups, extra columns and algorithm names.
func testRows() []result.Row {
	a := result.NewRow("PingPong", 2, 0)
	a.Repetitions, a.TMax, a.MBps = 1000, 1.1, 0
	b := result.NewRow("PingPong", 2, 4194304)
	b.Repetitions, b.TMax, b.MBps = 10, 351.28, 11940.0700000001
	b.Multi, b.Groups, b.Group = result.MultiEach, 2, 1
	c := result.NewRow("Allreduce", 4, 1024)
	c.Repetitions, c.TMin, c.TMax, c.TAvg, c.Defects = 1000, 3.82, 3.99, 3.89, 0
	c.Algorithm = "recursive doubling, \"rd\""
	c.Extra = map[string]float64{"P50 Tail Lat(us)": 3.5, "gap": math.NaN()}
	d := result.NewRow("Barrier", 4, -1)
	d.Repetitions, d.TMin, d.TMax, d.TAvg = 1000, 80.75, 81.05, 80.9
	e := result.NewRow("Uniband", 4, 1)
	e.Repetitions, e.MBps, e.MsgRate = 1000, 7.49, 7485345
	return []result.Row{a, b, c, d, e}
}

// sameFloat treats two NaNs as equal.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func checkRow(t *testing.T, got, want result.Row) {
	t.Helper()
	ok := got.Benchmark == want.Benchmark && got.Processes == want.Processes && got.Multi == want.Multi &&
		got.Groups == want.Groups && got.Group == want.Group && got.Bytes == want.Bytes &&
		got.Repetitions == want.Repetitions && got.Algorithm == want.Algorithm &&
		sameFloat(got.TMin, want.TMin) && sameFloat(got.TMax, want.TMax) && sameFloat(got.TAvg, want.TAvg) &&
		sameFloat(got.MBps, want.MBps) && sameFloat(got.MsgRate, want.MsgRate) && sameFloat(got.Defects, want.Defects) &&
		len(got.Extra) == len(want.Extra)
	for k, v := range want.Extra {
		ok = ok && sameFloat(got.Extra[k], v)
	}
	if !ok {
		t.Errorf("row differs:\n got %+v\nwant %+v", got, want)
	}
}

func writeRun(t *testing.T, c codec, rows []result.Row, end bool, runErr error) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	w := c.write(&buf)
	if err := w.WriteMeta(testMeta()); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if end {
		if err := w.WriteEnd(runErr); err != nil {
			t.Fatal(err)
		}
	}
	return &buf
}

func TestRoundTrip(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			rows := testRows()
			buf := writeRun(t, c, rows, true, nil)
			runs, err := c.read(buf, "run."+c.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("got %d runs, want 1", len(runs))
			}
			run := runs[0]
			if run.Aborted || len(run.Problems) > 0 {
				t.Errorf("complete run read as aborted=%v problems=%v", run.Aborted, run.Problems)
			}
			m, want := run.Meta, testMeta()
			if m.Tool != want.Tool || m.Version != want.Version || m.MByte != want.MByte || m.Date != want.Date ||
				m.Host != want.Host || m.Transport != want.Transport || m.Command != want.Command {
				t.Errorf("meta differs:\n got %+v\nwant %+v", m, want)
			}
			for k, v := range want.Options {
				if m.Options[k] != v {
					t.Errorf("option %s = %q, want %q", k, m.Options[k], v)
				}
			}
			for k, v := range want.Info {
				if m.Info[k] != v {
					t.Errorf("info %s = %q, want %q", k, m.Info[k], v)
				}
			}
			if len(run.Rows) != len(rows) {
				t.Fatalf("got %d rows, want %d", len(run.Rows), len(rows))
			}
			for i := range rows {
				checkRow(t, run.Rows[i], rows[i])
				if run.Rows[i].File != "run."+c.name || run.Rows[i].Line == 0 {
					t.Errorf("row %d position %s:%d", i, run.Rows[i].File, run.Rows[i].Line)
				}
			}
		})
	}
}

// TestTruncatedRunKeepsRows cuts the file in the middle of the last row, as
// a killed run leaves it: the complete rows read, the run is Aborted and
// the broken line is a Problem.
func TestTruncatedRunKeepsRows(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			rows := testRows()
			text := writeRun(t, c, rows, false, nil).String()
			text = text[:len(text)-6]
			runs, err := c.read(strings.NewReader(text), "cut")
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || !runs[0].Aborted {
				t.Fatalf("want one aborted run, got %+v", runs)
			}
			if got := len(runs[0].Rows); got != len(rows)-1 {
				t.Errorf("got %d rows, want %d", got, len(rows)-1)
			}
			if len(runs[0].Problems) != 1 {
				t.Errorf("want 1 problem for the cut line, got %v", runs[0].Problems)
			}
		})
	}
}

// TestFailedRun records the run's error at the end.
func TestFailedRun(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			buf := writeRun(t, c, testRows()[:2], true, errors.New("rank 1: connection reset\nby peer"))
			runs, _ := c.read(buf, "f")
			if len(runs) != 1 || !runs[0].Aborted || len(runs[0].Rows) != 2 {
				t.Fatalf("want one aborted run with 2 rows, got %+v", runs)
			}
			if len(runs[0].Problems) != 1 || !strings.Contains(runs[0].Problems[0].Msg, "rank 1: connection reset by peer") &&
				!strings.Contains(runs[0].Problems[0].Msg, "rank 1: connection reset\nby peer") {
				t.Errorf("problem should carry the error: %v", runs[0].Problems)
			}
		})
	}
}

// TestConcatenatedRuns reads two runs written one after the other.
func TestConcatenatedRuns(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			a := writeRun(t, c, testRows()[:1], true, nil)
			b := writeRun(t, c, testRows()[1:4], true, nil)
			runs, _ := c.read(io.MultiReader(a, b), "two")
			if len(runs) != 2 || len(runs[0].Rows) != 1 || len(runs[1].Rows) != 3 || runs[0].Aborted || runs[1].Aborted {
				t.Fatalf("want runs of 1 and 3 rows, got %+v", runs)
			}
		})
	}
}

// flushCounter counts Flush calls of a buffering writer.
type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() error { f.flushes++; return nil }

// TestFlushPerRow checks that every row is pushed through a buffering
// writer before WriteRow returns.
func TestFlushPerRow(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			var fc flushCounter
			w := c.write(&fc)
			if err := w.WriteMeta(testMeta()); err != nil {
				t.Fatal(err)
			}
			for i, r := range testRows() {
				if err := w.WriteRow(r); err != nil {
					t.Fatal(err)
				}
				if fc.flushes != i+2 {
					t.Fatalf("after row %d: %d flushes, want %d", i, fc.flushes, i+2)
				}
			}
		})
	}
}

func TestCSVHeaderNamesEveryColumn(t *testing.T) {
	text := writeRun(t, codecs[1], nil, false, nil).String()
	want := strings.Join(CSVColumns, ",") + "\n"
	if !strings.HasSuffix(text, want) {
		t.Errorf("header line missing; file:\n%s", text)
	}
	if !strings.Contains(text, "# mbyte=1048576\n") || !strings.Contains(text, "# option.msglen=a=b.txt\n") {
		t.Errorf("meta lines missing:\n%s", text)
	}
}

// TestJSONLSpread checks that a row's spread is written as the documented
// "spread" object and read back, without its samples.
func TestJSONLSpread(t *testing.T) {
	row := result.NewRow("Allreduce", 4, 1024)
	row.Repetitions, row.TMax = 4, 3
	row.Spread = result.NewSpread(2, []float64{2, 4, 3, 3})
	var buf bytes.Buffer
	w := NewJSONLWriter(&buf)
	if err := errors.Join(w.WriteMeta(result.Meta{Tool: "mpbench", MByte: result.MB}), w.WriteRow(row), w.WriteEnd(nil)); err != nil {
		t.Fatal(err)
	}
	want := `"spread":{"rank":2,"n":4,"min_usec":2,"p50_usec":3,"p90_usec":4,"p99_usec":4,"max_usec":4,"cv":0.2721655269759087}`
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("JSON lacks %s:\n%s", want, buf.String())
	}
	runs, err := ReadJSONL(&buf, "s.jsonl")
	if err != nil || len(runs) != 1 || len(runs[0].Rows) != 1 {
		t.Fatalf("read back: %v %+v", err, runs)
	}
	got := runs[0].Rows[0].Spread
	if got == nil || got.Rank != 2 || got.N != 4 || got.P50 != 3 || got.Max != 4 || got.Samples != nil || math.Abs(got.CV-0.2721655269759087) > 1e-15 {
		t.Errorf("read back spread %+v", got)
	}
}

// TestCSVSpread checks that a row's spread is written in the spread_*
// columns and read back; a row without one leaves them empty.
func TestCSVSpread(t *testing.T) {
	row := result.NewRow("Allreduce", 4, 1024)
	row.Repetitions, row.TMax = 4, 3
	row.Spread = result.NewSpread(2, []float64{2, 4, 3, 3})
	plain := result.NewRow("Allreduce", 4, 2048)
	var buf bytes.Buffer
	w := NewCSVWriter(&buf)
	if err := errors.Join(w.WriteMeta(result.Meta{Tool: "mpbench", MByte: result.MB}), w.WriteRow(row), w.WriteRow(plain), w.WriteEnd(nil)); err != nil {
		t.Fatal(err)
	}
	if want := ",2,4,2,3,4,4,4,0.2721655269759087\n"; !strings.Contains(buf.String(), want) {
		t.Fatalf("CSV lacks %q:\n%s", want, buf.String())
	}
	if want := ",,,,,,,,\n"; !strings.Contains(buf.String(), want) {
		t.Fatalf("the row without a spread does not end in empty spread cells:\n%s", buf.String())
	}
	runs, err := ReadCSV(&buf, "s.csv")
	if err != nil || len(runs) != 1 || len(runs[0].Rows) != 2 {
		t.Fatalf("read back: %v %+v", err, runs)
	}
	got := runs[0].Rows[0].Spread
	if got == nil || got.Rank != 2 || got.N != 4 || got.Min != 2 || got.P50 != 3 || got.P90 != 4 || got.Max != 4 || math.Abs(got.CV-0.2721655269759087) > 1e-15 {
		t.Errorf("read back spread %+v", got)
	}
	if s := runs[0].Rows[1].Spread; s != nil {
		t.Errorf("row without a spread read back with %+v", s)
	}
}
