package read

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// FuzzRead checks format detection and reading on any input: Read never
// panics; it fails exactly when the input is in no format (ErrNotBenchmark,
// one line); the format does not depend on blank lines before the text; an
// mpbench JSONL or CSV file reads as its own reader reads it; and every row
// and problem names a line of the input.
// Run: go test ./result/read -run '^$' -fuzz '^FuzzRead$' -fuzztime 30s
func FuzzRead(f *testing.F) {
	for _, data := range testcorpus.Matching(f, "*.txt") {
		if len(data) <= 8<<10 { // small files: the fuzzer mutates them faster
			f.Add(data)
		}
	}
	for _, w := range []func(*bytes.Buffer) rowfile.Writer{
		func(b *bytes.Buffer) rowfile.Writer { return rowfile.NewJSONLWriter(b) },
		func(b *bytes.Buffer) rowfile.Writer { return rowfile.NewCSVWriter(b) },
	} {
		var buf bytes.Buffer
		fw := w(&buf)
		row := result.NewRow("PingPong", 2, 1024)
		row.Repetitions, row.TMax, row.MBps = 1000, 1.5, 682.67
		if err := errors.Join(fw.WriteMeta(result.Meta{Tool: "mpbench", MByte: result.MB}), fw.WriteRow(row), fw.WriteEnd(nil)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		format := Detect(data)
		if again := Detect(append([]byte("\n \n"), data...)); again != format {
			t.Fatalf("blank lines before the text change the format from %q to %q", format, again)
		}
		runs, err := Read(bytes.NewReader(data), "fuzz")
		if format == "" && !errors.Is(err, ErrNotBenchmark) {
			t.Fatalf("input in no format read as %d runs, error %v", len(runs), err)
		}
		if err != nil {
			if len(runs) != 0 || !errors.Is(err, ErrNotBenchmark) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q with %d runs; want one line wrapping ErrNotBenchmark and no runs", err, len(runs))
			}
			return
		}
		if len(runs) == 0 {
			t.Fatal("no runs and no error")
		}
		var own []result.Run
		switch format {
		case "jsonl":
			own, _ = rowfile.ReadJSONL(bytes.NewReader(data), "fuzz")
		case "csv":
			own, _ = rowfile.ReadCSV(bytes.NewReader(data), "fuzz")
		}
		if own != nil && (len(own) != len(runs) || rowCount(own) != rowCount(runs)) {
			t.Fatalf("%v file: Read gives %d runs of %d rows, its reader %d of %d", format, len(runs), rowCount(runs), len(own), rowCount(own))
		}
		for _, r := range runs {
			for _, row := range r.Rows {
				if row.File != "fuzz" || row.Line < 1 || row.Line > bytes.Count(data, []byte("\n"))+1+bytes.Count(data, []byte("\r")) {
					t.Fatalf("row at %s:%d outside the input", row.File, row.Line)
				}
			}
		}
	})
}

func rowCount(runs []result.Run) int {
	n := 0
	for _, r := range runs {
		n += len(r.Rows)
	}
	return n
}
