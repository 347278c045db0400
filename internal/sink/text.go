package sink

import (
	"fmt"
	"io"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
)

// Text writes the IMB-MPI1 text format (package result/imb) as the run
// goes: the header when created, a section per block, a line per row, and
// IMB's closing line when the run completes.
type Text struct {
	w     *imb.Writer
	opts  TextOptions
	rows  []result.Row // the block's rows, for Percentiles
	short shortTimes   // rows timed too close to the timer's resolution
}

// shortTimes counts the rows whose smallest printed time is below
// timerLimit times the timer's resolution, and keeps the smallest.
type shortTimes struct {
	n     int
	min   float64 // usec
	bench string
	bytes int64
}

// timerLimit is how many resolutions a reported time must span for the
// timer to resolve it within 1% (field case: a timer that quantises a
// latency skews it without anyone noticing).
const timerLimit = 100

// TextOptions add the repetition-time distribution to the text (rows
// need result.Row.Spread, bench.Options.PerRepetition).
type TextOptions struct {
	// ShowTail prints PerfKitBenchmarker's -show_tail line after each row
	// (imb.Writer.WriteTail): not IMB's layout, but what that tool's
	// patched IMB-MPI1 prints and its parser reads.
	ShowTail bool
	// Percentiles prints the distribution of each block's rows after its
	// table, as comment lines (imb.Writer.WriteSpreads); the tables keep
	// IMB's layout.
	Percentiles bool
	// TimerResolution is the timer's measured resolution in usec (0:
	// unknown). When a printed time is less than 100 resolutions, the
	// run ends with one comment line saying how many times are and which
	// is the smallest (Finish).
	TimerResolution float64
}

// NewText writes the header described by info to w and returns the sink.
func NewText(w io.Writer, info imb.RunInfo, opts TextOptions) (*Text, error) {
	t := &Text{w: imb.NewWriter(w), opts: opts}
	if err := t.w.WriteHeader(info); err != nil {
		return nil, err
	}
	return t, nil
}

// TableSpec converts a block to the text writer's table description; its
// layout is the block's class's (bench.Class.Layout).
func TableSpec(b bench.Block) imb.TableSpec {
	return imb.TableSpec{
		Benchmark: b.Benchmark, Format: b.Class.Layout(b), Processes: b.Processes,
		Groups: len(b.Groups), Ranks: b.Groups, Multi: b.Multi, Idle: b.Idle, Check: b.Check,
		Algorithm: bench.AlgorithmText(b.Algorithms),
	}
}

// Begin prints the block's section header.
func (t *Text) Begin(b bench.Block) error {
	t.rows = t.rows[:0]
	return t.w.BeginTable(TableSpec(b))
}

// Row prints one row, and its -show_tail line when asked.
func (t *Text) Row(b bench.Block, r result.Row) error {
	if err := t.w.WriteRow(r); err != nil {
		return err
	}
	t.noteShort(b, r)
	if t.opts.Percentiles {
		t.rows = append(t.rows, r)
	}
	if t.opts.ShowTail && r.Spread != nil {
		return t.w.WriteTail(r.Spread)
	}
	return nil
}

// End prints IMB's time-out row when the block ended by its time limit
// (bench.Block.TimeOut), then the block's distributions under
// Percentiles; IMB prints no block footer.
func (t *Text) End(b bench.Block) error {
	if b.TimeOut != nil {
		if err := t.w.WriteTimeOut(b.TimeOut.Bytes); err != nil {
			return err
		}
	}
	if !t.opts.Percentiles || len(t.rows) == 0 {
		return nil
	}
	return t.w.WriteSpreads(t.rows)
}

// noteShort counts r when its smallest printed time (the layout's first
// usec column: t[usec], or t_min of a range) is shorter than timerLimit
// resolutions of the timer. A layout without a time (Uniband, Biband) is
// not counted.
func (t *Text) noteShort(b bench.Block, r result.Row) {
	res := t.opts.TimerResolution
	v := shortestTime(b.Class.Layout(b), &r)
	if res <= 0 || v <= 0 || v >= timerLimit*res {
		return
	}
	s := &t.short
	if s.n == 0 || v < s.min {
		s.min, s.bench, s.bytes = v, r.Benchmark, r.Bytes
	}
	s.n++
}

// shortestTime is r's value in the first usec column of l (its smallest
// printed time: t[usec], or t_min of a range), 0 when l has no time.
func shortestTime(l *imb.Layout, r *result.Row) float64 {
	for _, c := range l.Columns {
		if c.Unit == "usec" {
			return c.Value(r)
		}
	}
	return 0
}

// timerWarning is the comment line about times too short for the timer,
// "" when there are none.
func (t *Text) timerWarning() string {
	s := t.short
	if s.n == 0 {
		return ""
	}
	what := s.bench
	if s.bytes >= 0 {
		what = fmt.Sprintf("%s %d bytes", s.bench, s.bytes)
	}
	rows := "rows"
	if s.n == 1 {
		rows = "row"
	}
	res := t.opts.TimerResolution
	return fmt.Sprintf("Timer warning: the measured resolution (%.3f usec) exceeds 1%% of the time in %d %s, all below %.2f usec (smallest %.2f usec, %s)",
		res, s.n, rows, timerLimit*res, s.min, what)
}

// Finish prints IMB's closing line for a complete run, or a comment line
// "# mpbench: run failed: <error>" without the closing line, so that IMB
// readers see a truncated run. Before either it prints the timer warning
// (field case: a latency within 100 resolutions of the timer is skewed by
// its steps by more than 1%): one comment line "# Timer warning: ..."
// when a printed time was shorter than 100 timer resolutions, after a
// blank line that ends the last table for parsers (imb.Writer.WriteNote).
func (t *Text) Finish(runErr error) error {
	if msg := t.timerWarning(); msg != "" {
		if err := t.w.WriteNote(msg); err != nil {
			return err
		}
	}
	if runErr != nil {
		return t.w.WriteComment("mpbench: run failed: " + runErr.Error())
	}
	return t.w.Close()
}
