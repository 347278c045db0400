package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/launch"
)

// TestRunUnderMPILauncher checks the dispatch of "mpbench run" in a process
// started by an MPI launcher: no launcher variable, a variable with and
// without MPI support compiled in.
func TestRunUnderMPILauncher(t *testing.T) {
	saved := mpiRank
	t.Cleanup(func() { mpiRank = saved })
	errRank := errors.New("rank ran")
	fake := func(*cobra.Command, *runFlags, *invocation) error { return errRank }

	cases := []struct {
		name        string
		env         string // launcher variable to set, "" for none
		rank        func(*cobra.Command, *runFlags, *invocation) error
		wantHandled bool
		check       func(error) bool
	}{
		{"no launcher", "", fake, false, func(err error) bool { return err == nil }},
		{"open mpi, mpi build", "OMPI_COMM_WORLD_RANK", fake, true, func(err error) bool { return err == errRank }},
		{"hydra, mpi build", "PMI_RANK", fake, true, func(err error) bool { return err == errRank }},
		{"open mpi, default build", "OMPI_COMM_WORLD_RANK", nil, true, func(err error) bool {
			return isUsage(err) && strings.Contains(err.Error(), "Open MPI's mpirun, which offers only PMIx") && strings.Contains(err.Error(), "-tags mpi")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range launch.MPIRankVars {
				t.Setenv(v, "") // empty counts as unset
			}
			if c.env != "" {
				t.Setenv(c.env, "0")
			}
			mpiRank = c.rank
			handled, err := runUnderMPILauncher(nil, &runFlags{}, &invocation{})
			if handled != c.wantHandled || !c.check(err) {
				t.Fatalf("runUnderMPILauncher with %q set = (%v, %v), want handled=%v and the expected error", c.env, handled, err, c.wantHandled)
			}
		})
	}
}

// TestE2EDefaultBuildUnderMPILauncher runs the default (non-MPI) binary as
// if mpirun had started it: it must refuse with exit status 2 instead of
// starting a job of its own.
func TestE2EDefaultBuildUnderMPILauncher(t *testing.T) {
	if mpiRank != nil {
		t.Skip("built with the mpi tag: the default build is tested without it")
	}
	cmd, out, errb := e2eCmd(t, "run", "pingpong")
	cmd.Env = append(cmd.Environ(), "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2")
	err := cmd.Run()
	if code := exitCode(err); code != ExitUsage {
		t.Fatalf("exit status %d, want %d; stdout:\n%s\nstderr:\n%s", code, ExitUsage, out, errb)
	}
	if !strings.Contains(errb.String(), "offers only PMIx, and this mpbench has no MPI support; build the MPI build with 'go build -tags mpi") ||
		strings.Count(errb.String(), "\n") != 1 || out.Len() != 0 {
		t.Fatalf("want one line naming the missing MPI support and no output; stdout:\n%s\nstderr:\n%s", out, errb)
	}
}

// TestTransportMPIDefaultBuild checks that a binary without MPI support
// refuses --transport mpi with one line naming the build to use.
func TestTransportMPIDefaultBuild(t *testing.T) {
	if mpiLaunch != nil {
		t.Skip("built with the mpi tag: --transport mpi starts the launcher (mpirun_mpi_test.go)")
	}
	code, out, errs := runMain(t, "run", "--transport", "mpi", "-np", "2", "PingPong")
	want := "mpbench: --transport mpi needs a binary built with -tags mpi (go build -tags mpi ./cmd/mpbench); "
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, want) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", code, out, errs, want)
	}
}

// TestUsageErrorOncePerMPIJob checks that of the ranks of an MPI job, which
// all parse the same command line, only rank 0 prints a usage error; all
// exit with status 2.
func TestUsageErrorOncePerMPIJob(t *testing.T) {
	for _, rank := range []string{"0", "1"} {
		for _, v := range launch.MPIRankVars {
			t.Setenv(v, "")
		}
		t.Setenv("PMI_RANK", rank)
		code, out, errs := runMain(t, "run", "--npmax", "4", "PingPong")
		wantLines := 0
		if rank == "0" {
			wantLines = 1
		}
		if code != ExitUsage || out != "" || strings.Count(errs, "\n") != wantLines {
			t.Errorf("rank %s: exit %d, stdout %q, stderr %q; want exit 2 and %d line(s)", rank, code, out, errs, wantLines)
		}
	}
}

// TestPMIxOnly: the default build started by a launcher that offers only
// PMIx refuses in one line naming the launcher and the way out; under srun
// only task 0 prints it.
func TestPMIxOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    string // prefix of the error, "" for none
		printed bool   // the error is a *printedError (not printed again)
	}{
		{"srun task 0", map[string]string{"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "0"},
			"started by srun with PMIx (--mpi=pmix), which this mpbench does not speak; use 'srun --mpi=pmi2 -n 4 mpbench run ...'", false},
		{"srun task 3", map[string]string{"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "3"}, "started by srun with PMIx", true},
		{"prterun", nil, "started by a PMIx launcher (PMIX_NAMESPACE=prte-vm-1@1), which this mpbench does not speak; run the MPI build", false},
		{"PMI too", map[string]string{"PMI_PORT": "vm:1234", "PMI_ID": "0"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "PMI_FD", "PMI_PORT", "PMI_ID", "MPBENCH_RENDEZVOUS"} {
				t.Setenv(v, "")
			}
			t.Setenv("PMIX_RANK", "0")
			t.Setenv("PMIX_NAMESPACE", "prte-vm-1@1")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			err := pmixOnly()
			var pe *printedError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (!isUsage(err) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want a usage error with %q", err, tc.want)
			case tc.want != "" && errors.As(err, &pe) != tc.printed:
				t.Errorf("error %#v: printed %v, want %v", err, errors.As(err, &pe), tc.printed)
			}
		})
	}
}

// TestCheckLauncherNP: under a launcher -np may be left out or agree with
// the job's size; a disagreeing -np is bad input naming both counts and,
// when known, the launcher's command line.
func TestCheckLauncherNP(t *testing.T) {
	for _, tc := range []struct {
		given    bool
		np, size int
		cmd      string
		want     string
	}{
		{false, 1, 4, "", ""},
		{true, 4, 4, "", ""},
		{true, 4, 2, "", "-np 4: the launcher started 2 ranks; give the process count to the launcher and leave -np out, or make them agree"},
		{true, 4, 2, "mpirun -np 4 mpbench run", "-np 4: the launcher started 2 ranks; give the process count to the launcher (mpirun -np 4 mpbench run ...) and leave -np out, or make them agree"},
	} {
		err := checkLauncherNP(tc.given, tc.np, tc.size, tc.cmd)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v, want nil", tc, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || ExitStatus(err) != ExitUsage {
			t.Errorf("%+v: %v (status %d), want %q (status 2)", tc, err, ExitStatus(err), tc.want)
		}
	}
}
