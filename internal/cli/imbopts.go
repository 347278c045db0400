package cli

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
)

// imbFlags are the IMB-MPI1 options of "mpbench run" beyond the sizes,
// repetitions and groups in runFlags: benchmark selection, -map, data
// types and synchronisation (IMB's src_cpp/imb.cpp and MPI1_suite.cpp).
type imbFlags struct {
	msgsize     string
	mapPxQ      string
	input       string
	include     string
	exclude     string
	dataType    string
	redDataType string
	contigType  string
	imbBarrier  bool // IMB -imb_barrier
	msgPause    bool // IMB -msg_pause
	showTail    bool // -show_tail
	dumpfile    string
}

// addIMBFlags defines the options of f on fs with IMB's defaults.
func addIMBFlags(fs *pflag.FlagSet, f *imbFlags) {
	fs.StringVar(&f.msgsize, "msgsize", "", "IMB -msgsize a,b,...: message sizes in bytes (instead of -msglog)")
	fs.StringVar(&f.mapPxQ, "map", "", "IMB -map PxQ: fill groups in IMB's order for a P x Q process grid (P per host, Q hosts: PingPong pairs two hosts)")
	fs.StringVar(&f.input, "input", "", "IMB -input FILE: benchmark names, one per line ('#' starts a comment), added to those given as arguments")
	fs.StringVar(&f.include, "include", "", "IMB -include a,b,...: benchmarks to run besides the default list or those named")
	fs.StringVar(&f.exclude, "exclude", "", "IMB -exclude a,b,...: benchmarks not to run")
	fs.StringVar(&f.dataType, "data_type", "byte", "IMB -data_type byte|char|int|float|double: datatype of the moving benchmarks; sizes are rounded up to whole elements, as IMB does")
	fs.StringVar(&f.redDataType, "red_data_type", "float", "IMB -red_data_type float|double|int|char: element type of the reductions (char: 1-byte elements whose sums wrap modulo 2^8)")
	fs.StringVar(&f.contigType, "contig_type", "base", "IMB -contig_type base: contiguous elements (the only layout mpbench moves)")
	switchVar(fs, &f.imbBarrier, "imb_barrier", "off", "IMB -imb_barrier on|off: the collectives' and Barrier's barriers before each timed loop, and -sync's, become a dissemination barrier of 0-byte Sendrecv (IMB_Barrier) instead of the communicator's; PingPong, PingPing, Sendrecv, Exchange, Uniband and Biband keep the communicator's barrier, and Barrier times it, as in IMB")
	switchVar(fs, &f.msgPause, "msg_pause", "off", "IMB -msg_pause on|off: after each message size, pause a tenth of its timed loop, at least 0.1 s")
	switchVar(fs, &f.showTail, "show_tail", "off", "-show_tail on|off (PerfKitBenchmarker's IMB): after each row a line [min, p10, p25, p50, p75, p90, p95, p99, p99.5, p99.9, p99.99, max] of the repetition times, usec")
	fs.StringVar(&f.dumpfile, "dumpfile", "", "-dumpfile FILE (PerfKitBenchmarker's IMB): write \"BYTES USEC\" for every repetition of every row")
}

// apply sets o from f (np is the number of ranks, for -map); each problem
// is a usage error naming the option and what it accepts.
func (f *imbFlags) apply(o *bench.Options, np int, msglenGiven bool) error {
	var err error
	if f.msgsize != "" {
		if o.MsgLens, err = bench.ParseMsgSizeAlone(f.msgsize, msglenGiven); err != nil {
			return err
		}
	}
	if f.mapPxQ != "" {
		if o.Map, err = bench.ParseMap(f.mapPxQ, np); err != nil {
			return err
		}
	}
	if o.DataType, o.DataTypeSize, err = bench.ParseDataType(f.dataType); err != nil {
		return err
	}
	if o.RedType, err = bench.ParseRedDataType(f.redDataType); err != nil {
		return err
	}
	if err := bench.ParseContigType(f.contigType); err != nil {
		return err
	}
	o.IMBBarrier, o.MsgPause = f.imbBarrier, f.msgPause
	o.PerRepetition = o.PerRepetition || f.showTail || f.dumpfile != ""
	return nil
}

// benchmarkList is the run list as IMB-MPI1 builds it (imb.cpp): the
// names given as arguments (commas also separate names) and those of the
// -input file; without any, the default list; -include names come first
// and -exclude names are left out. Names are matched in any case and run
// once. An unknown name is a usage error (IMB prints "Invalid benchmark
// name" and goes on).
func (f *imbFlags) benchmarkList(args []string) ([]string, error) {
	requested := splitNames(args)
	if f.input != "" {
		names, err := bench.ReadInputFile(f.input)
		if err != nil {
			return nil, err
		}
		requested = append(requested, names...)
	}
	include := splitNames([]string{f.include})
	exclude := splitNames([]string{f.exclude})
	if len(requested) == 0 && len(include) == 0 && len(exclude) == 0 {
		return nil, nil // the default list
	}
	if len(requested) == 0 {
		requested = bench.DefaultNames()
	}
	skip := map[string]bool{}
	for _, name := range exclude {
		n, err := bench.Canonical(name)
		if err != nil {
			return nil, err
		}
		skip[n] = true
	}
	var list []string
	for _, name := range append(include, requested...) {
		n, err := bench.Canonical(name)
		if err != nil {
			return nil, err
		}
		if !skip[n] && !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	if len(list) == 0 {
		return nil, usageErrorf("-exclude %s leaves no benchmark to run", f.exclude)
	}
	return list, nil
}

// splitNames splits each argument at commas and drops empty names.
func splitNames(args []string) []string {
	var out []string
	for _, a := range args {
		for _, n := range strings.Split(a, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}
