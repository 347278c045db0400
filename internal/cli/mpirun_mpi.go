//go:build mpi

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/mpi"
)

func init() {
	mpiRank = runMPIRank
	mpiLaunch = launchMPIJob
}

// runMPIRank is one rank of "mpbench run" in a job started by an MPI
// launcher, e.g.
//
//	mpirun --allow-run-as-root --oversubscribe -np 2 ./mpbench-mpi run PingPong
//
// The communicator is MPI_COMM_WORLD of the linked library (package
// mpi); -np is taken from the job's size. Rank 0 writes every
// output exactly as the worker of "mpbench run -np N" does (runRank). Bad
// options end every rank with MPI_Finalize and the usage error (printed by
// rank 0 only, see reportOnce). On a failed run the process exits without
// MPI_Finalize, and the launcher ends the other ranks.
func runMPIRank(cmd *cobra.Command, f *runFlags, inv *invocation) error {
	start := time.Now()
	level := mpi.ThreadFunneled
	if f.threadLevel != "" {
		l, err := bench.ParseThreadLevel(f.threadLevel)
		if err != nil {
			// Before MPI_Init: the launcher's rank picks the printer.
			r, _ := launch.MPILauncherRank()
			return reportOnce(cmd.ErrOrStderr(), r, err)
		}
		level = mpi.Thread(l)
	}
	world, err := mpi.InitThread(level)
	if err != nil {
		return err
	}
	if err := checkMPIWorld(cmd.ErrOrStderr(), world, f.given("np"), f.np, "run"); err != nil {
		return err
	}
	err = checkUnderLauncher(f)
	f.np, f.transport = world.Size(), "mpi"
	var opts bench.Options
	if err == nil {
		opts, err = f.benchOptions()
	}
	if err == nil {
		if err = checkOutputs(f.jsonFile, f.csvFile, stdoutIMB, world.Rank() == 0); err == nil {
			err = checkDumpPath(f, world.Rank() == 0)
		}
	}
	if err != nil {
		// Every rank checks the same options and ends here.
		return reportAndFinalize(cmd.ErrOrStderr(), world.Rank(), err)
	}
	tr := jobTransport{Name: "mpi (" + strings.Join(strings.Fields(firstLine(mpi.LibraryVersion())), " ") + ")",
		MPIVersion: mpi.StandardVersion()}
	if tr.ThreadEnv, err = mpi.ThreadLevel(); err != nil {
		return err
	}
	wf := &workerFlags{run: *f, calledAs: launcherCommand(world.Size(), inv)}
	if world.Rank() == 0 && !f.quiet {
		wf.progressWidth = progressWidth(false, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	// Under "mpbench run --transport mpi" the ranks keep the default
	// actions of SIGINT and SIGTERM: the mpbench that started the launcher
	// knows why the job stops (Ctrl-C, --timeout, --stall, a failed rank),
	// reports it once and writes the end record with that cause.
	ctx := context.Background()
	if os.Getenv(envMPIParent) == "" {
		var stop func()
		ctx, stop = notifyInterrupt(ctx)
		defer stop()
		done := make(chan struct{})
		defer close(done)
		if world.Rank() == 0 {
			go endOnSignal(ctx, done, cmd.ErrOrStderr(), f)
		}
	}
	if err := runRank(ctx, cmd, wf, world, tr, opts, start); err != nil {
		if errors.Is(err, errInterrupted) {
			// Every rank was signalled; one line is enough.
			return reportOnce(cmd.ErrOrStderr(), world.Rank(), cancelCause(ctx, err))
		}
		return err
	}
	return mpi.Finalize()
}

// checkMPIWorld is the first check of every rank of a job an MPI launcher
// started (command "run" or "app"): the launcher's process count against
// the library's world (checkLauncherSize), then -np, when given (npGiven),
// against the world's size (checkLauncherNP). A problem is printed once
// and MPI finalized (reportAndFinalize); the *printedError is returned.
func checkMPIWorld(stderr io.Writer, world *mpi.Comm, npGiven bool, np int, command string) error {
	if err := checkLauncherSize(world.Size()); err != nil {
		// Every process is rank 0 of a world of its own: the launcher's
		// rank picks the one that prints.
		r, _ := launch.MPILauncherRank()
		return reportAndFinalize(stderr, r, err)
	}
	if err := checkLauncherNP(npGiven, np, world.Size(), strings.Join(mpi.LauncherCommand(np), " ")+" mpbench "+command); err != nil {
		return reportAndFinalize(stderr, world.Rank(), err)
	}
	return nil
}

// reportAndFinalize ends a rank of an MPI job on an error every rank
// found (bad input, a result that did not verify): rank 0 (rank is this
// process's) prints err, and MPI_Finalize, which no rank leaves before all
// have entered it, ends every rank together. It returns err as a
// *printedError (reportOnce).
func reportAndFinalize(stderr io.Writer, rank int, err error) error {
	err = reportOnce(stderr, rank, err)
	_ = mpi.Finalize()
	return err
}

// checkUnderLauncher checks the options that an MPI launcher started by
// hand decides itself: the transport, and the limits only "mpbench run
// --transport mpi" enforces.
func checkUnderLauncher(f *runFlags) error {
	if (f.given("timeout") || f.given("stall")) && os.Getenv(envMPIParent) == "" {
		opt := "--timeout"
		if !f.given("timeout") {
			opt = "--stall"
		}
		return usageErrorf("%s: under a launcher started by hand nothing watches the job; run 'mpbench run --transport mpi -np N %s ...' (mpbench starts the launcher and watches it), or use the launcher's own limit", opt, opt)
	}
	if f.transport != "auto" && f.transport != "mpi" {
		return usageErrorf("--transport %s: under an MPI launcher the ranks communicate through the MPI library; give --transport mpi (or auto), or run 'mpbench run -np N --transport %s' without the launcher", f.transport, f.transport)
	}
	return nil
}

// endGrace is how long rank 0 waits, after SIGINT or SIGTERM, for the run
// to stop by itself at the next message size before endOnSignal acts.
const endGrace = 500 * time.Millisecond

// endOnSignal makes a signalled rank 0 leave with complete result files
// when it cannot stop by itself: a rank waiting inside a blocking MPI call
// for a peer that died never returns to Go, and the launcher ends such a
// job by sending SIGTERM to the ranks left (Open MPI), then SIGKILL. If the
// run has not ended (done closed) endGrace after the signal, the end
// record naming the signal goes to --json and --csv (supervise.EndStuck),
// one line is printed and the signal is reported to launch.Fatal, so that
// the process exits with 128+signal.
func endOnSignal(ctx context.Context, done <-chan struct{}, stderr io.Writer, f *runFlags) {
	if cause := supervise.EndStuck(ctx, done, endGrace, f.rowFiles()); cause != nil {
		fmt.Fprintln(stderr, errorPrefix+cause.Error()+" (rank 0 was inside a measurement or an MPI call; if a rank failed, the launcher's messages name it)")
		launch.ReportFatal(cause)
	}
}

// envMPIParent is set in the environment of a launcher that "mpbench run
// --transport mpi" starts (launchMPIJob): that mpbench enforces --timeout
// and --stall, which its ranks then accept.
const envMPIParent = "MPBENCH_MPI_PARENT"

// checkLauncherSize compares the library's world size with the size the
// launcher announced (launch.MPILauncherSize). They differ when a binary
// built for one library is started by the other library's launcher
// (mpirun.openmpi running an MPICH build): each process then initialises
// a one-rank world of its own, and N separate jobs would run and all
// succeed.
func checkLauncherSize(worldSize int) error {
	n, v, ok := launch.MPILauncherSize()
	if !ok || n == worldSize {
		return nil
	}
	return usageErrorf("the launcher started %d ranks (%s=%d) but the MPI library sees a world of %d: this binary is built for %s and was started by another library's launcher; start it with %s, or build it for that library (-tags mpi for Open MPI, -tags mpi,mpich for MPICH)",
		n, v, n, worldSize, mpi.Flavor, mpi.LauncherCommand(n)[0])
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// launcherCommand approximates the launcher's command line for result
// headers: the launcher's own arguments are not visible to its ranks, so
// only the process count and mpbench's arguments are shown.
func launcherCommand(np int, inv *invocation) string {
	if launch.MPILauncher() == launch.EnvOMPIRank {
		return fmt.Sprintf("mpirun -np %d %s", np, inv.commandLine())
	}
	return fmt.Sprintf("mpiexec -n %d %s", np, inv.commandLine())
}

// launchMPIJob is "mpbench run --transport mpi -np N": it starts the linked
// library's launcher (mpi.LauncherCommand, e.g. "mpirun.openmpi
// --allow-run-as-root --oversubscribe -np N") on this executable with the
// same arguments, so that every process runs as one rank of the MPI job
// (runMPIRank), and supervises it (package launch/supervise): the
// launcher's stderr is this command's, its stdout is read for --stall as
// for mpbench's own runtime; --timeout and --stall end the job (SIGTERM to
// the launcher, which forwards it to the ranks, SIGKILL 5 s later). The
// options were checked before. When the job fails or is stopped, the
// --json and --csv files get an end record saying how, if no rank wrote
// one (a launcher may end ranks with SIGKILL), and the error names where
// the job was (benchmark, last row).
func launchMPIJob(cmd *cobra.Command, f *runFlags, opts bench.Options, inv *invocation) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the mpbench executable to start ranks: %w", err)
	}
	argv := append(mpi.LauncherCommand(f.np), exe)
	argv = append(argv, inv.args...)
	sigCtx, stop := notifyInterrupt(context.Background())
	defer stop()
	watch := supervise.Watch{Stdout: cmd.OutOrStdout(), Stall: f.stallLimit(opts), Timeout: f.timeout, Files: f.rowFiles()}
	return watch.Run(sigCtx, func(ctx context.Context, rank0 io.Writer) error {
		return supervise.Command{Argv: argv, Env: append(os.Environ(), envMPIParent+"=1"), Stdout: rank0, Stderr: cmd.ErrOrStderr(),
			Install: "install the MPI library's launcher, Debian: " + launcherPackage(), Note: "its ranks' messages are above"}.Run(ctx)
	})
}

// launcherPackage names the Debian package with the linked library's launcher.
func launcherPackage() string {
	if mpi.Flavor == "mpich" {
		return "mpich"
	}
	return "openmpi-bin"
}
