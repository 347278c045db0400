package report

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// sweep builds a series of rows t = alpha + bytes/bw (usec, bytes/usec)
// with IMB's bandwidth column, sizes 0, 1, 2, 4, ... 2^maxLog.
func sweep(bench string, procs int, alpha, bw float64, maxLog int, mbyte float64) SeriesReport {
	var rows []result.Row
	for e := -1; e <= maxLog; e++ {
		b := int64(0)
		if e >= 0 {
			b = 1 << e
		}
		r := result.NewRow(bench, procs, b)
		r.TMax = alpha + float64(b)/bw
		r.MBps = float64(b) / r.TMax * 1e6 / mbyte
		rows = append(rows, r)
	}
	return analyzeSeries(rows, mbyte, Options{K: 7})
}

// svgTexts returns the texts of an SVG document, failing t when it is not
// well-formed XML with an <svg> root.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	root, inText := "", false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			inText = el.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(el)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("SVG root element %q, want svg", root)
	}
	return texts
}

// countTexts counts the SVG texts equal to s.
func countTexts(texts []string, s string) int {
	n := 0
	for _, x := range texts {
		if x == s {
			n++
		}
	}
	return n
}

// pngColors decodes a PNG and reports which of the first n series colours
// of plotutil appear in it.
func pngColors(t *testing.T, data []byte, n int) (image.Image, []bool) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	want := make([]color.RGBA, n)
	for i := range want {
		r, g, b, _ := plotutil.Color(i).RGBA()
		want[i] = color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
	}
	found := make([]bool, n)
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
			for i, w := range want {
				if c == w {
					found[i] = true
				}
			}
		}
	}
	return img, found
}

func render(t *testing.T, p *plot.Plot, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WritePlot(&b, p, format, PlotWidth, PlotHeight); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return b.Bytes()
}

func TestLatencyPlotSeries(t *testing.T) {
	series := []Labelled{
		{"switch np=2", sweep("PingPong", 2, 1.5, 1000, 22, result.MB)},
		{"hub np=2", sweep("PingPong", 2, 60, 11, 20, result.MiB)},
		{"wifi np=2", sweep("PingPong", 2, 900, 2, 18, result.MB)},
	}
	p, caption, err := LatencyPlot("PingPong", series)
	if err != nil {
		t.Fatal(err)
	}
	// Each sweep starts at 0 bytes: three points cannot sit on the log axis.
	if !strings.Contains(caption, "3 points at 0 bytes") {
		t.Errorf("caption %q does not say the 0-byte sizes are omitted", caption)
	}
	texts := svgTexts(t, render(t, p, "svg"))
	for _, l := range series {
		if countTexts(texts, l.Label) != 1 {
			t.Errorf("SVG legend has %q %d times, want once", l.Label, countTexts(texts, l.Label))
		}
	}
	for _, want := range []string{"time [usec]", "message size [bytes]", "4K", "1M"} {
		if countTexts(texts, want) == 0 {
			t.Errorf("SVG lacks the axis text %q (texts: %v)", want, texts)
		}
	}
	img, found := pngColors(t, render(t, p, "png"), 4)
	if img.Bounds().Dx() < 500 || img.Bounds().Dy() < 300 {
		t.Errorf("PNG is %v, want about 605x378 (16x10 cm at 96 dpi)", img.Bounds())
	}
	for i := 0; i < 3; i++ {
		if !found[i] {
			t.Errorf("PNG lacks series colour %d", i)
		}
	}
	if found[3] {
		t.Error("PNG has a fourth series colour for three series")
	}
}

func TestBandwidthPlotUnits(t *testing.T) {
	mb := sweep("PingPong", 2, 1.5, 1000, 10, result.MB)
	mib := sweep("PingPong", 2, 1.5, 1000, 10, result.MiB)
	coll := sweep("Bcast", 4, 3, 500, 10, result.MB)
	for i := range coll.Rows { // IMB prints no bandwidth for collectives
		coll.Rows[i].MBps = math.NaN()
	}
	tests := []struct {
		name   string
		series []Labelled
		axis   string
		curves int
	}{
		{"one MB run", []Labelled{{"a", mb}}, "MB/s (10^6 B)", 1},
		{"one MiB run", []Labelled{{"a", mib}}, "MiB/s (2^20 B)", 1},
		{"mixed runs convert to MB", []Labelled{{"a", mb}, {"b", mib}}, "MB/s (10^6 B)", 2},
		{"collective has no bandwidth", []Labelled{{"a", mb}, {"bcast", coll}}, "MB/s (10^6 B)", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, caption, err := BandwidthPlot("bw", tc.series)
			if err != nil {
				t.Fatal(err)
			}
			texts := svgTexts(t, render(t, p, "svg"))
			if countTexts(texts, tc.axis) != 1 {
				t.Errorf("axis label %q missing; caption %q", tc.axis, caption)
			}
			legend := 0
			for _, l := range tc.series {
				legend += countTexts(texts, l.Label)
			}
			if legend != tc.curves {
				t.Errorf("%d legend entries, want %d", legend, tc.curves)
			}
		})
	}
	// The same bandwidth in MiB/s and MB/s must land on the same values
	// once converted: the top point of both curves is 1024 B.
	cs, unit, converted, _ := bandwidthCurves([]Labelled{{"a", mb}, {"b", mib}})
	if !converted || unit != result.MB {
		t.Fatalf("unit %v converted %v, want MB after conversion", unit, converted)
	}
	a, b := cs[0].xy[len(cs[0].xy)-1].Y, cs[1].xy[len(cs[1].xy)-1].Y
	if d := a/b - 1; d > 1e-9 || d < -1e-9 {
		t.Errorf("converted bandwidths differ: %g vs %g MB/s", a, b)
	}
	if _, _, err := BandwidthPlot("none", []Labelled{{"bcast", coll}}); err == nil {
		t.Error("a plot of a collective without bandwidth: want an error")
	}
}

func TestABGPlotCurves(t *testing.T) {
	var rows []result.Row
	for _, n := range []int{2, 4, 8, 16} {
		r := result.NewRow("Sendrecv", n, 4194304)
		r.TMax = 40000 // constant time: ABG grows with N (switch)
		rows = append(rows, r)
		r = result.NewRow("Bcast", n, 4194304)
		r.TMax = 40000 * float64(n-1) // time grows with N-1: ABG flat (shared)
		rows = append(rows, r)
	}
	abg, scaling := abgAcrossCounts(rows)
	if len(abg) != 8 || len(scaling) != 2 {
		t.Fatalf("%d ABG rows and %d classifications, want 8 and 2", len(abg), len(scaling))
	}
	for _, s := range scaling {
		want := map[string]analysis.ScalingClass{"Sendrecv": analysis.SwitchLike, "Bcast": analysis.SharedMedium}[s.Benchmark]
		if s.Class != want {
			t.Errorf("%s: %v, want %v (%s)", s.Benchmark, s.Class, want, s.Evidence)
		}
	}
	curves := ABGCurves("", abg)
	p, _, err := ABGPlot("ABG", curves)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, render(t, p, "svg"))
	for _, l := range []string{"Sendrecv 4194304 B", "Bcast 4194304 B"} {
		if countTexts(texts, l) != 1 {
			t.Errorf("ABG legend lacks %q", l)
		}
	}
	if countTexts(texts, "ABG, Mbit/s") != 1 || countTexts(texts, "processes") != 1 {
		t.Error("ABG axes lack their labels")
	}
}

func TestPow2Ticks(t *testing.T) {
	ticks := pow2Ticks(1, 4194304)
	var labels []string
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "1 16 256 4K 64K 1M" {
		t.Errorf("labelled ticks %q, want 1 16 256 4K 64K 1M", got)
	}
	if len(ticks) != 23 {
		t.Errorf("%d ticks for 2^0..2^22, want 23", len(ticks))
	}
}

func TestPlotOfOneSize(t *testing.T) {
	// IMB -msglog 0:0 -zero_size off: every row at 1 byte, repeated.
	var rows []result.Row
	for _, us := range []float64{2.5, 2.7} {
		r := result.NewRow("One_put_all", 2, 1)
		r.TMax = us
		rows = append(rows, r)
	}
	s := analyzeSeries(rows, result.MB, Options{})
	p, _, err := LatencyPlot("one size", []Labelled{{"np=2", s}})
	if err != nil {
		t.Fatal(err)
	}
	if !(p.X.Min > 0 && p.X.Min < 1 && p.X.Max > 1) {
		t.Errorf("x axis %g..%g, want a positive range around 1 byte", p.X.Min, p.X.Max)
	}
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_ = WritePlot(&b, p, "svg", PlotWidth, PlotHeight) // a failure shows as invalid SVG below
		done <- b.Bytes()
	}()
	select {
	case svg := <-done:
		if countTexts(svgTexts(t, svg), "np=2") != 1 {
			t.Error("the one-size curve is not in the legend")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("rendering a one-size sweep does not finish")
	}
}

func TestABGFromBandwidthOnlyRows(t *testing.T) {
	// IMB Uniband prints the aggregate Mbytes/sec of N/2 pairs, no time.
	run := result.Run{Meta: result.Meta{Tool: "IMB-MPI1", Version: "2019 Update 6", MByte: result.MB}}
	mbps := map[int]float64{2: 5000, 4: 9800, 8: 19000}
	for _, n := range []int{2, 4, 8} {
		r := result.NewRow("Uniband", n, 4194304)
		r.MBps = mbps[n]
		run.Rows = append(run.Rows, r)
	}
	rep := Analyze("uniband.txt", 1, 1, run, Options{})
	if len(rep.ABG) != 3 || len(rep.Scaling) != 1 || rep.ABGNote == "" {
		t.Fatalf("ABG %d rows, %d classes, note %q; want 3, 1 and a note on the derived times", len(rep.ABG), len(rep.Scaling), rep.ABGNote)
	}
	for _, a := range rep.ABG {
		if want := mbps[a.Processes] * 8; math.Abs(a.Mbps-want) > 1e-6*want {
			t.Errorf("np=%d: ABG %.3f Mbit/s, want the printed %.0f MB/s x 8 = %.0f", a.Processes, a.Mbps, mbps[a.Processes], want)
		}
	}
	if rep.Scaling[0].Class != analysis.SwitchLike {
		t.Errorf("ABG doubling with the pairs classified %v, want switch-like", rep.Scaling[0].Class)
	}
	figs := Figures([]RunReport{rep})
	if len(figs) == 0 || figs[len(figs)-1].ID != "abg-uniband-txt" || figs[len(figs)-1].Curves != 1 {
		t.Errorf("figures %v: want an ABG figure with one curve last", figureIDs(figs))
	}
}

func TestPow10TicksLabelNarrowRanges(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{1, 20000, "1 10 100 1000 10000"},
		{40000, 270000, "50000 100000 200000"},
		{41000, 49000, "41000 49000"},
		{0.0123, 0.0187, "0.0123 0.0187"},
	} {
		var labels []string
		for _, tk := range pow10Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("%g..%g: labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestCombineRunsAcrossFiles(t *testing.T) {
	// One file per process count, the second in IMB 2017's MiB.
	var runs []result.Run
	for i, n := range []int{2, 4, 8} {
		mbyte := result.MB
		if i == 1 {
			mbyte = result.MiB
		}
		r := result.NewRow("Sendrecv", n, 4194304)
		r.TMax = 4000
		r.MBps = 2 * 4194304 / r.TMax * 1e6 / mbyte
		runs = append(runs, result.Run{Meta: result.Meta{Tool: "IMB-MPI1", MByte: mbyte}, Rows: []result.Row{r}})
	}
	for _, r := range runs {
		if rep := Analyze("one.txt", 1, 1, r, Options{}); len(rep.ABG) != 0 {
			t.Fatal("one run of one process count must give no ABG scaling")
		}
	}
	all := Combine(runs)
	if all.Meta.MByte != result.MB || len(all.Rows) != 3 {
		t.Fatalf("combined MByte %v with %d rows, want MB and 3 rows", all.Meta.MByte, len(all.Rows))
	}
	if d := all.Rows[1].MBps/all.Rows[0].MBps - 1; math.Abs(d) > 1e-12 {
		t.Errorf("the MiB run's bandwidth was not converted: %g vs %g", all.Rows[1].MBps, all.Rows[0].MBps)
	}
	rep := Analyze("combined", 1, 1, all, Options{})
	if len(rep.ABG) != 3 || len(rep.Scaling) != 1 || rep.Scaling[0].Class != analysis.SwitchLike {
		t.Errorf("combined: %d ABG rows, scaling %+v; want 3 rows, switch-like (constant time as N grows)", len(rep.ABG), rep.Scaling)
	}
}

func TestLatencyPlotDrawsFitSegments(t *testing.T) {
	rep := analyzedPingPong(t)
	s := rep.Series[0]
	cs, _ := latencyCurves([]Labelled{{"np=2", s}})
	if !s.Fit.Split || len(cs[0].fit) != 3 {
		t.Fatalf("split %v, %d fit segments; want the short, eager and rendezvous segments", s.Fit.Split, len(cs[0].fit))
	}
	eager, rdv := cs[0].fit[1], cs[0].fit[2]
	if eager[len(eager)-1].X > float64(s.Fit.Segments[1].MaxBytes)+0.5 || rdv[0].X != float64(s.Fit.BreakBytes) {
		t.Errorf("eager ends at %g B, rendezvous starts at %g B; want each on its own sizes (break %d B)",
			eager[len(eager)-1].X, rdv[0].X, s.Fit.BreakBytes)
	}
	last := rdv[len(rdv)-1]
	if want := s.Fit.Rendezvous.Predict(int64(last.X)); math.Abs(last.Y-want) > 1e-9*want {
		t.Errorf("fit line at %g B is %g usec, want the model's %g", last.X, last.Y, want)
	}
}
