package cli

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/tune"
)

// TestPrintVerify checks the verification table's count of slower points
// and its summary line over one point of each verdict (tune.Verify gives
// the verdicts).
func TestPrintVerify(t *testing.T) {
	st := func(med float64) tune.Stats { return tune.Stats{Median: med, Min: med - 1, Max: med + 1} }
	vps := []tune.VerifyPoint{
		{Collective: "bcast", Ranks: 4, Bytes: 16, Rule: "default", Default: st(11), Tuned: st(21), Speedup: 11.0 / 21, Verdict: "default rule"},
		{Collective: "bcast", Ranks: 4, Bytes: 64, Rule: "knomial", Default: st(11), Tuned: st(6), Speedup: 11.0 / 6, Verdict: "faster"},
		{Collective: "bcast", Ranks: 4, Bytes: 256, Rule: "chain", Default: st(11), Tuned: st(21), Speedup: 11.0 / 21, Verdict: "slower"},
	}
	var b strings.Builder
	if slower := printVerify(&b, vps); slower != 1 {
		t.Errorf("printVerify counted %d slower points, want 1 (the chain point only)", slower)
	}
	for _, want := range []string{
		"3 points: tuned faster beyond noise at 1, slower at 1, the same within noise at 0; 1 kept the default algorithm.",
		"bcast            4       256  chain                                   11 [10..12]            21 [20..22]    0.52x  SLOWER beyond noise",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}
