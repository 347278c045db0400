package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// FlagKind names a kind of anomaly.
type FlagKind string

// The anomaly kinds DetectAnomalies raises.
const (
	// FlagTimeFalls: a larger message took clearly less time than a
	// smaller one (thesis table 4.24: 1048576 B slower than 2097152 B).
	FlagTimeFalls FlagKind = "time-falls"
	// FlagJump: time grew much faster than the size (thesis table 4.24:
	// x4 for a doubling); also the bandwidth cliff of field case B02.
	FlagJump FlagKind = "jump"
	// FlagZeroTime: a zero or negative time for a size > 0 (field case B17).
	FlagZeroTime FlagKind = "zero-time"
	// FlagZeroColumn: a time column is zero or negative at every size > 0
	// of a series (field case B17: t_ovrl all 0.00).
	FlagZeroColumn FlagKind = "zero-time-column"
	// FlagRepeats: repeated measurements of the same point disagree.
	FlagRepeats FlagKind = "repeats-disagree"
	// FlagInversion: time fell as ranks were added (field case B18).
	FlagInversion FlagKind = "scaling-inversion"
	// FlagDefects: IMB -check reported defects (field case B20).
	FlagDefects FlagKind = "defects"
)

// Flag is one anomaly: where it is and why, in a sentence with the numbers.
type Flag struct {
	Kind      FlagKind
	Series    SeriesKey // the series the flag is about (zero for a run-wide flag)
	Benchmark string
	Processes int   // total ranks (group size x groups under -multi)
	Group     int   // IMB -multi 1 group, -1 otherwise
	Bytes     int64 // size the flag is about, bytes
	Column    string
	Msg       string
}

// String formats the flag as "kind: message".
func (f Flag) String() string { return fmt.Sprintf("%s: %s", f.Kind, f.Msg) }

// AnomalyOptions tunes DetectAnomalies; zero fields take the defaults.
type AnomalyOptions struct {
	// Noise is the relative measurement noise (default 0.05). A time fall
	// is flagged when it exceeds Noise where the neighbouring sizes grow
	// with size (bandwidth-bound), 3 x Noise where they are flat
	// (latency-bound, where jitter dominates); an inversion across rank
	// counts when it exceeds 2 x Noise.
	Noise float64
	// JumpFactor flags a step whose time ratio exceeds the size ratio times
	// this factor (default 1.5: x3 for a doubling). Under t = alpha +
	// bytes/bandwidth with alpha >= 0 the time ratio never exceeds the size
	// ratio, so such steps are protocol switches, cache cliffs or faults.
	JumpFactor float64
	// RepeatTol flags repeats whose max/min - 1 exceeds it (default 0.10).
	RepeatTol float64
	// MByte is the bytes per Mbyte of the rows' MBps (result.MB or
	// result.MiB; default result.MB). Rows that print a bandwidth but no
	// time (osu_bw, osu_bibw, osu_mbw_mr, IMB Uniband/Biband) are checked
	// with the time per message bytes / bandwidth.
	MByte float64
	// ReduceScatterPerRank says the rows' Reduce_scatter #bytes is each
	// rank's block, so that more ranks reduce a longer vector and an
	// inversion is flagged as for other collectives; otherwise #bytes is
	// the whole vector split among the ranks and Reduce_scatter is exempt
	// (see ReduceScatterPerRank for which files are which).
	ReduceScatterPerRank bool
}

// ReduceScatterPerRank reports whether Reduce_scatter's #bytes is each
// rank's block in a file of tool and version (result.Meta): in mpbench's
// files and IMB's from 2019 Update 1 on (IMB_reduce_scatter.c: recvcounts
// of size/s_size on every rank unless built with -DIMB2018); IMB 2019
// (Update 0), 2018 and older (2017, 4.1, 3.2) split #bytes among the ranks
// (IMB_get_rank_portion), and so does a file whose version is not known.
func ReduceScatterPerRank(tool, version string) bool {
	if tool == "mpbench" {
		return true
	}
	if !strings.HasPrefix(tool, "IMB") {
		return false
	}
	var year, update int
	if n, _ := fmt.Sscanf(version, "%d Update %d", &year, &update); n >= 1 && year >= 2019 && year < 3000 {
		if n == 2 || !strings.Contains(version, ".") {
			return year > 2019 || update >= 1
		}
	}
	if n, _ := fmt.Sscanf(version, "%d.%d", &year, &update); n == 2 && year >= 2019 && year < 3000 {
		return year > 2019 || update >= 1
	}
	return false
}

func (o AnomalyOptions) withDefaults() AnomalyOptions {
	if o.Noise <= 0 {
		o.Noise = 0.05
	}
	if o.JumpFactor <= 0 {
		o.JumpFactor = 1.5
	}
	if o.RepeatTol <= 0 {
		o.RepeatTol = 0.10
	}
	if o.MByte <= 0 {
		o.MByte = result.MB
	}
	return o
}

// DetectAnomalies checks every size sweep in rows (one per SeriesKey) and
// every series family across rank counts (SeriesKey.Family),
// and returns the flags sorted by benchmark, ranks, size and kind. Times
// are the rows' headline times (result.Row.Time); repeated rows of one
// point are averaged for the sweep checks.
func DetectAnomalies(rows []result.Row, opt AnomalyOptions) []Flag {
	opt = opt.withDefaults()
	series := map[SeriesKey][]*result.Row{}
	var keys []SeriesKey
	for i := range rows {
		k := KeyOf(&rows[i])
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		series[k] = append(series[k], &rows[i])
	}
	var flags []Flag
	means := map[SeriesKey][]Point{}
	for _, k := range keys {
		rs := series[k]
		flags = append(flags, zeroTimes(k, rs)...)
		flags = append(flags, defects(k, rs)...)
		pts, fl := repeats(k, rs, opt)
		steps := sweepSteps(k, pts, opt)
		if _, derived := rowTime(rs[len(rs)-1], opt.MByte); derived {
			for i := range fl {
				fl[i].Msg += derivedNote
			}
			for i := range steps {
				steps[i].Msg += derivedNote
			}
		}
		flags = append(flags, fl...)
		flags = append(flags, steps...)
		if _, derived := rowTime(rs[len(rs)-1], opt.MByte); !derived {
			// A bandwidth-only benchmark prints the aggregate of its pairs:
			// its time per message falls as pairs are added, by design.
			means[k] = pts
		}
	}
	flags = append(flags, inversions(keys, means, opt)...)
	sort.SliceStable(flags, func(i, j int) bool {
		a, b := flags[i], flags[j]
		switch {
		case a.Benchmark != b.Benchmark:
			return a.Benchmark < b.Benchmark
		case a.Processes != b.Processes:
			return a.Processes < b.Processes
		case a.Bytes != b.Bytes:
			return a.Bytes < b.Bytes
		}
		return a.Kind < b.Kind
	})
	return flags
}

// newFlag returns a flag about series k, its sentence starting with
// where the series is (SeriesKey.where).
func newFlag(kind FlagKind, k SeriesKey, bytes int64, column, format string, args ...any) Flag {
	return Flag{Kind: kind, Series: k, Benchmark: k.Name(), Processes: k.TotalRanks(), Group: k.Group, Bytes: bytes, Column: column,
		Msg: k.where() + ": " + fmt.Sprintf(format, args...)}
}

// timeColumns returns the time-valued columns of a row by printed name:
// t_min/t_max/t_avg and Extra columns whose name says usec or us.
func timeColumns(r *result.Row) map[string]float64 {
	c := map[string]float64{"t_min[usec]": r.TMin, "t_max[usec]": r.TMax, "t_avg[usec]": r.TAvg}
	for name, v := range r.Extra {
		l := strings.ToLower(name)
		if strings.Contains(l, "usec") || strings.Contains(l, "(us)") || strings.Contains(l, "[us]") {
			c[name] = v
		}
	}
	return c
}

// zeroTimes flags zero or negative times at sizes > 0: one flag per
// column when the whole column is affected, else one per row.
func zeroTimes(k SeriesKey, rs []*result.Row) []Flag {
	type cell struct {
		bytes int64
		v     float64
	}
	cols := map[string][]cell{}
	for _, r := range rs {
		if r.Bytes <= 0 {
			continue
		}
		for name, v := range timeColumns(r) {
			if !math.IsNaN(v) {
				cols[name] = append(cols[name], cell{r.Bytes, v})
			}
		}
	}
	names := make([]string, 0, len(cols))
	for n := range cols {
		names = append(names, n)
	}
	sort.Strings(names)
	var flags []Flag
	for _, name := range names {
		var bad []cell
		for _, c := range cols[name] {
			if c.v <= 0 {
				bad = append(bad, c)
			}
		}
		switch {
		case len(bad) == 0:
		case len(bad) == len(cols[name]) && len(bad) > 1:
			flags = append(flags, newFlag(FlagZeroColumn, k, bad[0].bytes, name,
				"column %s is zero or negative at all %d sizes > 0 (%d-%d B); a reporting fault, left out of fits and bandwidths",
				name, len(bad), bad[0].bytes, bad[len(bad)-1].bytes))
		default:
			for _, c := range bad {
				flags = append(flags, newFlag(FlagZeroTime, k, c.bytes, name,
					"%s = %.2f us at %d B; a time for a message > 0 B must be positive, left out of fits and bandwidths", name, c.v, c.bytes))
			}
		}
	}
	return flags
}

func defects(k SeriesKey, rs []*result.Row) []Flag {
	var flags []Flag
	for _, r := range rs {
		if r.Defects > 0 {
			flags = append(flags, newFlag(FlagDefects, k, r.Bytes, "defects",
				"IMB -check reports %g defects at %d B: the data received was wrong", r.Defects, r.Bytes))
		}
	}
	return flags
}

// rowTime returns a row's headline time in usec, or for a row that
// prints a bandwidth but no time the time per message bytes / bandwidth
// (bandwidth in Mbytes/sec of mbyte bytes), with derived true.
func rowTime(r *result.Row, mbyte float64) (usec float64, derived bool) {
	if t := r.Time(); !math.IsNaN(t) {
		return t, false
	}
	if r.Bytes > 0 && r.MBps > 0 {
		return float64(r.Bytes) / (r.MBps * mbyte / 1e6), true
	}
	return math.NaN(), false
}

// derivedNote ends the sentences of flags on times derived from a
// bandwidth.
const derivedNote = " (no time column: time = bytes / reported bandwidth)"

// repeats averages repeated rows of a size, flags those that disagree and
// returns the sweep's positive points in ascending size order. Rows
// without a size (Barrier) are one point at size -1, so that their
// repeats and their scaling across rank counts are checked too.
func repeats(k SeriesKey, rs []*result.Row, opt AnomalyOptions) ([]Point, []Flag) {
	by := map[int64][]float64{}
	for _, r := range rs {
		if t, _ := rowTime(r, opt.MByte); t > 0 {
			b := max(r.Bytes, -1)
			by[b] = append(by[b], t)
		}
	}
	var pts []Point
	var flags []Flag
	for b, ts := range by {
		lo, hi, sum := ts[0], ts[0], 0.0
		for _, t := range ts {
			lo, hi, sum = math.Min(lo, t), math.Max(hi, t), sum+t
		}
		if len(ts) > 1 && hi/lo-1 > opt.RepeatTol {
			flags = append(flags, newFlag(FlagRepeats, k, b, "",
				"%d repeats at %d B range %.2f-%.2f us (%.0f%% apart, tolerance %.0f%%)", len(ts), b, lo, hi, 100*(hi/lo-1), 100*opt.RepeatTol))
		}
		pts = append(pts, Point{b, sum / float64(len(ts))})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Bytes < pts[j].Bytes })
	sort.Slice(flags, func(i, j int) bool { return flags[i].Bytes < flags[j].Bytes })
	return pts, flags
}

// sweepSteps checks each step between adjacent sizes > 0 of a sweep for a
// jump (time ratio > size ratio x JumpFactor) and a fall (time ratio below
// 1 beyond noise). The noise allowed for a fall depends on the trend of
// the neighbouring steps (up to two each side): their median log-log
// slope gives the expected ratio; where it is >= 1.5 the sweep is
// bandwidth-bound and any fall beyond Noise is flagged, elsewhere the
// sweep is latency-bound and a fall must exceed 3 x Noise.
func sweepSteps(k SeriesKey, pts []Point, opt AnomalyOptions) []Flag {
	for len(pts) > 0 && pts[0].Bytes <= 0 {
		pts = pts[1:] // 0 B and no size (-1) have no size ratio
	}
	n := len(pts) - 1
	if n < 1 {
		return nil
	}
	slopes := make([]float64, n)
	for i := range n {
		slopes[i] = math.Log(pts[i+1].Usec/pts[i].Usec) / math.Log(float64(pts[i+1].Bytes)/float64(pts[i].Bytes))
	}
	var flags []Flag
	for i := range n {
		a, b := pts[i], pts[i+1]
		size, r := float64(b.Bytes)/float64(a.Bytes), b.Usec/a.Usec
		if r > size*opt.JumpFactor {
			flags = append(flags, newFlag(FlagJump, k, b.Bytes, "",
				"time rises %.2fx from %d B (%.2f us) to %d B (%.2f us) for a %.3gx larger message, beyond the %.3gx that size can explain; bandwidth falls from %.2f to %.2f MB/s (protocol switch eager/rendezvous, cache, falling repetitions or a fault)",
				r, a.Bytes, a.Usec, b.Bytes, b.Usec, size, size*opt.JumpFactor, float64(a.Bytes)/a.Usec, float64(b.Bytes)/b.Usec))
		}
		var near []float64
		for j := max(0, i-2); j <= min(n-1, i+2); j++ {
			if j != i {
				near = append(near, slopes[j])
			}
		}
		expect := 1.0
		if len(near) > 0 {
			sort.Float64s(near)
			expect = math.Pow(size, median(near))
		}
		allow := 3 * opt.Noise
		if expect >= 1.5 {
			allow = opt.Noise
		}
		if r < 1-allow {
			flags = append(flags, newFlag(FlagTimeFalls, k, a.Bytes, "",
				"%d B takes %.2f us, %.1f%% more than the larger %d B (%.2f us); neighbouring sizes scale %.2fx per step, noise allowance %.0f%%",
				a.Bytes, a.Usec, 100*(a.Usec/b.Usec-1), b.Bytes, b.Usec, expect, 100*allow))
		}
	}
	return flags
}

// sizeText names a size in a sentence: "1024 B", or "the call" for
// benchmarks without a size (Barrier).
func sizeText(b int64) string {
	if b < 0 {
		return "the call"
	}
	return fmt.Sprintf("%d B", b)
}

// inversions flags sizes where a series' time falls as ranks are added
// beyond 2 x Noise, comparing each series with the next smaller count of
// its family (SeriesKey.Family: more ranks of a plain benchmark, more
// simultaneous groups of one -multi group size). Reduce_scatter is
// exempt unless opt.ReduceScatterPerRank: in files of IMB before 2019
// Update 1 its size is the total vector, so each rank's share shrinks as
// ranks are added.
func inversions(keys []SeriesKey, pts map[SeriesKey][]Point, opt AnomalyOptions) []Flag {
	groups := map[SeriesKey][]SeriesKey{}
	var order []SeriesKey
	for _, k := range keys {
		split := !opt.ReduceScatterPerRank && strings.HasPrefix(normBenchmark(k.Benchmark), "reducescatter")
		if _, ok := pts[k]; !ok || split || k.Processes <= 0 {
			continue
		}
		g := k.Family()
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], k)
	}
	var flags []Flag
	for _, g := range order {
		ks := groups[g]
		sort.Slice(ks, func(i, j int) bool { return ks[i].TotalRanks() < ks[j].TotalRanks() })
		for i := 1; i < len(ks); i++ {
			lo, hi := ks[i-1], ks[i]
			small := map[int64]float64{}
			for _, p := range pts[lo] {
				small[p.Bytes] = p.Usec
			}
			for _, p := range pts[hi] {
				if t, ok := small[p.Bytes]; ok && p.Usec < t*(1-2*opt.Noise) {
					flags = append(flags, newFlag(FlagInversion, hi, p.Bytes, "",
						"%s takes %.2f us, %.0f%% less than %.2f us on %d ranks; time should not fall as ranks are added (check the synchronisation method, e.g. a barrier algorithm change)",
						sizeText(p.Bytes), p.Usec, 100*(1-p.Usec/t), t, lo.TotalRanks()))
				}
			}
		}
	}
	return flags
}
