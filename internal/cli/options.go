package cli

import (
	"errors"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
)

// runFlags are the options of "mpbench run", shared with the hidden worker
// command (the launcher passes its normalised arguments on to every rank).
type runFlags struct {
	np          int
	npmin       int
	msglog      string
	msglen      string
	iter        string
	timeLimit   float64
	allSizes    bool // --all-sizes: no IMB time-out per benchmark
	syncAll     bool // --sync-all: -sync's barrier joins every group; t_callmax_usec
	offCache    string
	sync        bool // IMB -sync
	warmup      bool // IMB -warm_up
	multi       int
	check       bool
	coll        collFlags
	mbyte       string
	mib         bool
	jsonFile    string
	csvFile     string
	quiet       bool
	timeout     time.Duration
	eager       int
	transport   string
	ifaddr      string
	hostOpts    hostFlags
	cpuprofile  string
	threadLevel string // IMB -thread_level, MPI library runs only
	settle      time.Duration
	mem         string
	zeroSize    bool // IMB -zero_size
	iterPolicy  string
	stall       time.Duration
	imb         imbFlags        // IMB selection, -map, data types, barriers
	params      map[string]*int // the benchmark classes' own options (bench.Params), e.g. IMB -window_size
	list        bool            // IMB -list: print the benchmarks and exit
	percentiles bool            // --percentiles: print each block's repetition-time distribution
	benchmarks  []string        // positional arguments
	flags       *pflag.FlagSet  // the parsed options, for which were given
}

// addRunFlags defines the run options on fs.
func addRunFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.SortFlags = false
	f.flags = fs
	fs.IntVar(&f.np, "np", 2, "number of processes (ranks) to start, as mpirun -np")
	fs.IntVar(&f.npmin, "npmin", 2, "IMB -npmin P: run process counts P, 2P, 4P, ... up to -np (with -np 1 the default is 1)")
	fs.StringVar(&f.msglog, "msglog", "0:22", "IMB -msglog a:b: message sizes 0, 2^a, ..., 2^b bytes (b <= 30)")
	fs.StringVar(&f.msglen, "msglen", "", "IMB -msglen FILE: message sizes in bytes, one per line (overrides -msglog)")
	fs.StringVar(&f.iter, "iter", "1000,40", "IMB -iter n[,MiB[,n_nonaggr]]: repetitions for small sizes, volume cap per size in MiB (a third value, IMB-EXT's non-aggregate count, is accepted and ignored)")
	fs.StringVar(&f.iterPolicy, "iter_policy", bench.IterDynamic, "IMB -iter_policy dynamic|off|multiple_np|auto: dynamic caps repetitions by volume and -time; off runs the -iter count at every size; multiple_np a multiple of the process count that falls with the size; auto multiple_np for Bcast, Reduce, Gather(v), Scatter(v), dynamic for the others")
	fs.Float64Var(&f.timeLimit, "time", bench.DefaultTimeLimit, "IMB -time seconds: time limit per message size (> 0)")
	fs.BoolVar(&f.allSizes, "all-sizes", false, "measure every message size: without it a benchmark stops, as IMB-MPI1's does, with a \"time-out.\" row at the first size reached after (max(sizes listed, b-a) - 1) x -time seconds for -msglog a:b")
	fs.StringVar(&f.mem, "mem", "1", "IMB -mem GB: limit on one process's message buffers, in GB of 2^30 bytes (checked before ranks start)")
	switchVar(fs, &f.zeroSize, "zero_size", "on", "IMB -zero_size on|off: off leaves the 0-byte size out of the -msglog sweep")
	fs.StringVar(&f.offCache, "off_cache", "", "IMB -off_cache -1|MiB[,line]: rotate buffers larger than the cache (-1: 8 MiB, 64 B lines)")
	switchVar(fs, &f.sync, "sync", "1", "IMB -sync 1|0: barrier between the timed calls of collectives")
	fs.Var(switchVar(fs, &f.warmup, "warm_up", "1", "same as -warmup"), "warmup", "IMB -warm_up 1|0: warm-up repetitions before timing (alias -warm_up)")
	fs.IntVar(&f.multi, "multi", result.MultiNone, "IMB -multi 0|1: run np/N groups at once; 0 prints the worst group, 1 every group")
	fs.BoolVar(&f.syncAll, "sync-all", false, "the barrier between a collective's timed calls (-sync) joins every group's ranks, so that -multi's groups call together in every repetition (IMB's joins one group: the groups drift apart); --json/--csv rows add t_callmax_usec, the slowest rank's time per call averaged over the calls (what 'app matmul --sync' measures per Bcast step)")
	fs.BoolVar(&f.check, "check", false, "IMB -check: verify every received byte and print a defects column")
	f.params = map[string]*int{}
	for _, p := range bench.Params() {
		f.params[p.Name] = fs.Int(p.Name, p.Default, p.Usage)
	}
	fs.BoolVar(&f.list, "list", false, "IMB -list: print every benchmark mpbench runs, marking those not in the default list, and exit")
	addCollFlags(fs, &f.coll)
	addIMBFlags(fs, &f.imb)
	fs.StringVar(&f.mbyte, "mbyte", "1e6", "bytes per Mbyte in Mbytes/sec: 1e6 (IMB 2018 and later) or 2^20 (IMB 2017 and earlier)")
	fs.BoolVar(&f.mib, "mib", false, "same as --mbyte 2^20")
	fs.StringVar(&f.jsonFile, "json", "", "also write every row to FILE as JSON Lines, as it is measured, with the distribution of its repetition times")
	fs.BoolVar(&f.percentiles, "percentiles", false, "keep every repetition's time and print, after each table, min, p50, p90, p99, max and CV per size (the tables keep IMB's layout)")
	fs.StringVar(&f.csvFile, "csv", "", "also write every row to FILE as CSV, as it is measured, with the distribution of its repetition times")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display on stderr")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop the job if it runs longer than this (e.g. 30m; 0: no limit)")
	fs.DurationVar(&f.stall, "stall", 0, "stop the job when rank 0 prints nothing for this long (default: 10 x -time, at least 2m; -1s: never)")
	fs.IntVar(&f.eager, "eager", 0, "eager threshold in bytes: longer messages use rendezvous (0: the transport's default)")
	fs.StringVar(&f.transport, "transport", "auto", transportHelp(true))
	fs.StringVar(&f.ifaddr, "ifaddr", "", "IP address of the interface TCP binds and advertises (default: the launcher's loopback)")
	addHostFlags(fs, &f.hostOpts)
	fs.DurationVar(&f.settle, "settle", bench.DefaultSettle, "barriers between the ranks for this long before the first benchmark, so that start-up activity is over before timing (0: none)")
	fs.StringVar(&f.threadLevel, "thread_level", "", "IMB -thread_level single|funneled|serialized|multiple: the thread level asked of an MPI library (mpi builds under a launcher; default funneled)")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write each rank's CPU profile to FILE.<rank> (go tool pprof)")
	_ = fs.MarkHidden("warm_up")
}

// parseMByte parses --mbyte: 1e6/1000000/MB or 2^20/1048576/MiB.
func parseMByte(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1e6", "10^6", "1000000", "mb":
		return result.MB, nil
	case "2^20", "1048576", "mib":
		return result.MiB, nil
	}
	return 0, usageErrorf("--mbyte %s: expected --mbyte 1e6 or --mbyte 2^20", s)
}

// benchOptions converts the flags into bench.Options and checks them: the
// options' own checks are bench's (the Parse functions and
// Options.Validate); what is checked here is the launch's (-np, --eager,
// --transport, ...) and what only the command line has (-mib against
// --mbyte). Every problem is a usage error naming the option and its
// accepted form. The -msglen file is read here, so an unreadable file is
// reported before any process starts.
func (f *runFlags) benchOptions() (bench.Options, error) {
	o := bench.DefaultOptions()
	o.Settle = f.settle
	o.NoTimeOut = f.allSizes
	o.SyncAll = f.syncAll
	if f.given("thread_level") {
		// Checked here too, so that the default build and the launching
		// process refuse a bad level before any rank starts.
		if _, err := bench.ParseThreadLevel(f.threadLevel); err != nil {
			return o, err
		}
	}
	if err := bench.CheckNP(f.np); err != nil {
		return o, err
	}
	o.NPMin = f.npmin
	if !f.given("npmin") {
		o.NPMin = min(2, f.np) // IMB runs every benchmark on a single process too
	}
	var err error
	if o.MsgLogMin, o.MsgLogMax, err = bench.ParseMsgLog(f.msglog); err != nil {
		return o, err
	}
	if f.msglen != "" {
		if o.MsgLens, err = bench.ReadMsgLenFile(f.msglen); err != nil {
			return o, err
		}
	}
	if o.MsgsPerSample, o.OverallVolBytes, err = bench.ParseIter(f.iter); err != nil {
		return o, err
	}
	o.TimeLimit = f.timeLimit
	if f.offCache != "" {
		if o.OffCache, o.CacheLine, err = bench.ParseOffCache(f.offCache); err != nil {
			return o, err
		}
	}
	o.Sync, o.Warmup = f.sync, f.warmup
	o.Multi = f.multi
	o.Check = f.check
	o.Params = make(map[string]int, len(f.params))
	for name, v := range f.params {
		o.Params[name] = *v
	}
	if o.MemBytes, err = bench.ParseMem(f.mem); err != nil {
		return o, err
	}
	o.NoZeroSize = !f.zeroSize
	o.IterPolicy = strings.ToLower(strings.TrimSpace(f.iterPolicy))
	if err := f.coll.apply(&o); err != nil {
		return o, err
	}
	if o.MByte, err = parseMByte(f.mbyte); err != nil {
		return o, err
	}
	if f.mib {
		if f.given("mbyte") && o.MByte != result.MiB {
			return o, usageErrorf("--mbyte %s and --mib contradict each other; expected --mbyte 1e6, --mbyte 2^20 or --mib alone", f.mbyte)
		}
		o.MByte = result.MiB
	}
	if f.eager < 0 {
		return o, usageErrorf("--eager %d: expected --eager BYTES with BYTES >= 0", f.eager)
	}
	if err := checkTransport(f.transport, true); err != nil {
		return o, err
	}
	if f.ifaddr != "" && net.ParseIP(f.ifaddr) == nil {
		return o, usageErrorf("--ifaddr %s: expected an IP address of this host's interface, e.g. 10.0.0.2", f.ifaddr)
	}
	if err := checkTimeout(f.timeout); err != nil {
		return o, err
	}
	o.PerRepetition = f.percentiles || f.jsonFile != "" || f.csvFile != ""
	if err := f.imb.apply(&o, f.np, f.msglen != ""); err != nil {
		return o, err
	}
	if o.Benchmarks, err = f.imb.benchmarkList(f.benchmarks); err != nil {
		return o, err
	}
	// Every option's range, the benchmarks' process counts and -mem,
	// before any rank starts.
	return o, bench.CheckPlan(o, f.np)
}

// given reports whether the option name was set on the command line.
func (f *runFlags) given(name string) bool {
	return f.flags != nil && f.flags.Changed(name)
}

// stallLimit is the --stall watchdog's limit for a job whose size time is
// bounded by -time seconds: --stall when given (a negative value turns the
// watchdog off: 0 is returned), else 10 x -time and at least 2 minutes, or
// off when -time does not bound every size (bench.Options.TimeBounded:
// -iter_policy off and multiple_np, and auto with a rooted collective).
func (f *runFlags) stallLimit(o bench.Options) time.Duration {
	switch {
	case f.given("stall"):
		return max(f.stall, 0)
	case !o.TimeBounded():
		return 0
	}
	return max(2*time.Minute, time.Duration(10*o.TimeLimit*float64(time.Second)))
}

// unwrapPath drops the *PathError prefix (the path is already named).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// optionMap lists every option of fs with its value, for result meta data.
func optionMap(fs *pflag.FlagSet, benchmarks []string) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden && fl.Name != "help" {
			m[fl.Name] = fl.Value.String()
		}
	})
	names := append([]string(nil), benchmarks...)
	m["benchmarks"] = strings.Join(names, ",")
	if m["mib"] == "true" { // the effective Mbyte, not the --mbyte default
		m["mbyte"] = "2^20"
	}
	return m
}

// checkTimeout refuses a negative --timeout (run, app) with one wording.
func checkTimeout(d time.Duration) error {
	if d < 0 {
		return usageErrorf("--timeout %v: expected a duration >= 0, e.g. 30m", d)
	}
	return nil
}
