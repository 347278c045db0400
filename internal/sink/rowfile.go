package sink

import (
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// RowFile streams rows into JSON Lines or CSV result files (package
// result/rowfile): a record per row, a failure record for a block
// that timed out, the end record (ok or failed with the
// error) on Finish.
type RowFile struct {
	w rowfile.Writer
}

// NewRowFile returns the sink writing to w, which has written its meta
// record (rowfile.Files.Create does).
func NewRowFile(w rowfile.Writer) *RowFile { return &RowFile{w: w} }

// Begin does nothing: every row record carries its block's fields.
func (s *RowFile) Begin(bench.Block) error { return nil }

// Row writes one row record.
func (s *RowFile) Row(_ bench.Block, r result.Row) error { return s.w.WriteRow(r) }

// End writes a failure record when the block ended by its time limit
// (bench.Block.TimeOut).
func (s *RowFile) End(b bench.Block) error {
	if b.TimeOut == nil {
		return nil
	}
	return s.w.WriteFailure(rowfile.Failure{Benchmark: b.Benchmark, Processes: b.Processes,
		Bytes: b.TimeOut.Bytes, Kind: "time-out", Msg: b.TimeOut.String()})
}

// Finish writes the end record.
func (s *RowFile) Finish(runErr error) error { return s.w.WriteEnd(runErr) }
