package bench

import (
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
)

// Class is a kind of benchmark (IMB's BTYPES in src_c/IMB_benchmark.h): the
// columns its table prints, how a row's rates follow from its times, and
// which process counts and sizes it runs. A Spec points to its class; the
// runner, the sinks and the command line read these fields and never test
// which class a benchmark has, so a benchmark of a new kind declares its
// Class beside its Spec, in its own file (with imb.ExtraColumn for a
// quantity result.Row has no field for, which the JSON Lines and CSV
// files then carry under Row.Extra).
type Class struct {
	// Name is the class as IMB's documentation spells it, e.g. "single
	// transfer"; `mpbench run -list` prints it under each benchmark.
	Name string
	// Layout is the IMB table layout of a block of this class (IMB_output
	// in src_c/IMB_output.c): its columns after Group (-multi 1) and
	// before defects (-check).
	Layout func(b Block) *imb.Layout
	// Rates, when not nil, sets the rate columns of a row of block b
	// (Mbytes/sec, Msg/sec, Row.Extra values) from its times, which the
	// runner has set (t_min, t_max, t_avg in usec over the row's ranks)
	// along with its bytes and repetitions. Bandwidth and MessageRate are
	// IMB's.
	Rates func(b Block, row *result.Row)
	// Sizeless: the benchmark moves no message: every block has one row,
	// measured once (as 0 bytes) and reported with Row.Bytes -1, without
	// a #bytes column (Barrier).
	Sizeless bool
	// Pairs: the group is made of pairs, rank r with rank r+procs/2; the
	// benchmark needs 2 processes and runs on the even counts of the
	// -npmin sweep (IMB rounds np down and npmin up to even numbers,
	// IMB_2018.c).
	Pairs bool
	// SlowestSpread: a row's repetition-time distribution (Row.Spread) is
	// the slowest rank's, whose mean time is the row's t_max, rather
	// than the first rank's.
	SlowestSpread bool
	// Window: the benchmark keeps -window_size messages in flight; its
	// blocks carry Options.WindowSize in Block.Window.
	Window bool
}

// String returns the class's Name.
func (c *Class) String() string {
	if c == nil {
		return "unknown"
	}
	return c.Name
}

// The IMB-MPI1 benchmark classes.
var (
	// SingleTransfer: PingPong, PingPing: one pair, other ranks idle;
	// t[usec] and Mbytes/sec, or under -multi 0 the time range and
	// Mbytes/sec like parallel transfers.
	SingleTransfer = &Class{Name: "single transfer", Layout: singleTransferLayout, Rates: Bandwidth}
	// ParallelTransfer: Sendrecv, Exchange: every rank of the group in a
	// periodic chain; t_min, t_max, t_avg and Mbytes/sec.
	ParallelTransfer = &Class{Name: "parallel transfer", Layout: fixedLayout(imb.OutTimeRangeBW), Rates: Bandwidth}
	// Collective: Allreduce ... Bcast: the time range only.
	Collective = &Class{Name: "collective", Layout: fixedLayout(imb.OutTimeRange), SlowestSpread: true}
	// Sync: Barrier: no message size, the time range only.
	Sync = &Class{Name: "sync", Layout: fixedLayout(imb.OutSync), Sizeless: true, SlowestSpread: true}
	// ParallelTransferMsgRate: Uniband, Biband: pairs of an even group
	// keep a window of messages in flight; Mbytes/sec and Msg/sec, no
	// time column.
	ParallelTransferMsgRate = &Class{Name: "parallel transfer (message rate)", Layout: fixedLayout(imb.OutBWMsgRate),
		Rates: MessageRate, Pairs: true, Window: true}
)

// singleTransferLayout is IMB_output's choice for single transfers: the
// time range under -multi 0 (one row over every group), else t[usec].
func singleTransferLayout(b Block) *imb.Layout {
	if b.Multi == result.MultiWorst {
		return imb.OutTimeRangeBW
	}
	return imb.OutTimeBW
}

// fixedLayout is a Class.Layout that does not depend on the block.
func fixedLayout(l *imb.Layout) func(Block) *imb.Layout {
	return func(Block) *imb.Layout { return l }
}

// Bandwidth is IMB_calculate_times' bandwidth, a Class.Rates:
// Mbytes/sec = ScaleBW * bytes / t_max in b.MByte bytes per Mbyte (0 when
// t_max is 0); a block without ScaleBW has no bandwidth.
func Bandwidth(b Block, row *result.Row) {
	if b.ScaleBW <= 0 {
		return
	}
	row.MBps = 0
	if row.TMax > 0 {
		row.MBps = b.ScaleBW * float64(row.Bytes) / row.TMax * 1e6 / b.MByte
	}
}

// MessageRate is IMB_display_times' message rate of Uniband and Biband, a
// Class.Rates: with t_max the slowest rank's time per iteration in usec,
// Msg/sec = ScaleBW * 10^6 * window * pairs / t_max (pairs = processes/2)
// and Mbytes/sec = Msg/sec * bytes / Mbyte (both 0 when t_max is 0); a
// block without ScaleBW has neither.
func MessageRate(b Block, row *result.Row) {
	if b.ScaleBW <= 0 {
		return
	}
	row.MBps, row.MsgRate = 0, 0
	if row.TMax > 0 {
		row.MsgRate = b.ScaleBW * 1e6 * float64(b.Window) * float64(b.Processes/2) / row.TMax
		row.MBps = row.MsgRate * float64(row.Bytes) / b.MByte
	}
}
