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
		if i > 0 && out[i-1].CommS > 0 {
			s.CommGrowth = s.CommS / out[i-1].CommS
		}
		out[i] = s
	}
	return out, nil
}
