package rowfile

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/corpustest"
)

// seedFiles are files of both formats written by the writers: a complete
// run, a failed one, two concatenated runs and a truncated one.
func seedFiles(f *testing.F, c codec) [][]byte {
	f.Helper()
	var out [][]byte
	write := func(rows []result.Row, end bool, runErr error) []byte {
		var buf bytes.Buffer
		w := c.write(&buf)
		err := w.WriteMeta(testMeta())
		for _, r := range rows {
			err = errors.Join(err, w.WriteRow(r))
		}
		if end {
			err = errors.Join(err, w.WriteEnd(runErr))
		}
		if err != nil {
			f.Fatal(err)
		}
		return buf.Bytes()
	}
	rows := testRows()
	rows[0].Spread = result.NewSpread(1, []float64{1, 2, 3})
	full := write(rows, true, nil)
	out = append(out, full, write(rows[:2], true, errors.New("rank 1: killed by SIGKILL")),
		append(append([]byte{}, full...), write(rows[2:], true, nil)...), full[:len(full)-9])
	return out
}

// FuzzReadJSONL checks ReadJSONL on any input: it never fails (the error is
// for a failing reader only), every row and problem names a line of the
// input, every problem is one line, every row names its benchmark, and
// what it read survives a round trip through both writers and readers.
// Run: go test ./result/rowfile -run '^$' -fuzz '^FuzzReadJSONL$' -fuzztime 30s
func FuzzReadJSONL(f *testing.F) {
	for _, s := range seedFiles(f, codecs[0]) {
		f.Add(s)
	}
	f.Add([]byte(`{"type":"row","benchmark":"x"}` + "\n" + `{"type":"meta","mbyte":1e6}` + "\n" + `{"type":"end","status":"failed","error":"a\nb"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ReadJSONL(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatalf("ReadJSONL of an in-memory input failed: %v", err)
		}
		checkRead(t, runs, data)
		for _, r := range runs {
			checkRoundTrip(t, r)
		}
	})
}

// FuzzReadCSV is FuzzReadJSONL for ReadCSV.
// Run: go test ./result/rowfile -run '^$' -fuzz '^FuzzReadCSV$' -fuzztime 30s
func FuzzReadCSV(f *testing.F) {
	for _, s := range seedFiles(f, codecs[1]) {
		f.Add(s)
	}
	f.Add([]byte("# format=mpbench-csv 1\n# mbyte=inf\n# option.a=b=c\nbenchmark,bytes,t_max_usec\n#x,1,2\n\"a\nb\",1,inf\n# end=failed: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ReadCSV(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatalf("ReadCSV of an in-memory input failed: %v", err)
		}
		checkRead(t, runs, data)
		for _, r := range runs {
			checkRoundTrip(t, r)
		}
	})
}

// checkRead asserts what every read must give, whatever the input.
func checkRead(t *testing.T, runs []result.Run, data []byte) {
	t.Helper()
	corpustest.CheckPositions(t, runs, "fuzz", data, 1)
	for _, r := range runs {
		for _, p := range r.Problems {
			if strings.ContainsAny(p.Msg, "\r\n") || p.Msg == "" {
				t.Fatalf("problem message is not one line: %q", p.Msg)
			}
		}
		for _, row := range r.Rows {
			if row.Benchmark == "" {
				t.Fatalf("row at line %d without a benchmark name", row.Line)
			}
			for _, v := range []float64{row.TMin, row.TMax, row.TAvg, row.MBps, row.MsgRate, row.Defects} {
				if math.IsInf(v, 0) {
					t.Fatalf("row at line %d has an infinite value: %+v", row.Line, row)
				}
			}
		}
		if m := r.Meta.MByte; math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			t.Fatalf("run read with mbyte %v", m)
		}
	}
}

// checkRoundTrip writes run with each writer, reads it back and compares.
// Text that a format cannot carry exactly is compared as the writer
// documents it: line breaks become spaces, surrounding blanks of meta
// values are not kept by CSV, and invalid UTF-8 is replaced by JSON.
func checkRoundTrip(t *testing.T, run result.Run) {
	t.Helper()
	for _, c := range codecs {
		var buf bytes.Buffer
		w := c.write(&buf)
		var runErr error
		if run.Aborted {
			runErr = errors.New("aborted")
		}
		err := w.WriteMeta(run.Meta)
		for _, row := range run.Rows {
			err = errors.Join(err, w.WriteRow(row))
		}
		if err = errors.Join(err, w.WriteEnd(runErr)); err != nil {
			t.Fatalf("%s: writing a run read from a file: %v", c.name, err)
		}
		back, err := c.read(bytes.NewReader(buf.Bytes()), "back")
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: read back %d runs, %v; file:\n%s", c.name, len(back), err, buf.Bytes())
		}
		got := back[0]
		problems := got.Problems
		if run.Aborted && len(problems) == 1 && problems[0].Msg == "run failed: aborted" {
			problems = nil
		}
		if len(problems) > 0 || got.Aborted != run.Aborted || len(got.Rows) != len(run.Rows) {
			t.Fatalf("%s: read back aborted=%v rows=%d problems=%v, want aborted=%v rows=%d; file:\n%s",
				c.name, got.Aborted, len(got.Rows), got.Problems, run.Aborted, len(run.Rows), buf.Bytes())
		}
		for i := range run.Rows {
			want := run.Rows[i]
			want.Benchmark, want.Algorithm = norm(want.Benchmark), norm(want.Algorithm)
			g := got.Rows[i]
			g.Benchmark, g.Algorithm = norm(g.Benchmark), norm(g.Algorithm)
			checkRow(t, g, want)
			if a, b := g.Spread, want.Spread; (a == nil) != (b == nil) || a != nil && (a.Rank != b.Rank || a.N != b.N ||
				!sameFloat(a.Min, b.Min) || !sameFloat(a.P50, b.P50) || !sameFloat(a.P90, b.P90) ||
				!sameFloat(a.P99, b.P99) || !sameFloat(a.Max, b.Max) || !sameFloat(a.CV, b.CV)) {
				t.Fatalf("%s: row %d spread %+v, want %+v", c.name, i, a, b)
			}
		}
		m, wm := got.Meta, run.Meta
		if norm(m.Tool) != norm(wm.Tool) || norm(m.Version) != norm(wm.Version) || m.MByte != wm.MByte ||
			norm(m.Date) != norm(wm.Date) || norm(m.Host) != norm(wm.Host) ||
			norm(m.Transport) != norm(wm.Transport) || norm(m.Command) != norm(wm.Command) ||
			!sameMap(m.Options, wm.Options) || !sameMap(m.Info, wm.Info) {
			t.Fatalf("%s: meta differs:\n got %+v\nwant %+v", c.name, m, wm)
		}
	}
}

// norm is s as every format keeps it (see checkRoundTrip).
func norm(s string) string {
	return strings.TrimSpace(oneLine(string([]rune(s))))
}

// sameMap compares two meta maps under norm, keys as CSV writes them.
func sameMap(a, b map[string]string) bool {
	na, nb := map[string]string{}, map[string]string{}
	for k, v := range a {
		na[norm(metaKey(k))] = norm(v)
	}
	for k, v := range b {
		nb[norm(metaKey(k))] = norm(v)
	}
	if len(na) != len(nb) {
		return false
	}
	for k, v := range na {
		if w, ok := nb[k]; !ok || w != v {
			return false
		}
	}
	return true
}
