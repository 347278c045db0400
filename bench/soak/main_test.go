package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// TestFlatness: the warm-up minute is left out; growth of goroutines or
// RSS beyond the margins is reported.
func TestFlatness(t *testing.T) {
	at := func(m int, g int, rss float64) sample {
		return sample{at: time.Duration(m) * time.Minute, goroutines: g, rssMiB: rss}
	}
	for _, tc := range []struct {
		samples []sample
		flat    bool
	}{
		{[]sample{at(0, 3, 5), at(1, 13, 25), at(2, 14, 30), at(3, 13, 26)}, true}, // warm-up growth does not count
		{[]sample{at(0, 13, 25), at(1, 13, 25), at(2, 16, 25)}, false},             // 3 goroutines more
		{[]sample{at(0, 13, 25), at(1, 13, 25), at(9, 13, 50)}, false},             // RSS doubled
		{[]sample{at(0, 13, 25)}, false},                                           // no sample after the warm-up
	} {
		if flat, msg := flatness(tc.samples); flat != tc.flat {
			t.Errorf("flatness(%v) = %v (%s), want %v", tc.samples, flat, msg, tc.flat)
		}
	}
}

// TestTimeDrift: the last time of each benchmark and size over its first.
func TestTimeDrift(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	f, _ := os.Create(path)
	w := rowfile.NewJSONLWriter(f)
	w.WriteMeta(result.Meta{Tool: "mpbench"})
	for _, r := range []struct {
		bytes int64
		t     float64
	}{{0, 1}, {1024, 2}, {0, 1.5}, {1024, 2}, {0, 3}} {
		w.WriteRow(result.Row{Benchmark: "PingPong", Processes: 2, Group: -1, Bytes: r.bytes, Repetitions: 1000, TMin: r.t, TMax: r.t, TAvg: r.t})
	}
	w.WriteEnd(nil)
	f.Close()
	if got, want := timeDrift(path), "5 rows; last/first time over 2 benchmark sizes: median 3.00, min 1.00, max 3.00"; got != want {
		t.Errorf("timeDrift = %q, want %q", got, want)
	}
}
