package sink

import (
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// RowFile streams rows into a JSON Lines or CSV result file (package
// result/rowfile): the meta record when created, a record per row, the end
// record (ok or failed with the error) on Finish.
type RowFile struct {
	w rowfile.Writer
}

// NewRowFile writes meta with w and returns the sink.
func NewRowFile(w rowfile.Writer, meta result.Meta) (*RowFile, error) {
	if err := w.WriteMeta(meta); err != nil {
		return nil, err
	}
	return &RowFile{w: w}, nil
}

// Begin does nothing: every row record carries its block's fields.
func (s *RowFile) Begin(bench.Block) error { return nil }

// Row writes one row record.
func (s *RowFile) Row(_ bench.Block, r result.Row) error { return s.w.WriteRow(r) }

// End does nothing.
func (s *RowFile) End(bench.Block) error { return nil }

// Finish writes the end record.
func (s *RowFile) Finish(runErr error) error { return s.w.WriteEnd(runErr) }
