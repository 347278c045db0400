package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
)

// sshServer starts sshd on a free port of 127.0.0.1 with a host key and a
// client key made here, and returns the --launch-agent template that logs
// in with that key to any host name (ssh's HostName option sends every
// name to 127.0.0.1). It skips t where sshd or ssh-keygen is missing or
// the test does not run as root.
func sshServer(t *testing.T) string {
	t.Helper()
	sshd, err := exec.LookPath("/usr/sbin/sshd")
	if err != nil {
		t.Skip("sshd not installed (apt-get install openssh-server; CI installs it)")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh not installed (apt-get install openssh-client)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the ssh test starts sshd and logs in as root (CI runs as root)")
	}
	dir := t.TempDir()
	for _, k := range []string{"host", "client"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "client.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	conf := strings.Join([]string{"Port " + port, "ListenAddress 127.0.0.1", "HostKey " + filepath.Join(dir, "host"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"), "PermitRootLogin yes", "StrictModes no",
		"PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "PidFile " + filepath.Join(dir, "sshd.pid")}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll("/run/sshd", 0o755) // privilege separation directory
	cmd := proctest.Command(t, sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var log strings.Builder
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("sshd did not listen on port %s:\n%s", port, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "ssh -p " + port + " -i " + filepath.Join(dir, "client") + " -o HostName=127.0.0.1 -o BatchMode=yes" +
		" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -T {host}"
}

// workersOf lists the processes running the mpbench binary bin as a
// rank started through an agent.
func workersOf(bin string) []string {
	out, _ := exec.Command("pgrep", "-f", "-a", bin+" --mpbench-bootstrap").Output()
	return strings.Fields(strings.TrimSpace(string(out)))
}

// checkNoWorkers fails t if ranks of mpbenchBin started through an agent
// are still running 10 s after the job (when): a rank's end over its ssh
// session takes its own time on a loaded host, a left rank stays.
func checkNoWorkers(t *testing.T, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(workersOf(mpbenchBin)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if w := workersOf(mpbenchBin); len(w) > 0 {
		t.Errorf("ranks left %s: %v", when, w)
	}
}

// TestE2ESSH runs a job with one rank started over a real ssh session
// (sshd on this host, a key made by the test) and checks the results and
// that no rank is left once it ends; then the same with a host whose ssh
// fails, which must fail in one line naming the host and the cause.
func TestE2ESSH(t *testing.T) {
	agent := sshServer(t)
	cmd, out, errb := e2eCmd(t, "run", "--host", "localhost,sshnode", "--launch-agent", agent, "--if", "127.0.0.0/8",
		"-msglog", "0:2", "-iter", "20", "-iter_policy", "off", "--settle", "0", "--timeout", "90s", "PingPong", "Allreduce")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run over ssh: %v\nstderr:\n%s", err, errb)
	}
	if !strings.Contains(out.String(), "# Hosts                 : localhost: 0; sshnode: 1\n") || tableRows(out.String(), "PingPong", "# #processes = 2 \n#---") != 4 {
		t.Errorf("output:\n%s", out)
	}
	checkNoWorkers(t, "after the job")

	bad := "ssh -p 1 -o HostName=127.0.0.1 -o BatchMode=yes -T {host}" // nothing listens on port 1
	cmd, _, errb = e2eCmd(t, "run", "--host", "localhost,sshnode", "--launch-agent", bad, "--if", "127.0.0.0/8", "--timeout", "60s", "PingPong")
	err := cmd.Run()
	msg := errb.String()
	if exitCode(err) != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "rank 1 on host sshnode: exited with status 255") || !strings.Contains(msg, "Connection refused") {
		t.Errorf("failed ssh: exit %d, stderr:\n%s", exitCode(err), msg)
	}
	checkNoWorkers(t, "after the failed job")
}

// TestE2ESSHInterrupt: Ctrl-C (SIGINT to the launcher) during a job with
// a rank started over ssh ends the job with status 130, every rank in
// order: rank 0, on the launcher's host or itself started over ssh, writes
// the interrupt into its outputs and keeps its rows (a rank cut off by
// its ssh session ending would fail rank 0's run instead), and no rank is
// left running on either "host".
func TestE2ESSHInterrupt(t *testing.T) {
	agent := sshServer(t)
	for _, hosts := range []string{"localhost,sshnode", "sshnode,localhost"} {
		t.Run(hosts, func(t *testing.T) {
			jf := filepath.Join(t.TempDir(), "r.jsonl")
			cmd, out, errb := startUntilRow(t, jf, 90*time.Second, "run", "--host", hosts, "--launch-agent", agent, "--if", "127.0.0.0/8",
				"-iter", "100000", "-iter_policy", "off", "--settle", "0", "--timeout", "150s", "--json", jf, "Sendrecv")
			if len(workersOf(mpbenchBin)) == 0 {
				t.Fatal("no rank started over ssh is running")
			}
			cmd.Process.Signal(syscall.SIGINT)
			if code := waitExit(t, cmd, 30*time.Second); code != ExitInterrupted {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitInterrupted, errb)
			}
			checkEndedBy(t, out.String(), jf, "SIGINT")
			checkNoWorkers(t, "after Ctrl-C")
		})
	}
}
