package read

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// errNotToy is the toy format's NotFormat.
var errNotToy = errors.New("not toy output")

// The toy format lives in this test file alone: a file starting with
// "# toy-results" whose lines are "BYTES USEC" PingPong rows. Registering
// it is all a new format needs for Detect and Read to know it.
func init() {
	result.RegisterFormat(result.Format{
		Name:      "toy",
		Title:     "toy results",
		Signature: func(first []byte) bool { return strings.HasPrefix(string(first), "# toy-results") },
		Parse: func(data []byte, name string) ([]result.Run, error) {
			run := result.Run{Meta: result.Meta{Tool: "toy"}}
			for i, l := range strings.Split(string(data), "\n") {
				f := strings.Fields(l)
				if len(f) != 2 || strings.HasPrefix(l, "#") {
					continue
				}
				b, err1 := strconv.ParseInt(f[0], 10, 64)
				t, err2 := strconv.ParseFloat(f[1], 64)
				if err1 != nil || err2 != nil {
					continue
				}
				r := result.NewRow("PingPong", 2, b)
				r.TMax, r.File, r.Line = t, name, i+1
				run.Rows = append(run.Rows, r)
			}
			if len(run.Rows) == 0 {
				return nil, errNotToy
			}
			return []result.Run{run}, nil
		},
		NotFormat: errNotToy,
	})
}

// TestRegisteredFormat reads the toy format registered above: detected by
// its signature, read by its Parse, and its NotFormat error is "not a
// benchmark file" as the built-in formats' are.
func TestRegisteredFormat(t *testing.T) {
	if got := Detect([]byte("\n  # toy-results v1\n0 1.5\n")); got != "toy" {
		t.Fatalf("Detect = %q, want toy", got)
	}
	runs, err := Read(strings.NewReader("# toy-results v1\n0 1.5\n1024 2.25\n"), "t.toy")
	if err != nil || len(runs) != 1 || runs[0].Meta.Tool != "toy" || len(runs[0].Rows) != 2 {
		t.Fatalf("runs %+v, err %v", runs, err)
	}
	if r := runs[0].Rows[1]; r.Bytes != 1024 || r.TMax != 2.25 || r.Line != 3 || r.File != "t.toy" {
		t.Errorf("row %+v", r)
	}
	if _, err := Read(strings.NewReader("# toy-results v1\nnothing\n"), "e.toy"); !errors.Is(err, ErrNotBenchmark) {
		t.Errorf("toy file without rows: %v, want ErrNotBenchmark", err)
	}
}

// TestFormatOrder: the built-in formats are registered, OSU's mark asked
// before IMB's (an OSU title may hold "MPI Benchmark"), and a line both
// marks claim is OSU's.
func TestFormatOrder(t *testing.T) {
	var names []string
	for _, f := range result.Formats() {
		names = append(names, f.Name)
	}
	got := strings.Join(names, " ")
	for _, want := range []string{"imb", "osu", "jsonl", "csv"} {
		if _, ok := result.LookupFormat(want); !ok {
			t.Errorf("format %s not registered (have %s)", want, got)
		}
	}
	if strings.Index(got, "osu") > strings.Index(got, "imb") {
		t.Errorf("formats in order %s: want osu before imb", got)
	}
	if f := Detect([]byte("# OSU MPI Benchmark Latency Test v7.1\n")); f != "osu" {
		t.Errorf("a title both marks claim: %q, want osu", f)
	}
}

// TestFormatTitles checks that messages list every registered format,
// the test's toy format too, each once, in detection order (the order
// result.Formats asks them), as one phrase "a, b, ... or z".
func TestFormatTitles(t *testing.T) {
	formats := result.Formats()
	if len(formats) < 2 {
		t.Fatalf("%d formats registered, want the built-in ones and the toy format", len(formats))
	}
	got := result.FormatTitles()
	head, last, ok := strings.Cut(got, " or ")
	if !ok || strings.Contains(last, " or ") {
		t.Fatalf("FormatTitles() = %q: want one \" or \" before the last title", got)
	}
	listed := append(strings.Split(head, ", "), last)
	if len(listed) != len(formats) {
		t.Fatalf("FormatTitles() = %q lists %d titles, %d formats are registered", got, len(listed), len(formats))
	}
	for i, f := range formats {
		if listed[i] != f.Title {
			t.Errorf("FormatTitles() title %d is %q, want format %s's %q", i+1, listed[i], f.Name, f.Title)
		}
	}
	for _, title := range []string{"IMB text output", "OSU text output", "mpbench JSON Lines", "mpbench CSV", "toy results"} {
		if strings.Count(got, title) != 1 {
			t.Errorf("FormatTitles() = %q: want %q once", got, title)
		}
	}
}
