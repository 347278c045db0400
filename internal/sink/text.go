package sink

import (
	"io"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
)

// Text writes the IMB-MPI1 text format (package result/imb) as the run
// goes: the header when created, a section per block, a line per row, and
// IMB's closing line when the run completes.
type Text struct {
	w    *imb.Writer
	opts TextOptions
	rows []result.Row // the block's rows, for Percentiles
}

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
}

// NewText writes the header described by info to w and returns the sink.
func NewText(w io.Writer, info imb.RunInfo, opts TextOptions) (*Text, error) {
	t := &Text{w: imb.NewWriter(w), opts: opts}
	if err := t.w.WriteHeader(info); err != nil {
		return nil, err
	}
	return t, nil
}

// OutFormat returns the IMB table layout of a block, following IMB_output
// in src_c/IMB_output.c: single-transfer benchmarks print t[usec] and
// Mbytes/sec except under -multi 0, where they print t_min/t_max/t_avg and
// Mbytes/sec like parallel transfers; collectives print the time range
// only; Uniband and Biband print Mbytes/sec and Msg/sec; Barrier has no
// #bytes column.
func OutFormat(b bench.Block) imb.OutFormat {
	switch b.Class {
	case bench.SingleTransfer:
		if b.Multi == result.MultiWorst {
			return imb.OutTimeRangeBW
		}
		return imb.OutTimeBW
	case bench.ParallelTransfer:
		return imb.OutTimeRangeBW
	case bench.Collective:
		return imb.OutTimeRange
	case bench.ParallelTransferMsgRate:
		return imb.OutBWMsgRate
	}
	return imb.OutSync
}

// TableSpec converts a block to the text writer's table description.
func TableSpec(b bench.Block) imb.TableSpec {
	return imb.TableSpec{
		Benchmark: b.Benchmark, Format: OutFormat(b), Processes: b.Processes,
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
func (t *Text) Row(_ bench.Block, r result.Row) error {
	if err := t.w.WriteRow(r); err != nil {
		return err
	}
	if t.opts.Percentiles {
		t.rows = append(t.rows, r)
	}
	if t.opts.ShowTail && r.Spread != nil {
		return t.w.WriteTail(r.Spread)
	}
	return nil
}

// End prints the block's distributions under Percentiles; IMB prints no
// block footer.
func (t *Text) End(bench.Block) error {
	if !t.opts.Percentiles || len(t.rows) == 0 {
		return nil
	}
	return t.w.WriteSpreads(t.rows)
}

// Finish prints IMB's closing line for a complete run, or a comment line
// "# mpbench: run failed: <error>" without the closing line, so that IMB
// readers see a truncated run.
func (t *Text) Finish(runErr error) error {
	if runErr != nil {
		return t.w.WriteComment("mpbench: run failed: " + runErr.Error())
	}
	return t.w.Close()
}
