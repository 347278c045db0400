package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// Labelled is a size sweep with the name its curve gets in a legend.
type Labelled struct {
	Label  string
	Series SeriesReport
}

// PlotWidth and PlotHeight are the size the reports draw plots at.
const (
	PlotWidth  = 16 * vg.Centimeter
	PlotHeight = 10 * vg.Centimeter
)

// WritePlot encodes p as "svg" or "png" (the formats of
// draw.NewFormattedCanvas): the plot at the given size with a margin above
// its title, and its legend below the plot, outside the data area, one
// entry per line, so that it never hides data or axis labels; the image
// grows by the legend's height. Errors: unknown format, w's error.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	leg := p.Legend
	p.Legend = plot.NewLegend() // drawn apart, below the plot
	defer func() { p.Legend = leg }()
	r := leg.Rectangle(draw.Canvas{})
	legH := r.Max.Y - r.Min.Y
	if legH > 0 {
		legH += 2 * legendMargin
	}
	c, err := draw.NewFormattedCanvas(width, height+legH+titleMargin, format)
	if err != nil {
		return fmt.Errorf("report: plot as %s: %w", format, err)
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, 0, legH, -titleMargin))
	if legH > 0 {
		leg.Top, leg.Left = true, true
		lc := dc
		lc.Min.X += legendMargin
		lc.Max.Y = dc.Min.Y + legH - legendMargin
		leg.Draw(lc)
	}
	_, err = c.WriteTo(w)
	return err
}

// titleMargin is the room above a plot's title; legendMargin the room
// around the legend below the plot.
const (
	titleMargin  = 6 * vg.Millimeter / 2
	legendMargin = 2 * vg.Millimeter
)

// LatencyPlot draws the time per message (usec) against the message size
// (bytes) of every series, both axes logarithmic, one curve per series with
// a legend. Sizes of 0 bytes and non-positive times cannot sit on a log
// axis: they are omitted, and the returned caption says how many. Times
// derived from a bandwidth (osu_bw) are marked in the legend. Error when no
// series has a point to draw.
func LatencyPlot(title string, series []Labelled) (*plot.Plot, string, error) {
	curves, omitted := latencyCurves(series)
	p, err := logLogPlot(title, "message size [bytes]", "time [usec]", curves)
	if err != nil {
		return nil, "", err
	}
	caption := "Time per message against message size, both axes logarithmic; dashed: the Hockney fit (per segment when split at a break)"
	for _, c := range curves {
		if len(c.left) > 0 {
			caption += "; hollow rings: sizes the robust fit left out (they disagree with the other sizes)"
			break
		}
	}
	return p, caption + omittedNote(omitted) + ".", nil
}

// latencyCurves returns the (bytes, usec) curves of LatencyPlot and the
// number of points left out.
func latencyCurves(series []Labelled) ([]curve, int) {
	var curves []curve
	omitted := 0
	for _, l := range series {
		c := curve{label: l.Label}
		if l.Series.DerivedTimes {
			c.label += " (bytes/bandwidth)"
		}
		for _, pt := range l.Series.Points {
			if pt.Bytes <= 0 || !(pt.Usec > 0) {
				omitted++
				continue
			}
			c.xy = append(c.xy, plotter.XY{X: float64(pt.Bytes), Y: pt.Usec})
		}
		c.fit = fitLine(l.Series)
		for _, o := range l.Series.Fit.Outliers() {
			if o.Bytes > 0 {
				c.left = append(c.left, plotter.XY{X: float64(o.Bytes), Y: o.Usec})
			}
		}
		curves = append(curves, c)
	}
	return curves, omitted
}

// fitLine samples a series' Hockney fit at 16 points per factor of two:
// one segment over the sizes it was fitted to, or each segment (two or
// three) over its own sizes. Sizes of 0 bytes are
// left out (log axis); nil without a fit. A segment whose fitted time
// does not grow with size (no positive bandwidth) is not a Hockney model
// and is not drawn (the fit table says why).
func fitLine(s SeriesReport) []plotter.XYs {
	if s.FitErr != nil {
		return nil
	}
	var out []plotter.XYs
	for _, f := range s.Fit.Segments {
		if !validFit(f) {
			continue
		}
		lo, hi := max(f.MinBytes, 1), f.MaxBytes
		var xy plotter.XYs
		for e := math.Log2(float64(lo)); e <= math.Log2(float64(hi))+1e-9; e += 1.0 / 16 {
			b := math.Exp2(e)
			if t := f.AlphaUsec + b*f.BetaInv; t > 0 {
				xy = append(xy, plotter.XY{X: b, Y: t})
			}
		}
		out = append(out, xy)
	}
	return out
}

// validFit reports whether a fitted segment is a Hockney model: a
// positive bandwidth (time growing with size).
func validFit(f analysis.Fit) bool { return f.BandwidthMBps > 0 }

// BandwidthPlot draws bandwidth against message size on log axes: the
// bandwidth the source reported (IMB Mbytes/sec, OSU MB/s) or, where it
// printed none for a one-message benchmark (osu_latency), bytes / time.
// The axis names its Mbyte: the series' own when they agree, else all are
// converted to MB = 10^6 bytes (the caption says so). Series without a
// bandwidth (collectives) are left out. Error when none has one.
func BandwidthPlot(title string, series []Labelled) (*plot.Plot, string, error) {
	curves, unit, converted, omitted := bandwidthCurves(series)
	if len(curves) == 0 {
		return nil, "", fmt.Errorf("report: no series with a bandwidth for %q", title)
	}
	p, err := logLogPlot(title, "message size [bytes]", unitLabel(unit), curves)
	if err != nil {
		return nil, "", err
	}
	caption := "Bandwidth against message size, both axes logarithmic, in " + MByteName(unit) + " per second"
	if converted {
		caption += " (the runs use different Mbytes; all converted to 10^6 B)"
	}
	return p, caption + omittedNote(omitted) + ".", nil
}

// bandwidthCurves returns the curves of BandwidthPlot (series without a
// bandwidth left out), their Mbyte, whether that needed a conversion, and
// the number of points left out.
func bandwidthCurves(series []Labelled) (curves []curve, unit float64, converted bool, omitted int) {
	for _, l := range series {
		switch {
		case unit == 0:
			unit = l.Series.MByte
		case unit != l.Series.MByte:
			unit = -1
		}
	}
	converted = unit < 0
	if unit <= 0 {
		unit = result.MB
	}
	for _, l := range series {
		c := curve{label: l.Label}
		for _, r := range l.Series.Rows {
			bw := bandwidth(r, l.Series, unit)
			if math.IsNaN(bw) {
				continue
			}
			if r.Bytes <= 0 || bw <= 0 {
				omitted++
				continue
			}
			c.xy = append(c.xy, plotter.XY{X: float64(r.Bytes), Y: bw})
		}
		if len(c.xy) > 0 {
			curves = append(curves, c)
		}
	}
	return curves, unit, converted, omitted
}

// bandwidth returns a row's bandwidth in Mbytes/sec of unit bytes: the
// reported one converted from the series' Mbyte, else bytes/time for
// one-message benchmarks, else NaN.
func bandwidth(r result.Row, s SeriesReport, unit float64) float64 {
	if !math.IsNaN(r.MBps) {
		return r.MBps * s.MByte / unit
	}
	if t := r.Time(); oneMessage(s.Benchmark) && !math.IsNaN(t) && t > 0 {
		return float64(r.Bytes) / t * 1e6 / unit
	}
	return math.NaN()
}

// unitLabel is the axis label of a bandwidth in Mbytes of mbyte bytes.
// Axis labels are kept short: gonum/plot centres a vertical label's
// room at the linear midpoint of a log axis, and a long label there
// shrinks the data area.
func unitLabel(mbyte float64) string {
	if mbyte == result.MiB {
		return "MiB/s (2^20 B)"
	}
	return "MB/s (10^6 B)"
}

// omittedNote says how many points could not go on the log axes.
func omittedNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "; 1 point at 0 bytes or with a zero time is omitted (a log axis has no 0)"
	}
	return fmt.Sprintf("; %d points at 0 bytes or with a zero time are omitted (a log axis has no 0)", n)
}

// ABGCurve is one benchmark's aggregate bandwidth across process counts.
type ABGCurve struct {
	Label string
	Rows  []analysis.ABGRow // one per process count
}

// ABGCurves groups ABG rows into one curve per series family and size, each
// labelled "prefix Benchmark N B", in the rows' order.
func ABGCurves(prefix string, rows []analysis.ABGRow) []ABGCurve {
	idx := map[string]int{}
	var out []ABGCurve
	for _, r := range rows {
		label := strings.TrimSpace(fmt.Sprintf("%s %s %d B", prefix, r.Series.Family().FamilyLabel(), r.Bytes))
		i, ok := idx[label]
		if !ok {
			i = len(out)
			idx[label] = i
			out = append(out, ABGCurve{Label: label})
		}
		out[i].Rows = append(out[i].Rows, r)
	}
	return out
}

// ABGPlot draws the aggregate bandwidth ABG = m x bytes / t in Mbit/s
// (10^6 bit/s) against the total number of ranks, both axes logarithmic
// (base 2 on the ranks), one curve per benchmark: a switch keeps ABG
// growing with the ranks, a shared medium keeps it flat (thesis 4.2).
// Error when no curve has a point.
func ABGPlot(title string, curves []ABGCurve) (*plot.Plot, string, error) {
	cs := abgCurves(curves)
	p, err := logLogPlot(title, "processes", "ABG, Mbit/s", cs)
	if err != nil {
		return nil, "", err
	}
	p.X.Tick.Marker = countTicks(cs)
	return p, "Aggregate bandwidth m x bytes / t against the number of processes, both axes logarithmic: " +
		"a curve rising with slope near 1 is switch-like, a flat one shared-medium-like.", nil
}

// abgCurves returns the (processes, Mbit/s) curves of ABGPlot.
func abgCurves(curves []ABGCurve) []curve {
	var cs []curve
	for _, c := range curves {
		k := curve{label: c.Label}
		rows := append([]analysis.ABGRow(nil), c.Rows...)
		sort.Slice(rows, func(a, b int) bool { return rows[a].Processes < rows[b].Processes })
		for _, r := range rows {
			if r.Mbps > 0 && r.Processes > 0 {
				k.xy = append(k.xy, plotter.XY{X: float64(r.Processes), Y: r.Mbps})
			}
		}
		cs = append(cs, k)
	}
	return cs
}

// countTicks labels every process count the curves hold (2, 4, 8, 16,
// 28: a count that is not a power of two gets its own tick), falling back
// to powers of two when there are more than 12 counts.
func countTicks(cs []curve) plot.Ticker {
	seen := map[float64]bool{}
	for _, c := range cs {
		for _, xy := range c.xy {
			seen[xy.X] = true
		}
	}
	if len(seen) > 12 {
		return plot.TickerFunc(pow2Ticks)
	}
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ticks []plot.Tick
		for v := range seen {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
		sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
		return ticks
	})
}

// CountTimePlot draws the time of benchmarks without a message size
// (Barrier) in usec against the total number of processes, both axes
// logarithmic, one curve per benchmark and -multi mode with two or more
// counts, every count labelled. Error when no curve has two counts.
func CountTimePlot(title string, rows []analysis.CountTime) (*plot.Plot, string, error) {
	multi := countTimeCurves(rows)
	if len(multi) == 0 {
		return nil, "", fmt.Errorf("report: %q: no benchmark without a size measured at two or more process counts", title)
	}
	p, err := logLogPlot(title, "processes", "time [usec]", multi)
	if err != nil {
		return nil, "", err
	}
	p.X.Tick.Marker = countTicks(multi)
	return p, "Time of one call of the benchmarks without a message size (Barrier) against the number of processes, " +
		"both axes logarithmic: over a switch it grows about with log2 of the processes.", nil
}

// countTimeCurves returns the (processes, usec) curves of CountTimePlot:
// one per series family (analysis.SeriesKey.Family) measured at two or more known counts.
func countTimeCurves(rows []analysis.CountTime) []curve {
	var cs []curve
	idx := map[string]int{}
	for _, r := range rows {
		if r.Processes <= 0 {
			continue
		}
		name := r.Series.Family().FamilyLabel()
		i, ok := idx[name]
		if !ok {
			i = len(cs)
			idx[name] = i
			cs = append(cs, curve{label: name})
		}
		cs[i].xy = append(cs[i].xy, plotter.XY{X: float64(r.Processes), Y: r.Usec})
	}
	var multi []curve
	for _, c := range cs {
		if len(c.xy) >= 2 {
			multi = append(multi, c)
		}
	}
	return multi
}

// curve is one legend entry's points.
type curve struct {
	label string
	xy    plotter.XYs
	fit   []plotter.XYs // model segments drawn dashed in the curve's colour
	left  plotter.XYs   // points the robust fit left out, drawn hollow
}

// drawn counts the curves that have points (the legend entries).
func drawn(cs []curve) int {
	n := 0
	for _, c := range cs {
		if len(c.xy) > 0 {
			n++
		}
	}
	return n
}

// logLogPlot draws curves as lines with markers on log-log axes with
// powers-of-two ticks on x. Curves without points are left out of the
// plot and the legend; error when none is left.
func logLogPlot(title, xLabel, yLabel string, curves []curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(pow2Ticks)
	p.Y.Tick.Marker = plot.TickerFunc(pow10Ticks)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Title.Padding = vg.Points(6)
	p.Add(plotter.NewGrid())
	n := 0
	for _, c := range curves {
		if len(c.xy) == 0 {
			continue
		}
		lp, sp, err := plotter.NewLinePoints(c.xy)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", c.label, err)
		}
		lp.Color = plotutil.Color(n)
		lp.Dashes = plotutil.Dashes(n / 7)
		sp.Color = plotutil.Color(n)
		sp.Shape = plotutil.Shape(n)
		p.Add(lp, sp)
		p.Legend.Add(c.label, lp, sp)
		if len(c.left) > 0 {
			hollow, err := hollowPoints(c.left, sp.Radius, plotutil.Color(n))
			if err != nil {
				return nil, fmt.Errorf("report: %s left-out points: %w", c.label, err)
			}
			p.Add(hollow...)
		}
		for _, seg := range c.fit {
			if len(seg) < 2 {
				continue
			}
			fl, err := plotter.NewLine(seg)
			if err != nil {
				return nil, fmt.Errorf("report: %s fit: %w", c.label, err)
			}
			fl.Color = plotutil.Color(n)
			fl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			fl.Width = vg.Points(0.8)
			p.Add(fl)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("report: nothing to plot for %q (no positive values)", title)
	}
	widen(&p.X)
	widen(&p.Y)
	return p, nil
}

// hollowPoints draws points as hollow rings in colour c: a white disc
// that covers the curve's marker, then the ring.
func hollowPoints(xy plotter.XYs, radius vg.Length, c color.Color) ([]plot.Plotter, error) {
	cover, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	cover.Shape, cover.Color, cover.Radius = draw.CircleGlyph{}, color.White, radius*1.6
	ring, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	ring.Shape, ring.Color, ring.Radius = draw.RingGlyph{}, c, radius*1.6
	return []plot.Plotter{cover, ring}, nil
}

// widen gives a log axis whose data sit at one value (a sweep of one
// size) a range of a factor of 4 around it; gonum/plot would otherwise
// widen it by +-1, reaching 0 or below on a log axis.
func widen(a *plot.Axis) {
	if a.Min == a.Max && a.Min > 0 {
		a.Min /= 2
		a.Max *= 2
	}
}

// pow2Ticks marks powers of two between min and max: labelled majors
// (1, 4, 16, ..., 1K, 1M with binary prefixes) spaced so that at most
// about eight are labelled, unlabelled minors at the others.
func pow2Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log2(min)))
	hi := int(math.Ceil(math.Log2(max)))
	step := 1
	for (hi-lo)/step > 8 {
		step *= 2
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Exp2(float64(e))
		t := plot.Tick{Value: v}
		if e%step == 0 {
			t.Label = binaryLabel(e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// pow10Ticks marks the decades between min and max with labels (0.1, 1,
// 10, ..., 1e+06) and 2..9 times them as minors, keeping only ticks inside
// the range so that the axis ends at the data. A range holding fewer than
// two decades also labels 2x and 5x, and one holding fewer than two of
// those labels every tick, so that every axis has at least two labels.
func pow10Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min) || math.IsInf(max, 0) {
		return nil
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		d := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := d * float64(m)
			if v >= min*(1-1e-9) && v <= max*(1+1e-9) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	if len(ticks) < 2 {
		// Not even two ticks inside: label the ends of the data.
		return []plot.Tick{{Value: min, Label: shortNumber(min)}, {Value: max, Label: shortNumber(max)}}
	}
	for _, labelled := range []func(m int) bool{
		func(m int) bool { return m == 1 },
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	} {
		n := 0
		for i, t := range ticks {
			if labelled(leadingDigit(t.Value)) {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
				n++
			} else {
				ticks[i].Label = ""
			}
		}
		if n >= 2 {
			break
		}
	}
	return ticks
}

// shortNumber prints v with three significant digits, without an
// exponent for 0.01 <= v < 10^7.
func shortNumber(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	if r >= 0.01 && r < 1e7 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// leadingDigit returns the first significant digit of v > 0.
func leadingDigit(v float64) int {
	d := v / math.Pow(10, math.Floor(math.Log10(v)))
	return int(math.Round(d*1e6) / 1e6)
}

// binaryLabel writes 2^e with a binary prefix: 1, 2, ..., 512, 1K, ...
// 1M, 1G; negative exponents as decimals.
func binaryLabel(e int) string {
	switch {
	case e < 0:
		return fmt.Sprintf("%g", math.Exp2(float64(e)))
	case e >= 30:
		return fmt.Sprintf("%dG", 1<<(e-30))
	case e >= 20:
		return fmt.Sprintf("%dM", 1<<(e-20))
	case e >= 10:
		return fmt.Sprintf("%dK", 1<<(e-10))
	}
	return fmt.Sprintf("%d", 1<<e)
}
