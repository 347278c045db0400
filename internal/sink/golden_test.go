package sink

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
)

// testOnlyBenchmarks are the benchmarks this package's tests register;
// the golden runs leave them out.
var testOnlyBenchmarks = []string{"ToyRate"}

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// stepClock is a communicator whose Wtime advances by step seconds at every
// call, counted per rank, so that every time a benchmark measures depends
// only on the calls it makes: the rows of a run are the same on every run
// and every machine. It hides the runtime's optional interfaces (C loops,
// native collectives), so the benchmarks run their Go loops and coll's
// algorithms.
type stepClock struct {
	comm.Comm
	calls *atomic.Int64
	step  float64
}

func (c stepClock) Wtime() float64 { return float64(c.calls.Add(1)) * c.step }

func (c stepClock) Split(color, key int) (comm.Comm, error) {
	s, err := c.Comm.Split(color, key)
	if s == nil || err != nil {
		return s, err
	}
	return stepClock{s, c.calls, c.step}, nil
}

// goldenRun runs o on np goroutine ranks on a stepClock (rank r's clock
// steps (r+1) usec) and returns rank 0's output as IMB text (with
// percentiles, -show_tail lines and the timer warning), JSON Lines and CSV.
func goldenRun(t *testing.T, np int, o bench.Options) (text, jsonl, csv []byte) {
	t.Helper()
	var tb, jb, cb bytes.Buffer
	sizes := o.Sizes()
	info := imb.RunInfo{Version: "golden", Date: time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC), Machine: "x86_64",
		System: "Linux", Transport: "inmem", MPIVersion: "3.1", MByte: o.MByte,
		Command: []string{"mpbench", "run"}, MinBytes: sizes[0], MaxBytes: sizes[len(sizes)-1], Benchmarks: o.Benchmarks}
	ts, err := NewText(&tb, info, TextOptions{ShowTail: true, Percentiles: true, TimerResolution: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	meta := result.Meta{Tool: "mpbench", Version: "golden", MByte: o.MByte, Date: "2026-12-01T20:00:00Z", Host: "h", Transport: "inmem"}
	jw, cw := rowfile.NewJSONLWriter(&jb), rowfile.NewCSVWriter(&cb)
	for _, w := range []rowfile.Writer{jw, cw} {
		if err := w.WriteMeta(meta); err != nil {
			t.Fatal(err)
		}
	}
	f := Fanout{ts, NewRowFile(jw), NewRowFile(cw)}
	commtest.Run(t, np, comm.Config{}, func(c comm.Comm) error {
		clock := stepClock{c, new(atomic.Int64), float64(c.Rank()+1) * 1e-6}
		var s bench.Sink
		if c.Rank() == 0 {
			s = f
		}
		return bench.Run(context.Background(), clock, o, s)
	})
	if err := f.Finish(nil); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes(), jb.Bytes(), cb.Bytes()
}

// TestGoldenOutput runs every registered IMB benchmark on a clock that
// makes its rows reproducible and compares the text, JSON Lines and CSV
// output byte for byte with testdata/golden (go test -run TestGoldenOutput
// -update rewrites them): the tables' layout, number formats, rates and
// row fields of every benchmark class must not change unnoticed.
func TestGoldenOutput(t *testing.T) {
	var imbNames []string
	for _, n := range bench.Names() {
		if !slices.Contains(testOnlyBenchmarks, n) {
			imbNames = append(imbNames, n)
		}
	}
	base := func() bench.Options {
		o := bench.DefaultOptions()
		o.MsgLogMin, o.MsgLogMax = 0, 3
		o.Settle = 0
		o.Params = map[string]int{bench.WindowSize.Name: 4}
		o.MsgsPerSample = 20
		o.PerRepetition = true
		o.Check = true
		return o
	}
	for _, c := range []struct {
		name  string
		np    int
		multi int
		names []string
	}{
		{"np4", 4, result.MultiNone, imbNames},
		{"multi0", 4, result.MultiWorst, []string{"PingPong", "Sendrecv", "Uniband", "Allreduce", "Barrier"}},
		{"multi1", 4, result.MultiEach, []string{"PingPing", "Exchange", "Biband", "Bcast", "Barrier"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			o.Multi, o.Benchmarks = c.multi, c.names
			text, jsonl, csv := goldenRun(t, c.np, o)
			for ext, got := range map[string][]byte{"txt": text, "jsonl": jsonl, "csv": csv} {
				path := filepath.Join("testdata", "golden", c.name+"."+ext+".golden")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s (go test -run TestGoldenOutput -update rewrites it):\n%s", c.name+"."+ext, path, firstDiff(got, want))
				}
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl, wl)
		}
	}
	return "(same lines)"
}
