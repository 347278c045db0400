package main

import (
	"os"
	"slices"
	"sync"
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

type timedRow struct {
	bytes int64
	t     float64
}

// writeRows writes a job's result file of PingPong rows.
func writeRows(t *testing.T, path string, rows []timedRow) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := rowfile.NewJSONLWriter(f)
	w.WriteMeta(result.Meta{Tool: "mpbench"})
	for _, r := range rows {
		w.WriteRow(result.Row{Benchmark: "PingPong", Processes: 2, Group: -1, Bytes: r.bytes, Repetitions: 1000, TMin: r.t, TMax: r.t, TAvg: r.t})
	}
	w.WriteEnd(nil)
	f.Close()
}

// TestNextPasses: a job that ended early is followed by one sized to the
// time left at its pace, with a pass to spare.
func TestNextPasses(t *testing.T) {
	for _, tc := range []struct {
		passes     int
		took, left time.Duration
		want       int
	}{
		{8, 11 * time.Minute, 49 * time.Minute, 36}, // 8 x 49/11 = 35.6, +1
		{8, 11 * time.Minute, 10 * time.Second, 1},
		{8, 0, time.Minute, 8},
		{8, time.Minute, 0, 8},
	} {
		if got := nextPasses(tc.passes, tc.took, tc.left); got != tc.want {
			t.Errorf("nextPasses(%d, %v, %v) = %d, want %d", tc.passes, tc.took, tc.left, got, tc.want)
		}
	}
}

// TestRunAll: with -concurrent every transport's run is under way at the
// same time (each waits here until all have started); without it one ends
// before the next starts. Summaries come in the order of the list, and one
// bad run makes the whole bad.
func TestRunAll(t *testing.T) {
	list := []string{"shm", "tcp", "hybrid"}
	for _, concurrent := range []bool{true, false} {
		var mu sync.Mutex
		running, most := 0, 0
		all := make(chan struct{})
		ok, sums := runAll(list, concurrent, func(tr string) (bool, summary) {
			mu.Lock()
			running++
			most = max(most, running)
			if running == len(list) {
				close(all)
			}
			mu.Unlock()
			if concurrent {
				select {
				case <-all:
				case <-time.After(10 * time.Second):
					t.Errorf("%s: the other runs did not start beside it", tr)
				}
			}
			mu.Lock()
			running--
			mu.Unlock()
			return tr != "tcp", summary{line: "summary " + tr}
		})
		want := map[bool]int{true: 3, false: 1}[concurrent]
		var lines []string
		for _, s := range sums {
			lines = append(lines, s.line)
		}
		if most != want || ok || !slices.Equal(lines, []string{"summary shm", "summary tcp", "summary hybrid"}) {
			t.Errorf("concurrent %v: %d runs at once (want %d), ok %v (want false), summaries %q", concurrent, most, want, ok, lines)
		}
	}
}
