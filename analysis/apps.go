package analysis

import (
	"fmt"
	"math"
	"sort"
)

// AppRun is one run of an application: N nodes (ranks) and the run time
// in seconds.
type AppRun struct {
	Nodes   int
	Seconds float64
}

// AppShare decomposes one run into computation and communication
// following the thesis, section 4.3: the computation on N nodes is
// C_N = C1/N (C1 the one-node time) and the communication is what remains,
// T(N) - C1/N, a lower bound when the two overlap.
type AppShare struct {
	Nodes    int
	TotalS   float64 // T(N), seconds
	ComputeS float64 // C1/N, seconds
	CommS    float64 // T(N) - C1/N, seconds
	// CommShare is CommS / TotalS, 0..1.
	CommShare float64
	// Speedup is C1 / T(N); below 1 the parallel run is slower than one node.
	Speedup float64
	// CommGrowth is CommS over the previous (smaller) node count's CommS;
	// NaN for the first run and when that was 0.
	CommGrowth float64
	// Efficiency is Speedup / N, 1 for a perfect split.
	Efficiency float64
	// BudgetS is C1 - C1/N, seconds: the most communication time N nodes
	// may spend and still finish before one node (the threshold curve of
	// the thesis's figure 4.87).
	BudgetS float64
}

// Decompose splits each run into C1/N and T(N) - C1/N. Runs are sorted by
// node count. Errors: c1S <= 0, a run with Nodes < 1 or Seconds <= 0.
func Decompose(c1S float64, runs []AppRun) ([]AppShare, error) {
	if !(c1S > 0) {
		return nil, fmt.Errorf("one-node time C1 must be > 0 s (got %g)", c1S)
	}
	rs := append([]AppRun(nil), runs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Nodes < rs[j].Nodes })
	out := make([]AppShare, len(rs))
	for i, r := range rs {
		if r.Nodes < 1 || !(r.Seconds > 0) {
			return nil, fmt.Errorf("application run on %d nodes taking %g s: need nodes >= 1 and time > 0 s", r.Nodes, r.Seconds)
		}
		c := c1S / float64(r.Nodes)
		s := AppShare{Nodes: r.Nodes, TotalS: r.Seconds, ComputeS: c, CommS: r.Seconds - c,
			Speedup: c1S / r.Seconds, CommGrowth: math.NaN()}
		s.CommShare = s.CommS / s.TotalS
		s.Efficiency = s.Speedup / float64(r.Nodes)
		s.BudgetS = c1S - c
		if i > 0 && out[i-1].CommS > 0 {
			s.CommGrowth = s.CommS / out[i-1].CommS
		}
		out[i] = s
	}
	return out, nil
}

// Payoff says where adding nodes stops paying in a decomposition sorted by
// node count (Decompose's output): Best is the node count with the
// shortest T(N); StopsAt is the first node count whose T(N) is not below
// that of the count before it (0 when every added node shortened the
// run). Zero values for no shares.
func Payoff(shares []AppShare) (best, stopsAt int) {
	for i, s := range shares {
		if i == 0 || s.TotalS < shares[best].TotalS {
			best = i
		}
		if i > 0 && stopsAt == 0 && s.TotalS >= shares[i-1].TotalS {
			stopsAt = s.Nodes
		}
	}
	if len(shares) == 0 {
		return 0, stopsAt
	}
	return shares[best].Nodes, stopsAt
}
