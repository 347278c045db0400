package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Source is one side of a comparison: a file's runs taken together, so
// that runs repeated in one file (concatenated logs) give the noise.
type Source struct {
	Name string
	Runs []result.Run
}

// label names the source in the list of runs: its file name, the tools
// of its runs ("mpbench 0.1.0 over tcp"), or that the metadata is missing
// (a file whose meta line was cut off), the number of runs, whether some
// ended early and whether it has no measured row at all.
func (s Source) label() string {
	seen := map[string]bool{}
	var names []string
	for _, r := range s.Runs {
		n := strings.TrimSpace(r.Meta.Tool + " " + r.Meta.Version)
		if r.Meta.Tool == "" {
			n = "metadata missing: tool and conditions unknown"
		} else if r.Meta.Transport != "" {
			// mpbench on its runtime and on an MPI library differ only here.
			n += " over " + r.Meta.Transport
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	out := fmt.Sprintf("%s (%s; %d run(s) in the file)", s.Name, strings.Join(names, ", "), len(s.Runs))
	switch k := s.endedEarly(); {
	case k == 1 && len(s.Runs) == 1:
		out += " [ended early]"
	case k == len(s.Runs) && k > 0:
		out += fmt.Sprintf(" [all %d ended early]", k)
	case k > 0:
		out += fmt.Sprintf(" [%d of %d ended early]", k, len(s.Runs))
	}
	if len(s.rows()) == 0 {
		out += " [no measured rows]"
	}
	return out
}

// endedEarly counts the runs of the source that ended early
// (result.Run.Aborted: truncated table, abort message, a JSON Lines or
// CSV file without its end record or with a failed end).
func (s Source) endedEarly() int {
	k := 0
	for _, r := range s.Runs {
		if r.Aborted {
			k++
		}
	}
	return k
}

// rows returns all rows of all runs of the source.
func (s Source) rows() []result.Row {
	var out []result.Row
	for _, r := range s.Runs {
		out = append(out, r.Rows...)
	}
	return out
}

// Comparison is every later source compared with the first, point by
// point (series and size), by analysis.CompareRuns.
type Comparison struct {
	Sources []Source
	Rows    []analysis.CompareRow
	// Unmatched are the series measured in some sources only.
	Unmatched []analysis.Unmatched
}

// Compare compares every source with the first. Points measured in only
// one source, and zero times, are left out (analysis.CompareRuns); the
// series measured in some sources only are listed in Unmatched.
func Compare(sources []Source) Comparison {
	all := make([][]result.Run, len(sources))
	for i, s := range sources {
		all[i] = s.Runs
	}
	c := Comparison{Sources: sources}
	c.Rows, c.Unmatched = analysis.CompareRuns(all)
	return c
}

// Sections lays out the comparison: the sources, then one table per
// benchmark and process count with each point's times, bandwidths, ratio,
// difference and loss (the study's tables 4.3/4.4), and a count of the
// differences larger than the runs' own noise.
func (c Comparison) Sections() []Section {
	head := Section{Title: "Runs compared"}
	early := false
	for i, s := range c.Sources {
		role := "compared with run 0"
		if i == 0 {
			role = "the base"
		}
		head.line("run %d: %s, %s", i, s.label(), role)
		early = early || s.endedEarly() > 0
	}
	if early {
		head.line("a run that ended early (truncated file, crash, hang or abort) may lack its largest sizes and later benchmarks, " +
			"and its last point may be incomplete: compare it with care")
	}
	if tools := c.tools(); len(tools) > 1 {
		head.line("the runs come from different tools (%s): only benchmarks of the same name are compared, "+
			"and like-named tests may still differ in method (IMB times t_max over ranks, OSU averages; "+
			"IMB PingPong is a blocking round trip, osu_bw a window of messages in flight)", strings.Join(tools, ", "))
	}
	head.line("t in usec (the median of a point's repeated measurements); bandwidth = bytes / t in MB/s (10^6 B/s) for every run, whatever Mbyte its tool prints; " +
		"loss = 100 x (1 - t run 0 / t): positive when the run is slower than run 0; " +
		"change = 100 x (larger t / smaller t - 1), + when the run is slower than run 0 (t / t run 0 - 1), - when faster (t run 0 / t - 1); " +
		"noise = the larger spread (max/min - 1, from 5 repeats on without the fastest and the slowest) of repeated measurements of the point in either run, " +
		"at least 1%% and at least 0.01 usec (the printed resolution) relative to the time; change and noise are measured alike, " +
		"and a point is significant (YES) when the change, without its sign, exceeds the noise; benchmarks without a size (Barrier) compare their one time per process count; " +
		"points are matched on their series (benchmark, processes, Multi- layout and group, IMB-EXT mode, conditions such as a datatype or window size that are not the tool's default) and size")
	for _, u := range c.Unmatched {
		runs := make([]string, len(u.In))
		for i, r := range u.In {
			runs[i] = fmt.Sprint(r)
		}
		head.line("%s: measured in run %s only, not compared", u.Series.Label(), strings.Join(runs, ", "))
	}
	if len(c.Rows) == 0 {
		head.line("no point (series, size) was measured in run 0 and in another run: nothing to compare")
		return []Section{head}
	}
	out := []Section{head}
	start := 0
	for i := 1; i <= len(c.Rows); i++ {
		if i < len(c.Rows) && c.Rows[i].SeriesKey == c.Rows[start].SeriesKey {
			continue
		}
		out = append(out, c.section(c.Rows[start:i]))
		start = i
	}
	return out
}

// tools lists the distinct tools of the sources, in order.
func (c Comparison) tools() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range c.Sources {
		for _, r := range s.Runs {
			if t := r.Meta.Tool; t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// section is one series.
func (c Comparison) section(rows []analysis.CompareRow) Section {
	r0 := rows[0]
	title := r0.Label()
	if d := directionFor(r0.Benchmark).short; r0.Bandwidth && d != "" {
		title += " (" + d + ")"
	}
	sec := Section{Title: title}
	if r0.Bandwidth {
		sec.table(CompareBandwidthTableView(title, rows))
		sec.line("this benchmark prints a bandwidth and no time: its points compare the printed bandwidths (in MB = 10^6 B/s) " +
			"and messages per second; loss, change and noise are computed on bytes / bandwidth, the time per message of the stream")
	} else {
		sec.table(CompareTableView(title, rows))
	}
	sig, noisy, spread := 0, 0, 0
	for _, r := range rows {
		if !math.IsNaN(r.Noise) {
			noisy++
			if r.Significant {
				sig++
			}
		}
		if r.NoiseFrom == "spread" {
			spread++
		}
	}
	switch {
	case noisy == 0:
		sec.line("no repeated measurements and no printed spread: the runs' noise is unknown, so no difference is marked significant")
	case spread == 0:
		sec.line("%d of %d points with repeats differ by more than the runs' noise", sig, noisy)
	default:
		sec.line("%d of %d points with a noise differ by more than it; for %d without repeats the noise is the spread of the repetitions "+
			"the files print: p90/p50 - 1 (OSU tail columns, IMB -show_tail, mpbench), or, where larger, two standard errors "+
			"of the difference of two means, 2 sqrt(2) CV / sqrt(n) (mpbench's recorded spread)", sig, noisy, spread)
	}
	return sec
}

// significance is a point's verdict as printed: "YES", "no", or "-"
// when the noise is unknown.
func significance(r analysis.CompareRow) analysis.Cell {
	switch {
	case math.IsNaN(r.Noise):
		return txt("-")
	case r.Significant:
		return txt("YES")
	}
	return txt("no")
}

// sizeCell is a point's size, empty for benchmarks without a size.
func sizeCell(b int64) analysis.Cell {
	if b < 0 {
		return num(math.NaN(), 0)
	}
	return num(float64(b), 0)
}

// CompareTableView lays out compared points as the study's tables
// 4.3/4.4, with times and bandwidths of both runs.
func CompareTableView(title string, rows []analysis.CompareRow) analysis.Table {
	t := analysis.Table{Title: title, Columns: []analysis.Column{
		{Name: "bytes", Unit: "B"}, {Name: "run"}, {Name: "t run 0", Unit: "usec"}, {Name: "t", Unit: "usec"},
		{Name: "ratio"}, {Name: "bw run 0", Unit: "MB/s"}, {Name: "bw", Unit: "MB/s"}, {Name: "difference", Unit: "MB/s"},
		{Name: "loss", Unit: "%"}, {Name: "change", Unit: "%"}, {Name: "noise", Unit: "%"}, {Name: "significant"}}}
	for _, r := range rows {
		change, noise := changeNoiseCells(100*r.Change, 100*r.Noise)
		t.Rows = append(t.Rows, []analysis.Cell{sizeCell(r.Bytes), num(float64(r.Run), 0),
			num(r.BaseUsec, 2), num(r.Usec, 2), num(r.Ratio, 3), num(r.BaseMBps, 2), num(r.MBps, 2),
			num(r.BaseMBps-r.MBps, 2), num(r.LossPct, 1), change, noise, significance(r)})
	}
	return t
}

// CompareBandwidthTableView lays out compared points of a bandwidth-only
// series (IMB Uniband/Biband, osu_bw, osu_bibw, osu_mbw_mr): the
// bandwidths of both runs in MB/s, their difference and loss, the
// messages per second when printed, change, noise and significance.
func CompareBandwidthTableView(title string, rows []analysis.CompareRow) analysis.Table {
	t := analysis.Table{Title: title, Columns: []analysis.Column{
		{Name: "bytes", Unit: "B"}, {Name: "run"}, {Name: "bw run 0", Unit: "MB/s"}, {Name: "bw", Unit: "MB/s"},
		{Name: "difference", Unit: "MB/s"}, {Name: "loss", Unit: "%"}, {Name: "msg/s run 0"}, {Name: "msg/s"},
		{Name: "change", Unit: "%"}, {Name: "noise", Unit: "%"}, {Name: "significant"}}}
	for _, r := range rows {
		change, noise := changeNoiseCells(100*r.Change, 100*r.Noise)
		t.Rows = append(t.Rows, []analysis.Cell{sizeCell(r.Bytes), num(float64(r.Run), 0),
			num(r.BaseMBps, 2), num(r.MBps, 2), num(r.BaseMBps-r.MBps, 2), num(r.LossPct, 1),
			num(r.BaseMsgRate, 0), num(r.MsgRate, 0), change, noise, significance(r)})
	}
	return t
}

// changeNoiseCells renders a change and a noise in % with one decimal, or
// with up to three when one decimal would print |change| and noise alike,
// so that the significance verdict can be read off the printed digits.
func changeNoiseCells(change, noise float64) (analysis.Cell, analysis.Cell) {
	prec := 1
	for ; prec < 3 && !math.IsNaN(noise); prec++ {
		if num(math.Abs(change), prec).String() != num(noise, prec).String() {
			break
		}
	}
	return num(change, prec), num(noise, prec)
}

// npText names a process count: "np=8", or "np unknown" when the source
// did not print it (OSU collectives without a launcher line).
func npText(n int) string {
	if n <= 0 {
		return "np unknown"
	}
	return fmt.Sprintf("np=%d", n)
}

// jsonSource is a compared file in the JSON form of a comparison.
type jsonSource struct {
	Run             int    `json:"run"`  // index in the comparison, 0 the base
	File            string `json:"file"` // the file's name as given
	Runs            int    `json:"runs"` // runs (repeats) in the file
	EndedEarly      int    `json:"ended_early"`
	MetadataMissing bool   `json:"metadata_missing"` // a run without tool (meta line cut off)
	Label           string `json:"label"`            // as in the list of runs
}

// WriteComparison writes the comparison in format f (Text, Markdown, CSV
// or JSON: {"sources": [{"run", "file", "runs", "ended_early",
// "metadata_missing", "label"}], "sections": [...]}, the sections as in
// WriteDocument).
func WriteComparison(w io.Writer, c Comparison, f Format) error {
	secs := c.Sections()
	if f == JSON {
		srcs := []jsonSource{}
		for i, s := range c.Sources {
			js := jsonSource{Run: i, File: s.Name, Runs: len(s.Runs), EndedEarly: s.endedEarly(), Label: s.label()}
			for _, r := range s.Runs {
				js.MetadataMissing = js.MetadataMissing || r.Meta.Tool == ""
			}
			srcs = append(srcs, js)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(struct {
			Sources  []jsonSource  `json:"sources"`
			Sections []jsonSection `json:"sections"`
		}{srcs, jsonSections(secs)})
	}
	for _, s := range secs {
		if err := writeSection(w, s, f); err != nil {
			return err
		}
	}
	return nil
}
