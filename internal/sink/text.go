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
	w *imb.Writer
}

// NewText writes the header described by info to w and returns the sink.
func NewText(w io.Writer, info imb.RunInfo) (*Text, error) {
	t := &Text{w: imb.NewWriter(w)}
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
func (t *Text) Begin(b bench.Block) error { return t.w.BeginTable(TableSpec(b)) }

// Row prints one row.
func (t *Text) Row(_ bench.Block, r result.Row) error { return t.w.WriteRow(r) }

// End does nothing: IMB prints no block footer.
func (t *Text) End(bench.Block) error { return nil }

// Finish prints IMB's closing line for a complete run, or a comment line
// "# mpbench: run failed: <error>" without the closing line, so that IMB
// readers see a truncated run.
func (t *Text) Finish(runErr error) error {
	if runErr != nil {
		return t.w.WriteComment("mpbench: run failed: " + runErr.Error())
	}
	return t.w.Close()
}
