package report

import (
	"math"

	"github.com/mpbench/mpbench/result"
)

// Combine joins runs into one, for studies that ran each process count as
// a run of its own (one file per node count, as the study did): the ABG
// and its classification across process counts, and the scaling-inversion
// flags, then see every count. Rows keep their file and line; the meta is
// the first run's. When the runs' Mbytes differ, bandwidths are converted
// to MB = 10^6 bytes. Problems stay with their own runs and are not
// repeated. Only runs of one network should be combined: the result mixes
// whatever it is given.
func Combine(runs []result.Run) result.Run {
	var out result.Run
	if len(runs) == 0 {
		return out
	}
	out.Meta = runs[0].Meta
	mbyte := runs[0].Meta.MByte
	for _, r := range runs[1:] {
		if r.Meta.MByte != mbyte {
			mbyte = result.MB
		}
	}
	for _, r := range runs {
		from := r.Meta.MByte
		if from == 0 {
			from = result.MB
		}
		for _, row := range r.Rows {
			if !math.IsNaN(row.MBps) {
				row.MBps *= from / mbyte
			}
			out.Rows = append(out.Rows, row)
		}
		out.Aborted = out.Aborted || r.Aborted
	}
	out.Meta.MByte = mbyte
	return out
}
