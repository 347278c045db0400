package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/mpbench/mpbench/result/rowfile"
)

// minWindow is the fewest times a window may hold for a verdict. At 3
// (9 rows, what an hour of 8 ranks on one core measures of each size) the
// quartiles are the window's smallest and largest time, and a stationary
// series lies outside its noise by chance about one time in 15
// (TestDriftFalseOutsideRate); with fewer the spread is not measured.
const minWindow = 3

// drift is the verdict on one benchmark and size of a soak: the times of
// its first window of rows against its last.
//
// The windows are the first and the last third of its rows (rounded
// down), in the order they were measured: the files in job order, the
// rows in file order. Drift is the median time of the last window over
// the median of the first (gonum stat.Quantile, Empirical: the lower
// median of an even count). The run's own noise is the spread inside the
// windows: noise is the larger of the two windows' interquartile ratios
// Q3/Q1 (the same quantile), the factor that separates the fast and the
// slow quarter of the times measured in one stretch of the run. The size
// is inside its noise when 1/noise <= drift <= noise: the results moved
// from start to end by less than they move within a stretch.
type drift struct {
	Benchmark string
	Bytes     int64
	// First and Last are the number of times in each window.
	First, Last int
	// MedFirst and MedLast are the windows' median times, usec.
	MedFirst, MedLast float64
	// Drift is MedLast/MedFirst; Noise is the band's upper end (>= 1).
	Drift, Noise float64
	// Judged is false when a window held fewer than minWindow times;
	// Inside is the verdict of a judged size.
	Judged, Inside bool
}

// judge windows times (usec, in the order measured, every one > 0) and
// gives the verdict; benchmark and bytes only label it.
func judge(benchmark string, bytes int64, times []float64) drift {
	d := drift{Benchmark: benchmark, Bytes: bytes, Drift: math.NaN(), Noise: math.NaN(), MedFirst: math.NaN(), MedLast: math.NaN()}
	w := len(times) / 3
	d.First, d.Last = w, w
	if w == 0 {
		return d
	}
	first, last := sorted(times[:w]), sorted(times[len(times)-w:])
	q := func(p float64, x []float64) float64 { return stat.Quantile(p, stat.Empirical, x, nil) }
	d.MedFirst, d.MedLast = q(0.5, first), q(0.5, last)
	d.Drift = d.MedLast / d.MedFirst
	d.Noise = max(q(0.75, first)/q(0.25, first), q(0.75, last)/q(0.25, last))
	d.Judged = w >= minWindow
	d.Inside = d.Judged && d.Drift <= d.Noise && d.Drift >= 1/d.Noise
	return d
}

func sorted(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// driftReport is the drift analysis of one transport's result files.
type driftReport struct {
	// Files is the number of files read, Rows the rows they held.
	Files, Rows int
	// Sizes are the verdicts, in the order each benchmark and size was
	// first measured.
	Sizes []drift
}

// analyzeFiles reads the result files at paths (mpbench JSON Lines, in
// job order; a missing file is skipped, a line cut short by a copy taken
// while the job wrote is left out) and judges every benchmark and size.
func analyzeFiles(paths ...string) driftReport {
	var rep driftReport
	times := map[string][]float64{}
	var order []drift // label of each key, in order of appearance
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		rep.Files++
		runs, _ := rowfile.ReadJSONL(f, path)
		f.Close()
		for _, run := range runs {
			for _, r := range run.Rows {
				t := r.Time()
				if !(t > 0) {
					continue
				}
				rep.Rows++
				k := fmt.Sprintf("%s/%d", r.Benchmark, r.Bytes)
				if _, ok := times[k]; !ok {
					order = append(order, drift{Benchmark: r.Benchmark, Bytes: r.Bytes})
				}
				times[k] = append(times[k], t)
			}
		}
	}
	for _, o := range order {
		rep.Sizes = append(rep.Sizes, judge(o.Benchmark, o.Bytes, times[fmt.Sprintf("%s/%d", o.Benchmark, o.Bytes)]))
	}
	return rep
}

// counts returns how many sizes were judged and how many of those lie
// inside their noise.
func (rep driftReport) counts() (judged, inside int) {
	for _, d := range rep.Sizes {
		if d.Judged {
			judged++
		}
		if d.Inside {
			inside++
		}
	}
	return judged, inside
}

// summary is the one-line account of the report.
func (rep driftReport) summary() string {
	if rep.Files == 0 {
		return "no result file"
	}
	judged, inside := rep.counts()
	return fmt.Sprintf("%d rows in %d files; %d of %d benchmark sizes inside their noise (%d with fewer than %d rows per window)",
		rep.Rows, rep.Files, inside, judged, len(rep.Sizes)-judged, minWindow)
}

// write prints the report's table to w, one line per benchmark and size.
func (rep driftReport) write(w io.Writer, transport string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tbenchmark\tbytes\tn first\tn last\tmedian first usec\tmedian last usec\tdrift\tnoise band\tverdict\t\n", transport)
	for _, d := range rep.Sizes {
		verdict := "OUTSIDE"
		switch {
		case !d.Judged:
			verdict = "few rows"
		case d.Inside:
			verdict = "inside"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", transport, d.Benchmark, d.Bytes, d.First, d.Last,
			num(d.MedFirst), num(d.MedLast), fixed(d.Drift), band(d.Noise), verdict)
	}
	tw.Flush()
}

// num prints a time with 4 significant digits, "-" when unknown.
func num(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func fixed(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

func band(noise float64) string {
	if math.IsNaN(noise) {
		return "-"
	}
	return fmt.Sprintf("%.3f-%.3f", 1/noise, noise)
}

// keptFiles groups the result files a soak left in dir (-keep) by
// transport: "shm-calibrate.jsonl", "shm-1.jsonl", "shm-2.jsonl", ... in
// that order (calibration first, then the jobs by number). It returns the
// transports in the order shm, tcp, hybrid, then any other by name.
func keptFiles(dir string) ([]string, map[string][]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	// rank orders a file within its transport: calibration, then jobs.
	rank := func(p string) (string, int) {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		tr, job, ok := strings.Cut(name, "-")
		if !ok {
			return name, 0
		}
		if job == "calibrate" {
			return tr, -1
		}
		n, err := strconv.Atoi(job)
		if err != nil {
			return name, 0
		}
		return tr, n
	}
	byTr := map[string][]string{}
	for _, p := range paths {
		tr, _ := rank(p)
		byTr[tr] = append(byTr[tr], p)
	}
	var trs []string
	for tr, ps := range byTr {
		slices.SortFunc(ps, func(a, b string) int {
			_, x := rank(a)
			_, y := rank(b)
			return x - y
		})
		trs = append(trs, tr)
	}
	known := []string{"shm", "tcp", "hybrid"}
	slices.SortFunc(trs, func(a, b string) int {
		i, j := slices.Index(known, a), slices.Index(known, b)
		if i < 0 {
			i = len(known)
		}
		if j < 0 {
			j = len(known)
		}
		if i != j {
			return i - j
		}
		return strings.Compare(a, b)
	})
	return trs, byTr, nil
}

// driftLegend heads the drift tables.
const driftLegend = "# drift: median time of the last third of each benchmark size's rows over the median of the first third; " +
	"noise band 1/r-r, r the larger interquartile ratio Q3/Q1 of the times inside either third; inside when the drift lies in the band"

// analyzeDir prints the drift table of every transport's files in dir
// (see keptFiles) to w and returns the number of sizes judged and inside
// their noise, or an error when dir holds no result file.
func analyzeDir(w io.Writer, dir string) (judged, inside int, err error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, 0, fmt.Errorf("-analyze %s: not a directory; expected the directory of a soak's -keep", dir)
	}
	trs, byTr, err := keptFiles(dir)
	if err != nil || len(trs) == 0 {
		return 0, 0, fmt.Errorf("-analyze %s: no result file (*.jsonl); expected the directory of a soak's -keep", dir)
	}
	fmt.Fprintln(w, driftLegend)
	for _, tr := range trs {
		rep := analyzeFiles(byTr[tr]...)
		rep.write(w, tr)
		fmt.Fprintf(w, "# %s: %s\n", tr, rep.summary())
		j, in := rep.counts()
		judged, inside = judged+j, inside+in
	}
	fmt.Fprintf(w, "# all: %d of %d benchmark sizes inside their noise\n", inside, judged)
	return judged, inside, nil
}
