//go:build mpi

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/internal/sink"
	"github.com/mpbench/mpbench/transport/mpi"
)

func init() { mpiRank = runMPIRank }

// runMPIRank is one rank of "mpbench run" in a job started by an MPI
// launcher, e.g.
//
//	mpirun --allow-run-as-root --oversubscribe -np 2 ./mpbench-mpi run PingPong
//
// The communicator is MPI_COMM_WORLD of the linked library (package
// transport/mpi); -np is taken from the job's size. Rank 0 writes every
// output exactly as the worker of "mpbench run -np N" does. On an error the
// process exits without MPI_Finalize, and the launcher ends the other ranks.
func runMPIRank(cmd *cobra.Command, f *runFlags, inv *invocation) error {
	start := time.Now()
	world, err := mpi.Init()
	if err != nil {
		return err
	}
	f.np = world.Size()
	opts, err := f.benchOptions()
	if err != nil {
		return err
	}
	rank := world.Rank()
	wf := &workerFlags{run: *f, calledAs: launcherCommand(world.Size(), inv)}
	version, _, _ := strings.Cut(mpi.LibraryVersion(), "\n")
	transportName = "mpi (" + strings.TrimSpace(version) + ")"

	var out sink.Fanout
	var closers []io.Closer
	if rank == 0 {
		if !f.quiet {
			wf.progressWidth = progressWidth(false, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}
		out, closers, err = openSinks(cmd, wf, &opts, start)
		if err != nil {
			return fmt.Errorf("rank 0: %w", err)
		}
	}
	var bs bench.Sink
	if out != nil {
		bs = out
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runErr := bench.Run(ctx, world, opts, bs)
	if runErr == nil {
		runErr = world.Barrier()
	}
	if errors.Is(runErr, context.Canceled) {
		runErr = errInterrupted
	}
	if out != nil {
		if ferr := out.Finish(runErr); ferr != nil && runErr == nil {
			runErr = ferr
		}
		for _, c := range closers {
			if cerr := c.Close(); cerr != nil && runErr == nil {
				runErr = cerr
			}
		}
	}
	if runErr != nil {
		if errors.Is(runErr, errInterrupted) {
			return runErr
		}
		return fmt.Errorf("rank %d: %w", rank, runErr)
	}
	return mpi.Finalize()
}

// launcherCommand approximates the launcher's command line for result
// headers: the launcher's own arguments are not visible to its ranks, so
// only the process count and mpbench's arguments are shown.
func launcherCommand(np int, inv *invocation) string {
	if _, ok := os.LookupEnv("OMPI_COMM_WORLD_RANK"); ok {
		return fmt.Sprintf("mpirun -np %d %s", np, inv.commandLine())
	}
	return fmt.Sprintf("mpiexec -n %d %s", np, inv.commandLine())
}
