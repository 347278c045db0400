package launch

import (
	"os"
	"strconv"
)

// A process that another launcher started (Open MPI's mpirun, MPICH's
// mpiexec, Slurm's srun, prrte's prterun) learns so from its environment:
// the functions below read the variables those launchers set, so that a
// command line can run the process as one rank of their job (IsPMIRank:
// mpbench's own runtime through PMI; an MPI build: the MPI library) or
// refuse to run a job of its own in each of the job's processes.

// EnvOMPIRank is the rank variable of Open MPI's mpirun, which offers its
// ranks only PMIx (so only the MPI library can join its job).
const EnvOMPIRank = "OMPI_COMM_WORLD_RANK"

// MPIRankVars are the rank variables an MPI launcher gives its ranks, in
// the order MPILauncher tries them: Open MPI's mpirun, MPICH Hydra or
// Slurm with PMI, Hydra's -pmi-port (PMI_ID).
var MPIRankVars = []string{EnvOMPIRank, "PMI_RANK", "PMI_ID"}

// mpiSizeVars are the job-size variables of the launchers that set
// MPIRankVars, in the same order (Hydra's -pmi-port sets none).
var mpiSizeVars = []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}

// MPILauncher returns the first of MPIRankVars set (non-empty) in the
// environment, or "" when no MPI launcher started this process.
func MPILauncher() string {
	for _, v := range MPIRankVars {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// MPILauncherRank returns the rank an MPI launcher gave this process (the
// value of MPILauncher's variable) and whether one did, as a number.
func MPILauncherRank() (int, bool) {
	v := MPILauncher()
	if v == "" {
		return 0, false
	}
	r, err := strconv.Atoi(os.Getenv(v))
	return r, err == nil
}

// MPILauncherSize returns the number of ranks an MPI launcher announced,
// the variable that says so (OMPI_COMM_WORLD_SIZE, PMI_SIZE: the first
// set) and whether one did, as a number. A binary built for one MPI
// library and started by the other library's launcher sees a world of one
// rank in each process: this count is how such a rank finds out.
func MPILauncherSize() (n int, v string, ok bool) {
	for _, v := range mpiSizeVars {
		s := os.Getenv(v)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		return n, v, err == nil
	}
	return 0, "", false
}

// PMIxOnly returns the PMIx namespace of a launcher that offers this
// process only PMIx (PMIX_RANK and PMIX_NAMESPACE set, no PMI socket:
// srun --mpi=pmix, prrte's prterun), else "". mpbench's own runtime
// speaks PMI-1 and PMI-2 (IsPMIRank); PMIx's wire protocol is internal to
// its library, which only an MPI build links.
func PMIxOnly() string {
	ns := os.Getenv("PMIX_NAMESPACE")
	if os.Getenv("PMIX_RANK") == "" || ns == "" || IsPMIRank() {
		return ""
	}
	return ns
}

// SrunTasks returns the task count of the Slurm step this process is a
// task of (SLURM_STEP_NUM_TASKS as srun set it, "" outside srun) and
// whether it is task 0, the one that prints a message every task would
// print (SLURM_PROCID 0).
func SrunTasks() (tasks string, first bool) {
	return os.Getenv(EnvSlurmStepTasks), os.Getenv(EnvSlurmProcID) == "0"
}
