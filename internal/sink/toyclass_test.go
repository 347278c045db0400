package sink

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
)

// toyRate is a class of benchmark that IMB does not have, declared in this
// file only: its table prints t[usec] and a rate in messages per usec, a
// quantity result.Row has no field for. TestToyClass proves that such a
// class needs no line anywhere else: the runner, the text, JSON Lines and
// CSV sinks and the readers take it from its description.
var toyRate = &bench.Class{
	Name: "toy rate",
	Layout: func(bench.Block) *imb.Layout {
		return &imb.Layout{Name: "toy", Columns: []imb.Column{imb.ColBytes, imb.ColRepetitions, imb.ColT,
			imb.ExtraColumn("Msg/usec", "Msg/usec", 3)}}
	},
	Rates: func(_ bench.Block, row *result.Row) {
		row.Extra = map[string]float64{"Msg/usec": 1 / row.TMax}
	},
	Pairs: true,
}

func init() {
	bench.Register(bench.Spec{Name: "ToyRate", Class: toyRate, Kernel: toyKernel})
}

// toyKernel sends n messages from rank r to rank r+size/2 of each pair.
func toyKernel(e *bench.Env, n int) (float64, error) {
	c := e.Comm
	half := c.Size() / 2
	start := c.Wtime()
	for i := 0; i < n; i++ {
		var err error
		if c.Rank() < half {
			err = c.Send(e.Send(i), c.Rank()+half, 7)
		} else {
			_, err = c.Recv(e.Recv(i), c.Rank()-half, 7)
		}
		if err != nil {
			return 0, err
		}
	}
	return c.Wtime() - start, nil
}

func TestToyClass(t *testing.T) {
	o := bench.DefaultOptions()
	o.MsgLogMin, o.MsgLogMax, o.MsgsPerSample, o.Settle = 0, 2, 20, 0
	o.Benchmarks = []string{"ToyRate"}
	text, jsonl, csv := goldenRun(t, 5, o) // Pairs: 2 and 4 processes of 5

	out := string(text)
	for _, want := range []string{
		"# Benchmarking ToyRate \n# #processes = 4 \n# ( 1 additional process waiting in MPI_Barrier)\n",
		"       #bytes #repetitions      t[usec]     Msg/usec\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	fromText, err := imb.Parse(text, "toy.txt")
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := rowfile.ReadJSONL(bytes.NewReader(jsonl), "toy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := rowfile.ReadCSV(bytes.NewReader(csv), "toy.csv")
	if err != nil {
		t.Fatal(err)
	}
	for what, runs := range map[string][]result.Run{"text": fromText, "JSON Lines": fromJSON, "CSV": fromCSV} {
		if len(runs) != 1 || runs[0].Aborted || len(runs[0].Problems) > 0 {
			t.Fatalf("%s read back as %+v", what, runs)
		}
		rows := runs[0].Rows
		if len(rows) != 2*4 { // processes 2 and 4, sizes 0, 1, 2, 4
			t.Fatalf("%s: %d rows, want 8", what, len(rows))
		}
		for i, r := range rows {
			// The row files keep every digit; the text prints %.3f of the
			// rate computed before t_max was rounded to %.2f.
			got, want, tol := r.Extra["Msg/usec"], 1/r.TMax, 1e-12
			if what == "text" {
				want, tol = fromJSON[0].Rows[i].Extra["Msg/usec"], 0.0005
			}
			if r.Benchmark != "ToyRate" || !(r.TMax > 0) || !(math.Abs(got-want) <= tol*max(1, want)) {
				t.Errorf("%s: row %s %d procs %d bytes: t_max %v, Msg/usec %v, want %v",
					what, r.Benchmark, r.Processes, r.Bytes, r.TMax, got, want)
			}
		}
	}
	if p := fromJSON[0].Rows[0].Processes; p != 2 {
		t.Errorf("first block on %d processes, want 2 (a class of pairs runs on even counts)", p)
	}
}
