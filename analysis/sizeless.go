package analysis

import (
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// CountTime is the time of one benchmark without a message size (IMB
// Barrier, osu_barrier: rows with Bytes < 0) at one process count, with
// its growth from the next smaller count measured.
type CountTime struct {
	Benchmark   string
	Multi       bool  // rows came from an IMB -multi run
	Processes   int   // total ranks (group size x groups under -multi); <= 0 unknown
	Repetitions int64 // -1 when unknown
	// TMin, TMax and TAvg are the row's columns in usec (NaN when absent);
	// Usec is its headline time (result.Row.Time).
	TMin, TMax, TAvg, Usec float64
	// Growth is Usec over the Usec of the next smaller process count of
	// the same benchmark; NaN for the smallest. A barrier over a switch
	// grows about with log2 of the ranks (dissemination or tree
	// algorithms); a shared medium serialises its messages and grows
	// faster.
	Growth float64
}

// CountTimes returns the rows without a size (Bytes < 0) and with a
// positive time, one per benchmark, -multi mode and total rank count
// (several rows of one count, IMB -multi 1 groups or repeats, give the
// slowest, as IMB -multi 0 does), sorted by benchmark, mode and ranks,
// with each count's growth over the previous one.
func CountTimes(rows []result.Row) []CountTime {
	type key struct {
		bench string
		multi bool
		procs int
	}
	worst := map[key]CountTime{}
	for i := range rows {
		r := &rows[i]
		t := r.Time()
		if r.Bytes >= 0 || !(t > 0) {
			continue
		}
		k := keyOf(r)
		kk := key{k.bench, k.multi, k.procs}
		if c, ok := worst[kk]; ok && c.Usec >= t {
			continue
		}
		worst[kk] = CountTime{Benchmark: r.Benchmark, Multi: k.multi, Processes: k.procs, Repetitions: r.Repetitions,
			TMin: r.TMin, TMax: r.TMax, TAvg: r.TAvg, Usec: t, Growth: math.NaN()}
	}
	out := make([]CountTime, 0, len(worst))
	for _, c := range worst {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Benchmark != b.Benchmark:
			return a.Benchmark < b.Benchmark
		case a.Multi != b.Multi:
			return !a.Multi
		}
		return a.Processes < b.Processes
	})
	for i := 1; i < len(out); i++ {
		if p := out[i-1]; p.Benchmark == out[i].Benchmark && p.Multi == out[i].Multi && p.Processes > 0 {
			out[i].Growth = out[i].Usec / p.Usec
		}
	}
	return out
}
