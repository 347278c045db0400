// Package study turns the results of the study's experiment set, measured
// on emulated networks (mpbench testbed study), into the study's findings
// (seed 000, chapter 4.2): each finding a measured ratio, the range that
// states it, and whether the network met it.
//
// The findings and their ranges (the acceptance figures of the testbed,
// for 8 nodes; with fewer nodes the ratios scale with the pairs):
//
//   - Multi-PingPong aggregate bandwidth (ABG) at the most pairs over one
//     pair, 1 MiB: >= 0.8 x pairs on a switch, <= 1.2 on a hub or wifi
//     (thesis 4.2.3, table 4.17);
//   - PingPing over PingPong bandwidth at 1 MiB: >= 0.9 on a switch (full
//     duplex), <= 0.6 on a hub (thesis 4.2.2, tables 4.1-4.4: 51% loss);
//   - Alltoall t(8)/t(4) at 64 KiB: 1.5-2.6 on a switch (N-1 transfers
//     per rank in parallel: 7/3), >= 3 on a hub (N(N-1) serialised: 56/12);
//   - Gather and Scatter t(8)/t(4) at 64 KiB: about 7/3 on a switch, the
//     root's link carries N-1 blocks (thesis 4.2.7-4.2.8), up to 3 on a
//     shared medium, which carries every block of the binomial tree;
//   - Bcast segmented (coll's pipeline) over tree (binomial) at 1 MiB on 8 nodes:
//     faster on a switch, slower on a hub (thesis 4.2.9);
//   - the class analysis.ClassifyScaling gives the Multi-PingPong ABG.
package study

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Network is what was measured on one emulated network.
type Network struct {
	Name string // e.g. "switch", "hub", "wifi"
	Kind string // medium kind: switch, hub or wifi
	// Rows are every row of the network's runs (Multi-PingPong/PingPing,
	// the collectives at N = 2, 4, 8, the Bcast algorithms).
	Rows []result.Row
}

// Finding is one of the study's findings measured on one network.
type Finding struct {
	Network string  `json:"network"`
	Name    string  `json:"finding"`  // short name, e.g. "Multi-PingPong ABG 4 pairs / 1 pair"
	Value   float64 `json:"value"`    // the measured ratio (NaN when not measured)
	Want    string  `json:"want"`     // the range that states the finding, e.g. ">= 3.2"
	Pass    bool    `json:"pass"`     // Value lies in the range
	Detail  string  `json:"evidence"` // the numbers the ratio comes from
	Seed    string  `json:"seed"`     // what the study measured, where
}

// findingJSON is a Finding as findings.json holds it: a value not
// measured (NaN, which JSON has no number for) as null.
type findingJSON struct {
	Network string   `json:"network"`
	Name    string   `json:"finding"`
	Value   *float64 `json:"value"`
	Want    string   `json:"want"`
	Pass    bool     `json:"pass"`
	Detail  string   `json:"evidence"`
	Seed    string   `json:"seed"`
}

// MarshalJSON writes f with null as the value of a finding not measured,
// so that the findings of a study missing some rows (a network that
// failed, --reanalyse of a partial study) are still written.
func (f Finding) MarshalJSON() ([]byte, error) {
	j := findingJSON{Network: f.Network, Name: f.Name, Want: f.Want, Pass: f.Pass, Detail: f.Detail, Seed: f.Seed}
	if v := f.Value; !math.IsNaN(v) && !math.IsInf(v, 0) {
		j.Value = &v
	}
	return json.Marshal(j)
}

// rowAt returns the row of benchmark at bytes with the given process
// count, groups (1 for a plain run or one -multi group) and algorithm
// ("" for any).
func rowAt(rows []result.Row, bench string, procs, groups int, bytes int64, alg string) (result.Row, bool) {
	for _, r := range rows {
		g := r.Groups
		if g < 1 {
			g = 1
		}
		if r.Benchmark == bench && r.Processes == procs && g == groups && r.Bytes == bytes && (alg == "" || strings.HasPrefix(r.Algorithm, alg)) && r.Group < 1 {
			return r, true
		}
	}
	return result.Row{}, false
}

// Findings returns the findings for each network, in the order of the
// package doc; pairs is the largest number of Multi-PingPong pairs run
// (nodes / 2).
func Findings(nets []Network, pairs int) []Finding {
	var out []Finding
	for _, n := range nets {
		out = append(out, multiPingPong(n, pairs), pingPingRatio(n), collectiveGrowth(n, "Alltoall", pairs), collectiveGrowth(n, "Gather", pairs),
			collectiveGrowth(n, "Scatter", pairs), bcastSegmented(n, pairs), classification(n))
	}
	return out
}

const mib = 1 << 20

func shared(kind string) bool { return kind == "hub" || kind == "wifi" }

func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

func multiPingPong(n Network, pairs int) Finding {
	f := Finding{Network: n.Name, Name: fmt.Sprintf("Multi-PingPong ABG %d pairs / 1 pair, 1 MiB", pairs), Value: math.NaN(),
		Seed: "thesis table 4.17: 16 nodes, ABG 8 pairs / 1 pair = 8.0 on both switches, 1.10 on the hub, 1.46 on wifi"}
	one, ok1 := rowAt(n.Rows, "PingPong", 2, 1, mib, "")
	many, ok2 := rowAt(n.Rows, "PingPong", 2, pairs, mib, "")
	lo, hi := 0.8*float64(pairs), math.Inf(1)
	f.Want = fmt.Sprintf(">= %.1f", lo)
	if shared(n.Kind) {
		lo, hi = 0, 1.2
		f.Want = "<= 1.2"
	}
	if !ok1 || !ok2 || !(one.MBps > 0) {
		f.Detail = "not measured"
		return f
	}
	f.Value = float64(pairs) * many.MBps / one.MBps
	f.Pass = within(f.Value, lo, hi)
	f.Detail = fmt.Sprintf("1 pair %.3f MB/s; %d pairs %.3f MB/s each, ABG %.3f MB/s", one.MBps, pairs, many.MBps, float64(pairs)*many.MBps)
	return f
}

func pingPingRatio(n Network) Finding {
	f := Finding{Network: n.Name, Name: "PingPing / PingPong bandwidth, 1 MiB", Value: math.NaN(),
		Seed: "thesis tables 4.1-4.4 (4 MiB): 0.94 switch100, 0.97 switch10, 0.49 hub, 0.71 wifi"}
	pp, ok1 := rowAt(n.Rows, "PingPong", 2, 1, mib, "")
	pi, ok2 := rowAt(n.Rows, "PingPing", 2, 1, mib, "")
	lo, hi := 0.9, math.Inf(1)
	f.Want = ">= 0.9"
	if n.Kind == "hub" {
		lo, hi, f.Want = 0, 0.6, "<= 0.6"
	} else if n.Kind == "wifi" {
		lo, hi, f.Want = 0, 0.75, "<= 0.75"
	}
	if !ok1 || !ok2 || !(pp.MBps > 0) {
		f.Detail = "not measured"
		return f
	}
	f.Value = pi.MBps / pp.MBps
	f.Pass = within(f.Value, lo, hi)
	f.Detail = fmt.Sprintf("PingPong %.3f MB/s, PingPing %.3f MB/s", pp.MBps, pi.MBps)
	return f
}

// collectiveGrowth is t(2 x pairs)/t(pairs) of a collective at 64 KiB.
func collectiveGrowth(n Network, bench string, pairs int) Finding {
	big, small := 2*pairs, pairs
	f := Finding{Network: n.Name, Name: fmt.Sprintf("%s t(%d)/t(%d), 64 KiB", bench, big, small), Value: math.NaN()}
	// Blocks on the busiest link, or on the medium: N-1 per rank's link
	// for Alltoall on a switch and N(N-1) on a shared medium; N-1 through
	// the root's link for Gather and Scatter on a switch, and on a shared
	// medium every block of the binomial tree, (N/2) log2 N.
	linear := float64(big-1) / float64(small-1)
	quad := float64(big*(big-1)) / float64(small*(small-1))
	tree := float64(big) * math.Log2(float64(big)) / (float64(small) * math.Log2(float64(small)))
	var lo, hi float64
	switch {
	case bench == "Alltoall" && shared(n.Kind):
		lo, hi = 0.75*quad, math.Inf(1)
		f.Want = fmt.Sprintf(">= %.2g (N(N-1) transfers share one medium: %.3g)", lo, quad)
		f.Seed = "thesis 4.2.12: Alltoall time grows much faster with N on the hub and wifi"
	case bench == "Alltoall":
		lo, hi = 0.65*linear, 1.1*linear
		f.Want = fmt.Sprintf("%.2g-%.2g (N-1 transfers per port: %.3g)", lo, hi, linear)
		f.Seed = "thesis 4.2.12: Alltoall time grows about linearly with N on the switches"
	case shared(n.Kind):
		lo, hi = 0.75*linear, 1.3*tree
		f.Want = fmt.Sprintf("%.2g-%.2g (N-1 blocks through the root: %.3g; every block of the tree on one medium: %.3g)", lo, hi, linear, tree)
		f.Seed = "thesis 4.2.7-4.2.8: Gather and Scatter serialise at the root on every network"
	default:
		lo, hi = 0.75*linear, 1.3*linear
		f.Want = fmt.Sprintf("%.2g-%.2g (N-1 blocks through the root's link: %.3g)", lo, hi, linear)
		f.Seed = "thesis 4.2.7-4.2.8: Gather and Scatter serialise at the root on every network"
	}
	a, ok1 := rowAt(n.Rows, bench, small, 1, 64<<10, "")
	b, ok2 := rowAt(n.Rows, bench, big, 1, 64<<10, "")
	if !ok1 || !ok2 || !(a.Time() > 0) {
		f.Detail = "not measured"
		return f
	}
	f.Value = b.Time() / a.Time()
	f.Pass = within(f.Value, lo, hi)
	f.Detail = fmt.Sprintf("t(%d) = %.0f usec, t(%d) = %.0f usec", small, a.Time(), big, b.Time())
	return f
}

// SegmentedBcast and TreeBcast are the --coll values of the Bcast runs.
const (
	SegmentedBcast = "pipeline"
	TreeBcast      = "binomial"
)

func bcastSegmented(n Network, pairs int) Finding {
	np := 2 * pairs
	f := Finding{Network: n.Name, Name: fmt.Sprintf("Bcast segmented / tree time, 1 MiB, %d nodes", np), Value: math.NaN(),
		Seed: "thesis 4.2.9: segmenting the message helps Bcast on the switches and not on the hub"}
	lo, hi := 0.0, 0.95
	f.Want = "< 0.95 (segments overlap on separate links)"
	if shared(n.Kind) {
		lo, hi, f.Want = 0.95, math.Inf(1), ">= 0.95 (one medium: no overlap, more messages)"
	}
	seg, ok1 := rowAt(n.Rows, "Bcast", np, 1, mib, SegmentedBcast)
	tree, ok2 := rowAt(n.Rows, "Bcast", np, 1, mib, TreeBcast)
	if !ok1 || !ok2 || !(tree.Time() > 0) {
		f.Detail = "not measured"
		return f
	}
	f.Value = seg.Time() / tree.Time()
	f.Pass = within(f.Value, lo, hi)
	f.Detail = fmt.Sprintf("binomial tree %.0f usec, pipeline %.0f usec", tree.Time(), seg.Time())
	return f
}

func classification(n Network) Finding {
	f := Finding{Network: n.Name, Name: "mpbench analyze: Multi-PingPong ABG class, 1 MiB", Value: math.NaN(),
		Seed: "thesis 4.2.6: the switches scale, the hub and wifi share one medium"}
	want := analysis.SwitchLike
	if shared(n.Kind) {
		want = analysis.SharedMedium
	}
	f.Want = want.String()
	abg, _ := analysis.ABGTable(n.Rows, mib)
	for _, s := range analysis.ClassifyScaling(abg) {
		if s.Benchmark == "PingPong" || s.Benchmark == "Multi-PingPong" || s.Series.Benchmark == "PingPong" {
			f.Value = s.Slope
			f.Pass = s.Class == want
			f.Detail = s.Class.String() + ": " + s.Evidence
			return f
		}
	}
	f.Detail = "no Multi-PingPong series at two or more pair counts"
	return f
}
