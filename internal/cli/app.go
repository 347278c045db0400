package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/internal/sink"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// "mpbench app NAME" runs an application on -np ranks. The same command
// line is every rank's: run by hand it validates its options and starts
// -np copies of itself through mpbench's launcher (package launch); a copy
// started by the launcher (launch.IsWorker) or by an MPI launcher (mpi
// builds) is one rank and runs the application on its communicator.

// appFlags are the options every application shares.
type appFlags struct {
	np        int
	transport string
	coll      string
	load      int
	jsonFile  string
	csvFile   string
	traceFile string
	timeout   time.Duration
	// checkOnly checks the options (for -np as given) and exits without
	// starting ranks: how mpbench scaling checks every process count of a
	// sweep before its first run (--check-only, hidden).
	checkOnly bool
	hosts     hostFlags // ranks on other hosts (mpbench's launcher only)
	flags     *pflag.FlagSet
	// info is what the application adds to its result files' metadata
	// (the block product's BLAS: hostblas.Info.Fields).
	info map[string]string
	// memoryFix is what lowers the application's memory, for a rank that
	// runs out of it (launch.Spec.MemoryFix): "lower -n" for the product.
	memoryFix string
}

// addAppFlags defines the shared options on fs.
func addAppFlags(fs *pflag.FlagSet, f *appFlags) {
	f.flags = fs
	fs.IntVar(&f.np, "np", 1, "number of processes (ranks) to start, as mpirun -np")
	fs.StringVar(&f.transport, "transport", "auto", transportHelp(false))
	collVar(fs, &f.coll, "collective algorithms, e.g. bcast=binomial,alltoall=pairwise (default: the decision table; see 'mpbench run --show-algorithms')")
	fs.IntVar(&f.load, "load", 0, "start K CPU-consuming threads in each rank's process, to emulate a slower processor (the study's figures 4.120-4.123)")
	fs.StringVar(&f.jsonFile, "json", "", "also write the run's row to FILE as JSON Lines")
	fs.StringVar(&f.csvFile, "csv", "", "also write the run's row to FILE as CSV")
	fs.StringVar(&f.traceFile, "trace", "", "record every communication call, barrier and kernel of the timed part on every rank (wall, CPU time, run delay) and write them to FILE as CSV; prints a summary per rank (a diagnostic run: each span costs some syscalls)")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop the job if it runs longer than this (e.g. 30m; 0: no limit)")
	fs.BoolVar(&f.checkOnly, checkOnlyFlag, false, "check the options and exit without starting ranks")
	_ = fs.MarkHidden(checkOnlyFlag)
	addHostFlags(fs, &f.hosts)
}

// checkOnlyFlag is the hidden option of every application that checks its
// options and exits (appFlags.checkOnly).
const checkOnlyFlag = "check-only"

// appBody runs one application on a rank's communicator.
type appBody func(c *app.Comm) (*app.Report, error)

// errNotVerified ends a run whose result did not match the reference.
var errNotVerified = errors.New("verification failed")

// newAppCmd is "mpbench app": the applications, one subcommand each.
func newAppCmd(inv *invocation) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "app NAME [options]",
		Short: "Run an application on -np ranks: the block matrix product, NAS EP and FT",
		Long: `Run an application written on mpbench's communicator on -np processes of this
machine (or as the ranks of an MPI job, in mpi builds under mpirun). Every
run prints its time, Mop/s and verification as the NAS Parallel Benchmarks
do, and the time split into computation (the application's kernels) and
communication (time inside the communicator's calls), per rank and the
maximum over ranks. --json and --csv write the run as one row.

Exit status: 0 success, 1 the run failed or its result did not verify,
2 bad options.`,
		Annotations: map[string]string{nounAnnotation: "application"},
	}
	cmd.AddCommand(newAppMatmulCmd(inv), newAppEPCmd(inv), newAppFTCmd(inv))
	return cmd
}

// checkAppArgs checks the application of args, "app NAME [options]" after
// the "--" of cmd (scaling, testbed run), before any job starts: NAME must
// name one of mpbench app's applications (the app command of cmd's tree),
// else a usage error in the words of "mpbench app NAME" itself
// (groupArgs), after what cmd runs: `scaling -- app: unknown application
// "x"; expected one of ep, ft, matmul; see 'mpbench app --help'`.
func checkAppArgs(cmd *cobra.Command, args []string) error {
	appCmd, _, err := cmd.Root().Find(args[:1])
	if err != nil {
		return err
	}
	if sub, _, err := appCmd.Find(args[1:]); err == nil && sub != appCmd && sub.IsAvailableCommand() {
		return nil
	}
	what := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ") + " -- app"
	if len(args) < 2 {
		return usageErrorf("%s: missing %s; expected one of %s; see '%s --help'", what, subcommandNoun(appCmd),
			strings.Join(subcommandNames(appCmd), ", "), appCmd.CommandPath())
	}
	if err := groupArgs(appCmd, args[1:]); err != nil {
		return usageErrorf("%s: %v", what, err)
	}
	return usageErrorf("%s: unknown %s %q; expected one of %s; see '%s --help'", what, subcommandNoun(appCmd), args[1],
		strings.Join(subcommandNames(appCmd), ", "), appCmd.CommandPath())
}

// maxLoadThreads bounds --load: beyond a few dozen busy threads per rank
// the emulated processor is slower than any the study measured, and
// thousands would reach Go's limit of 10000 threads per process.
const maxLoadThreads = 64

// checkAppFlags validates the shared options of application name.
func checkAppFlags(f *appFlags, name string) error {
	if err := bench.CheckNP(f.np); err != nil {
		return err
	}
	if err := checkTimeout(f.timeout); err != nil {
		return err
	}
	if f.load < 0 || f.load > maxLoadThreads {
		return usageErrorf("--load %d: the number of load threads per rank must be 0 to %d (each is a busy thread beside the rank's own; a few per core emulate a processor several times slower)", f.load, maxLoadThreads)
	}
	if f.transport == "mpi" {
		return usageErrorf("--transport mpi: mpbench app does not start an MPI library's launcher; start a binary built with -tags mpi under it (e.g. mpirun -np 4 mpbench app %s), or give one of %s", name, strings.Join(transportModes(false), ", "))
	}
	if err := checkTransport(f.transport, false); err != nil {
		return err
	}
	if _, err := parseColl(f.coll); err != nil {
		return err
	}
	if err := checkOutputPaths(f.jsonFile, f.csvFile, stdoutReport); err != nil {
		return err
	}
	if err := checkTracePath(f); err != nil {
		return err
	}
	return emptyOutputs(f.jsonFile, f.csvFile)
}

// checkTracePath checks --trace before any rank starts: not standard
// output (it carries the report), not the --json or --csv file, and
// creatable.
func checkTracePath(f *appFlags) error {
	if f.traceFile == "" {
		return nil
	}
	if f.traceFile == "-" {
		return usageErrorf("--trace -: standard output carries %s; expected --trace FILE (e.g. --trace spans.csv)", stdoutReport)
	}
	for _, other := range []string{f.jsonFile, f.csvFile} {
		if other != "" && samePath(f.traceFile, other) {
			return usageErrorf("--trace %s names the --json or --csv file; expected a file of its own", f.traceFile)
		}
	}
	file, err := os.OpenFile(f.traceFile, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return cannotCreate("--trace", f.traceFile, err)
	}
	return file.Close()
}

// runApp runs application name as its role requires: one rank of a job
// (under mpbench's launcher or an MPI launcher), or the launcher of -np
// ranks re-running this command line.
func runApp(cmd *cobra.Command, f *appFlags, inv *invocation, name string, body appBody) error {
	if err := checkAppFlags(f, name); err != nil {
		return err
	}
	if launch.IsWorker() {
		return reportToLauncher(cmd.ErrOrStderr(), appWorker(cmd, f, inv, body))
	}
	if v := launch.MPILauncher(); v != "" {
		if f.hosts.multiHost() {
			return usageErrorf("--hostfile and --host place ranks of mpbench's own launcher; under %s the MPI launcher places them (give it the hosts)", v)
		}
		if appMPIRank == nil {
			return usageErrorf("started by an MPI launcher (%s is set) but this mpbench has no MPI support; build it with 'go build -tags mpi ./cmd/mpbench', or run 'mpbench app %s -np N' without mpirun", v, name)
		}
		return appMPIRank(cmd, f, inv, body)
	}
	hp, err := f.hosts.plan(&f.np, f.transport, "", f.flags)
	if err != nil || f.checkOnly {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the mpbench executable to start ranks: %w", err)
	}
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	argv := append([]string{exe}, inv.args...)
	// Supervised as mpbench run is: a job that fails or is interrupted
	// ends its --json and --csv files with the launcher's account.
	watch := supervise.Watch{Stdout: cmd.OutOrStdout(), Files: rowfile.Files{JSON: f.jsonFile, CSV: f.csvFile},
		Replace: true, Hosts: hp.hosts, Label: "app " + name}
	err = watch.Run(ctx, func(ctx context.Context, rank0 io.Writer) error {
		return launch.Run(ctx, launch.Spec{NP: f.np, Argv: argv, Env: []string{launch.EnvTransport + "=" + f.transport},
			Timeout: f.timeout, Stdout: rank0, Stderr: cmd.ErrOrStderr(),
			Hosts: hp.hosts, Agent: hp.agent, Version: Version, If: f.hosts.iface, MemoryFix: f.memoryFix})
	})
	if ctx.Err() != nil {
		return cancelCause(ctx, errInterrupted)
	}
	return err
}

// appWorker is one rank of a job started by mpbench's launcher.
func appWorker(cmd *cobra.Command, f *appFlags, inv *invocation, body appBody) error {
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	ep, job, err := launch.JoinJob(ctx)
	if err != nil {
		return err
	}
	name := job.Transport
	world, err := comm.NewWorld(ep, comm.Config{EagerLimit: defaultEager(name)})
	if err != nil {
		ep.Close()
		return err
	}
	defer world.Close()
	return appRank(ctx, cmd, f, inv, world, jobTransport{Name: name, Hosts: job.Hosts, Wireup: job.Wireup}, body)
}

// appRank runs the application on c (tr names what c runs on and the
// ranks' hosts; ctx ends the --load threads):
// every rank runs body; rank 0 prints the report on stdout
// and writes the --json and --csv row, naming the emulated network when
// mpbench testbed run started the job (MPBENCH_NETWORK). A result that
// does not verify is an error on every rank (errNotVerified).
func appRank(ctx context.Context, cmd *cobra.Command, f *appFlags, inv *invocation, c comm.Comm, tr jobTransport, body appBody) error {
	alg, err := parseColl(f.coll)
	if err != nil {
		return err
	}
	start := time.Now()
	files := &rowfile.Open{} // rank 0's --json and --csv
	if c.Rank() == 0 {
		if files, err = openAppFiles(f, inv, tr, c.Size(), start); err != nil {
			return err
		}
		defer files.Close()
	}
	defer app.StartLoad(ctx, f.load)()
	ac := app.NewComm(c, alg)
	if c.Rank() == 0 {
		ac.SetProgress(progressPrinter(cmd.ErrOrStderr(), time.Now(), progressEvery, time.Now))
	}
	if f.traceFile != "" {
		ac.StartTrace()
	}
	rep, err := body(ac)
	var spans []app.Span
	if err == nil && f.traceFile != "" {
		spans, err = app.GatherTrace(ac)
	}
	if err == nil && c.Rank() == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Transport       = %24s", tr.Name))
		if len(tr.Hosts) > 0 {
			rep.Notes = append(rep.Notes, "Hosts           = "+launch.FormatRankHosts(tr.Hosts))
		}
		if nw := os.Getenv(networkEnv); nw != "" {
			rep.Notes = append(rep.Notes, "Network         = "+nw)
		}
		if f.load > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("CPU load        = %24s", loadThreads(f.load)))
		}
		err = rep.Print(cmd.OutOrStdout())
		if err == nil && f.traceFile != "" {
			err = writeTrace(cmd.OutOrStdout(), f.traceFile, spans)
		}
		if werr := files.WriteRow(rep.Row()); werr != nil && err == nil {
			err = werr
		}
	}
	if err == nil {
		err = c.Barrier()
	}
	if err == nil && !verifiedEverywhere(ac, rep) {
		err = errNotVerified
	}
	if werr := files.WriteEnd(err); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		what := cmd.Name() // the application's command: body returned no report
		if rep != nil {
			what = rep.Name()
		}
		return &launch.WorkerError{Rank: c.Rank(), Err: fmt.Errorf("%s: %w", what, err)}
	}
	return nil
}

// writeTrace prints the trace's summary on out and writes its spans to
// path as CSV (app.WriteTraceCSV).
func writeTrace(out io.Writer, path string, spans []app.Span) error {
	if err := app.WriteTraceSummary(out, spans); err != nil {
		return err
	}
	file, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	if err := app.WriteTraceCSV(file, spans); err != nil {
		file.Close()
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	return file.Close()
}

// verifiedEverywhere tells every rank whether rank 0 found the result
// verified (or had nothing to check it against) (a Bcast of one byte outside the timed part).
func verifiedEverywhere(c *app.Comm, rep *app.Report) bool {
	b := []byte{0}
	if c.Rank() == 0 && (rep.Verified || rep.Unchecked) {
		b[0] = 1
	}
	if c.Size() > 1 {
		if err := c.Algorithms().Bcast(c.Raw(), b, 0); err != nil {
			return false
		}
	}
	return b[0] == 1
}

// openAppFiles opens --json and --csv on rank 0 and writes their meta
// record: the machine, the options, the application's own facts (f.info,
// e.g. blas and blas_threads), and (as mpbench run's files) the ranks'
// hosts (rank_hosts, hosts, wireup) and the emulated network (network)
// when there are.
func openAppFiles(f *appFlags, inv *invocation, tr jobTransport, np int, start time.Time) (*rowfile.Open, error) {
	meta := jobMeta(sink.LocalMachine(), tr, np, result.MB, start, inv.commandLine())
	meta.Options["np"] = strconv.Itoa(np)
	f.flags.Visit(func(fl *pflag.Flag) { meta.Options[fl.Name] = fl.Value.String() })
	maps.Copy(meta.Info, f.info)
	return rowfile.Files{JSON: f.jsonFile, CSV: f.csvFile}.Create(meta)
}

// appMPIRank, when non-nil, runs one rank of "mpbench app" in a job started
// by an MPI launcher; set by app_mpi.go (mpi build tag).
var appMPIRank func(cmd *cobra.Command, f *appFlags, inv *invocation, body appBody) error

// progressEvery is how long a run goes before rank 0 prints its first
// progress line, and then how often.
const progressEvery = 10 * time.Second

// progressPrinter returns the app.Comm progress function of rank 0: from
// every seconds after start on, at most once per every, it writes one line
// on w, "mpbench: progress: rank 0 at 45% (115 of 256 units), 10 s",
// so that a long run shows it is alive without touching the report on
// stdout. It reads clock (time.Now in a run) once per unit.
func progressPrinter(w io.Writer, start time.Time, every time.Duration, clock func() time.Time) func(done, total int64) {
	next := start.Add(every)
	return func(done, total int64) {
		now := clock()
		if now.Before(next) || done >= total || total <= 0 {
			return
		}
		next = now.Add(every)
		fmt.Fprintf(w, "mpbench: progress: rank 0 at %.0f%% (%d of %d units), %.0f s\n", 100*float64(done)/float64(total), done, total, now.Sub(start).Seconds())
	}
}

// loadThreads names k load threads per rank: "1 thread per rank", "2
// threads per rank".
func loadThreads(k int) string {
	if k == 1 {
		return "1 thread per rank"
	}
	return fmt.Sprintf("%d threads per rank", k)
}
