//go:build mpi

package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport/mpi"
)

// TestE2EMPIRun builds mpbench with the same build tags as this test (so
// against the same MPI library), starts it with the library's launcher on 2
// ranks and checks that rank 0 prints one IMB block per benchmark with a row
// per message size, naming the library as the transport.
func TestE2EMPIRun(t *testing.T) {
	launcher := mpi.LauncherCommand(2)
	if _, err := exec.LookPath(launcher[0]); err != nil {
		t.Skipf("%s not found on PATH: install the %s launcher to run this test", launcher[0], mpi.Flavor)
	}
	tags := "mpi"
	if mpi.Flavor == "mpich" {
		tags = "mpi,mpich"
	}
	bin := filepath.Join(t.TempDir(), "mpbench-mpi")
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, "github.com/mpbench/mpbench/cmd/mpbench").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %s: %v\n%s", tags, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(launcher[1:], bin, "run", "PingPong", "PingPing", "Sendrecv", "-msglog", "0:3", "-time", "1", "-iter", "50")
	cmd := exec.CommandContext(ctx, launcher[0], args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", launcher[0], strings.Join(args, " "), err, &out, &errb)
	}
	text := out.String()
	for _, b := range []string{"PingPong", "PingPing", "Sendrecv"} {
		if n := tableRows(text, b, "# #processes = 2 "); n != 5 {
			t.Errorf("%s: %d rows, want 5 (0, 1, 2, 4, 8 bytes)\n%s", b, n, text)
		}
	}
	if !strings.Contains(text, "# Transport             : mpi (") || strings.Count(text, "# Benchmarking ") != 3 {
		t.Errorf("want 3 blocks printed once (by rank 0) and the MPI library as transport:\n%s", text)
	}
}
