package sink

import (
	"bufio"
	"fmt"
	"io"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
)

// Dump writes IMB's -dumpfile (PerfKitBenchmarker's patched IMB-MPI1,
// data/intelmpi.patch): one line "BYTES TIME" per repetition of every row,
// the message size in bytes and the repetition's time in usec with three
// decimals ("%d %.3f"), rows in output order, repetitions in order. The
// times are those of the row's result.Spread (bench.Options.PerRepetition):
// rank 0's for point-to-point benchmarks as in that patch, the slowest
// rank's for collectives. Each row is flushed as it comes.
type Dump struct {
	w *bufio.Writer
}

// NewDump returns the sink writing to w.
func NewDump(w io.Writer) *Dump { return &Dump{w: bufio.NewWriter(w)} }

// Begin does nothing.
func (d *Dump) Begin(bench.Block) error { return nil }

// Row writes the row's repetition times.
func (d *Dump) Row(_ bench.Block, r result.Row) error {
	if r.Spread == nil {
		return nil
	}
	for _, t := range r.Spread.Samples {
		fmt.Fprintf(d.w, "%d %.3f\n", max(r.Bytes, 0), t)
	}
	return d.w.Flush()
}

// End does nothing.
func (d *Dump) End(bench.Block) error { return nil }

// Finish flushes what is buffered.
func (d *Dump) Finish(error) error { return d.w.Flush() }
