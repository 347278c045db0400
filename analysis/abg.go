package analysis

import (
	"fmt"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// ABGRow is the aggregate bandwidth of one benchmark, process count and
// size: ABG = m x bytes / t (thesis tables 4.5-4.17).
type ABGRow struct {
	Series    SeriesKey // the series (Group -1: the -multi 1 groups are combined)
	Benchmark string    // benchmark name as in the rows (without "Multi-")
	Multi     bool      // rows came from an IMB -multi run
	Processes int       // total ranks N (group size x groups under -multi)
	// Transfers is m, the messages of Bytes per iteration: Transfers of
	// the benchmark on its ranks, and under -multi the groups times the
	// messages of one group (3 groups of 32 in an Allgather move 3 x 32 x
	// 31 messages, not the 96 x 95 of one Allgather on 96 ranks).
	Transfers float64
	Rule      string  // the rule m came from, e.g. "N-1"
	Bytes     int64   // message size x, bytes
	Usec      float64 // time per iteration t, usec (the row's headline time)
	// Mbps is m x bytes x 8 / t in Mbit/s (10^6 bit/s), the study's unit;
	// the study's "4 Mbytes" is 4 x 1048576 bytes and enters as bytes.
	Mbps float64
	// MBps is m x bytes / t in MB/s (10^6 bytes/s).
	MBps float64
}

// ABG returns the aggregate bandwidth in Mbit/s of m simultaneous
// transfers of the given bytes taking usec: m x bytes x 8 / usec.
func ABG(m float64, bytes int64, usec float64) float64 {
	return m * float64(bytes) * 8 / usec
}

// ABGTable computes the ABG of every row of the given size (all sizes when
// bytes < 0) with a positive time, one row per series and size: rows of
// IMB -multi 1 (one row per group) are combined per size into the slowest
// group, as -multi 0 does; a -multi layout is never combined with another
// layout or with the plain benchmark. Benchmarks without a rule
// (Transfers) are returned by name in skipped. Output is sorted by
// benchmark, size, series family and process count.
func ABGTable(rows []result.Row, bytes int64) (out []ABGRow, skipped []string) {
	type key struct {
		series SeriesKey
		bytes  int64
	}
	worst := map[key]float64{}
	var order []key
	seenSkip := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Bytes < 0 || (bytes >= 0 && r.Bytes != bytes) || !(r.Time() > 0) {
			continue
		}
		sk := KeyOf(r)
		sk.Group = -1
		if _, err := SeriesTransfers(sk); err != nil {
			if !seenSkip[r.Benchmark] {
				seenSkip[r.Benchmark] = true
				skipped = append(skipped, r.Benchmark)
			}
			continue
		}
		k := key{sk, r.Bytes}
		if t, ok := worst[k]; !ok || r.Time() > t {
			if !ok {
				order = append(order, k)
			}
			worst[k] = r.Time()
		}
	}
	for _, k := range order {
		tr, _ := SeriesTransfers(k.series)
		t := worst[k]
		out = append(out, ABGRow{
			Series: k.series, Benchmark: k.series.Benchmark, Multi: k.series.Multi != result.MultiNone,
			Processes: k.series.TotalRanks(), Transfers: tr.M, Rule: tr.Rule,
			Bytes: k.bytes, Usec: t, Mbps: ABG(tr.M, k.bytes, t), MBps: tr.M * float64(k.bytes) / t,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Benchmark != b.Benchmark:
			return a.Benchmark < b.Benchmark
		case a.Bytes != b.Bytes:
			return a.Bytes < b.Bytes
		case a.Series.Family() != b.Series.Family():
			return a.Series.Family().Less(b.Series.Family())
		}
		return a.Processes < b.Processes
	})
	return out, skipped
}

// SeriesTransfers returns the ABG multiplier of a series: Transfers of
// the benchmark on the group's processes, times the groups under -multi
// (rule "G x (...)").
func SeriesTransfers(k SeriesKey) (Transfer, error) {
	tr, err := Transfers(k.Benchmark, k.Processes)
	if err != nil || k.Multi == result.MultiNone {
		return tr, err
	}
	g := float64(max(k.Groups, 1))
	tr.M *= g
	groups := "groups"
	if g == 1 {
		groups = "group"
	}
	tr.Rule = fmt.Sprintf("%d %s x (%s)", int(g), groups, tr.Rule)
	return tr, nil
}
