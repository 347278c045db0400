package analysis

import (
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// CountTime is the time of one benchmark without a message size (IMB
// Barrier, osu_barrier: rows with Bytes < 0) in one series (one process
// count, or one -multi layout), with its growth from the next smaller
// count of its family (SeriesKey.Family) measured.
type CountTime struct {
	Series      SeriesKey // the series, Group -1 (the -multi 1 groups are combined)
	Benchmark   string    // without "Multi-", e.g. "Barrier"
	Multi       bool      // rows came from an IMB -multi run
	Processes   int       // total ranks (group size x groups under -multi); <= 0 unknown
	Repetitions int64     // -1 when unknown
	// TMin, TMax and TAvg are the row's columns in usec (NaN when absent);
	// Usec is its headline time (result.Row.Time).
	TMin, TMax, TAvg, Usec float64
	// Growth is Usec over the Usec of the next smaller process count of
	// the same family; NaN for the smallest. A barrier over a switch
	// grows about with log2 of the ranks (dissemination or tree
	// algorithms); a shared medium serialises its messages and grows
	// faster.
	Growth float64
}

// CountTimes returns the rows without a size (Bytes < 0) and with a
// positive time, one per series (several rows of one series, IMB -multi
// 1 groups or repeats, give the slowest, as IMB -multi 0 does), sorted by
// series family and ranks, with each count's growth over the previous
// count of its family.
func CountTimes(rows []result.Row) []CountTime {
	worst := map[SeriesKey]CountTime{}
	for i := range rows {
		r := &rows[i]
		t := r.Time()
		if r.Bytes >= 0 || !(t > 0) {
			continue
		}
		k := KeyOf(r)
		k.Group = -1
		if c, ok := worst[k]; ok && c.Usec >= t {
			continue
		}
		worst[k] = CountTime{Series: k, Benchmark: k.Benchmark, Multi: k.Multi != result.MultiNone, Processes: k.TotalRanks(),
			Repetitions: r.Repetitions, TMin: r.TMin, TMax: r.TMax, TAvg: r.TAvg, Usec: t, Growth: math.NaN()}
	}
	out := make([]CountTime, 0, len(worst))
	for _, c := range worst {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Series.Family(), out[j].Series.Family()
		if a != b {
			return a.Less(b)
		}
		return out[i].Processes < out[j].Processes
	})
	for i := 1; i < len(out); i++ {
		if p := out[i-1]; p.Series.Family() == out[i].Series.Family() && p.Processes > 0 {
			out[i].Growth = out[i].Usec / p.Usec
		}
	}
	return out
}
