package sink

import (
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// RowFile streams rows into JSON Lines or CSV result files (package
// result/rowfile): a record per row, the end record (ok or failed with the
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

// End does nothing.
func (s *RowFile) End(bench.Block) error { return nil }

// Finish writes the end record.
func (s *RowFile) Finish(runErr error) error { return s.w.WriteEnd(runErr) }
