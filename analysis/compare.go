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

// CompareRow compares one point (series, size) of a run with the same
// point of the first run.
type CompareRow struct {
	// SeriesKey is the series both points belong to (with the runs'
	// conditions): points are matched on it and on the size only.
	SeriesKey
	Bytes    int64   // message size; -1 for benchmarks without a size (Barrier)
	Run      int     // index of the compared run (>= 1)
	BaseUsec float64 // first run's time, usec (median of its repeats)
	Usec     float64 // this run's time, usec (median of its repeats)
	DiffUsec float64 // Usec - BaseUsec
	Ratio    float64 // Usec / BaseUsec: > 1 slower than the first run
	// BaseMBps and MBps are bytes / time in MB/s (10^6 bytes/s), computed
	// from the times so that runs whose tools define Mbyte differently
	// compare in one unit (field case B23); NaN without a size. For a
	// Bandwidth point they are the printed bandwidths converted to MB/s.
	BaseMBps, MBps float64
	// Bandwidth is true for a series that prints a bandwidth but no time
	// (IMB Uniband/Biband and their Multi- forms, osu_bw, osu_bibw,
	// osu_mbw_mr): the point compares the printed bandwidths (medians of
	// the repeats, converted to MB = 10^6 B); the times are bytes /
	// bandwidth, the time per message of the stream, so that Ratio,
	// Change and Noise keep their meaning (> 1, + when slower).
	Bandwidth bool
	// BaseMsgRate and MsgRate are the printed messages per second (IMB
	// Msg/sec, OSU Messages/s, median of the repeats); NaN when not printed.
	BaseMsgRate, MsgRate float64
	// LossPct is the bandwidth lost against the first run, 100 x (1 -
	// BaseUsec/Usec) as in the study's tables 4.3/4.4; negative is a gain.
	LossPct float64
	// Change is the relative difference of the two times measured as Noise
	// is (max/min - 1): Usec/BaseUsec - 1 when this run is slower,
	// -(BaseUsec/Usec - 1) when it is faster; 0 for equal times.
	Change float64
	// Noise is the larger relative spread of the repeats of this point in
	// either run (see spreadOf), at least the noise floor (NoiseFloor);
	// when neither run repeats it but a file prints the distribution of
	// its repetitions (Spread: OSU's P50/P90 tail columns, IMB -show_tail),
	// the larger Spread.Noise; NaN when neither run has either.
	Noise float64
	// NoiseFrom says where Noise comes from: "repeats", "spread" (the
	// per-repetition distribution a file prints) or "" (no noise).
	NoiseFrom string
	// Significant is true when repeats exist and |Change| exceeds Noise:
	// both are the larger time over the smaller minus 1, so a 2x speed-up
	// and a 2x slow-down weigh alike (|Ratio - 1| would call the speed-up
	// a 50% change against a noise measured as up to 100%).
	Significant bool
}

// Unmatched is a series measured in some of the compared runs only: its
// points are in no comparison.
type Unmatched struct {
	Series SeriesKey
	In     []int // indices of the runs that measured it, ascending
}

// pointStats is one point of a run: the median of its repeats, their
// spread (spreadOf), the messages per second and the largest
// per-repetition spread (Spread.Noise) its rows print.
type pointStats struct{ median, spread, msgRate, distNoise float64 }

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

// sourcePoints is one compared run's points by series and size, and
// whether each series is bandwidth-only.
type sourcePoints struct {
	pts       map[SeriesKey]map[int64]pointStats
	bandwidth map[SeriesKey]bool
}

// runPoints takes the median of the rows of a file's runs per (series,
// size) and records the repeats' spread (spreadOf). Rows without a size
// (Barrier) are one point at size -1. A row without a time but with a
// bandwidth (bandwidth-only tables) gives the time per message bytes /
// bandwidth, the bandwidth converted from its run's Mbyte. The median,
// not the mean, so that one repeat disturbed by another job on a shared
// machine does not move the point.
func runPoints(runs []result.Run) sourcePoints {
	raw := map[SeriesKey]map[int64][]float64{}
	rates := map[SeriesKey]map[int64][]float64{}
	dist := map[SeriesKey]map[int64]float64{}
	sp := sourcePoints{pts: map[SeriesKey]map[int64]pointStats{}, bandwidth: map[SeriesKey]bool{}}
	for _, run := range runs {
		mbyte := run.Meta.MByte
		if mbyte <= 0 {
			mbyte = result.MB
		}
		for i := range run.Rows {
			r := &run.Rows[i]
			t, derived := rowTime(r, mbyte)
			if !(t > 0) {
				continue
			}
			k, b := RunKeyOf(r, run.Meta), max(r.Bytes, -1)
			if raw[k] == nil {
				raw[k], rates[k], dist[k] = map[int64][]float64{}, map[int64][]float64{}, map[int64]float64{}
			}
			raw[k][b] = append(raw[k][b], t)
			if sp, ok := SpreadOf(r); ok && !(sp.Noise() <= dist[k][b]) {
				dist[k][b] = sp.Noise()
			}
			if r.MsgRate > 0 {
				rates[k][b] = append(rates[k][b], r.MsgRate)
			}
			sp.bandwidth[k] = sp.bandwidth[k] || derived
		}
	}
	for k, m := range raw {
		sp.pts[k] = map[int64]pointStats{}
		for b, ts := range m {
			sort.Float64s(ts)
			rate := math.NaN()
			if rs := rates[k][b]; len(rs) > 0 {
				sort.Float64s(rs)
				rate = median(rs)
			}
			dn, ok := dist[k][b]
			if !ok {
				dn = math.NaN()
			}
			sp.pts[k][b] = pointStats{median(ts), spreadOf(ts), rate, dn}
		}
	}
	return sp
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

// CompareRuns compares every later source with the first, point by
// point: a source is a file's runs, whose repeated rows of a point give
// its median and the noise (never less than NoiseFloor). Points are
// matched on their series (SeriesKey with the runs' conditions) and size;
// benchmarks without a size, such as Barrier, compare their one time per
// process count; bandwidth-only series (CompareRow.Bandwidth) compare
// their bandwidths. Points missing from either source are left out, zero
// and negative times too; the series measured in some sources only are
// returned in unmatched, sorted by series. Rows sorted by series, size
// and run. Nil for fewer than two sources.
func CompareRuns(sources [][]result.Run) (rows []CompareRow, unmatched []Unmatched) {
	if len(sources) < 2 {
		return nil, nil
	}
	all := make([]sourcePoints, len(sources))
	in := map[SeriesKey][]int{}
	for i, s := range sources {
		all[i] = runPoints(s)
		for k := range all[i].pts {
			in[k] = append(in[k], i)
		}
	}
	base := all[0]
	for ri, sp := range all[1:] {
		for k, pts := range sp.pts {
			for b, p := range pts {
				q, ok := base.pts[k][b]
				if !ok {
					continue
				}
				rows = append(rows, comparePoint(k, b, ri+1, q, p, base.bandwidth[k] || sp.bandwidth[k]))
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.SeriesKey != b.SeriesKey:
			return a.SeriesKey.Less(b.SeriesKey)
		case a.Bytes != b.Bytes:
			return a.Bytes < b.Bytes
		}
		return a.Run < b.Run
	})
	for k, idx := range in {
		if len(idx) < len(sources) {
			sort.Ints(idx)
			unmatched = append(unmatched, Unmatched{Series: k, In: idx})
		}
	}
	sort.Slice(unmatched, func(i, j int) bool { return unmatched[i].Series.Less(unmatched[j].Series) })
	return rows, unmatched
}

// comparePoint compares point p of run with point q of the first run.
func comparePoint(k SeriesKey, b int64, run int, q, p pointStats, bandwidth bool) CompareRow {
	c := CompareRow{SeriesKey: k, Bytes: b, Run: run, Bandwidth: bandwidth,
		BaseUsec: q.median, Usec: p.median, DiffUsec: p.median - q.median, Ratio: p.median / q.median,
		BaseMBps: float64(b) / q.median, MBps: float64(b) / p.median, LossPct: 100 * (1 - q.median/p.median),
		BaseMsgRate: q.msgRate, MsgRate: p.msgRate, Change: relativeChange(q.median, p.median)}
	if b < 0 {
		c.BaseMBps, c.MBps = math.NaN(), math.NaN()
	}
	c.Noise = math.NaN()
	for _, s := range []float64{p.spread, q.spread} {
		if !math.IsNaN(s) && (math.IsNaN(c.Noise) || s > c.Noise) {
			c.Noise, c.NoiseFrom = s, "repeats"
		}
	}
	if c.NoiseFrom == "" {
		for _, s := range []float64{p.distNoise, q.distNoise} {
			if !math.IsNaN(s) && (math.IsNaN(c.Noise) || s > c.Noise) {
				c.Noise, c.NoiseFrom = s, "spread"
			}
		}
	}
	if !math.IsNaN(c.Noise) {
		floor := NoiseFloor(p.median, q.median)
		if bandwidth {
			floor = MinNoise // the printed resolution is on the bandwidth, not on bytes / bandwidth
		}
		c.Noise = math.Max(c.Noise, floor)
	}
	// A difference of one unit in the printed last digit is at the
	// floor, not beyond it: compare with a margin for rounding.
	c.Significant = !math.IsNaN(c.Noise) && math.Abs(c.Change) > c.Noise*(1+1e-9)
	return c
}
