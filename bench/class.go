package bench

import (
	"fmt"
	"slices"
	"strings"

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
	// Params are the integer options of IMB's command line the class adds
	// (Uniband's and Biband's -window_size): the command line offers each
	// as -Name, Options.Validate checks its range, and its value reaches
	// the kernel (Env.Params) and Rates (Block.Params).
	Params []Param
}

// Param is an integer option of IMB's command line that a class of
// benchmark adds, e.g. -window_size.
type Param struct {
	Name     string // option name without the dash, e.g. "window_size"
	Default  int    // value when the option is not given
	Min, Max int    // accepted range, inclusive
	Usage    string // help text, e.g. "IMB -window_size N: messages in flight ..."
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

// Params returns the parameters of the classes of every registered
// benchmark, each name once, in run order (Names): the options the command
// line adds for them.
func Params() []Param {
	var out []Param
	for _, n := range Names() {
		s, _ := Lookup(n)
		for _, p := range s.Class.Params {
			if !slices.ContainsFunc(out, func(q Param) bool { return q.Name == p.Name }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// lookupParam returns the registered class parameter called name.
func lookupParam(name string) (Param, bool) {
	i := slices.IndexFunc(Params(), func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	return Params()[i], true
}

// Param returns the value of the class parameter called name:
// o.Params[name] when set, else the parameter's Default (0 for a name no
// registered class declares).
func (o *Options) Param(name string) int {
	if v, ok := o.Params[name]; ok {
		return v
	}
	p, _ := lookupParam(name)
	return p.Default
}

// checkParams checks o.Params: each value in its parameter's range, each
// name a registered class's parameter.
func (o *Options) checkParams() error {
	params := Params()
	for _, p := range params {
		if v, ok := o.Params[p.Name]; ok && (v < p.Min || v > p.Max) {
			return optionErrorf("-%s %d: expected -%s N with %d <= N <= %d", p.Name, v, p.Name, p.Min, p.Max)
		}
	}
	for name := range o.Params {
		if !slices.ContainsFunc(params, func(p Param) bool { return p.Name == name }) {
			names := make([]string, len(params))
			for i, p := range params {
				names[i] = "-" + p.Name
			}
			return optionErrorf("-%s: no benchmark takes this option; the benchmarks' own options are %s", name, strings.Join(names, ", "))
		}
	}
	return nil
}

// checkClassParams panics when a parameter of c has the name of another
// registered class's parameter but differs from it (programmer error: the
// command line offers one option per name). The caller holds registryMu.
func checkClassParams(c *Class) {
	for _, s := range registry {
		for _, q := range s.Class.Params {
			for _, p := range c.Params {
				if p.Name == q.Name && p != q {
					panic(fmt.Sprintf("bench: Register: class %q declares -%s unlike class %q", c.Name, p.Name, s.Class.Name))
				}
			}
		}
	}
}
