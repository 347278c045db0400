//go:build mpi

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/mpi"
)

// TestTuneMPI tunes Barrier on the linked library at 2 ranks and
// verifies the result: the tuning file (Open MPI's rules, MPICH's JSON)
// starts with how it was measured and is the one the library loads (the
// verification's load check).
func TestTuneMPI(t *testing.T) {
	bin := mpiBinary(t)
	dir := filepath.Join(t.TempDir(), "tuned")
	argv := []string{bin, "tune", "--transport", "mpi", "-np", "2", "--colls", "barrier", "--rounds", "2", "-iter", "20", "-o", dir}
	out, errb, code := longJob(t, argv)
	if code != 0 {
		t.Fatalf("tune: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	file, prefix, runtime, loaded := "openmpi.rules", "# Written by mpbench tune", "runtime Open MPI v",
		"Open MPI loads openmpi.rules: a copy whose barrier rule on 2 ranks names algorithm"
	if mpi.Flavor == "mpich" {
		file, prefix, runtime, loaded = "mpich.json", "/*\n * Written by mpbench tune", "runtime MPICH 4",
			`MPICH loads mpich.json: a copy whose barrier entry names algorithm=MPIR_Barrier_intra_mpbench_probe makes MPICH report "unrecognized key`
	}
	rules, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(rules), prefix) || !strings.Contains(string(rules), runtime) {
		t.Errorf("%s does not start with how and on what it was measured:\n%.600s", file, rules)
	}
	out, errb, code = longJob(t, []string{bin, "tune", "--verify", dir, "--rounds", "2"})
	if code != 0 && code != ExitFailed {
		t.Fatalf("tune --verify: exit %d\n%s", code, errb)
	}
	if !strings.Contains(out, loaded) {
		t.Errorf("verification does not show the rules file loaded:\n%s\n%s", out, errb)
	}
	if !strings.Contains(out, "1 points: tuned faster beyond noise at") {
		t.Errorf("verification does not cover the barrier point:\n%s", out)
	}
}

// longJob is mpiJob for the few-minute jobs of tune (a dozen MPI jobs in
// a row on a loaded 2-core machine).
func longJob(t *testing.T, argv []string) (string, string, int) {
	t.Helper()
	return jobWithin(t, argv, 8*time.Minute)
}
