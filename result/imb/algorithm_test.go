package imb

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
)

// TestAlgorithmLineRoundTrip writes a collective table with mpbench's
// "# Algorithm:" line (one algorithm, and ranges by size) and reads it
// back: the line sits in the section header and every row gets its
// algorithm.
func TestAlgorithmLineRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteHeader(RunInfo{Version: "test", Date: time.Unix(0, 0), MinBytes: 0, MaxBytes: 4096, Benchmarks: []string{"Allreduce", "Bcast"}}); err != nil {
		t.Fatal(err)
	}
	tables := []struct {
		spec  TableSpec
		sizes []int64
		want  []string
	}{
		{TableSpec{Benchmark: "Allreduce", Format: OutTimeRange, Processes: 4,
			Algorithm: "recursive_doubling (0-2048 bytes), rabenseifner (4096-4096 bytes)"},
			[]int64{0, 2048, 4096}, []string{"recursive_doubling", "recursive_doubling", "rabenseifner"}},
		{TableSpec{Benchmark: "Bcast", Format: OutTimeRange, Processes: 4, Algorithm: "pipeline:seg=16384"},
			[]int64{0, 4096}, []string{"pipeline:seg=16384", "pipeline:seg=16384"}},
	}
	for _, tb := range tables {
		if err := w.BeginTable(tb.spec); err != nil {
			t.Fatal(err)
		}
		for _, size := range tb.sizes {
			r := result.NewRow(tb.spec.Benchmark, 4, size)
			r.Repetitions, r.TMin, r.TMax, r.TAvg = 10, 1, 3, 2
			if err := w.WriteRow(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.Contains(text, "# #processes = 4 \n# Algorithm: pipeline:seg=16384\n#---") {
		t.Errorf("algorithm line not between the process line and the rule:\n%s", text)
	}
	runs, err := Parse(buf.Bytes(), "alg.txt")
	if err != nil || len(runs) != 1 {
		t.Fatalf("Parse: %d runs, %v", len(runs), err)
	}
	if len(runs[0].Problems) != 0 {
		t.Errorf("problems: %v", runs[0].Problems)
	}
	var got, want []string
	for _, tb := range tables {
		want = append(want, tb.want...)
	}
	for _, r := range runs[0].Rows {
		got = append(got, r.Algorithm)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows' algorithms %q, want %q", got, want)
	}
}
