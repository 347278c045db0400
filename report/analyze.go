package report

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Options tunes Analyze.
type Options struct {
	// Wire, when not nil, is the link model of the study's wire-time
	// tables; the fits then also give their bandwidth as a percentage of
	// its payload rate. Analyze applies it to each run with ForRun, so
	// that mpbench's runtime over TCP is charged its frame header.
	Wire *analysis.WireModel
	// K is how many of the smallest sizes the latency averages (default
	// analysis.DefaultLatencySizes, the study's 7).
	K int
	// Anomaly tunes the anomaly flags.
	Anomaly analysis.AnomalyOptions
}

// RunReport is the analysis of one run of one file.
type RunReport struct {
	File     string // the file's name as given
	Index    int    // run number within the file, from 1
	Runs     int    // runs in the file
	Meta     result.Meta
	Aborted  bool
	Problems []result.Problem
	Series   []SeriesReport
	// ABG holds the aggregate bandwidth of the benchmarks run at two or
	// more process counts, at the largest size measured at all of them;
	// Scaling classifies those series (analysis.ClassifyScaling).
	ABG     []analysis.ABGRow
	Scaling []analysis.Scaling
	ABGNote string // how the ABG was obtained when not from printed times
	// CheckedMByte is the Mbyte (result.MB or result.MiB) the run's
	// Mbytes/sec columns check against bytes / t_max when it is not the one
	// its version implies (Meta.MByte); 0 when they agree or cannot be
	// checked (analysis.CheckedMByte).
	CheckedMByte float64
	// Sizeless holds the benchmarks without a message size (Barrier):
	// their time per process count (analysis.CountTimes).
	Sizeless []analysis.CountTime
	Flags    []analysis.Flag
	// Apps are the applications' runs ("mpbench app" rows) by application
	// and size, with their scaling tables; their rows take no part in the
	// benchmark analyses.
	Apps []AppScaling
	// Notes are sentences about what could not be computed and why.
	Notes []string
}

// Label names the run in legends and headings: the file's base name, with
// "#n" when the file holds several runs.
func (r RunReport) Label() string {
	name := r.File
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if r.Runs > 1 {
		name += fmt.Sprintf("#%d", r.Index)
	}
	return name
}

// SeriesReport is the analysis of one size sweep: one series
// (analysis.SeriesKey: benchmark, process count, -multi layout and group,
// IMB-EXT mode, the run's conditions).
type SeriesReport struct {
	analysis.SeriesKey
	MByte float64
	Rows  []result.Row // the sweep's rows in ascending size order
	// Points are the (bytes, usec) pairs the fit and the wire table use.
	Points []analysis.Point
	// DerivedTimes is true when the source printed no time and Points
	// hold bytes / bandwidth (osu_bw, IMB Uniband/Biband).
	DerivedTimes bool
	// Wire and LatencyUsec are set when a wire model is given and the
	// benchmark moves one message at a time (PingPong, PingPing,
	// osu_latency); LatencyUsec is NaN when the sweep has fewer than K
	// sizes.
	Wire        []analysis.WireRow
	Model       *analysis.WireModel // the wire model given as it applies to the run (ForRun), nil without one
	LatencyUsec float64
	// Fit is the Hockney fit; FitErr says why there is none.
	Fit    analysis.Piecewise
	FitErr error
	// Placement is where the series' ranks ran, nil when the run records
	// no rank-to-host map (analysis.PlacementOf).
	Placement *analysis.Placement
	Notes     []string
}

// Analyze computes everything the reports show for one run of a file:
// per size sweep the Hockney fit, where its ranks ran when the run records
// its rank-to-host map, and, with a wire model, the wire table and
// latency (the model charging the run's runtime header where its metadata
// names one: analysis.WireModel.ForRun); the ABG and its classification
// across process counts; the anomaly flags; and the problems the reader
// met, with a Mbytes/sec column that disagrees with bytes / t_max under
// the run's Mbyte (analysis.CheckBandwidthColumn) added as a problem.
// index counts from 1 and runs is the number of runs in the file.
func Analyze(file string, index, runs int, run result.Run, opt Options) RunReport {
	if opt.K <= 0 {
		opt.K = analysis.DefaultLatencySizes
	}
	rep := RunReport{File: file, Index: index, Runs: runs, Meta: run.Meta, Aborted: run.Aborted,
		Problems: append([]result.Problem(nil), run.Problems...)}
	mbyte := run.Meta.MByte
	if mbyte == 0 {
		mbyte = result.MB
	}
	if opt.Wire != nil {
		w := opt.Wire.ForRun(run.Meta)
		opt.Wire = &w
	}
	benchRows, appRows := SplitAppRows(run)
	run.Rows = benchRows
	rep.Apps = appScalings(appRows)
	for _, rows := range sweeps(run.Rows) {
		s := analyzeSeries(rows, mbyte, opt)
		s.Conditions = analysis.BenchConditions(run.Meta, rows[0].Benchmark)
		if pl, ok := analysis.PlacementOf(s.SeriesKey, run.Meta); ok {
			s.Placement = &pl
		}
		if msg, ok := analysis.CheckBandwidthColumn(rows, mbyte); !ok {
			// A problem of the input, at the sweep's first row.
			rep.Problems = append(rep.Problems, result.Problem{File: rows[0].File, Line: rows[0].Line, Msg: s.Label() + ": " + msg})
			if mb := analysis.CheckedMByte(rows, mbyte); mb != 0 && mb != mbyte {
				rep.CheckedMByte = mb
			}
		}
		rep.Series = append(rep.Series, s)
	}
	rep.Sizeless = analysis.CountTimes(run.Rows)
	abgRows, derived := withBandwidthTimes(run.Rows, mbyte)
	rep.ABG, rep.Scaling = abgAcrossCounts(abgRows)
	if derived && len(rep.ABG) > 0 {
		rep.ABGNote = "benchmarks printing bandwidth only (IMB Uniband/Biband, osu_mbw_mr): t = m x bytes / reported aggregate bandwidth"
	}
	aopt := opt.Anomaly
	aopt.MByte = mbyte
	aopt.ReduceScatterPerRank = analysis.ReduceScatterPerRank(run.Meta.Tool, run.Meta.Version)
	rep.Flags = analysis.DetectAnomalies(run.Rows, aopt)
	if run.Aborted {
		rep.Flags = append(rep.Flags, endedEarly(run))
	}
	if len(run.Rows) == 0 && len(appRows) == 0 {
		rep.Notes = append(rep.Notes, "no measured rows")
	}
	if v := run.Meta.Info["processes_inferred"]; v != "" {
		rep.Notes = append(rep.Notes, "the output does not print its process count; inferred: "+v)
	}
	return rep
}

// FlagEndedEarly marks a run that ended before its end marker (truncated
// file, crash, hang or abort; field cases B08, B11, B20).
const FlagEndedEarly analysis.FlagKind = "ended-early"

// endedEarly flags an aborted run at the benchmark it stopped in (the
// reader's Info["aborted_benchmark"], else the last row's) and the last
// size it printed.
func endedEarly(run result.Run) analysis.Flag {
	f := analysis.Flag{Kind: FlagEndedEarly, Benchmark: run.Meta.Info["aborted_benchmark"], Processes: -1, Group: -1, Bytes: -1}
	var last *result.Row
	for i := range run.Rows {
		if f.Benchmark == "" || run.Rows[i].Benchmark == f.Benchmark {
			last = &run.Rows[i]
		}
	}
	switch {
	case last != nil:
		f.Benchmark, f.Processes, f.Bytes = last.Benchmark, last.Processes*max(last.Groups, 1), last.Bytes
		on := fmt.Sprintf("on %d ranks", f.Processes)
		if f.Processes <= 0 {
			on = "(np unknown)"
		}
		f.Msg = fmt.Sprintf("the run ended early in %s after %d B %s (truncated, crashed or hung): larger sizes are missing", f.Benchmark, f.Bytes, on)
	case f.Benchmark != "":
		f.Msg = fmt.Sprintf("the run ended early in %s before its first row (truncated, crashed or hung)", f.Benchmark)
	default:
		f.Msg = "the run ended early before any table (truncated, crashed or hung)"
	}
	return f
}

// sweeps splits rows into size sweeps (one per analysis.SeriesKey), in
// order of first appearance, each
// sorted by size (stable, so repeats keep their order). Rows without a
// size (Barrier) are left out: they have no sweep to fit, and are
// reported per process count (RunReport.Sizeless).
func sweeps(rows []result.Row) [][]result.Row {
	idx := map[analysis.SeriesKey]int{}
	var out [][]result.Row
	for _, r := range rows {
		if r.Bytes < 0 {
			continue
		}
		k := analysis.KeyOf(&r)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	for _, s := range out {
		sort.SliceStable(s, func(a, b int) bool { return s[a].Bytes < s[b].Bytes })
	}
	return out
}

// oneMessage reports whether a benchmark's time is that of one message on
// the link at a time, so that the study's wire-time table applies to it
// (PingPong and PingPing and their variants, osu_latency and its
// multi-thread/process forms).
func oneMessage(bench string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(bench))
	return strings.HasPrefix(n, "pingpong") || strings.HasPrefix(n, "pingping") || strings.HasPrefix(n, "osulatency")
}

// analyzeSeries fits one sweep and, for one-message benchmarks under a
// wire model, computes its wire table and latency.
func analyzeSeries(rows []result.Row, mbyte float64, opt Options) SeriesReport {
	s := SeriesReport{SeriesKey: analysis.KeyOf(&rows[0]), MByte: mbyte, Rows: rows, LatencyUsec: math.NaN(), Model: opt.Wire}
	s.Points = analysis.Points(rows)
	if len(s.Points) == 0 {
		s.Points = pointsFromBandwidth(rows, mbyte)
		s.DerivedTimes = len(s.Points) > 0
		if s.DerivedTimes {
			s.Notes = append(s.Notes, "no time column: times are bytes / reported bandwidth (time per message in the stream)")
		}
	}
	if opt.Wire != nil && oneMessage(s.Benchmark) && !s.DerivedTimes && len(s.Points) > 0 {
		s.Wire = analysis.WireTable(*opt.Wire, s.Points)
		lat, err := analysis.Latency(s.Wire, opt.K)
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("latency: %v", err))
		} else {
			s.LatencyUsec = lat
		}
	}
	s.Fit, s.FitErr = analysis.FitPiecewise(s.Points, analysis.FitOptions{Model: opt.Wire})
	if errors.Is(s.FitErr, analysis.ErrInsufficientSizes) {
		s.Notes = append(s.Notes, fmt.Sprintf("no Hockney fit: %d size(s) with a positive time, %d needed", positive(s.Points), analysis.MinFitSizes))
	} else if s.FitErr != nil {
		s.Notes = append(s.Notes, "no Hockney fit: "+s.FitErr.Error())
	}
	return s
}

// positive counts points with a positive time.
func positive(pts []analysis.Point) int {
	n := 0
	for _, p := range pts {
		if p.Usec > 0 {
			n++
		}
	}
	return n
}

// pointsFromBandwidth derives a time per message in usec from the
// reported bandwidth, bytes / (MBps x mbyte / 10^6), for sources that print
// bandwidth only. Sizes 0 and rows without bandwidth are left out.
func pointsFromBandwidth(rows []result.Row, mbyte float64) []analysis.Point {
	var pts []analysis.Point
	for _, r := range rows {
		if r.Bytes > 0 && r.MBps > 0 {
			pts = append(pts, analysis.Point{Bytes: r.Bytes, Usec: float64(r.Bytes) / (r.MBps * mbyte / 1e6)})
		}
	}
	return pts
}

// withBandwidthTimes returns rows in which a row without a time but with
// a bandwidth (IMB Uniband/Biband, OSU bandwidth tests, which print the
// aggregate over all pairs) gets t_max = m x bytes / bandwidth, m the
// benchmark's transfers (analysis.Transfers), so that the ABG computed
// from it equals the bandwidth printed. derived tells whether any did.
func withBandwidthTimes(rows []result.Row, mbyte float64) (out []result.Row, derived bool) {
	out = rows
	for i, r := range rows {
		if !math.IsNaN(r.Time()) || !(r.MBps > 0) || r.Bytes <= 0 {
			continue
		}
		tr, err := analysis.SeriesTransfers(analysis.KeyOf(&r))
		if err != nil {
			continue
		}
		if !derived {
			out = append([]result.Row(nil), rows...)
			derived = true
		}
		out[i].TMax = tr.M * float64(r.Bytes) / (r.MBps * mbyte / 1e6)
	}
	return out, derived
}

// abgAcrossCounts returns the ABG rows of the series families
// (analysis.SeriesKey.Family) measured at two or more process counts, at
// the largest size every count measured, and their scaling
// classification.
func abgAcrossCounts(rows []result.Row) ([]analysis.ABGRow, []analysis.Scaling) {
	all, _ := analysis.ABGTable(rows, -1)
	counts := map[analysis.SeriesKey]map[int]bool{}
	sizes := map[analysis.SeriesKey]map[int64]map[int]bool{}
	for _, a := range all {
		k := a.Series.Family()
		if counts[k] == nil {
			counts[k] = map[int]bool{}
			sizes[k] = map[int64]map[int]bool{}
		}
		counts[k][a.Processes] = true
		if sizes[k][a.Bytes] == nil {
			sizes[k][a.Bytes] = map[int]bool{}
		}
		sizes[k][a.Bytes][a.Processes] = true
	}
	best := map[analysis.SeriesKey]int64{}
	for k, byCount := range counts {
		if len(byCount) < 2 {
			continue
		}
		best[k] = -1
		for b, c := range sizes[k] {
			if len(c) == len(byCount) && b > best[k] {
				best[k] = b
			}
		}
	}
	var out []analysis.ABGRow
	for _, a := range all {
		if b, ok := best[a.Series.Family()]; ok && b == a.Bytes {
			out = append(out, a)
		}
	}
	return out, analysis.ClassifyScaling(out)
}
