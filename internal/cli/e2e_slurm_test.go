package cli

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
)

// slurmUp skips t unless srun is installed and a Slurm controller
// answers (CI starts a one-node cluster with .ci/slurm-up).
func slurmUp(t *testing.T) string {
	t.Helper()
	srun, err := exec.LookPath("srun")
	if err != nil {
		t.Skip("srun not installed; .ci/slurm-up installs Slurm and starts a one-node cluster (CI runs it)")
	}
	out, _ := exec.Command("scontrol", "ping").CombinedOutput()
	if !strings.Contains(string(out), "UP") {
		t.Skipf("no Slurm controller answers (scontrol ping: %s); .ci/slurm-up starts one (CI runs it)", strings.TrimSpace(string(out)))
	}
	if mpbenchBin == "" {
		t.Fatal("mpbench binary was not built")
	}
	if mpiRank != nil {
		t.Skip("built with the mpi tag: under srun that build runs on the MPI library, not through mpbench's PMI client")
	}
	return srun
}

// TestE2ESrun: srun -n 4 --mpi=pmi2 starts 4 ranks of the default build
// that wire up through Slurm's PMI-2 and print the same blocks as
// mpbench run -np 4; the header names the wire-up.
func TestE2ESrun(t *testing.T) {
	srun := slurmUp(t)
	cmd := proctest.Command(t, srun, append([]string{"-n", "4", "--mpi=pmi2", "--time=5", mpbenchBin}, append(pmiArgs, "-np", "4")...)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := runWithin(t, cmd, 3*time.Minute)
	if err != nil {
		t.Fatalf("srun: %v\nstderr:\n%s", err, errb.String())
	}
	if !strings.Contains(out, "# Wire-up               : PMI-2 (srun)\n") {
		t.Errorf("header lacks the wire-up:\n%s", out)
	}
	sameBlocksAsNP4(t, "srun", out)
}

// TestE2ESrunNoPMI (field case B32 on a real srun): without --mpi=pmi2
// (the cluster's MpiDefault is none) two tasks refuse at once, task 0
// saying how to start the job, instead of running two one-rank jobs.
func TestE2ESrunNoPMI(t *testing.T) {
	srun := slurmUp(t)
	cmd := proctest.Command(t, srun, "-n", "2", "--mpi=none", "--time=5", mpbenchBin, "run", "-msglog", "0:1", "PingPong")
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	out, err := runWithin(t, cmd, 2*time.Minute)
	if err == nil || out != "" {
		t.Fatalf("srun without PMI: %v, stdout:\n%s", err, out)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("refusing took %v", d)
	}
	if got := errb.String(); strings.Count(got, "started by srun as one of 2 tasks but without PMI") != 1 || !strings.Contains(got, "srun --mpi=pmi2 -n 2") {
		t.Errorf("stderr:\n%s\nwant one line naming srun --mpi=pmi2", got)
	}
}

// TestE2ESrunPMIx: srun --mpi=pmix offers only PMIx, which the default
// build does not speak: two tasks refuse at once, task 0 naming
// --mpi=pmi2, instead of running as two one-rank jobs.
func TestE2ESrunPMIx(t *testing.T) {
	srun := slurmUp(t)
	if out, _ := exec.Command(srun, "--mpi=list").CombinedOutput(); !strings.Contains(string(out), "pmix") {
		t.Skipf("this Slurm has no PMIx plugin (srun --mpi=list: %s)", strings.TrimSpace(string(out)))
	}
	cmd := proctest.Command(t, srun, "-n", "2", "--mpi=pmix", "--time=5", mpbenchBin, "run", "-msglog", "0:1", "PingPong")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := runWithin(t, cmd, 2*time.Minute)
	if exitCode(err) != ExitUsage || out != "" {
		t.Fatalf("srun --mpi=pmix: %v, stdout:\n%s\nstderr:\n%s", err, out, errb.String())
	}
	want := "mpbench: started by srun with PMIx (--mpi=pmix), which this mpbench does not speak; use 'srun --mpi=pmi2 -n 2 mpbench run ...'"
	if got := errb.String(); strings.Count(got, "mpbench: ") != 1 || !strings.Contains(got, want) {
		t.Errorf("stderr:\n%s\nwant one line %q", got, want)
	}
}
