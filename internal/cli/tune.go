package cli

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/tune"
)

// tuneFlags are the options of "mpbench tune".
type tuneFlags struct {
	np, npmin int
	colls     string
	msglog    string
	msgstep   int
	rounds    int
	segments  string
	minGain   float64
	iter      string
	timeLimit float64
	transport string
	out       string
	verify    string
	hosts     hostFlags // passed on to every measuring job (mpbench's runtime only)
}

// defaultTuneColls are the collectives "mpbench tune" measures by default:
// the study's and IMB's most used ones.
const defaultTuneColls = "bcast,allreduce,alltoall,allgather,reduce,barrier"

// newTuneCmd is "mpbench tune": measure every algorithm of each collective,
// decide, and write the tuning files; or, with --verify, check them.
func newTuneCmd(inv *invocation) *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:   "tune [options] -o DIR",
		Short: "Measure every collective algorithm and write the tuning files of mpbench, Open MPI or MPICH",
		Long: `Measure, for each collective, process count and message size, every algorithm
the runtime offers, choose the winner per size range and write the tuning file
that makes the runtime use it.

On mpbench's own runtime (the default) the algorithms are mpbench's (see
'mpbench run --show-algorithms'), the segmented ones at each --segments size;
the result is DIR/mpbench.rules, read by 'mpbench run --coll-rules FILE'.
On an MPI library (--transport mpi, a binary built with -tags mpi or
-tags mpi,mpich) the algorithms are the library's own, each forced through
its controls. Open MPI: coll_tuned_use_dynamic_rules=1 with
coll_tuned_<coll>_algorithm=K (and _segmentsize), the numbers read from the
installed ompi_info; the result is DIR/openmpi.rules, a coll_tuned dynamic
rules file for
  mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename DIR/openmpi.rules
MPICH: MPIR_CVAR_<COLL>_INTRA_ALGORITHM=name, the names read from the
installed mpivars; the result is DIR/mpich.json, a collective-selection
file for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE built on the library's
own selection tree.

Every configuration and the runtime's default are measured in --rounds
interleaved rounds (one job per round and configuration, each job running
every collective that has such a configuration; the default runs twice per
round, first and halfway). The time of a point is
IMB's headline time of a collective, t_max. An algorithm replaces the default
at a size only when it is faster beyond the spread of the rounds: its slowest
round beats the default's fastest and its median is at least --min-gain
faster; otherwise the default stays. Adjacent sizes with the same winner
merge into ranges.

DIR also gets points.json (every configuration's time in every round) and
decisions.json (the decision per size and the ranges); 'mpbench report
DIR/decisions.json' draws the heat map. An interrupted run keeps the points
measured so far in points.json.

--verify DIR runs the tuned configuration against the default, interleaved,
and prints the speedup per collective, process count and size with the
spread of the rounds; a point where the tuned configuration is slower beyond
noise is reported and makes the command exit with status 1. On an MPI
library it also shows that the library loads the tuning file.

A job forcing several collectives that fails is re-run collective by
collective; a configuration that fails on its own (e.g. MPICH's smp
algorithms on one node) is left out and named at the end.

On mpbench's runtime, --hostfile, --host, --map-by, --launch-agent and --if
place every measuring job's ranks as they do for 'mpbench run', so the rules
are measured across the cluster's network ('mpbench testbed tune' does this
on an emulated network). On an MPI library the library's launcher places
the ranks.

Exit status: 0 success, 1 a job of the default failed or the tuned
configuration is slower somewhere, 2 bad input (an unknown collective,
missing library controls), 130/143 interrupted.`,
		Example: `  mpbench tune -np 4 -o tuned
  mpbench tune -np 4 -npmin 4 --colls bcast,allreduce -msglog 0:16 -o tuned
  mpbench tune --verify tuned
  mpbench tune --hostfile nodes --map-by node -np 8 -npmin 8 -o tuned-cluster
  mpbench-mpi tune --transport mpi -np 4 -o tuned-ompi`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTransport(f.transport, true); err != nil {
				return err
			}
			if f.transport != "mpi" { // with mpi, tuneLibraryFor refuses any placement option
				if _, _, err := f.hosts.hostList(""); err != nil {
					return err // before any file or job; each job places its ranks
				}
			}
			if f.verify != "" {
				return runTuneVerify(cmd, &f)
			}
			return runTune(cmd, &f, inv)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVar(&f.np, "np", 4, "largest number of processes")
	fs.IntVar(&f.npmin, "npmin", 2, "smallest number of processes; every count from -npmin to -np is measured")
	fs.StringVar(&f.colls, "colls", defaultTuneColls, "collectives to tune, comma-separated ("+strings.Join(tuneCollectives(), ", ")+")")
	fs.StringVar(&f.msglog, "msglog", "0:20", "IMB -msglog a:b: message sizes 0, 2^a, ..., 2^b bytes")
	fs.IntVar(&f.msgstep, "msgstep", 2, "measure every msgstep-th power of two of -msglog (2: 1, 4, 16, ... bytes)")
	fs.IntVar(&f.rounds, "rounds", 4, "interleaved rounds per configuration, the default measured twice per round (at least 2: the spread needs repeats; --verify: default 5)")
	fs.StringVar(&f.segments, "segments", "16384,65536", "segment sizes in bytes for the segmented algorithms (mpbench's pipeline; Open MPI's chain, pipeline, segmented ring)")
	fs.Float64Var(&f.minGain, "min-gain", 0.03, "smallest relative gain of the median that can replace the default (0.03 = 3%)")
	fs.StringVar(&f.iter, "iter", "50,40", "IMB -iter of every measuring run")
	fs.Float64Var(&f.timeLimit, "time", 0.1, "IMB -time of every measuring run: seconds per message size")
	fs.StringVar(&f.transport, "transport", "auto", transportHelp(true))
	fs.StringVarP(&f.out, "output", "o", "", "directory for the tuning files and the measurements (created if missing)")
	fs.StringVar(&f.verify, "verify", "", "check the tuning in DIR (written by mpbench tune) against the default instead of tuning")
	addHostFlags(fs, &f.hosts)
	return cmd
}

// tuneBench maps each collective "mpbench tune" can measure to its IMB
// benchmark.
var tuneBench = map[string]string{}

func init() {
	for _, name := range bench.Names() {
		spec, _ := bench.Lookup(name)
		c := spec.Collective
		if c == "" || strings.HasSuffix(c, "v") {
			continue
		}
		if _, dup := tuneBench[c]; !dup {
			tuneBench[c] = spec.Name
		}
	}
}

// tuneCollectives lists the collectives tune can measure, sorted.
func tuneCollectives() []string {
	var n []string
	for c := range tuneBench {
		n = append(n, c)
	}
	slices.Sort(n)
	return n
}

// tunePlan is the checked input of a tuning run.
type tunePlan struct {
	colls    []string
	procs    []int
	sizes    []int
	segments []int
	rounds   int
	minGain  float64
	iter     string
	time     float64
	dir      string
}

// maxTuneProcCounts bounds the process counts one tune measures (every count
// from -npmin to -np): each count is a job per configuration and round.
const maxTuneProcCounts = 64

// plan checks the options and returns the tuning plan; every problem is a
// usage error naming the option and the fix.
func (f *tuneFlags) plan() (tunePlan, error) {
	p := tunePlan{rounds: f.rounds, minGain: f.minGain, iter: f.iter, time: f.timeLimit, dir: f.out}
	for _, c := range strings.Split(f.colls, ",") {
		c = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(c), "MPI_"))
		if _, ok := tuneBench[c]; !ok {
			return p, usageErrorf("--colls: unknown collective %q (valid: %s)", c, strings.Join(tuneCollectives(), ", "))
		}
		if !slices.Contains(p.colls, c) {
			p.colls = append(p.colls, c)
		}
	}
	if err := bench.CheckNP(f.np); err != nil {
		return p, err
	}
	if f.npmin < 2 || f.np < f.npmin {
		return p, usageErrorf("-npmin %d -np %d: collectives are tuned on 2 or more processes; give 2 <= -npmin <= -np", f.npmin, f.np)
	}
	if counts := f.np - f.npmin + 1; counts > maxTuneProcCounts {
		return p, usageErrorf("-npmin %d -np %d: %d process counts to measure, at most %d; raise -npmin (e.g. -npmin %d)", f.npmin, f.np, counts, maxTuneProcCounts, f.np-maxTuneProcCounts+1)
	}
	for n := f.npmin; n <= f.np; n++ {
		p.procs = append(p.procs, n)
	}
	if _, _, err := bench.ParseIter(f.iter); err != nil {
		return p, err
	}
	lo, hi, err := bench.ParseMsgLog(f.msglog)
	if err != nil {
		return p, err
	}
	if f.msgstep < 1 {
		return p, usageErrorf("--msgstep %d: must be 1 or more", f.msgstep)
	}
	p.sizes = []int{0}
	for k := lo; k <= hi; k += f.msgstep {
		p.sizes = append(p.sizes, 1<<k)
	}
	for _, s := range strings.Split(f.segments, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return p, usageErrorf("--segments %s: expected positive byte counts, e.g. 16384,65536", f.segments)
		}
		p.segments = append(p.segments, n)
	}
	if f.rounds < 2 {
		return p, usageErrorf("--rounds %d: the winner rule needs the spread of at least 2 rounds", f.rounds)
	}
	if f.minGain < 0 || f.minGain >= 1 {
		return p, usageErrorf("--min-gain %g: must be a fraction in [0, 1), e.g. 0.03", f.minGain)
	}
	if err := bench.CheckTimeLimit(f.timeLimit); err != nil {
		return p, err
	}
	if f.out == "" {
		return p, usageErrorf("tune needs -o DIR: the directory for the tuning files")
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return p, usageErrorf("-o %s: cannot create the directory (%v); expected a writable directory", f.out, unwrapPath(err))
	}
	return p, nil
}

// sizesFile writes the plan's sizes as an IMB -msglen file in dir.
func (p tunePlan) sizesFile() (string, error) {
	var b strings.Builder
	for _, n := range p.sizes {
		fmt.Fprintln(&b, n)
	}
	name := p.dir + "/sizes.txt"
	return name, os.WriteFile(name, []byte(b.String()), 0o644)
}

// tuneHeader is the provenance every tuning file starts with.
func tuneHeader(lib tuneLibrary, p tunePlan, host, cpu, cores, date, command string) []string {
	return []string{
		"Written by mpbench tune: every algorithm measured against the default, the winner kept only where it is",
		fmt.Sprintf("faster beyond the spread of %d interleaved rounds and by at least %.0f%% (median of IMB's t_max).", p.rounds, 100*p.minGain),
		fmt.Sprintf("Measured on %s (%s, %s cores), %s, runtime %s.", host, cpu, cores, date, lib.describe()),
		fmt.Sprintf("Collectives %s; %s processes; sizes %d..%d bytes.", strings.Join(p.colls, ","), joinInts(p.procs), p.sizes[0], p.sizes[len(p.sizes)-1]),
		"Command: " + command,
	}
}

// joinInts is "2,3,4".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// writeTuneJSON writes v as indented JSON to dir/name.
func writeTuneJSON(dir, name string, v any) error {
	b, err := jsonIndent(v)
	if err != nil {
		return err
	}
	return os.WriteFile(dir+"/"+name, b, 0o644)
}

// printTuneSummary prints the ranges of each table: collective, processes, size
// range, winner, speedup.
func printTuneSummary(w *strings.Builder, tables []tune.Table) {
	fmt.Fprintf(w, "%-12s %5s  %-24s %-34s %s\n", "collective", "procs", "bytes", "algorithm", "speedup over default")
	for _, t := range tables {
		for _, r := range t.Ranges {
			sp := "-"
			if !r.Winner.IsDefault() {
				sp = fmt.Sprintf("%.2fx", r.MinSpeedup)
				if r.MaxSpeedup > r.MinSpeedup*1.005 {
					sp = fmt.Sprintf("%.2fx..%.2fx", r.MinSpeedup, r.MaxSpeedup)
				}
			}
			fmt.Fprintf(w, "%-12s %5d  %-24s %-34s %s\n", t.Collective, t.Ranks, fmt.Sprintf("%d..%d", r.From, r.To), r.Winner, sp)
		}
	}
}
