package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// abgRows turns thesis-abg-4MiB.csv into result rows the way the IMB
// reader represents them: Multi-* runs as rows of group size 2 with
// Groups = pairs under -multi 0, Sendrecv as one group of N ranks. It also
// returns the printed ABG and the table's own count of pairs or senders by
// (benchmark, nodes).
func abgRows(t *testing.T) (rows []result.Row, printed map[string]float64, counted map[string]float64) {
	ref := readRef(t, "thesis-abg-4MiB.csv")
	printed, counted = map[string]float64{}, map[string]float64{}
	for i := range ref.recs {
		bench, net := ref.str(t, i, "benchmark"), ref.str(t, i, "network")
		nodes := int(ref.must(t, i, "nodes"))
		r := result.NewRow(bench, nodes, 4<<20)
		if name, ok := strings.CutPrefix(bench, "Multi"); ok {
			r = result.NewRow(name, 2, 4<<20)
			r.Multi, r.Groups = result.MultiWorst, nodes/2
		}
		r.TMax = ref.must(t, i, "t_usec")
		r.File = net // carries the network name through to the check
		rows = append(rows, r)
		k := abgKey(r.Benchmark, net, nodes)
		printed[k] = ref.must(t, i, "abg_Mbps_printed")
		counted[k] = ref.must(t, i, "pairs_or_senders")
	}
	return rows, printed, counted
}

func abgKey(bench, net string, n int) string { return fmt.Sprintf("%s/%s/%d", bench, net, n) }

// TestABGStudyTables reproduces tables 4.5-4.16 within 2 % of print.
func TestABGStudyTables(t *testing.T) {
	rows, printed, counted := abgRows(t)
	checked := 0
	for _, net := range []string{"switch100", "switch10", "hub10", "wifi54"} {
		var sub []result.Row
		for _, r := range rows {
			if r.File == net {
				sub = append(sub, r)
			}
		}
		tab, skipped := ABGTable(sub, 4<<20)
		if len(skipped) != 0 || len(tab) != 12 {
			t.Fatalf("%s: %d ABG rows, skipped %v", net, len(tab), skipped)
		}
		for _, a := range tab {
			k := abgKey(a.Benchmark, net, a.Processes)
			// The table counts pairs for Multi-PingPong/PingPing and
			// senders for Sendrecv; PingPing's m is twice its pairs.
			wantM := counted[k]
			if a.Benchmark == "PingPing" {
				wantM *= 2
			}
			if a.Transfers != wantM {
				t.Errorf("%s: m = %g, table implies %g", k, a.Transfers, wantM)
			}
			if p := printed[k]; math.Abs(a.Mbps-p)/p > 0.02 {
				t.Errorf("%s: ABG %.3f Mbit/s, printed %g", k, a.Mbps, p)
			}
			checked++
		}
	}
	if checked != 48 {
		t.Errorf("checked %d cells, the tables have 48", checked)
	}
}

// TestABGScalingStudy classifies each benchmark of tables 4.5-4.16: the
// switches scale with the simultaneous transfers, hub and wifi do not.
func TestABGScalingStudy(t *testing.T) {
	rows, _, _ := abgRows(t)
	for _, net := range []string{"switch100", "switch10", "hub10", "wifi54"} {
		var sub []result.Row
		for _, r := range rows {
			if r.File == net {
				sub = append(sub, r)
			}
		}
		tab, _ := ABGTable(sub, -1)
		sc := ClassifyScaling(tab)
		if len(sc) != 3 {
			t.Fatalf("%s: %d series classified, want 3", net, len(sc))
		}
		want := SharedMedium
		if strings.HasPrefix(net, "switch") {
			want = SwitchLike
		}
		for _, s := range sc {
			t.Logf("%s %s", net, s.Evidence)
			if s.Class != want {
				t.Errorf("%s %s: %v (slope %.2f), want %v", net, s.Benchmark, s.Class, s.Slope, want)
			}
			if s.TransferGrowth != 8 || !strings.Contains(s.Evidence, "log-log slope") {
				t.Errorf("%s %s: transfer growth %g, evidence %q", net, s.Benchmark, s.TransferGrowth, s.Evidence)
			}
		}
	}
}

// TestTable417Classification classifies the networks of table 4.17 from
// their 16-node ABG against PingPong's single-transfer bandwidth (table
// 4.2, converted with x 8 x 1.048576).
func TestTable417Classification(t *testing.T) {
	bw := readRef(t, "thesis-tables4.1-4.4-bandwidth.csv")
	single := map[string]float64{}
	for i := range bw.recs {
		single[bw.str(t, i, "network")] = MbpsFromMBps(bw.must(t, i, "pingpong_MBps"), result.MiB)
	}
	ref := readRef(t, "thesis-table4.17-abg-16nodes.csv")
	for _, net := range []string{"switch100", "switch10", "hub10", "wifi54"} {
		var cells []GainCell
		for i := range ref.recs {
			cells = append(cells, GainCell{Benchmark: ref.str(t, i, "benchmark"), ABGMbps: ref.must(t, i, net+"_Mbps")})
		}
		nc, err := ClassifyNetwork(net, single[net], cells)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(nc.Evidence)
		want := SharedMedium
		if strings.HasPrefix(net, "switch") {
			want = SwitchLike
		}
		if nc.Class != want {
			t.Errorf("%s: %v, want %v", net, nc.Evidence, want)
		}
		for _, c := range nc.Cells {
			// Gather converges on the root's single link on every network
			// (thesis 4.2.7); on hub and wifi nothing multiplies.
			if (c.Benchmark == "Gather" || want == SharedMedium) && c.Gain >= SwitchGain {
				t.Errorf("%s %s: gain %.2f multiplies", net, c.Benchmark, c.Gain)
			}
			if want == SwitchLike && c.Benchmark == "MultiPingPong" && math.Abs(c.Gain-8) > 0.5 {
				t.Errorf("%s MultiPingPong: gain %.2f, 8 pairs", net, c.Gain)
			}
		}
	}
	if _, err := ClassifyNetwork("x", 0, []GainCell{{ABGMbps: 1}}); err == nil {
		t.Error("zero single-transfer bandwidth accepted")
	}
}

func TestTransfersRules(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		m    float64
	}{
		{"Multi-PingPong", 16, 8}, {"PingPong", 2, 1}, {"PingPing", 16, 16}, {"Sendrecv", 4, 4},
		{"Exchange", 4, 8}, {"Gather", 16, 15}, {"Scatterv", 8, 7}, {"Bcast", 16, 15},
		{"Reduce_scatter", 16, 15}, {"Alltoall", 16, 240}, {"Allgather", 4, 12}, {"osu_bibw", 2, 2},
	} {
		tr, err := Transfers(c.name, c.n)
		if err != nil || tr.M != c.m || tr.Source == "" {
			t.Errorf("%s on %d: m %g (%v), want %g", c.name, c.n, tr.M, err, c.m)
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"Barrier", 4}, {"Sendrecv", 1}} {
		if _, err := Transfers(c.name, c.n); err == nil {
			t.Errorf("%s on %d: no error", c.name, c.n)
		}
	}
	// -multi 1 rows: one per group; ABG takes the slowest group.
	a, b := result.NewRow("PingPong", 2, 1000), result.NewRow("PingPong", 2, 1000)
	a.Multi, b.Multi, a.Groups, b.Groups, a.Group, b.Group = result.MultiEach, result.MultiEach, 2, 2, 0, 1
	a.TMax, b.TMax = 10, 20
	bar := result.NewRow("Barrier", 4, -1)
	bar.TMax = 5
	tab, skipped := ABGTable([]result.Row{a, b, bar}, -1)
	if len(tab) != 1 || tab[0].Usec != 20 || tab[0].Processes != 4 || tab[0].Mbps != ABG(2, 1000, 20) || len(skipped) != 0 {
		t.Errorf("multi rows: %+v skipped %v", tab, skipped)
	}
}

// TestScalingChangesAcrossCounts: 030's Uniband at 4 MiB grows with the
// pairs from 2 to 16 ranks (switch-like steps), then collapses at 28: the
// classification uses every step and says mixed, naming each step,
// instead of a shared medium from the endpoints.
func TestScalingChangesAcrossCounts(t *testing.T) {
	var rows []ABGRow
	for _, c := range []struct {
		n    int
		mbps float64
	}{{2, 42309.84}, {4, 73541.76}, {8, 143123.92}, {16, 264601.92}, {28, 98762.32}} {
		rows = append(rows, ABGRow{Benchmark: "Uniband", Processes: c.n, Transfers: float64(c.n / 2), Bytes: 4 << 20, Mbps: c.mbps})
	}
	sc := ClassifyScaling(rows)
	if len(sc) != 1 {
		t.Fatalf("%d classifications", len(sc))
	}
	s := sc[0]
	if s.Class != Mixed || !s.Changes || len(s.Steps) != 4 || s.Steps[2] < SwitchSlope || s.Steps[3] >= 0 {
		t.Errorf("class %v changes %v steps %v; want mixed, 3 switch-like steps then a fall", s.Class, s.Changes, s.Steps)
	}
	for _, w := range []string{"N 8->16: ABG x1.85 for x2 transfers (slope 0.89)", "N 16->28", "behaviour changes"} {
		if !strings.Contains(s.Evidence, w) {
			t.Errorf("evidence %q lacks %q", s.Evidence, w)
		}
	}
}
