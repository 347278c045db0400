package proctest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envHelper makes TestHelperProcess act, in a test binary started by
// another test, as a test that binds a command and never returns.
const envHelper = "PROCTEST_HELPER"

// groupScript starts a grandchild in the shell's process group, prints
// its pid and waits.
const groupScript = "sleep 60 & echo $!; wait"

// TestHelperProcess is the other test binary of the tests below (as in
// os/exec's tests): with PROCTEST_HELPER=child it binds and starts sleep,
// with =group a shell with a grandchild (groupScript), prints the pid to
// watch and blocks until it is killed or times out. Without the variable
// it returns at once.
func TestHelperProcess(t *testing.T) {
	var cmd *exec.Cmd
	switch os.Getenv(envHelper) {
	case "child":
		cmd = Command(t, "sleep", "60")
	case "group":
		cmd = Command(t, "sh", "-c", groupScript)
		cmd.Stdout = os.Stdout
	default:
		return
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(envHelper) == "child" {
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
	}
	select {}
}

// startHelper starts this test binary running TestHelperProcess in mode
// with extra test flags, and returns it with the pid its first line of
// output names.
func startHelper(t *testing.T, mode string, flags ...string) (*exec.Cmd, int, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$"}, flags...)...)
	cmd.Env = append(os.Environ(), envHelper+"="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pid, err := startReadingPid(cmd)
	if err != nil {
		t.Fatalf("helper %s: %v; stderr:\n%s", mode, err, &stderr)
	}
	return cmd, pid, &stderr
}

// startReadingPid starts cmd and reads the pid on its first line of
// output; the rest of the output is discarded.
func startReadingPid(cmd *exec.Cmd) (int, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(line))
}

// gone reports whether process pid has ended: it no longer exists, or it
// is a zombie waiting for its parent.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// waitGone fails t unless process pid ends within 10 s.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !gone(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s (pid %d) still running 10 s later", what, pid)
		}
	}
}

// TestCleanupKillsGroup: when a test that bound a shell ends, the shell
// and the grandchild it started (in its process group) are killed.
func TestCleanupKillsGroup(t *testing.T) {
	var sh *exec.Cmd
	var grandchild int
	t.Run("bound", func(t *testing.T) {
		sh = Command(t, "sh", "-c", groupScript)
		pid, err := startReadingPid(sh)
		if err != nil {
			t.Fatal(err)
		}
		grandchild = pid
		if gone(grandchild) {
			t.Fatalf("grandchild %d is not running", grandchild)
		}
	})
	if sh.Process == nil || grandchild == 0 {
		t.Fatal("the shell did not start")
	}
	err := sh.Wait()
	if ws, ok := sh.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the shell ended with %v, want SIGKILL from the test's cleanup", err)
	}
	waitGone(t, grandchild, "the shell's child")
}

// TestChildDiesWithTestProcess: a test binary killed with SIGKILL (no
// cleanup runs) takes the command it bound with it.
func TestChildDiesWithTestProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux kills a child with its parent (PR_SET_PDEATHSIG)")
	}
	helper, child, _ := startHelper(t, "child")
	if gone(child) {
		t.Fatalf("child %d is not running", child)
	}
	helper.Process.Kill()
	helper.Wait()
	waitGone(t, child, "the child of a killed test binary")
}

// TestTimeoutKillsGroups: a test binary that reaches its -timeout (its
// panic runs no cleanup) first kills the process groups it started, so
// a shell's child goes too, which the parent-death signal alone, sent to
// the shell, would leave running.
func TestTimeoutKillsGroups(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the children are found in /proc")
	}
	helper, grandchild, stderr := startHelper(t, "group", "-test.timeout=4s")
	done := make(chan error, 1)
	go func() { done <- helper.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		helper.Process.Kill()
		t.Fatalf("the helper with -test.timeout=4s still runs after 60 s; stderr:\n%s", stderr)
	}
	waitGone(t, grandchild, "the grandchild of a test binary that timed out")
	if !strings.Contains(stderr.String(), "proctest: the test binary reaches its -timeout") || !strings.Contains(stderr.String(), "panic: test timed out after 4s") {
		t.Errorf("the helper's stderr lacks the alarm's line or the timeout:\n%s", stderr)
	}
}
