package tune

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// row is a row of bench on np ranks at bytes taking tmax usec.
func row(bench string, np int, bytes int64, tmax float64) result.Row {
	r := result.NewRow(bench, np, bytes)
	r.TMax = tmax
	return r
}

// TestPointSet: each job's rows of its collectives' benchmarks on its
// process count are one round of their points, in the order first
// measured; other benchmarks and process counts are left out.
func TestPointSet(t *testing.T) {
	s := NewPointSet(map[string]string{"bcast": "Bcast", "allreduce": "Allreduce"})
	ring := Config{Algorithm: "ring"}
	s.Add(4, []string{"bcast", "allreduce"}, nil, []result.Row{row("Bcast", 4, 1024, 10), row("Allreduce", 4, 1024, 20),
		row("Bcast", 2, 1024, 99), row("Reduce", 4, 1024, 99)})
	s.Add(4, []string{"bcast"}, map[string]Config{"bcast": ring}, []result.Row{row("Bcast", 4, 1024, 8), row("Allreduce", 4, 1024, 99)})
	s.Add(4, []string{"bcast", "allreduce"}, nil, []result.Row{row("Bcast", 4, 1024, 12), row("Allreduce", 4, 1024, math.NaN())})
	got := s.Points()
	want := []Point{
		{Collective: "bcast", Ranks: 4, Bytes: 1024, Times: []float64{10, 12}},
		{Collective: "allreduce", Ranks: 4, Bytes: 1024, Times: []float64{20, math.NaN()}},
		{Collective: "bcast", Ranks: 4, Bytes: 1024, Config: ring, Times: []float64{8}},
	}
	if len(got) != len(want) {
		t.Fatalf("points %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Collective != w.Collective || g.Ranks != w.Ranks || g.Bytes != w.Bytes || g.Config != w.Config || len(g.Times) != len(w.Times) {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Times {
			if g.Times[j] != w.Times[j] && !(math.IsNaN(g.Times[j]) && math.IsNaN(w.Times[j])) {
				t.Errorf("point %d round %d: %g usec, want %g", i, j, g.Times[j], w.Times[j])
			}
		}
	}
}

// TestJSONPoints: a point as points.json holds it, its configuration's
// label beside it and a failed round as null.
func TestJSONPoints(t *testing.T) {
	ps := []Point{{Collective: "bcast", Ranks: 4, Bytes: 1024, Config: Config{Algorithm: "pipeline", Segment: 8192}, Times: []float64{10, math.NaN(), 14}}}
	b, err := json.Marshal(JSONPoints(ps))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"collective": "bcast", "ranks": 4.0, "bytes": 1024.0,
		"config": map[string]any{"algorithm": "pipeline", "segment": 8192.0}, "label": "pipeline:seg=8192",
		"times_usec": []any{10.0, nil, 14.0}, "stats": map[string]any{"median_usec": 12.0, "min_usec": 10.0, "max_usec": 14.0, "rounds": 2.0}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("points.json %s, want %v", b, want)
	}
}
