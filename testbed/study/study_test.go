package study

import (
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// pp returns a Multi-PingPong or Multi-PingPing row of groups pairs.
func pp(bench string, groups int, mbps float64) result.Row {
	return result.Row{Benchmark: bench, Processes: 2, Multi: result.MultiWorst, Groups: groups, Group: -1, Bytes: mib,
		Repetitions: 2, TMin: 1, TMax: float64(mib) / mbps, TAvg: 1, MBps: mbps}
}

func coll(bench string, procs int, bytes int64, usec float64, alg string) result.Row {
	return result.Row{Benchmark: bench, Processes: procs, Multi: result.MultiNone, Groups: 1, Group: -1, Bytes: bytes,
		Repetitions: 2, TMin: usec, TMax: usec, TAvg: usec, Algorithm: alg}
}

// network returns rows shaped like the study's on a switch (shared
// false: every pair keeps its bandwidth) or a hub (pairs share it).
func network(name, kind string, sharedMedium bool) Network {
	n := Network{Name: name, Kind: kind}
	for _, g := range []int{1, 2, 4} {
		bw := 2.3
		if sharedMedium {
			bw = 2.2 / float64(g)
		}
		n.Rows = append(n.Rows, pp("PingPong", g, bw))
		ping := 2.25
		if sharedMedium {
			ping = 1.1
		}
		n.Rows = append(n.Rows, pp("PingPing", g, ping/float64(g)))
	}
	a4, a8 := 175e3, 410e3
	if sharedMedium {
		a4, a8 = 330e3, 1550e3
	}
	seg := 0.6
	if sharedMedium {
		seg = 1.1
	}
	n.Rows = append(n.Rows, coll("Alltoall", 4, 64<<10, a4, "pairwise"), coll("Alltoall", 8, 64<<10, a8, "pairwise"),
		coll("Gather", 4, 64<<10, 83e3, "binomial"), coll("Gather", 8, 64<<10, 195e3, "binomial"),
		coll("Scatter", 4, 64<<10, 85e3, "binomial"), coll("Scatter", 8, 64<<10, 200e3, "binomial"),
		coll("Bcast", 8, mib, 1.3e6, "binomial"), coll("Bcast", 8, mib, seg*1.3e6, "pipeline:seg=16384"))
	return n
}

func TestFindingsOfSwitchAndHub(t *testing.T) {
	fs := Findings([]Network{network("switch", "switch", false), network("hub", "hub", true)}, 4)
	if len(fs) != 14 {
		t.Fatalf("%d findings, want 7 per network", len(fs))
	}
	want := map[string]float64{
		"switch/Multi-PingPong ABG 4 pairs / 1 pair, 1 MiB": 4, "hub/Multi-PingPong ABG 4 pairs / 1 pair, 1 MiB": 1,
		"switch/PingPing / PingPong bandwidth, 1 MiB": 2.25 / 2.3, "hub/PingPing / PingPong bandwidth, 1 MiB": 0.5,
		"switch/Alltoall t(8)/t(4), 64 KiB": 410.0 / 175, "hub/Alltoall t(8)/t(4), 64 KiB": 1550.0 / 330,
		"switch/Gather t(8)/t(4), 64 KiB": 195.0 / 83, "hub/Scatter t(8)/t(4), 64 KiB": 200.0 / 85,
		"switch/Bcast segmented / tree time, 1 MiB, 8 nodes": 0.6, "hub/Bcast segmented / tree time, 1 MiB, 8 nodes": 1.1,
	}
	seen := 0
	for _, f := range fs {
		if !f.Pass {
			t.Errorf("%s %s: %.3f not in %s (%s)", f.Network, f.Name, f.Value, f.Want, f.Detail)
		}
		if v, ok := want[f.Network+"/"+f.Name]; ok {
			seen++
			if math.Abs(f.Value-v) > 1e-9 {
				t.Errorf("%s %s = %.4f, want %.4f", f.Network, f.Name, f.Value, v)
			}
		}
		if strings.HasPrefix(f.Name, "mpbench analyze") {
			cls := map[string]string{"switch": "full-duplex switch-like", "hub": "shared-medium-like"}[f.Network]
			if !strings.HasPrefix(f.Detail, cls) {
				t.Errorf("%s classified %q, want %s", f.Network, f.Detail, cls)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d expected findings found", seen, len(want))
	}
}

func TestFindingsFailWhenTheNetworkDisagrees(t *testing.T) {
	// A "hub" that behaves like a switch meets none of the hub's findings
	// on ABG, PingPing and Alltoall.
	fs := Findings([]Network{network("fakehub", "hub", false)}, 4)
	for _, f := range fs[:3] {
		if f.Pass {
			t.Errorf("%s passed with %.3f (%s)", f.Name, f.Value, f.Want)
		}
	}
	// Nothing measured: NaN values, not met.
	for _, f := range Findings([]Network{{Name: "empty", Kind: "switch"}}, 4) {
		if f.Pass || !math.IsNaN(f.Value) {
			t.Errorf("empty network: %s passed or has a value %.3f", f.Name, f.Value)
		}
	}
}

func TestSeedTables(t *testing.T) {
	rows := SeedTables()
	if len(rows) != 5 || rows[0][0] != "network" || rows[3][0] != "hub10" || rows[3][1] != "8.82" {
		t.Errorf("seed tables: %v", rows)
	}
}
