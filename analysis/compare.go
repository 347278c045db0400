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
	Multi     bool    // rows came from an IMB -multi run (Multi-<Benchmark>)
	Processes int     // total ranks
	Group     int     // IMB -multi 1 group, -1 otherwise
	Bytes     int64   // message size; -1 for benchmarks without a size (Barrier)
	Run       int     // index of the compared run (>= 1)
	BaseUsec  float64 // first run's time, usec (median of its repeats)
	Usec      float64 // this run's time, usec (median of its repeats)
	DiffUsec  float64 // Usec - BaseUsec
	Ratio     float64 // Usec / BaseUsec: > 1 slower than the first run
	// BaseMBps and MBps are bytes / time in MB/s (10^6 bytes/s), computed
	// from the times so that runs whose tools define Mbyte differently
	// compare in one unit (field case B23); NaN without a size.
	BaseMBps, MBps float64
	// LossPct is the bandwidth lost against the first run, 100 x (1 -
	// BaseUsec/Usec) as in the study's tables 4.3/4.4; negative is a gain.
	LossPct float64
	// Change is the relative difference of the two times measured as Noise
	// is (max/min - 1): Usec/BaseUsec - 1 when this run is slower,
	// -(BaseUsec/Usec - 1) when it is faster; 0 for equal times.
	Change float64
	// Noise is the larger relative spread of the repeats of this point in
	// either run (see spreadOf), at least the noise floor (NoiseFloor);
	// NaN when neither run repeats it.
	Noise float64
	// Significant is true when repeats exist and |Change| exceeds Noise:
	// both are the larger time over the smaller minus 1, so a 2x speed-up
	// and a 2x slow-down weigh alike (|Ratio - 1| would call the speed-up
	// a 50% change against a noise measured as up to 100%).
	Significant bool
}

type pointStats struct{ median, spread float64 }

// MinNoise is the least relative noise a comparison assumes when repeats
// exist: repeats within one file come from one job and agree better than
// separate jobs do, and identical repeats (a file concatenated with
// itself) would otherwise make any difference significant.
const MinNoise = 0.01

// PrintResolutionUsec is the resolution of printed times: IMB and OSU
// print two decimals, so two printed values of one time differ by up to
// 0.01 usec.
const PrintResolutionUsec = 0.01

// NoiseFloor returns the least relative noise of a point whose times are
// a and b usec: MinNoise, or the print resolution relative to the smaller
// time when that is larger.
func NoiseFloor(a, b float64) float64 {
	return math.Max(MinNoise, PrintResolutionUsec/math.Min(a, b))
}

// runPoints takes the median of a run's rows per (series, size) and
// records the repeats' spread (spreadOf). Rows without a size (Barrier)
// are one point at size -1. The median, not the mean, so that one repeat
// disturbed by another job on a shared machine does not move the point.
func runPoints(rows []result.Row) map[seriesKey]map[int64]pointStats {
	raw := map[seriesKey]map[int64][]float64{}
	for i := range rows {
		r := &rows[i]
		if t := r.Time(); t > 0 {
			k, b := keyOf(r), max(r.Bytes, -1)
			if raw[k] == nil {
				raw[k] = map[int64][]float64{}
			}
			raw[k][b] = append(raw[k][b], t)
		}
	}
	out := map[seriesKey]map[int64]pointStats{}
	for k, m := range raw {
		out[k] = map[int64]pointStats{}
		for b, ts := range m {
			sort.Float64s(ts)
			out[k][b] = pointStats{median(ts), spreadOf(ts)}
		}
	}
	return out
}

// spreadOf is the relative spread of sorted repeated times, max/min - 1;
// from 5 repeats on, the fastest and the slowest repeat are left out
// first (second-slowest / second-fastest - 1), so that one disturbed
// repeat does not hide every difference. NaN for a single time.
func spreadOf(ts []float64) float64 {
	switch n := len(ts); {
	case n < 2:
		return math.NaN()
	case n >= 5:
		return ts[n-2]/ts[1] - 1
	default:
		return ts[n-1]/ts[0] - 1
	}
}

// relativeChange is the change from time base to time t in the terms of
// spreadOf, the larger over the smaller minus 1: t/base - 1 when t is
// slower, -(base/t - 1) when faster. Both times are > 0.
func relativeChange(base, t float64) float64 {
	if t >= base {
		return t/base - 1
	}
	return -(base/t - 1)
}

// CompareRuns compares every later run with the first, point by point
// (benchmark, total ranks, -multi group, size; benchmarks without a size,
// such as Barrier, compare their one time per rank count); points missing
// from either run are left out, zero and negative times too. Repeated rows
// of a point within a run give its median and the noise, never less than
// NoiseFloor. Output sorted by benchmark, ranks, size and run.
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
				c := CompareRow{Benchmark: k.bench, Multi: k.multi, Processes: k.procs, Group: k.group, Bytes: b, Run: ri + 1,
					BaseUsec: q.median, Usec: p.median, DiffUsec: p.median - q.median, Ratio: p.median / q.median,
					BaseMBps: float64(b) / q.median, MBps: float64(b) / p.median, LossPct: 100 * (1 - q.median/p.median),
					Change: relativeChange(q.median, p.median)}
				if b < 0 {
					c.BaseMBps, c.MBps = math.NaN(), math.NaN()
				}
				c.Noise = math.NaN()
				for _, s := range []float64{p.spread, q.spread} {
					if !math.IsNaN(s) && (math.IsNaN(c.Noise) || s > c.Noise) {
						c.Noise = math.Max(s, NoiseFloor(p.median, q.median))
					}
				}
				// A difference of one unit in the printed last digit is at the
				// floor, not beyond it: compare with a margin for rounding.
				c.Significant = !math.IsNaN(c.Noise) && math.Abs(c.Change) > c.Noise*(1+1e-9)
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Benchmark != b.Benchmark:
			return a.Benchmark < b.Benchmark
		case a.Multi != b.Multi:
			return !a.Multi
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
