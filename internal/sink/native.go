package sink

import (
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/native"
)

// Native streams rows into a JSON Lines or CSV result file (package
// result/native): the meta record when created, a record per row, the end
// record (ok or failed with the error) on Finish.
type Native struct {
	w native.Writer
}

// NewNative writes meta with w and returns the sink.
func NewNative(w native.Writer, meta result.Meta) (*Native, error) {
	if err := w.WriteMeta(meta); err != nil {
		return nil, err
	}
	return &Native{w: w}, nil
}

// Begin does nothing: every row record carries its block's fields.
func (n *Native) Begin(bench.Block) error { return nil }

// Row writes one row record.
func (n *Native) Row(_ bench.Block, r result.Row) error { return n.w.WriteRow(r) }

// End does nothing.
func (n *Native) End(bench.Block) error { return nil }

// Finish writes the end record.
func (n *Native) Finish(runErr error) error { return n.w.WriteEnd(runErr) }
