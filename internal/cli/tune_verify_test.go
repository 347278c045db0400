package cli

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/tune"
)

// TestVerifyPointsVerdicts checks the verdict of each kind of point: a
// tuned algorithm faster or slower beyond the spread, and a point whose
// rule keeps the default algorithm, where a difference beyond the spread
// is the machine's and counts neither way.
func TestVerifyPointsVerdicts(t *testing.T) {
	dec := tuneDecisions{Tables: []tune.Table{{
		Collective: "bcast", Ranks: 4,
		Ranges: []tune.Range{
			{From: 0, To: 16, Winner: tune.Config{}},
			{From: 64, To: 64, Winner: tune.Config{Algorithm: "knomial", ID: 7}},
			{From: 256, To: 256, Winner: tune.Config{Algorithm: "chain", ID: 2}},
		},
	}}}
	pt := func(bytes int, c tune.Config, times ...float64) tune.Point {
		return tune.Point{Collective: "bcast", Ranks: 4, Bytes: bytes, Config: c, Times: times}
	}
	ps := []tune.Point{
		pt(16, tune.Config{}, 10, 11, 12), pt(16, tunedConfig, 20, 21, 22), // default rule, slower rounds
		pt(64, tune.Config{}, 10, 11, 12), pt(64, tunedConfig, 5, 6, 7), // knomial faster
		pt(256, tune.Config{}, 10, 11, 12), pt(256, tunedConfig, 20, 21, 22), // chain slower
	}
	vps := verifyPoints(ps, dec, 0.03)
	want := map[int]string{16: "default rule", 64: "faster", 256: "slower"}
	if len(vps) != 3 {
		t.Fatalf("%d verification points, want 3: %+v", len(vps), vps)
	}
	for _, v := range vps {
		if v.Verdict != want[v.Bytes] {
			t.Errorf("bcast %d bytes (rule %s): verdict %q, want %q", v.Bytes, v.Rule, v.Verdict, want[v.Bytes])
		}
	}
	var b strings.Builder
	if slower := printVerify(&b, vps); slower != 1 {
		t.Errorf("printVerify counted %d slower points, want 1 (the chain point only)", slower)
	}
	if !strings.Contains(b.String(), "3 points: tuned faster beyond noise at 1, slower at 1, the same within noise at 0; 1 kept the default algorithm.") {
		t.Errorf("summary line missing or wrong:\n%s", b.String())
	}
}
