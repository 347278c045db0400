package analysis

import (
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// Loss compares two bandwidths of the same quantity (thesis tables 4.3 and
// 4.4): Diff = Base - Other in the inputs' unit and Pct = 100 x Diff /
// Base, the percentage of Base lost.
type Loss struct {
	Base, Other float64
	Diff        float64
	Pct         float64
}

// BandwidthLoss returns the loss from base to other: table 4.3 uses the
// file-transfer Mbit/s as base and PingPong's as other (MPI overhead),
// table 4.4 PingPong's MB/s as base and PingPing's as other. Pct is NaN
// when base is 0.
func BandwidthLoss(base, other float64) Loss {
	l := Loss{Base: base, Other: other, Diff: base - other, Pct: math.NaN()}
	if base != 0 {
		l.Pct = 100 * l.Diff / base
	}
	return l
}

// CompareRow compares one point (benchmark, ranks, size) of a run with the
// same point of the first run.
type CompareRow struct {
	Benchmark string
	Processes int // total ranks
	Group     int // IMB -multi 1 group, -1 otherwise
	Bytes     int64
	Run       int     // index of the compared run (>= 1)
	BaseUsec  float64 // first run's time, usec (mean of its repeats)
	Usec      float64 // this run's time, usec (mean of its repeats)
	DiffUsec  float64 // Usec - BaseUsec
	Ratio     float64 // Usec / BaseUsec: > 1 slower than the first run
	// BaseMBps and MBps are bytes / time in MB/s (10^6 bytes/s), computed
	// from the times so that runs whose tools define Mbyte differently
	// compare in one unit (field case B23).
	BaseMBps, MBps float64
	// LossPct is the bandwidth lost against the first run, 100 x (1 -
	// BaseUsec/Usec) as in the study's tables 4.3/4.4; negative is a gain.
	LossPct float64
	// Noise is the larger relative spread (max/min - 1) of the repeats of
	// this point in either run; NaN when neither run repeats it.
	Noise float64
	// Significant is true when repeats exist and |Ratio - 1| exceeds Noise.
	Significant bool
}

type pointStats struct{ mean, spread float64 }

// runPoints averages a run's rows per (series, size) and records the
// repeats' spread (NaN for a single row).
func runPoints(rows []result.Row) map[seriesKey]map[int64]pointStats {
	raw := map[seriesKey]map[int64][]float64{}
	for i := range rows {
		r := &rows[i]
		if t := r.Time(); r.Bytes >= 0 && t > 0 {
			k := keyOf(r)
			if raw[k] == nil {
				raw[k] = map[int64][]float64{}
			}
			raw[k][r.Bytes] = append(raw[k][r.Bytes], t)
		}
	}
	out := map[seriesKey]map[int64]pointStats{}
	for k, m := range raw {
		out[k] = map[int64]pointStats{}
		for b, ts := range m {
			lo, hi, sum := ts[0], ts[0], 0.0
			for _, t := range ts {
				lo, hi, sum = math.Min(lo, t), math.Max(hi, t), sum+t
			}
			s := math.NaN()
			if len(ts) > 1 {
				s = hi/lo - 1
			}
			out[k][b] = pointStats{sum / float64(len(ts)), s}
		}
	}
	return out
}

// CompareRuns compares every later run with the first, point by point
// (benchmark, total ranks, -multi group, size); points missing from either
// run are left out, zero and negative times too. Repeated rows of a point
// within a run are averaged and give the noise. Output sorted by
// benchmark, ranks, size and run.
func CompareRuns(runs [][]result.Row) []CompareRow {
	if len(runs) < 2 {
		return nil
	}
	base := runPoints(runs[0])
	var out []CompareRow
	for ri, rows := range runs[1:] {
		for k, pts := range runPoints(rows) {
			for b, p := range pts {
				q, ok := base[k][b]
				if !ok {
					continue
				}
				c := CompareRow{Benchmark: k.bench, Processes: k.procs, Group: k.group, Bytes: b, Run: ri + 1,
					BaseUsec: q.mean, Usec: p.mean, DiffUsec: p.mean - q.mean, Ratio: p.mean / q.mean,
					BaseMBps: float64(b) / q.mean, MBps: float64(b) / p.mean, LossPct: 100 * (1 - q.mean/p.mean)}
				c.Noise = math.NaN()
				for _, s := range []float64{p.spread, q.spread} {
					if !math.IsNaN(s) && (math.IsNaN(c.Noise) || s > c.Noise) {
						c.Noise = s
					}
				}
				c.Significant = !math.IsNaN(c.Noise) && math.Abs(c.Ratio-1) > c.Noise
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Benchmark != b.Benchmark:
			return a.Benchmark < b.Benchmark
		case a.Processes != b.Processes:
			return a.Processes < b.Processes
		case a.Group != b.Group:
			return a.Group < b.Group
		case a.Bytes != b.Bytes:
			return a.Bytes < b.Bytes
		}
		return a.Run < b.Run
	})
	return out
}
