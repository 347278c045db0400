package tune

import "testing"

// TestVerifyVerdicts checks the verdict of each kind of point: a tuned
// algorithm faster or slower beyond the spread, and a point whose rule
// keeps the default algorithm, where a difference beyond the spread is the
// machine's and counts neither way.
func TestVerifyVerdicts(t *testing.T) {
	tables := []Table{{
		Collective: "bcast", Ranks: 4,
		Ranges: []Range{
			{From: 0, To: 16, Winner: Config{}},
			{From: 64, To: 64, Winner: Config{Algorithm: "knomial", ID: 7}},
			{From: 256, To: 256, Winner: Config{Algorithm: "chain", ID: 2}},
		},
	}}
	pt := func(bytes int, c Config, times ...float64) Point {
		return Point{Collective: "bcast", Ranks: 4, Bytes: bytes, Config: c, Times: times}
	}
	ps := []Point{
		pt(16, Config{}, 10, 11, 12), pt(16, Tuned, 20, 21, 22), // default rule, slower rounds
		pt(64, Config{}, 10, 11, 12), pt(64, Tuned, 5, 6, 7), // knomial faster
		pt(256, Config{}, 10, 11, 12), pt(256, Tuned, 20, 21, 22), // chain slower
	}
	vps := Verify(ps, tables, 0.03)
	if len(vps) != 3 {
		t.Fatalf("%d verification points, want 3: %+v", len(vps), vps)
	}
	want := map[int]struct {
		verdict, rule string
		speedup       float64
	}{16: {"default rule", "default", 11.0 / 21}, 64: {"faster", "knomial", 11.0 / 6}, 256: {"slower", "chain", 11.0 / 21}}
	for _, v := range vps {
		w := want[v.Bytes]
		if v.Verdict != w.verdict || v.Rule != w.rule || v.Default.Median != 11 || v.Speedup != w.speedup {
			t.Errorf("bcast %d bytes: rule %s, verdict %q, default median %g, speedup %g; want %s, %q, 11, %g",
				v.Bytes, v.Rule, v.Verdict, v.Default.Median, v.Speedup, w.rule, w.verdict, w.speedup)
		}
	}
}
