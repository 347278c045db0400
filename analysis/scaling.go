package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// ScalingClass is how a network carries simultaneous transfers.
type ScalingClass int

const (
	// SwitchLike: ABG grows about in proportion to the simultaneous
	// transfers (a full-duplex switch gives every pair its own channel,
	// thesis 4.2.6).
	SwitchLike ScalingClass = iota
	// SharedMedium: ABG stays flat; transfers are serialised (hub, wifi,
	// thesis 4.2.6 and 4.2.14).
	SharedMedium
	// Mixed: ABG grows, but clearly less than the transfers; or the
	// behaviour changes across process counts (ABG grows with the
	// transfers over some steps and stays flat or falls over others).
	Mixed
)

// String names the class as the report prints it ("full-duplex switch-like",
// "shared-medium-like" or "mixed").
func (c ScalingClass) String() string {
	switch c {
	case SwitchLike:
		return "full-duplex switch-like"
	case SharedMedium:
		return "shared-medium-like"
	}
	return "mixed"
}

// Thresholds of the classifications. The log-log slope s of ABG against
// the number of simultaneous transfers m is 1 when each transfer keeps its
// bandwidth (ABG ~ m) and 0 when they share one channel (ABG flat). The
// study's networks give s = 0.96-1.2 on both switches and s <= 0.46 on hub
// and wifi (which the study calls "a small increase, more like the hub",
// 4.2.3). Gains (ABG over one transfer's bandwidth) below 2 are within
// what one channel carries when a transfer's latency overlaps another's
// data.
const (
	SwitchSlope  = 0.75 // slope >= SwitchSlope: SwitchLike
	SharedSlope  = 0.5  // slope <= SharedSlope: SharedMedium
	SwitchGain   = 3.0  // gain >= SwitchGain: SwitchLike
	SharedGainAt = 2.0  // gain < SharedGainAt: SharedMedium
)

// Scaling is the classification of one benchmark's ABG across process
// counts at one message size.
type Scaling struct {
	Series    SeriesKey // the series family (SeriesKey.Family) classified
	Benchmark string    // the family's name (SeriesKey.FamilyLabel)
	Bytes     int64
	Class     ScalingClass
	// Slope is the least-squares slope of ln ABG on ln m (gonum
	// stat.LinearRegression) over all process counts.
	Slope float64
	// From and To are the rows with the fewest and the most transfers.
	From, To ABGRow
	// ABGGrowth = To.Mbps / From.Mbps; TransferGrowth = To.Transfers /
	// From.Transfers.
	ABGGrowth, TransferGrowth float64
	// Steps are the log-log slopes between consecutive transfer counts:
	// ln(ABG ratio) / ln(transfer ratio), 1 when each added transfer
	// keeps its bandwidth, 0 when ABG stays flat, negative when it falls.
	Steps []float64
	// Changes is true when the steps disagree: at least one is
	// switch-like (>= SwitchSlope) and another shared-medium-like or
	// falling (<= SharedSlope); Class is then Mixed.
	Changes  bool
	Evidence string // one sentence with the numbers, step by step
}

// ClassifyScaling classifies each (series family, size) of ABG rows (a
// plain benchmark across process counts, a -multi group size across
// numbers of groups)
// that has at least two different transfer counts, from all its points:
// Mixed when the steps between consecutive counts disagree (one step
// switch-like, slope >= SwitchSlope, another shared-medium-like or
// falling, slope <= SharedSlope: a switch that saturates or collapses at
// some count); otherwise by the least-squares log-log slope over all
// counts: SwitchLike when >= SwitchSlope, SharedMedium when <=
// SharedSlope, Mixed between. The evidence gives every step. Output
// sorted by benchmark and size.
func ClassifyScaling(rows []ABGRow) []Scaling {
	type key struct {
		fam   SeriesKey
		bytes int64
	}
	series := map[key][]ABGRow{}
	for _, r := range rows {
		if r.Mbps > 0 && r.Transfers > 0 {
			k := key{r.Series.Family(), r.Bytes}
			series[k] = append(series[k], r)
		}
	}
	var out []Scaling
	for k, s := range series {
		sort.Slice(s, func(i, j int) bool { return s[i].Transfers < s[j].Transfers })
		if s[0].Transfers == s[len(s)-1].Transfers {
			continue
		}
		x, y := make([]float64, len(s)), make([]float64, len(s))
		for i, r := range s {
			x[i], y[i] = math.Log(r.Transfers), math.Log(r.Mbps)
		}
		_, slope := stat.LinearRegression(x, y, nil, false)
		sc := Scaling{Series: k.fam, Benchmark: k.fam.FamilyLabel(), Bytes: k.bytes, Slope: slope, From: s[0], To: s[len(s)-1]}
		sc.ABGGrowth, sc.TransferGrowth = sc.To.Mbps/sc.From.Mbps, sc.To.Transfers/sc.From.Transfers
		var steps []string
		up, flat := false, false
		for i := 1; i < len(s); i++ {
			a, b := s[i-1], s[i]
			if a.Transfers == b.Transfers {
				continue
			}
			st := math.Log(b.Mbps/a.Mbps) / math.Log(b.Transfers/a.Transfers)
			sc.Steps = append(sc.Steps, st)
			up, flat = up || st >= SwitchSlope, flat || st <= SharedSlope
			steps = append(steps, fmt.Sprintf("N %d->%d: ABG x%.2f for x%.3g transfers (slope %.2f)", a.Processes, b.Processes,
				b.Mbps/a.Mbps, b.Transfers/a.Transfers, st))
		}
		sc.Changes = up && flat
		switch {
		case sc.Changes:
			sc.Class = Mixed
		case slope >= SwitchSlope:
			sc.Class = SwitchLike
		case slope <= SharedSlope:
			sc.Class = SharedMedium
		default:
			sc.Class = Mixed
		}
		verdict := fmt.Sprintf("log-log slope %.2f over all counts: %s", slope, sc.Class)
		if sc.Changes {
			verdict = fmt.Sprintf("log-log slope %.2f over all counts, but the behaviour changes between counts: %s", slope, sc.Class)
		}
		sc.Evidence = fmt.Sprintf("%s at %d B: ABG %.2f -> %.2f Mbit/s while simultaneous transfers grow %.3gx (%g -> %g, N = %d -> %d); %s; %s",
			sc.Benchmark, k.bytes, sc.From.Mbps, sc.To.Mbps, sc.TransferGrowth, sc.From.Transfers, sc.To.Transfers,
			sc.From.Processes, sc.To.Processes, strings.Join(steps, "; "), verdict)
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Benchmark != out[j].Benchmark {
			return out[i].Benchmark < out[j].Benchmark
		}
		return out[i].Bytes < out[j].Bytes
	})
	return out
}

// GainCell is one benchmark's ABG on a network at one process count,
// compared with the bandwidth of a single transfer on that network.
type GainCell struct {
	Benchmark string
	ABGMbps   float64 // aggregate bandwidth, Mbit/s
	Gain      float64 // ABGMbps / the network's single-transfer Mbit/s
	Class     ScalingClass
}

// NetworkClass is the classification of a network from the ABG of several
// benchmarks at one process count (thesis table 4.17).
type NetworkClass struct {
	Network    string
	SingleMbps float64 // bandwidth of one transfer alone (e.g. PingPong), Mbit/s
	Cells      []GainCell
	MedianGain float64 // median of the cells' gains
	Class      ScalingClass
	Evidence   string
}

// ClassifyGain classifies one gain = ABG / single-transfer bandwidth:
// SwitchLike when >= SwitchGain, SharedMedium when < SharedGainAt, Mixed
// between.
func ClassifyGain(gain float64) ScalingClass {
	switch {
	case gain >= SwitchGain:
		return SwitchLike
	case gain < SharedGainAt:
		return SharedMedium
	}
	return Mixed
}

// ClassifyNetwork classifies a network from the ABG (Mbit/s) of several
// benchmarks, given in cells with Benchmark and ABGMbps set, against the
// bandwidth of one transfer alone (singleMbps, e.g. PingPong at the same
// size). The network's class is that of the median gain: a few
// benchmarks are bound to one root link on any network (Gather, Scatter:
// thesis 4.2.7-4.2.8) and must not decide it. Error when there are no
// cells or singleMbps <= 0.
func ClassifyNetwork(network string, singleMbps float64, cells []GainCell) (NetworkClass, error) {
	if len(cells) == 0 || !(singleMbps > 0) {
		return NetworkClass{}, fmt.Errorf("network %s: need ABG cells and a single-transfer bandwidth > 0 Mbit/s (got %d cells, %g)", network, len(cells), singleMbps)
	}
	nc := NetworkClass{Network: network, SingleMbps: singleMbps, Cells: make([]GainCell, len(cells))}
	gains := make([]float64, len(cells))
	for i, c := range cells {
		c.Gain = c.ABGMbps / singleMbps
		c.Class = ClassifyGain(c.Gain)
		nc.Cells[i], gains[i] = c, c.Gain
	}
	sort.Float64s(gains)
	nc.MedianGain = median(gains)
	nc.Class = ClassifyGain(nc.MedianGain)
	nc.Evidence = fmt.Sprintf("%s: median ABG gain %.2fx over one transfer (%.4g Mbit/s), range %.2fx-%.2fx over %d benchmarks: %s",
		network, nc.MedianGain, singleMbps, gains[0], gains[len(gains)-1], len(gains), nc.Class)
	return nc, nil
}

// median returns the median of sorted values (mean of the middle two for
// an even count).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
