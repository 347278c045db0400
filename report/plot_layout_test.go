package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// svgTextRE matches a text element of gonum/plot's SVG with its height
// above the bottom edge (-y, the SVG is drawn flipped by scale(1, -1)).
var svgTextRE = regexp.MustCompile(`<text x="[^"]*" y="([^"]*)"[^>]*>([^<]*)</text>`)

// textHeights returns each text's height above the bottom of the image.
func textHeights(t *testing.T, svg []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range svgTextRE.FindAllStringSubmatch(string(svg), -1) {
		y, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("text %q: y %q", m[2], m[1])
		}
		out[strings.TrimSpace(m[2])] = -y
	}
	return out
}

// TestLegendBelowPlot: the legend is drawn below the x axis label, outside
// the data area, however many curves there are, and the title keeps a
// margin from the top edge.
func TestLegendBelowPlot(t *testing.T) {
	var series []Labelled
	for i := range 6 {
		series = append(series, Labelled{Label: "run " + strconv.Itoa(i), Series: sweep("PingPong", 2, 1.5+float64(i), 1000, 22, result.MB)})
	}
	p, _, err := LatencyPlot("PingPong: time against size", series)
	if err != nil {
		t.Fatal(err)
	}
	h := textHeights(t, render(t, p, "svg"))
	axis, ok := h["message size [bytes]"]
	if !ok {
		t.Fatalf("no x axis label in %v", h)
	}
	for i := range 6 {
		name := "run " + strconv.Itoa(i)
		if y, ok := h[name]; !ok || y >= axis {
			t.Errorf("legend entry %q at %.1f pt, want below the x axis label at %.1f pt", name, y, axis)
		}
	}
	svg := render(t, p, "svg")
	m := regexp.MustCompile(`viewBox="0 0 [0-9.]+ ([0-9.]+)"`).FindSubmatch(svg)
	if m == nil {
		t.Fatal("no viewBox")
	}
	top, _ := strconv.ParseFloat(string(m[1]), 64)
	// The title's baseline sits at least its 12 pt font size and a 3 pt
	// margin below the top edge (without the margin it is 9.4 pt: the
	// letters touch the edge).
	if y := h["PingPong: time against size"]; top-y < 15 {
		t.Errorf("title baseline %.1f pt below the top edge, want at least 15", top-y)
	}
}

// TestABGTicksAtEveryCount: a process count that is not a power of two
// (28) gets a labelled tick on the ABG plot.
func TestABGTicksAtEveryCount(t *testing.T) {
	var rows []analysis.ABGRow
	for _, n := range []int{2, 4, 8, 16, 28} {
		rows = append(rows, analysis.ABGRow{Benchmark: "Uniband", Processes: n, Bytes: 4 << 20, Transfers: float64(n / 2), Mbps: 1000 * float64(n)})
	}
	p, _, err := ABGPlot("abg", ABGCurves("", rows))
	if err != nil {
		t.Fatal(err)
	}
	h := textHeights(t, render(t, p, "svg"))
	for _, l := range []string{"2", "4", "8", "16", "28"} {
		if _, ok := h[l]; !ok {
			t.Errorf("no tick label %q on the processes axis", l)
		}
	}
}

// TestBarrierPerCount: seed 003's Barrier (151, 177, 670 usec at 2, 4 and
// 8 processes, one file per count) is reported as a table per process
// count and drawn against the processes; the summary names it.
func TestBarrierPerCount(t *testing.T) {
	var runs []result.Run
	for _, c := range []struct {
		n int
		t float64
	}{{2, 151}, {4, 177}, {8, 670}} {
		r := result.NewRow("Barrier", c.n, -1)
		r.TMin, r.TMax, r.TAvg, r.Repetitions = c.t-1, c.t, c.t-0.5, 1000
		runs = append(runs, result.Run{Meta: result.Meta{Tool: "IMB-MPI1", MByte: result.MiB}, Rows: []result.Row{r}})
	}
	rep := Analyze("seed003", 1, 1, Combine(runs), Options{})
	if len(rep.Sizeless) != 3 || rep.Sizeless[2].Usec != 670 || math.Abs(rep.Sizeless[2].Growth-670.0/177) > 1e-12 {
		t.Fatalf("Barrier per count: %+v", rep.Sizeless)
	}
	var tab *analysis.Table
	for _, sec := range rep.Sections(7) {
		for _, tb := range sec.Tables() {
			if strings.HasPrefix(tb.Title, "Benchmarks without a message size") {
				tab = &tb
			}
		}
	}
	if tab == nil || len(tab.Rows) != 3 || tab.Rows[1][6].String() != "177.00" || tab.Rows[2][7].String() != "3.79" {
		t.Fatalf("Barrier table: %+v", tab)
	}
	var fig *Figure
	for _, f := range Figures([]RunReport{rep}) {
		if strings.HasPrefix(f.ID, "count-time") {
			fig = &f
		}
	}
	if fig == nil || fig.Curves != 1 {
		t.Fatalf("no Barrier plot against the processes: %+v", fig)
	}
	h := textHeights(t, render(t, fig.Plot, "svg"))
	for _, l := range []string{"2", "4", "8", "Barrier"} {
		if _, ok := h[l]; !ok {
			t.Errorf("Barrier plot lacks %q", l)
		}
	}
	if got := SummaryTableView([]RunReport{rep}).Rows[0][3].String(); got != "Barrier" {
		t.Errorf("summary benchmarks %q, want Barrier", got)
	}
}

// TestBarrierCorpus: IMB's Barrier and Multi-Barrier (011) and
// osu_barrier (022) are reported.
func TestBarrierCorpus(t *testing.T) {
	for f, want := range map[string]int{"011-imb2019u6-multi-barrier.txt": 2, "022-osu571-barrier.txt": 1} {
		p, runs := corpusRuns(t, f)
		rep := Analyze(p, 1, 1, runs[0], Options{})
		if len(rep.Sizeless) != want {
			t.Errorf("%s: %d Barrier rows, want %d", f, len(rep.Sizeless), want)
		}
	}
}

// TestInvalidFitNotDrawn: a segment whose fitted time falls with size is
// not drawn, and the report says why its bandwidth is blank.
func TestInvalidFitNotDrawn(t *testing.T) {
	var rows []result.Row
	for i, tm := range []float64{900, 800, 700, 600, 500} {
		r := result.NewRow("osu_alltoall", -1, int64(2)<<i)
		r.TAvg, r.Headline = tm, result.HeadlineAvg
		rows = append(rows, r)
	}
	s := analyzeSeries(rows, result.MB, Options{K: 7})
	if s.FitErr != nil || s.Fit.Single.BandwidthMBps > 0 {
		t.Fatalf("fit %+v err %v; want a fit with no positive bandwidth", s.Fit.Single, s.FitErr)
	}
	if l := fitLine(s); len(l) != 0 {
		t.Errorf("a falling fit is drawn: %d segments", len(l))
	}
	found := false
	for _, p := range s.section(7).Parts {
		found = found || strings.Contains(p.Text, "not positive") && strings.Contains(p.Text, "not drawn")
	}
	if !found {
		t.Error("the report does not say why the fit has no bandwidth")
	}
}
