package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/internal/testcorpus"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
)

// classRuns reads a file of testdata/classes.
func classRuns(t *testing.T, name string) (string, []result.Run) {
	t.Helper()
	path := testcorpus.Class(t, name)
	runs, err := read.File(path)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return path, runs
}

// seriesLabels lists the labels of a report's series.
func seriesLabels(rep RunReport) []string {
	var out []string
	for _, s := range rep.Series {
		out = append(out, s.Label())
	}
	return out
}

// TestMultiLayoutsApart: Multi-Allgather in layouts 4x2, 2x4 and 1x8 (one
// run), the plain Allgather on 2, 4 and 8 of 8 ranks (a second run) and
// layouts with idle ranks (a third) are each a series of their own:
// never repeats of one another, each layout's ABG counts groups x the
// transfers of one group.
func TestMultiLayoutsApart(t *testing.T) {
	path, runs := classRuns(t, "imb-multi-allgather-layouts.txt")
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	want := [][]string{
		{"Multi-Allgather 4x2", "Multi-Allgather 2x4", "Multi-Allgather 1x8"},
		{"Allgather np=2", "Allgather np=4", "Allgather np=8"},
		{"Multi-Allgather 2x3+2 idle", "Multi-Allgather 1x6+2 idle"},
	}
	for i, run := range runs {
		rep := Analyze(path, i+1, len(runs), run, Options{})
		if got := seriesLabels(rep); strings.Join(got, "|") != strings.Join(want[i], "|") {
			t.Errorf("run %d: series %q, want %q", i+1, got, want[i])
		}
		for _, s := range rep.Series {
			if len(s.Rows) != 18 || s.FitErr != nil || s.Fit.Single.R2 < 0.99 {
				t.Errorf("run %d %s: %d rows (want 18), fit %v %v", i+1, s.Label(), len(s.Rows), s.Fit, s.FitErr)
			}
		}
		for _, f := range rep.Flags {
			t.Errorf("run %d: flag on a clean file: %s", i+1, f)
		}
	}
	// Multi-Allgather 2x4 moves 2 x 4 x 3 messages, not the 8 x 7 of
	// one Allgather on 8 ranks.
	abg, _ := analysis.ABGTable(runs[0].Rows, 65536)
	m := map[string]float64{}
	for _, a := range abg {
		m[a.Series.Label()] = a.Transfers
	}
	if m["Multi-Allgather 4x2"] != 8 || m["Multi-Allgather 2x4"] != 24 || m["Multi-Allgather 1x8"] != 56 || len(m) != 3 {
		t.Errorf("ABG transfers %v", m)
	}
	// All runs joined: the plain benchmark scales over 2, 4, 8 ranks; the
	// layouts stay apart and are not repeats of it.
	all := Analyze(path, 1, 1, Combine(runs), Options{})
	if len(all.Series) != 8 {
		t.Errorf("combined: %d series %q, want 8", len(all.Series), seriesLabels(all))
	}
	for _, f := range all.Flags {
		t.Errorf("combined: %s", f)
	}
	if len(all.Scaling) != 1 || all.Scaling[0].Benchmark != "Allgather" || all.Scaling[0].From.Processes != 2 || all.Scaling[0].To.Processes != 8 {
		t.Errorf("combined scaling %+v", all.Scaling)
	}
	// Compared with itself, every series is a section; compared with the
	// plain run alone, the layouts are named as measured in run 0 only.
	c := Compare([]Source{{path, runs}, {path, runs}})
	if secs := c.Sections(); len(secs) != 9 || len(c.Unmatched) != 0 {
		t.Errorf("self-comparison: %d sections, unmatched %v", len(secs), c.Unmatched)
	}
	c = Compare([]Source{{path, runs}, {"plain", runs[1:2]}})
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Text); err != nil {
		t.Fatal(err)
	}
	if len(c.Unmatched) != 5 || !strings.Contains(out.String(), "Multi-Allgather 2x3+2 idle: measured in run 0 only") {
		t.Errorf("unmatched %v:\n%s", c.Unmatched, out.String())
	}
	for _, r := range c.Rows {
		if r.Multi != result.MultiNone || r.Change != 0 {
			t.Errorf("plain run compared with a layout or with a different value: %+v", r)
		}
	}
}

// TestEXTModesApart: IMB-EXT Unidir_Put in NON-AGGREGATE and AGGREGATE
// mode in one run are two series with their own fits, never repeats.
func TestEXTModesApart(t *testing.T) {
	path, runs := classRuns(t, "imbext-unidir-put-both-modes.txt")
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	rep := Analyze(path, 1, 1, runs[0], Options{})
	if got := seriesLabels(rep); strings.Join(got, "|") != "Unidir_Put np=2 non-aggregate|Unidir_Put np=2 aggregate" {
		t.Fatalf("series %q", got)
	}
	// Written as t = 6 + b/900 and t = 1.5 + b/1100 (printed to 0.01 usec).
	for i, want := range [][2]float64{{6, 900}, {1.5, 1100}} {
		fit := rep.Series[i].Fit
		if lo, hi := fit.Best(1), fit.Best(65536); math.Abs(lo.AlphaUsec-want[0]) > 0.05 || math.Abs(hi.BandwidthMBps-want[1]) > 2 {
			t.Errorf("%s: fit %s, want alpha %g bandwidth %g", rep.Series[i].Label(), rep.Series[i].Fit, want[0], want[1])
		}
	}
	for _, f := range rep.Flags {
		t.Errorf("flag on a clean file: %s", f)
	}
	c := Compare([]Source{{path, runs}, {path, runs}})
	if secs := c.Sections(); len(secs) != 3 || secs[1].Title != "Unidir_Put np=2 aggregate" || secs[2].Title != "Unidir_Put np=2 non-aggregate" {
		t.Errorf("sections %v", secs)
	}
}

// TestBibandComparesAsBandwidth: Biband on 2 to 16 ranks against the
// same file with one bandwidth lowered by 20%: every point compares on
// its bandwidth, and exactly the changed point differs.
func TestBibandComparesAsBandwidth(t *testing.T) {
	pa, a := classRuns(t, "imb-biband-np2-16.txt")
	pb, b := classRuns(t, "imb-biband-np2-16-one-changed.txt")
	c := Compare([]Source{{pa, a}, {pb, b}})
	if len(c.Rows) != 4*17 || len(c.Unmatched) != 0 {
		t.Fatalf("%d points (want 68: 4 process counts x 17 sizes > 0), unmatched %v", len(c.Rows), c.Unmatched)
	}
	var changed []analysis.CompareRow
	for _, r := range c.Rows {
		if !r.Bandwidth || math.IsNaN(r.BaseMsgRate) {
			t.Errorf("not compared as bandwidth and messages/s: %+v", r)
		}
		if r.Change != 0 {
			changed = append(changed, r)
		}
	}
	if len(changed) != 1 || changed[0].Processes != 8 || changed[0].Bytes != 4096 ||
		math.Abs(changed[0].Change-0.25) > 0.001 || math.Abs(changed[0].LossPct-20) > 0.1 || math.Abs(changed[0].MBps/changed[0].BaseMBps-0.8) > 1e-3 {
		t.Fatalf("changed points %+v, want only np=8 4096 B, 20%% less bandwidth", changed)
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Text); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "-- Biband np=8 (bidirectional") || !strings.Contains(s, "bw run 0 [MB/s]") || strings.Contains(s, "nothing to compare") {
		t.Errorf("comparison text:\n%s", s)
	}
}

// TestOSUBandwidthCompares: osu_bw against osu_bw (the second file holds
// two runs, whose spread is the noise) compares on bandwidth: the large
// messages lost 30% of their bandwidth, beyond the noise; the smallest,
// latency-bound ones did not change beyond it.
func TestOSUBandwidthCompares(t *testing.T) {
	pa, a := classRuns(t, "osu-bw-a.txt")
	pb, b := classRuns(t, "osu-bw-b-two-runs.txt")
	if len(b) != 2 {
		t.Fatalf("%d runs in %s, want 2", len(b), pb)
	}
	c := Compare([]Source{{pa, a}, {pb, b}})
	if len(c.Rows) != 23 {
		t.Fatalf("%d points, want 23", len(c.Rows))
	}
	first, last := c.Rows[0], c.Rows[22]
	if !last.Bandwidth || last.Bytes != 4<<20 || !last.Significant || math.Abs(last.LossPct-30) > 1 {
		t.Errorf("4 MiB: %+v", last)
	}
	if first.Bytes != 1 || first.Significant || math.IsNaN(first.Noise) {
		t.Errorf("1 B: %+v", first)
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, c, Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "-- osu_bw np=2 (unidirectional") {
		t.Errorf("comparison text:\n%s", out.String())
	}
}

// TestRobustFitSpikeCliff: PingPong with a 50x spike at 1 KiB and a cliff
// at 64 KiB, PingPing with a 50x spike at its largest size (4 MiB) and a
// cliff at 32 KiB, Sendrecv with three regimes. The spikes are left out
// (listed, drawn hollow), the cliffs become breaks, every segment keeps
// R^2 >= 0.99 on the other points and the written parameters.
func TestRobustFitSpikeCliff(t *testing.T) {
	path, runs := classRuns(t, "imb-spike-cliff-three-regimes.txt")
	rep := Analyze(path, 1, 1, runs[0], Options{})
	type seg struct{ alpha, mbps float64 }
	want := []struct {
		label  string
		breaks []int64
		left   []int64
		segs   []seg
	}{
		{"PingPong np=2", []int64{65536}, []int64{1024}, []seg{{2, 5000}, {12, 9000}}},
		{"PingPing np=2", []int64{32768}, []int64{4194304}, []seg{{2.5, 4000}, {15, 7000}}},
		{"Sendrecv np=2", []int64{512, 65536}, nil, []seg{{1.5, 2000}, {4, 4000}, {20, 8000}}},
	}
	if len(rep.Series) != len(want) {
		t.Fatalf("series %q", seriesLabels(rep))
	}
	for i, w := range want {
		s := rep.Series[i]
		var left []int64
		for _, o := range s.Fit.Outliers() {
			left = append(left, o.Bytes)
		}
		if s.Label() != w.label || fmt.Sprint(s.Fit.Breaks) != fmt.Sprint(w.breaks) || fmt.Sprint(left) != fmt.Sprint(w.left) {
			t.Errorf("%s: breaks %v left out %v, want %v and %v: %v", s.Label(), s.Fit.Breaks, left, w.breaks, w.left, s.Fit)
			continue
		}
		for j, f := range s.Fit.Segments {
			// Written with +-1% jitter and printed to 0.01 usec; Sendrecv's
			// short segment spans 8% in time, where 1% jitter leaves R^2
			// 0.94 and the slope 10% uncertain.
			minR2, bwTol := 0.99, 0.02
			if i == 2 && j == 0 {
				minR2, bwTol = 0.9, 0.1
			}
			if f.R2 < minR2 || math.Abs(f.AlphaUsec/w.segs[j].alpha-1) > 0.03 || math.Abs(f.BandwidthMBps/w.segs[j].mbps-1) > bwTol {
				t.Errorf("%s segment %d: %+v, want alpha %g, %g MB/s, R^2 >= 0.99", s.Label(), j, f, w.segs[j].alpha, w.segs[j].mbps)
			}
		}
		if s.Fit.Split != true {
			t.Errorf("%s: no split", s.Label())
		}
	}
	// Least squares without the robust weights is bent by the spike.
	var eager []analysis.Point
	for _, p := range rep.Series[0].Points {
		if p.Bytes > 0 && p.Bytes < 65536 {
			eager = append(eager, p)
		}
	}
	if ls, _ := analysis.FitHockney(eager, analysis.FitOptions{}); ls.R2 > 0.9 {
		t.Errorf("plain least squares through the spike: R^2 %.4f, expected a bent fit", ls.R2)
	}
	// The short Sendrecv segment (1.5 to 1.63 usec, 1% jitter) has R^2
	// below 0.95 and is said to be flat, not poor; the left-out points are
	// named and drawn hollow.
	var text bytes.Buffer
	if err := WriteDocument(&text, []RunReport{rep}, 7, Text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"left out of the fit, as they disagree with the other sizes", "1024 B (", "breaks at 512 B and 65536 B",
		"short segment: R^2", "the line fits, R^2 says little here"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if short := rep.Series[2].Fit.Segments[0]; !short.Flat() || short.Poor() || jsonSegmentOf("short", short).Poor {
		t.Errorf("Sendrecv short segment: flat %v poor %v", short.Flat(), short.Poor())
	}
	cs, _ := latencyCurves([]Labelled{{"np=2", rep.Series[0]}})
	if len(cs[0].left) != 1 || cs[0].left[0].X != 1024 {
		t.Errorf("hollow points %v, want 1024 B", cs[0].left)
	}
}

// TestSpreadShownAndUsedAsNoise: OSU 7.3's P50/P90/P99 tail columns and
// IMB's -show_tail line are shown per size; compare takes p90/p50 - 1 as
// the noise of a point without repeats: a 10% slower point stays within
// the 18% the repetitions spread by, a 30% slower one is beyond it.
func TestSpreadShownAndUsedAsNoise(t *testing.T) {
	path, runs := classRuns(t, "imb-then-osu.txt")
	rep := Analyze(path, 2, 3, runs[1], Options{})
	tab, ok := SpreadTableView(rep.Series[0].Rows)
	if !ok || tab.Title != "Spread of the repetitions (OSU tail columns)" || len(tab.Rows) != 9 ||
		tab.Rows[8][3].String() != "5.97" || tab.Rows[8][4].String() != "7.03" || tab.Rows[8][7].String() != "1.68" {
		t.Errorf("OSU spread table %v", tab)
	}
	p, tail := corpusRuns(t, "014-imb2019u6-pingpong-showtail.txt")
	imbRep := Analyze(p, 1, 1, tail[0], Options{})
	if tab, ok := SpreadTableView(imbRep.Series[0].Rows); !ok || tab.Rows[1][2].String() != "1.16" || tab.Rows[1][3].String() != "1.81" || tab.Rows[1][6].String() != "215.10" || tab.Rows[1][7].String() != "1.91" {
		t.Errorf("IMB -show_tail spread table %v", tab)
	}
	slow := runs[1]
	slow.Rows = append([]result.Row(nil), runs[1].Rows...)
	for i := range slow.Rows {
		switch slow.Rows[i].Bytes {
		case 512:
			slow.Rows[i].TAvg *= 1.3
		case 1024:
			slow.Rows[i].TAvg *= 1.1
		}
	}
	c := Compare([]Source{{"a", runs[1:2]}, {"b", []result.Run{slow}}})
	got := map[int64]analysis.CompareRow{}
	for _, r := range c.Rows {
		got[r.Bytes] = r
	}
	if r := got[1024]; r.NoiseFrom != "spread" || math.Abs(r.Noise-(7.03/5.97-1)) > 1e-9 || r.Significant {
		t.Errorf("1024 B, 10%% slower: %+v", r)
	}
	if r := got[512]; !r.Significant || r.NoiseFrom != "spread" {
		t.Errorf("512 B, 30%% slower: %+v", r)
	}
	if r := got[4]; r.Change != 0 || r.Significant {
		t.Errorf("4 B unchanged: %+v", r)
	}
}

// TestCombineKeepsConditionsApart: --combine leaves out a run whose
// conditions differ from the first run's (osu_bw with a window of 16
// against the default 64) and says so.
func TestCombineKeepsConditionsApart(t *testing.T) {
	_, a := classRuns(t, "osu-bw-a.txt")
	_, b := classRuns(t, "osu-bw-b-two-runs.txt")
	b[1].Meta.Info = map[string]string{"window_size": "16"}
	all := Combine([]result.Run{a[0], b[0], b[1]})
	if len(all.Rows) != 2*23 || len(all.Problems) != 1 ||
		!strings.Contains(all.Problems[0].Msg, "run 3 of ") || !strings.Contains(all.Problems[0].Msg, "conditions (window=16) differ from the first run's (the tool's defaults)") {
		t.Errorf("%d rows, problems %v", len(all.Rows), all.Problems)
	}
	c := Compare([]Source{{"a", a}, {"b", b}})
	if len(c.Unmatched) != 1 || c.Unmatched[0].Series.Conditions != "window=16" || c.Unmatched[0].In[0] != 1 {
		t.Errorf("unmatched %+v", c.Unmatched)
	}
}

// TestMpbenchSpread: mpbench's own JSON keeps each row's repetition
// distribution (result.Row.Spread); analyze shows it with its coefficient
// of variation, and compare takes the larger of p90/p50 - 1 and two
// standard errors of the difference of two means as the noise of a point
// without repeats.
func TestMpbenchSpread(t *testing.T) {
	path, runs := classRuns(t, "mpbench-pingpong-allreduce-spread.jsonl")
	rep := Analyze(path, 1, 1, runs[0], Options{})
	if len(rep.Series) != 2 {
		t.Fatalf("series %q", seriesLabels(rep))
	}
	for _, s := range rep.Series {
		tab, ok := SpreadTableView(s.Rows)
		if !ok || tab.Title != "Spread of the repetitions (mpbench)" || len(tab.Rows) != len(s.Rows) {
			t.Fatalf("%s: spread table %v", s.Label(), tab)
		}
		for i, r := range s.Rows {
			sp := r.Spread
			if tab.Rows[i][3].String() != num(sp.P50, 2).String() || tab.Rows[i][8].String() != num(100*sp.CV, 1).String() || !(sp.P50 <= sp.P90) {
				t.Errorf("%s %d B: row %v, spread %+v", s.Label(), r.Bytes, tab.Rows[i], sp)
			}
		}
	}
	c := Compare([]Source{{path, runs}, {path, runs}})
	if len(c.Rows) != len(runs[0].Rows) {
		t.Fatalf("%d points compared, want %d", len(c.Rows), len(runs[0].Rows))
	}
	for _, r := range c.Rows {
		src := r.SeriesKey
		var want float64
		for _, row := range runs[0].Rows {
			if analysis.KeyOf(&row) == src && max(row.Bytes, -1) == r.Bytes {
				sem := 2 * math.Sqrt2 * row.Spread.CV / math.Sqrt(float64(row.Spread.N))
				want = math.Max(math.Max(row.Spread.P90/row.Spread.P50-1, sem), analysis.NoiseFloor(r.Usec, r.BaseUsec))
			}
		}
		if r.NoiseFrom != "spread" || r.Change != 0 || r.Significant || math.Abs(r.Noise-want) > 1e-12 {
			t.Errorf("%s %d B: noise %g from %q, want %g from the spread", r.Label(), r.Bytes, r.Noise, r.NoiseFrom, want)
		}
	}
}
