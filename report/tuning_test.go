package report

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/tune"
)

func TestWriteTuningHTML(t *testing.T) {
	ring := tune.Config{Algorithm: "ring"}
	st := func(m float64) tune.Stats { return tune.Stats{Median: m, Min: m, Max: m, N: 3} }
	tables := []tune.Table{
		{Collective: "allreduce", Ranks: 4, Decisions: []tune.Decision{
			{Bytes: 0, Default: st(10), BestStats: st(10)},
			{Bytes: 1024, Winner: ring, WinnerStats: st(5), Default: st(10), Best: ring, BestStats: st(5), Speedup: 2},
		}},
		{Collective: "allreduce", Ranks: 2, Decisions: []tune.Decision{
			{Bytes: 1024, Default: st(3), BestStats: st(3), Speedup: 1},
		}},
	}
	var b strings.Builder
	err := WriteTuningHTML(&b, []Tuning{{Name: "tuned", Runtime: "mpbench", Header: []string{"Measured <here>"}, Tables: tables}}, "")
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>mpbench tuning</title>",
		"<th>2 processes</th><th>4 processes</th>",                        // columns sorted by process count
		`<td class="bytes">0</td><td></td><td style="background:#e4e4e4"`, // not measured on 2; default on 4
		`<td style="background:#9fd3f5" title="default 10 [10..10] usec; fastest ring at 5 [5..5] usec">ring 2.00x</td>`,
		`<span style="background:#9fd3f5">ring</span>`,
		"Measured &lt;here&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
