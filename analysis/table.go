package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Column is a labelled column of a Table with its unit ("" when unitless).
type Column struct {
	Name string // e.g. "t[usec]" or "bytes"
	Unit string // "B", "usec", "MiB/s", "MB/s", "Mbit/s", "%", ""
}

// Cell is one value of a Table: a number (Text empty, rendered with Prec
// decimals, NaN for absent) or a text.
type Cell struct {
	Value float64
	Prec  int
	Text  string
}

// String renders the cell: the text, the number with Prec decimals, or ""
// for NaN.
func (c Cell) String() string {
	switch {
	case c.Text != "":
		return c.Text
	case math.IsNaN(c.Value):
		return ""
	}
	return strconv.FormatFloat(c.Value, 'f', c.Prec, 64)
}

// Table is a result table a report can render to any format: columns with
// units and rows of cells in column order.
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]Cell
}

func num(v float64, prec int) Cell { return Cell{Value: v, Prec: prec} }
func text(s string) Cell           { return Cell{Value: math.NaN(), Text: s} }

// WireTableView lays out a wire-time table as the study's tables 4.1/4.2.
func WireTableView(m WireModel, rows []WireRow) Table {
	t := Table{Title: "Wire time under " + m.Name, Columns: []Column{
		{"bytes", "B"}, {"frames", ""}, {"total bytes", "B"}, {"wire time", "usec"},
		{"reported", "usec"}, {"difference", "usec"}, {"bandwidth", "MiB/s"}}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []Cell{num(float64(r.Bytes), 0), num(float64(r.Frames), 0), num(float64(r.TotalBytes), 0),
			num(r.WireUsec, 2), num(r.ReportedUsec, 2), num(r.DiffUsec, 2), num(r.MiBps, 2)})
	}
	return t
}

// ABGTableView lays out ABG rows as the study's tables 4.5-4.16.
func ABGTableView(rows []ABGRow) Table {
	t := Table{Title: "Aggregate bandwidth ABG = m x bytes / t", Columns: []Column{
		{"benchmark", ""}, {"ranks", ""}, {"m", ""}, {"rule", ""}, {"bytes", "B"}, {"t", "usec"}, {"ABG", "Mbit/s"}}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []Cell{text(r.Series.Column()), num(float64(r.Processes), 0), num(r.Transfers, 0), text(r.Rule),
			num(float64(r.Bytes), 0), num(r.Usec, 2), num(r.Mbps, 2)})
	}
	return t
}

// CountTimeTableView lays out the times of benchmarks without a message
// size (Barrier) per process count, with the growth from the previous
// count.
func CountTimeTableView(rows []CountTime) Table {
	t := Table{Title: "Benchmarks without a message size: time per process count", Columns: []Column{
		{"benchmark", ""}, {"ranks", ""}, {"repetitions", ""}, {"t_min", "usec"}, {"t_max", "usec"}, {"t_avg", "usec"},
		{"t", "usec"}, {"growth from previous count", "x"}}}
	for _, r := range rows {
		name := r.Series.Column()
		ranks, reps := num(float64(r.Processes), 0), num(float64(r.Repetitions), 0)
		if r.Processes <= 0 {
			ranks = text("unknown")
		}
		if r.Repetitions < 0 {
			reps = num(math.NaN(), 0)
		}
		t.Rows = append(t.Rows, []Cell{text(name), ranks, reps, num(r.TMin, 2), num(r.TMax, 2), num(r.TAvg, 2),
			num(r.Usec, 2), num(r.Growth, 2)})
	}
	return t
}

// FitTableView lays out a piecewise Hockney fit: one row per segment
// (Piecewise.SegmentNames), with the sizes it spans and the sizes the
// robust fit left out of it.
func FitTableView(p Piecewise) Table {
	t := Table{Title: "Hockney fit t = alpha + bytes / bandwidth", Columns: []Column{
		{"segment", ""}, {"sizes", "B"}, {"alpha", "usec"}, {"bandwidth", "MB/s"}, {"n1/2", "B"},
		{"R^2", ""}, {"of line rate", "%"}, {"points", ""}, {"left out", "B"}}}
	names := p.SegmentNames()
	for i, f := range p.Segments {
		lo, hi := f.Span()
		out := make([]string, len(f.Outliers))
		for j, o := range f.Outliers {
			out[j] = strconv.FormatInt(o.Bytes, 10)
		}
		t.Rows = append(t.Rows, []Cell{text(names[i]), text(fmt.Sprintf("%d-%d", lo, hi)), num(f.AlphaUsec, 2),
			num(f.BandwidthMBps, 2), num(f.NHalfBytes, 0), num(f.R2, 4), num(f.LineRatePct, 1), num(float64(f.Points), 0),
			text(strings.Join(out, ", "))})
	}
	return t
}
