package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2ETestbedRunTornDown: mpbench testbed run with --net builds a
// testbed for the run and removes it before it exits, however the run
// ends: Ctrl-C (SIGINT, 130) and SIGTERM (143) after the first row, each
// keeping the rows measured, and a run that fails as bad input (an
// unknown benchmark, 2). No namespace of the testbed and no process on
// its nodes is left the moment the launcher has exited (kill -9 of the
// launcher is TestE2ETestbedRun's).
func TestE2ETestbedRunTornDown(t *testing.T) {
	needTestbed(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		name := "g" + strconv.Itoa(os.Getpid()%100000)
		defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
		jf := filepath.Join(t.TempDir(), "r.jsonl")
		cmd, out, errb := startUntilRow(t, jf, 60*time.Second, "testbed", "run", "--name", name, "--net", "switch", "--nodes", "2",
			"--rate", "20mbit", "--", "-msglog", "0:22", "-iter", "200", "-iter_policy", "off", "--json", jf, "PingPong")
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd, 30*time.Second); code != c.code {
			t.Errorf("%v: exit status %d, want %d; stderr:\n%s", c.sig, code, c.code, errb)
		}
		sig := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[c.sig]
		checkEndedBy(t, out.String(), jf, sig)
		assertNoTestbed(t, name, "when testbed run exited after "+sig)
	}

	name := "b" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, _, errb := e2eCmd(t, "testbed", "run", "--name", name, "--net", "hub", "--nodes", "2", "--rate", "10mbit", "--", "NoSuchBenchmark")
	if err := cmd.Run(); exitCode(err) != ExitUsage || !strings.Contains(errb.String(), "NoSuchBenchmark") {
		t.Errorf("unknown benchmark: exit status %d, want %d naming it; stderr:\n%s", exitCode(err), ExitUsage, errb)
	}
	assertNoTestbed(t, name, "when testbed run of an unknown benchmark exited")
}

// TestE2ETestbedWithoutIP: a host without iproute2's ip is refused by up
// with exit status 2 and one line naming the tool and its package.
func TestE2ETestbedWithoutIP(t *testing.T) {
	needTestbed(t)
	cmd, _, errb := e2eCmd(t, "testbed", "up", "--name", "noip")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	if err := cmd.Run(); exitCode(err) != ExitUsage || errb.String() != "mpbench: the ip command is missing; install iproute2 (apt-get install iproute2)\n" {
		t.Errorf("up without ip: exit status %d, stderr %q", exitCode(err), errb)
	}
}
