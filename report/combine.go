package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Combine joins runs into one, for studies that ran each process count as
// a run of its own (one file per node count, as the study did): the ABG
// and its classification across process counts, and the scaling-inversion
// flags, then see every count. Rows keep their file and line; the meta is
// the first run's. When the runs' Mbytes differ, bandwidths are converted
// to MB = 10^6 bytes. Problems stay with their own runs and are not
// repeated. Runs whose conditions (analysis.RunConditions: a datatype,
// op, window size or root shift other than the tool's default) differ
// from the first run's measure something else: they are left out, each
// named in a problem of the combined run. Only runs of one network
// should be combined: the result mixes whatever else it is given.
func Combine(runs []result.Run) result.Run {
	var out result.Run
	if len(runs) == 0 {
		return out
	}
	out.Meta = runs[0].Meta
	cond := conditionsOf(runs[0])
	kept := runs[:0:0]
	for i, r := range runs {
		if c := conditionsOf(r); c != cond {
			out.Problems = append(out.Problems, result.Problem{Msg: fmt.Sprintf("run %d%s is not combined: its conditions (%s) differ from the first run's (%s)",
				i+1, runFile(r), orDefaults(c), orDefaults(cond))})
			continue
		}
		kept = append(kept, r)
	}
	runs = kept
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

// runFile names the file a run was read from, " of FILE", from its first
// row; "" when it has no row with a file.
func runFile(r result.Run) string {
	if len(r.Rows) > 0 && r.Rows[0].File != "" {
		return " of " + r.Rows[0].File
	}
	return ""
}

// orDefaults names run conditions, "the tool's defaults" when none.
func orDefaults(c string) string {
	if c == "" {
		return "the tool's defaults"
	}
	return c
}

// conditionsOf returns the run conditions of r (analysis.RunConditions)
// that change what at least one of its benchmarks measures
// (analysis.BenchConditions): a reduction datatype does not keep an
// Allgather run apart.
func conditionsOf(r result.Run) string {
	used := map[string]bool{}
	for _, row := range r.Rows {
		for _, c := range strings.Split(analysis.BenchConditions(r.Meta, row.Benchmark), ", ") {
			used[c] = true
		}
	}
	var out []string
	for _, c := range strings.Split(analysis.RunConditions(r.Meta), ", ") {
		if c != "" && used[c] {
			out = append(out, c)
		}
	}
	return strings.Join(out, ", ")
}
