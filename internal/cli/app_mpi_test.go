//go:build mpi

package cli

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/mpi"
)

// TestAppsOnMPI runs EP and FT class S and the matrix product on 2 ranks of
// the linked MPI library through its launcher.
func TestAppsOnMPI(t *testing.T) {
	bin := mpiBinary(t)
	for _, args := range [][]string{
		{"app", "ep", "--class", "S"},
		{"app", "ft", "--class", "S"},
		{"app", "matmul", "-n", "200", "--square"},
	} {
		argv := append(append(mpi.LauncherCommand(2), bin), args...)
		out, errb, code := mpiJob(t, argv)
		if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") || !strings.Contains(out, " mpi (") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errb)
		}
	}
}
