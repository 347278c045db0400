package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/netnstest"
)

// TestRemoteRanksNetns starts ranks on network-namespace hosts through the
// launch agent "ip netns exec {host}" and checks how each rank reaches its
// peers: shared memory within a namespace host, TCP between hosts, both
// when a job spans hosts with several ranks each; and that every rank
// learns the rank-to-host map.
func TestRemoteRanksNetns(t *testing.T) {
	net := netnstest.New(t, 2)
	a, b := net.Hosts[0], net.Hosts[1]
	agent, err := ParseAgent(netnstest.Agent)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		hosts     []string
		transport string
		ifSpec    string
	}{
		{"one host", []string{a, a}, "shm", net.CIDR},
		{"two hosts", []string{a, b}, "tcp", net.CIDR},
		{"two hosts v6", []string{a, b}, "tcp", net.CIDR6},
		{"two by two", []string{a, a, b, b}, "shm+tcp", net.CIDR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncBuffer
			err := Run(context.Background(), Spec{NP: len(tc.hosts), Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=where"},
				Hosts: tc.hosts, Agent: agent, If: tc.ifSpec, Timeout: 60 * time.Second, Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatalf("Run: %v\nstderr:\n%s", err, stderr.String())
			}
			if want := fmt.Sprintf("exchange ok np=%d\n", len(tc.hosts)); stdout.String() != want {
				t.Errorf("stdout %q, want %q", stdout.String(), want)
			}
			wantMap := FormatRankHosts(tc.hosts)
			for r := range tc.hosts {
				line := fmt.Sprintf("rank %d: %s %s %s", r, tc.transport, wantMap, WireupLauncher)
				if !strings.Contains(stderr.String(), line+"\n") {
					t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
				}
			}
		})
	}
}

// TestRemoteFailures checks that a rank the agent cannot start fails the
// job in one line naming the rank's host and the cause, and that nothing
// is left running in any namespace.
func TestRemoteFailures(t *testing.T) {
	net := netnstest.New(t, 2)
	agent, _ := ParseAgent(netnstest.Agent)
	for _, tc := range []struct {
		name  string
		hosts []string
		argv0 string
		want  []string
	}{
		{"no such host", []string{net.Hosts[0], "mbt-nohost"}, "", []string{"rank 1 on host mbt-nohost", "mbt-nohost"}},
		{"missing binary", []string{net.Hosts[0], net.Hosts[1]}, "/nonexistent/mpbench", []string{" on host mbt", "/nonexistent/mpbench", "No such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv0 := tc.argv0
			if argv0 == "" {
				argv0 = testExe(t)
			}
			var stderr syncBuffer
			start := time.Now()
			err := Run(context.Background(), Spec{NP: 2, Argv: []string{argv0}, Env: []string{quickExit, envMode + "=exchange"},
				Hosts: tc.hosts, Agent: agent, If: net.CIDR, Timeout: 60 * time.Second, Stderr: &stderr})
			if err == nil {
				t.Fatal("Run succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("failure took %v", d)
			}
			for _, h := range net.Hosts {
				if p := net.Pids(h); len(p) > 0 {
					t.Errorf("processes %v left in %s", p, h)
				}
			}
		})
	}
}

// TestRemoteBuildMismatch: a rank whose binary is another build refuses,
// naming its host and both versions.
func TestRemoteBuildMismatch(t *testing.T) {
	msg := buildMismatch(bootstrap{Host: "node7", Version: "1.0", Build: "aaaa/bbbb/cccc/dddd-launcher"}, "1.0", "aaaa/bbbb/cccc/dddd-worker01")
	for _, w := range []string{"host node7", "mpbench 1.0 (build ddd-worker01)", "the launcher runs mpbench 1.0 (build ddd-launcher)", "install the same build"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
	if m := buildMismatch(bootstrap{Version: "1.0", Build: "x"}, "1.0", "x"); m != "" {
		t.Errorf("same build refused: %q", m)
	}
	if id := BuildID(); id == "" || id != readBuildID(os.Args[0]) {
		t.Errorf("BuildID %q, of os.Args[0] %q", id, readBuildID(os.Args[0]))
	}
}

// TestRemoteRankDies: a rank on another host is killed mid-job; the job
// fails in one error naming that rank, its host and the signal, and no
// process is left on any host.
func TestRemoteRankDies(t *testing.T) {
	net := netnstest.New(t, 2)
	agent, _ := ParseAgent(netnstest.Agent)
	dir := t.TempDir()
	hosts := []string{net.Hosts[0], net.Hosts[0], net.Hosts[1], net.Hosts[1]}
	ch := startJob(context.Background(), Spec{NP: 4, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=hang", envDir + "=" + dir},
		Hosts: hosts, Agent: agent, If: net.CIDR, Timeout: 60 * time.Second})
	pids := waitPids(t, dir, 4, ch)
	if err := syscall.Kill(pids[3], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := await(t, ch, 20*time.Second)
	if want := "launch: rank 3 on host " + net.Hosts[1] + ": killed by signal SIGKILL"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	for _, h := range net.Hosts {
		if p := net.Pids(h); len(p) > 0 {
			t.Errorf("processes %v left on %s", p, h)
		}
	}
}

// interruptCause is a context cause naming a signal (an Interrupt).
type interruptCause syscall.Signal

// Error returns "interrupted".
func (c interruptCause) Error() string { return "interrupted" }

// Signal returns the signal the cause names.
func (c interruptCause) Signal() syscall.Signal { return syscall.Signal(c) }

// TestRemoteStop: a job stopped by an interrupt passes its signal on to
// every rank, also to a rank whose agent runs it apart from the agent's
// process group (as ssh does: a signal to the agent would not reach it),
// so that each rank ends in order; nothing is left running.
func TestRemoteStop(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) from util-linux is not installed")
	}
	// setsid --wait runs the rank in a session of its own and waits for it.
	agent, err := ParseAgent("env MPBENCH_TESTHOST={host} setsid --wait")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	var stderr syncBuffer
	ch := startJob(ctx, Spec{NP: 3, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=graceful", envDir + "=" + dir},
		Hosts: []string{"localhost", "hostA", "hostB"}, Agent: agent, If: "127.0.0.0/8", Timeout: 60 * time.Second, Stderr: &stderr})
	pids := waitPids(t, dir, 3, ch)
	cancel(interruptCause(syscall.SIGINT))
	if err := await(t, ch, 20*time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Run: %v, want context.Canceled", err)
	}
	for r, prefix := range []string{"", "[rank 1] ", "[rank 2] "} {
		if line := fmt.Sprintf("%srank %d: stopped by interrupt\n", prefix, r); !strings.Contains(stderr.String(), line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
		}
	}
	for r, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("rank %d (pid %d) still running", r, pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
