package cli

import (
	"bufio"
	"os"
	"slices"
	"strconv"
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
	fs.StringVar(&f.dataType, "data_type", "byte", "IMB -data_type byte|char|int|float|double: datatype of the moving benchmarks; a message moves whole elements only")
	fs.StringVar(&f.redDataType, "red_data_type", "float", "IMB -red_data_type float|double|int|char: element type of the reductions (char: 1-byte elements whose sums wrap modulo 2^8)")
	fs.StringVar(&f.contigType, "contig_type", "base", "IMB -contig_type base: contiguous elements (the only layout mpbench moves)")
	switchVar(fs, &f.imbBarrier, "imb_barrier", "off", "IMB -imb_barrier on|off: the runner's barriers use point-to-point messages instead of the communicator's barrier")
	switchVar(fs, &f.msgPause, "msg_pause", "off", "IMB -msg_pause on|off: after each message size, pause as long as its timed loop took")
	switchVar(fs, &f.showTail, "show_tail", "off", "-show_tail on|off (PerfKitBenchmarker's IMB): after each row a line [min, p10, p25, p50, p75, p90, p95, p99, p99.5, p99.9, p99.99, max] of the repetition times, usec")
	fs.StringVar(&f.dumpfile, "dumpfile", "", "-dumpfile FILE (PerfKitBenchmarker's IMB): write \"BYTES USEC\" for every repetition of every row")
}

// apply sets o from f (np is the number of ranks, for -map); each problem
// is a usage error naming the option and what it accepts.
func (f *imbFlags) apply(o *bench.Options, np int, msglenGiven bool) error {
	var err error
	if f.msgsize != "" {
		if msglenGiven {
			return usageErrorf("-msgsize and -msglen both list message sizes; give one")
		}
		if o.MsgLens, err = parseMsgSize(f.msgsize); err != nil {
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
	switch ct := strings.ToLower(f.contigType); ct {
	case "base":
	case "base_vec", "resize", "resize_vec":
		return usageErrorf("-contig_type %s: mpbench moves contiguous elements only; expected -contig_type base", f.contigType)
	default:
		return usageErrorf("-contig_type %s: expected base (IMB also names base_vec, resize, resize_vec, which mpbench does not offer)", f.contigType)
	}
	o.IMBBarrier, o.MsgPause = f.imbBarrier, f.msgPause
	o.PerRepetition = o.PerRepetition || f.showTail || f.dumpfile != ""
	return nil
}

// parseMsgSize parses IMB's -msgsize list: sizes in bytes separated by
// commas, in run order.
func parseMsgSize(s string) ([]int64, error) {
	var sizes []int64
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n < 0 || n > bench.MaxMsgLen {
			return nil, usageErrorf("-msgsize %s: %q: expected sizes in bytes 0..%d separated by commas, e.g. -msgsize 0,1024,65536", s, part, bench.MaxMsgLen)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
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
		names, err := readInput(f.input)
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
	canonical := func(name string) (string, error) {
		spec, ok := bench.Lookup(name)
		if !ok {
			return "", usageErrorf("unknown benchmark %q; accepted names (any case): %s", name, strings.Join(bench.Names(), ", "))
		}
		return spec.Name, nil
	}
	skip := map[string]bool{}
	for _, name := range exclude {
		n, err := canonical(name)
		if err != nil {
			return nil, err
		}
		skip[n] = true
	}
	var list []string
	for _, name := range append(include, requested...) {
		n, err := canonical(name)
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

// readInput reads an IMB -input file: the first word of each line that
// does not start with '#' is a benchmark name.
func readInput(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, usageErrorf("-input %s: cannot read the file (%v); expected a file with one benchmark name per line", path, unwrapPath(err))
	}
	defer file.Close()
	var names []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && !strings.HasPrefix(line, "#") {
			names = append(names, fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usageErrorf("-input %s: %v", path, err)
	}
	if len(names) == 0 {
		return nil, usageErrorf("-input %s: the file names no benchmark; expected one name per line", path)
	}
	return names, nil
}
