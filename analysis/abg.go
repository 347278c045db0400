package analysis

import (
	"sort"

	"github.com/mpbench/mpbench/result"
)

// ABGRow is the aggregate bandwidth of one benchmark, process count and
// size: ABG = m x bytes / t (thesis tables 4.5-4.17).
type ABGRow struct {
	Benchmark string  // benchmark name as in the rows (without "Multi-")
	Multi     bool    // rows came from an IMB -multi run
	Processes int     // total ranks N (group size x groups under -multi)
	Transfers float64 // m, messages of Bytes per iteration (Transfers)
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
// bytes < 0) with a positive time. Rows of IMB -multi 1 (one row per
// group) are combined per size into the slowest group, as -multi 0 does.
// Benchmarks without a rule (Transfers) are returned by name in skipped.
// Output is sorted by benchmark, size and process count.
func ABGTable(rows []result.Row, bytes int64) (out []ABGRow, skipped []string) {
	type key struct {
		bench string
		procs int
		multi bool
		bytes int64
	}
	worst := map[key]float64{}
	var order []key
	seenSkip := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Bytes < 0 || (bytes >= 0 && r.Bytes != bytes) || !(r.Time() > 0) {
			continue
		}
		n, multi := r.Processes, r.Multi != result.MultiNone
		if multi && r.Groups > 0 {
			n *= r.Groups
		}
		if _, err := Transfers(r.Benchmark, n); err != nil {
			if !seenSkip[r.Benchmark] {
				seenSkip[r.Benchmark] = true
				skipped = append(skipped, r.Benchmark)
			}
			continue
		}
		k := key{r.Benchmark, n, multi, r.Bytes}
		if t, ok := worst[k]; !ok || r.Time() > t {
			if !ok {
				order = append(order, k)
			}
			worst[k] = r.Time()
		}
	}
	for _, k := range order {
		tr, _ := Transfers(k.bench, k.procs)
		t := worst[k]
		out = append(out, ABGRow{
			Benchmark: k.bench, Multi: k.multi, Processes: k.procs, Transfers: tr.M, Rule: tr.Rule,
			Bytes: k.bytes, Usec: t, Mbps: ABG(tr.M, k.bytes, t), MBps: tr.M * float64(k.bytes) / t,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Benchmark != b.Benchmark {
			return a.Benchmark < b.Benchmark
		}
		if a.Bytes != b.Bytes {
			return a.Bytes < b.Bytes
		}
		return a.Processes < b.Processes
	})
	return out, skipped
}
