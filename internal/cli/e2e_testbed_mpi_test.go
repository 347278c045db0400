//go:build mpi

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/mpi"
	"github.com/mpbench/mpbench/testbed"
)

// TestE2EMPITestbed runs the MPI build of mpbench across two nodes of a
// 20 Mbit/s emulated switch with the library's own launcher, started on
// node 1 with the testbed's hostfile and launch agent (Open MPI's
// plm_rsh_agent, MPICH hydra's -launcher-exec: testbed.MPILauncher, the
// lines "testbed status" prints). Each rank first writes its hostname and
// eth0 address, so the test sees rank K on node K+1 (its own UTS and
// network namespace), and the 64 KiB PingPong must take at least the
// switch's wire time (27.7 ms, which a library bypassing the emulated
// network through shared memory or the host's loopback beats a
// hundredfold), with the forwarder counting the frames.
func TestE2EMPITestbed(t *testing.T) {
	needTestbed(t)
	bin := mpiBinary(t)
	name := "m" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, out, errb := e2eCmd(t, "testbed", "up", "--name", name, "--nodes", "2", "--net", "switch", "--rate", "20mbit")
	if err := cmd.Run(); err != nil {
		t.Fatalf("up: %v\n%s%s", err, out, errb)
	}
	st, err := testbed.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The rank variable: hydra's PMI_RANK, Open MPI's OMPI_COMM_WORLD_RANK.
	script := `r=${PMI_RANK:-$OMPI_COMM_WORLD_RANK}; { hostname; ip -o -4 addr show dev eth0; } >"$0/rank.$r"; exec "$@"`
	argv := []string{mpbenchBin, "testbed", "exec", "--name", name, "--node", "1", "--"}
	argv = append(append(argv, testbed.MPILauncher(st, mpi.Flavor, 2)...),
		"sh", "-c", script, dir, bin, "run", "-msglog", "16:16", "-iter", "20", "-iter_policy", "off", "-time", "5", "PingPong")
	stdout, stderr, code, hung := jobOrFinalizeHang(t, argv, 75*time.Second)
	switch {
	case hung && strings.Contains(stdout, "# All processes entering MPI_Finalize") && rowTime(stdout, 65536) > 0 && mpichFinalizeDeadlock(stdout):
		// The job measured and printed everything, then stayed in
		// MPI_Finalize: MPICH 3.4-4.1 with UCX (ch4:ucx) waits in a PMI
		// barrier after disconnecting its UCX endpoints, and a rank whose
		// disconnect needs its peer's reply spins while that peer blocks
		// in the barrier (docs/testbed.md, "MPICH's finalize"). The rest
		// of the run is checked; the testbed's down ends the processes
		// left on the nodes.
		t.Logf("%s: the job printed its results and then hung in MPI_Finalize for 75 s (MPICH's deadlock between its UCX disconnect and its PMI barrier); ended it", mpi.Flavor)
	case hung || code != 0:
		t.Fatalf("%s: exit status %d (hung: %v)\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), code, hung, stdout, stderr)
	}
	for r := 0; r < 2; r++ {
		b, err := os.ReadFile(filepath.Join(dir, "rank."+strconv.Itoa(r)))
		host, addr := testbed.NodeName(name, r+1), "inet "+testbed.Addr(r+1)+"/24"
		if err != nil || !strings.HasPrefix(string(b), host+"\n") || !strings.Contains(string(b), addr) {
			t.Errorf("rank %d ran on %q (%v); want node %s with %s", r, b, err, host, addr)
		}
	}
	// 64 KiB at 20 Mbit/s: 45 full frames on each of the two lines of the
	// store-and-forward switch, both lines busy at once (frame k+1 on the
	// first while frame k is on the second), 27.7 ms one way at the least.
	if t64 := rowTime(stdout, 65536); t64 < 27700 {
		t.Errorf("65536-byte PingPong took %.1f usec, less than the switch's wire time (27700): the library did not use the emulated network\n%s", t64, stdout)
	}
	if !strings.Contains(stdout, "# Transport             : mpi (") {
		t.Errorf("the run is not the MPI build's:\n%s", stdout)
	}
	cmd, out, _ = e2eCmd(t, "testbed", "status", "--name", name)
	if err := cmd.Run(); err != nil {
		t.Fatalf("status: %v", err)
	}
	// 20 PingPongs of 64 KiB are 2 x 20 x 45 data frames through the forwarder.
	if n := forwarderFrames(out.String()); n < 1800 {
		t.Errorf("the forwarder counted %d frames in, want at least 1800 (the PingPong's data frames):\n%s", n, out)
	}
}

// mpichFinalizeDeadlock reports whether the run's header names a library
// with the finalize deadlock of MPICH 3.4-4.1 on UCX: its MPI_Finalize
// disconnects the UCX endpoints and then waits in a PMI barrier, so a rank
// whose disconnect still needs its peer's reply (UCX's TCP transport
// answers a flush with a PUT acknowledgement) spins for ever while that
// peer blocks in the barrier. MPICH 4.2 moved the barrier before the
// disconnect (pmodels/mpich d6c7cd5b).
func mpichFinalizeDeadlock(stdout string) bool {
	_, v, ok := strings.Cut(stdout, "# Transport             : mpi (MPICH Version: ")
	if !ok {
		return false
	}
	var major, minor int
	n, _ := fmt.Sscanf(v, "%d.%d", &major, &minor)
	return n == 2 && (major == 3 && minor >= 4 || major == 4 && minor < 2)
}

// jobOrFinalizeHang runs argv for at most limit and returns its output,
// its exit status and whether it was still running at limit (then it is
// killed; the processes it started on other nodes stay for the testbed's
// down to end).
func jobOrFinalizeHang(t *testing.T, argv []string, limit time.Duration) (stdout, stderr string, code int, hung bool) {
	cmd := proctest.Command(t, argv[0], argv[1:]...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second // the ranks left on the nodes hold the output pipes
	if err := cmd.Start(); err != nil {
		return "", err.Error(), -1, false
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), errb.String(), exitCode(err), false
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return out.String(), errb.String(), -1, true
	}
}

// forwarderFrames returns the "N frames in" of a status's forwarder line,
// or -1.
func forwarderFrames(status string) int {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "# forwarder: "); ok {
			if f := strings.Fields(rest); len(f) > 2 && f[1] == "frames" {
				n, err := strconv.Atoi(f[0])
				if err == nil {
					return n
				}
			}
		}
	}
	return -1
}
