package sink

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
)

// Progress draws one progress bar per block on a terminal (via
// github.com/vbauerster/mpb/v8): the benchmark and process count, the
// message size last measured, rows done of rows expected and the estimated
// time left in the block (average time per row so far times the rows
// left). It writes terminal control sequences and must only be used when
// its output ends on a terminal.
type Progress struct {
	p     *mpb.Progress
	sizes int // message sizes per block
	bar   *mpb.Bar
	size  *atomic.Value // string: size of the current bar's last row
}

// NewProgress draws to w, which must end on a terminal of the given width
// in columns (0 means 80); w need not be the terminal itself (a worker's
// stderr is a pipe to the launcher). sizes is the number of message sizes
// each block measures.
func NewProgress(w io.Writer, width, sizes int) *Progress {
	if width <= 0 {
		width = 80
	}
	pr := &Progress{sizes: sizes}
	pr.p = mpb.New(mpb.WithOutput(w), mpb.ForceTTY(), mpb.WithAutoRefresh(), mpb.WithWidth(width))
	return pr
}

// ExpectedRows returns how many rows a block prints: one per message size
// (one in all for Barrier), times the groups under -multi 1.
func ExpectedRows(b bench.Block, sizes int) int64 {
	n := int64(sizes)
	if b.Class.Sizeless {
		n = 1
	}
	if b.Multi == result.MultiEach && len(b.Groups) > 1 {
		n *= int64(len(b.Groups))
	}
	return n
}

// Begin starts the block's bar.
func (pr *Progress) Begin(b bench.Block) error {
	pr.closeBar(false)
	name := b.Benchmark
	if len(b.Groups) > 1 {
		name = "Multi-" + name
	}
	label := fmt.Sprintf("%-22s np %-3d", name, b.Processes)
	size := new(atomic.Value) // each bar keeps the size of its own last row
	size.Store("")
	pr.size = size
	pr.bar = pr.p.AddBar(ExpectedRows(b, pr.sizes),
		mpb.PrependDecorators(
			decor.Name(label),
			decor.Any(func(decor.Statistics) string { return size.Load().(string) }, decor.WC{W: 12}),
		),
		mpb.AppendDecorators(
			decor.CountersNoUnit("%d/%d rows", decor.WC{W: 12}),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WC{W: 8}), "done"),
		),
	)
	return nil
}

// Row advances the bar and shows the row's message size.
func (pr *Progress) Row(_ bench.Block, r result.Row) error {
	if r.Bytes >= 0 && pr.size != nil {
		pr.size.Store(fmt.Sprintf("%d B", r.Bytes))
	}
	if pr.bar != nil {
		pr.bar.Increment()
	}
	return nil
}

// End completes the block's bar.
func (pr *Progress) End(bench.Block) error {
	pr.closeBar(false)
	return nil
}

// closeBar completes (or, with abort, aborts) the current bar.
func (pr *Progress) closeBar(abort bool) {
	if pr.bar == nil {
		return
	}
	if abort {
		pr.bar.Abort(false)
	} else {
		pr.bar.SetTotal(-1, true)
	}
	pr.bar = nil
}

// Finish stops drawing; an unfinished bar is left as it was when the run
// failed.
func (pr *Progress) Finish(runErr error) error {
	pr.closeBar(runErr != nil)
	pr.p.Wait()
	return nil
}
