package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/launch"
)

// "mpbench run" started by an MPI launcher (mpirun, mpiexec, srun with PMI)
// does not start ranks itself: every process it runs in is one rank of the
// launcher's job and the benchmarks measure the MPI library. That needs
// mpbench built with the mpi build tag (see mpirun_mpi.go); without it the
// command refuses, instead of each process starting a job of its own.

// mpiRank, when non-nil, runs "mpbench run" as one rank of an MPI job. It is
// set by mpirun_mpi.go, compiled only with the mpi build tag.
var mpiRank func(cmd *cobra.Command, f *runFlags, inv *invocation) error

// mpiLaunch, when non-nil, runs "mpbench run --transport mpi" by starting
// the MPI library's launcher on this executable. It is set by
// mpirun_mpi.go, compiled only with the mpi build tag.
var mpiLaunch func(cmd *cobra.Command, f *runFlags, opts bench.Options, inv *invocation) error

// runUnderMPILauncher handles "mpbench run" in a process started by an MPI
// launcher. It reports handled=false when no launcher variable is set, and
// otherwise runs the rank (mpi build) or returns a usage error naming the
// build to use.
func runUnderMPILauncher(cmd *cobra.Command, f *runFlags, inv *invocation) (handled bool, err error) {
	if mpiRank == nil && launch.MPILauncher() != launch.EnvOMPIRank {
		if err := pmixOnly(); err != nil {
			return true, err
		}
	}
	if err := srunWithoutPMI(); err != nil {
		return true, err
	}
	v := launch.MPILauncher()
	if v == "" {
		return false, nil
	}
	if mpiRank == nil && launch.IsPMIRank() {
		return true, runPMIRank(cmd, f, inv) // srun --mpi=pmi2, mpiexec (pmirun.go)
	}
	if mpiRank == nil && v == launch.EnvOMPIRank {
		return true, usageErrorf("started by Open MPI's mpirun, which offers only PMIx, and this mpbench has no MPI support; build the MPI build with 'go build -tags mpi ./cmd/mpbench' and start that under mpirun, or run 'mpbench run -np N' (or srun --mpi=pmi2, mpiexec.mpich) with this one")
	}
	if mpiRank == nil {
		return true, usageErrorf("started by an MPI launcher (%s is set) but this mpbench has no MPI support; build it with 'go build -tags mpi ./cmd/mpbench' (Open MPI) or '-tags mpi,mpich' (MPICH), or run 'mpbench run -np N' without mpirun", v)
	}
	return true, mpiRank(cmd, f, inv)
}

// runWithMPILauncher is "mpbench run --transport mpi" outside an MPI job:
// the mpi build starts the library's launcher with -np ranks of this
// executable; the default build refuses with a usage error naming the
// build to use.
func runWithMPILauncher(cmd *cobra.Command, f *runFlags, opts bench.Options, inv *invocation) error {
	if mpiLaunch == nil {
		return usageErrorf("--transport mpi needs a binary built with -tags mpi (go build -tags mpi ./cmd/mpbench); "+
			"it then starts mpirun itself, or run 'mpirun -np N mpbench run'; this binary offers --transport %s",
			strings.Join(transportModes(false), ", "))
	}
	return mpiLaunch(cmd, f, opts, inv)
}

// otherRankExitDelay is how long a rank other than 0 of an MPI job waits
// before it exits on a usage error found before MPI is initialised (an
// unknown option), so that rank 0's message is printed before the launcher
// ends the job.
const otherRankExitDelay = time.Second

// printedError is an error already printed by rank 0 of an MPI job (or
// deliberately not printed by the other ranks): Main only maps it to the
// exit status.
type printedError struct{ err error }

// Error returns the printed error's message.
func (e *printedError) Error() string { return e.err.Error() }

// Unwrap returns the printed error, for ExitStatus's errors.As.
func (e *printedError) Unwrap() error { return e.err }

// reportOnce prints err on rank 0 of comm world (rank) and returns it as a
// *printedError. Every rank calls it before MPI_Finalize, which no rank
// leaves before all have entered it, so the line is out before any rank
// exits and the launcher ends the job.
func reportOnce(stderr io.Writer, rank int, err error) error {
	if rank == 0 {
		fmt.Fprintln(stderr, errorPrefix+oneLine(err.Error()))
	}
	return &printedError{err}
}

// checkLauncherNP is the check of -np in a job whose ranks a launcher
// started (mpirun, mpiexec, srun): the launcher decides the process count,
// so -np, when given (given), must equal size, the job's. launcherCmd, when
// not "", is the command line that starts np ranks, shown as the fix
// ("mpirun.openmpi ... -np 4 mpbench run").
func checkLauncherNP(given bool, np, size int, launcherCmd string) error {
	if !given || np == size {
		return nil
	}
	fix := "give the process count to the launcher"
	if launcherCmd != "" {
		fix += " (" + launcherCmd + " ...)"
	}
	return usageErrorf("-np %d: the launcher started %d ranks; %s and leave -np out, or make them agree", np, size, fix)
}

// pmixOnly refuses a run of the default build started by a launcher that
// speaks only PMIx (launch.PMIxOnly): srun --mpi=pmix, or prrte's prterun.
// Under srun task 0 prints the line and the others only exit (srun keeps
// them running until they do), as for srunWithoutPMI. Open MPI's mpirun
// has a message of its own (runUnderMPILauncher).
func pmixOnly() error {
	ns := launch.PMIxOnly()
	if ns == "" {
		return nil
	}
	if n, first := launch.SrunTasks(); n != "" {
		err := usageErrorf("started by srun with PMIx (--mpi=pmix), which this mpbench does not speak; use 'srun --mpi=pmi2 -n %s mpbench run ...', or run the MPI build (go build -tags mpi ./cmd/mpbench) under srun --mpi=pmix", n)
		if !first {
			return &printedError{err}
		}
		return err
	}
	return usageErrorf("started by a PMIx launcher (PMIX_NAMESPACE=%s), which this mpbench does not speak; run the MPI build (go build -tags mpi ./cmd/mpbench) under it, or start the default build with 'mpbench run -np N', mpiexec.mpich or srun --mpi=pmi2", ns)
}
