package cli

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/result/imb"
)

// blocks lists the tables of an IMB text as "benchmark np bytes reps"
// lines, the part of a run that does not depend on timing.
func blocks(t *testing.T, text string) []string {
	t.Helper()
	runs, err := imb.Read(strings.NewReader(text), "stdout")
	if err != nil || len(runs) != 1 || runs[0].Aborted {
		t.Fatalf("reading the output: %v %+v\n%s", err, runs, text)
	}
	var out []string
	for _, r := range runs[0].Rows {
		out = append(out, strings.Join([]string{r.Benchmark, itoa(r.Processes), itoa(int(r.Bytes)), itoa(int(r.Repetitions))}, " "))
	}
	return out
}

// pmiArgs are the benchmark arguments of the PMI end-to-end tests: fixed
// repetitions, so that the blocks do not depend on timing.
var pmiArgs = []string{"run", "-msglog", "0:3", "-iter", "20", "-iter_policy", "off", "--settle", "0", "Sendrecv", "Allreduce"}

// TestE2EMpiexecMPICH: MPICH's mpiexec (Hydra) starts 4 processes of the
// default build; they wire up through PMI, over the socket Hydra passes in
// PMI_FD or, with -pmi-port, over the port in PMI_PORT (no PMI_RANK or
// PMI_SIZE: the server tells them), and print the same blocks as mpbench
// run -np 4, with the wire-up in the header.
func TestE2EMpiexecMPICH(t *testing.T) {
	if mpiRank != nil {
		t.Skip("built with the mpi tag: under mpiexec that build runs on the MPI library, not through mpbench's PMI client")
	}
	mpiexec, err := exec.LookPath("mpiexec.mpich")
	if err != nil {
		t.Skip("mpiexec.mpich not installed (apt-get install mpich; CI installs it)")
	}
	if mpbenchBin == "" {
		t.Fatal("mpbench binary was not built")
	}
	for _, tc := range []struct {
		opts   []string
		wireup string
	}{
		{nil, "PMI-2 (mpiexec)"},
		{[]string{"-pmi-port"}, "PMI-2 (mpiexec, PMI_PORT)"},
	} {
		t.Run(tc.wireup, func(t *testing.T) {
			args := append(append(tc.opts[:len(tc.opts):len(tc.opts)], "-n", "4", mpbenchBin), pmiArgs...)
			cmd := proctest.Command(t, mpiexec, args...)
			var errb strings.Builder
			cmd.Stderr = &errb
			out, err := runWithin(t, cmd, 2*time.Minute)
			if err != nil {
				t.Fatalf("mpiexec: %v\nstderr:\n%s", err, errb.String())
			}
			if !strings.Contains(out, "# Wire-up               : "+tc.wireup+"\n") || !strings.Contains(out, "# Hosts                 : ") {
				t.Errorf("header lacks the wire-up %q or hosts:\n%s", tc.wireup, out)
			}
			sameBlocksAsNP4(t, "mpiexec", out)
		})
	}
	// The options mpbench's launcher passes its ranks apply under PMI too.
	cmd := proctest.Command(t, mpiexec, "-n", "2", mpbenchBin, "run", "--transport", "tcp", "-msglog", "0:1", "-iter", "10", "-iter_policy", "off", "PingPong")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := runWithin(t, cmd, 2*time.Minute)
	if err != nil || !strings.Contains(out, "# Transport             : tcp\n") {
		t.Errorf("mpiexec -n 2 mpbench run --transport tcp: %v, want # Transport tcp:\n%s%s", err, out, errb.String())
	}
}

// sameBlocksAsNP4 checks that out, a run of pmiArgs under launcher, has
// the blocks of mpbench run -np 4 with the same arguments.
func sameBlocksAsNP4(t *testing.T, launcher, out string) {
	t.Helper()
	ref, refOut, errr := e2eCmd(t, append(pmiArgs, "-np", "4")...)
	if err := ref.Run(); err != nil {
		t.Fatalf("mpbench run -np 4: %v\n%s", err, errr)
	}
	if got, want := blocks(t, out), blocks(t, refOut.String()); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("blocks under %s:\n%s\nwant (mpbench run -np 4):\n%s", launcher, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestE2ESrunWithoutPMI (field case B32): two tasks with srun's step
// variables and no PMI socket refuse within seconds, task 0 saying why,
// instead of running two one-rank jobs.
func TestE2ESrunWithoutPMI(t *testing.T) {
	type res struct {
		code   int
		stdout string
		stderr string
	}
	results := make([]res, 2)
	done := make(chan int, 2)
	start := time.Now()
	for r := range 2 {
		cmd, out, errb := e2eCmd(t, "run", "-msglog", "0:1", "PingPong")
		cmd.Env = append(cleanEnv(), "SLURM_JOB_ID=1", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", "SLURM_STEP_NUM_TASKS=2",
			"SLURM_STEP_NODELIST=localhost", "SLURM_PROCID="+itoa(r), "SLURM_LOCALID="+itoa(r))
		go func() {
			err := cmd.Run()
			results[r] = res{exitCode(err), out.String(), errb.String()}
			done <- r
		}()
	}
	<-done
	<-done
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refusing took %v", d)
	}
	for r, x := range results {
		if x.code != 2 || x.stdout != "" {
			t.Errorf("task %d: exit %d, stdout %q", r, x.code, x.stdout)
		}
	}
	if want := "mpbench: started by srun as one of 2 tasks but without PMI (no PMI_FD), so each task would run a job of its own; use 'srun --mpi=pmi2 -n 2 mpbench run ...'"; !strings.HasPrefix(results[0].stderr, want) || strings.Count(results[0].stderr, "\n") != 1 {
		t.Errorf("task 0 stderr %q, want one line starting %q", results[0].stderr, want)
	}
	if results[1].stderr != "" {
		t.Errorf("task 1 stderr %q, want nothing (task 0 says it)", results[1].stderr)
	}
}

// cleanEnv is the environment without launcher variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "PMI_") && !strings.HasPrefix(kv, "OMPI_") && !strings.HasPrefix(kv, "MPBENCH_") {
			env = append(env, kv)
		}
	}
	return env
}

// runWithin runs cmd, returns its stdout, and kills it after limit.
func runWithin(t *testing.T, cmd *exec.Cmd, limit time.Duration) (string, error) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	return out.String(), err
}
