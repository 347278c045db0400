package cli

import (
	"context"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/transport"
)

// "mpbench run" started by a PMI launcher (Slurm's srun --mpi=pmi2,
// MPICH's mpiexec) in the default build: every process is one rank of the
// launcher's job on mpbench's own runtime, wired up through PMI
// (launch.ConnectPMI, PMIConn.Join); rank 0 prints the report.

// runPMIRank runs this process as one rank of a PMI job. -np, if given,
// must equal the job's size, which the PMI server tells.
func runPMIRank(cmd *cobra.Command, f *runFlags, inv *invocation) error {
	if f.multiHost() {
		return usageErrorf("--hostfile and --host place ranks of mpbench's own launcher; under srun or mpiexec the launcher places them")
	}
	if err := checkOutputPaths(f.jsonFile, f.csvFile, stdoutIMB); err != nil {
		return err
	}
	conn, err := launch.ConnectPMI()
	if err != nil {
		return err
	}
	size := conn.Size()
	if err := checkLauncherNP(f.given("np"), f.np, size, ""); err != nil {
		conn.Close()
		return err
	}
	f.np = size
	if err := cmd.Flags().Set("np", strconv.Itoa(size)); err != nil {
		conn.Close()
		return err
	}
	// mpbench's own launcher hands these options to its ranks as
	// environment variables; a PMI rank reads the same variables in Join.
	for _, o := range []struct{ flag, env, value string }{
		{"transport", launch.EnvTransport, f.transport},
		{"ifaddr", launch.EnvIfAddr, f.ifaddr},
		{"if", launch.EnvIf, f.hostOpts.iface},
	} {
		if f.given(o.flag) {
			os.Setenv(o.env, o.value)
		}
	}
	if err := launch.CheckEnv(os.Getenv); err != nil {
		conn.Close()
		return err // bad input, as under mpbench's launcher (launch.Run)
	}
	wf := &workerFlags{run: *f, calledAs: inv.commandLine()}
	return joinAndRun(cmd, wf, func(ctx context.Context) (transport.Endpoint, launch.Job, error) { return conn.Join(ctx) })
}

// srunWithoutPMI refuses a run started by srun as one of several tasks
// without a PMI socket (field case B32): each task would otherwise run as
// a job of one rank. Task 0 prints the line; the others only exit.
func srunWithoutPMI() error {
	n := launch.SrunWithoutPMI()
	if n == 0 {
		return nil
	}
	err := usageErrorf("started by srun as one of %d tasks but without PMI (no PMI_FD), so each task would run a job of its own; use 'srun --mpi=pmi2 -n %d mpbench run ...', or 'srun -n 1 mpbench run -np %d ...' to let mpbench start the ranks", n, n, n)
	if _, first := launch.SrunTasks(); !first {
		return &printedError{err}
	}
	return err
}
