package cli

import (
	"os"

	"github.com/spf13/cobra"
)

// "mpbench run" started by an MPI launcher (mpirun, mpiexec, srun with PMI)
// does not start ranks itself: every process it runs in is one rank of the
// launcher's job and the benchmarks measure the MPI library. That needs
// mpbench built with the mpi build tag (see mpirun_mpi.go); without it the
// command refuses, instead of each process starting a job of its own.

// mpiRank, when non-nil, runs "mpbench run" as one rank of an MPI job. It is
// set by mpirun_mpi.go, compiled only with the mpi build tag.
var mpiRank func(cmd *cobra.Command, f *runFlags, inv *invocation) error

// mpiLauncherVars are environment variables an MPI launcher gives its
// ranks: Open MPI's mpirun, and MPICH Hydra or Slurm with PMI.
var mpiLauncherVars = []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK"}

// mpiLauncher returns the launcher variable set (non-empty) in the
// environment, or "".
func mpiLauncher() string {
	for _, v := range mpiLauncherVars {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// runUnderMPILauncher handles "mpbench run" in a process started by an MPI
// launcher. It reports handled=false when no launcher variable is set, and
// otherwise runs the rank (mpi build) or returns a usage error naming the
// build to use.
func runUnderMPILauncher(cmd *cobra.Command, f *runFlags, inv *invocation) (handled bool, err error) {
	v := mpiLauncher()
	if v == "" {
		return false, nil
	}
	if mpiRank == nil {
		return true, usageErrorf("started by an MPI launcher (%s is set) but this mpbench has no MPI support; build it with 'go build -tags mpi ./cmd/mpbench' (Open MPI) or '-tags mpi,mpich' (MPICH), or run 'mpbench run -np N' without mpirun", v)
	}
	return true, mpiRank(cmd, f, inv)
}
