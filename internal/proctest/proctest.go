// Package proctest makes the processes a test starts end with the test,
// however the test ends: it passes or fails (its cleanup kills them), its
// test binary is killed (the kernel kills them, on Linux), or the binary
// reaches its -timeout (they are killed shortly before the timeout's
// panic, which runs no cleanup). A test that starts mpbench, a shell
// around it or a launcher such as mpiexec binds the command first:
//
//	cmd := exec.Command(bin, "run", "-np", "4", "PingPong")
//	proctest.Bind(t, cmd)
//	out, err := cmd.Output()
//
// Without it, a test binary killed at its timeout left the mpbench
// launcher it had started running, and with it every rank of the job.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Bind makes cmd, not yet started, and the processes it starts end with
// the test t:
//
//   - cmd runs in a process group of its own (its pid), so that a
//     shell's children, an mpiexec's proxies and the like, which stay in
//     their parent's group, are killed with it;
//   - on Linux the kernel sends cmd SIGKILL when the test process dies,
//     whatever kills it (PR_SET_PDEATHSIG; strictly, when the thread that
//     started cmd ends, and Go ends a thread only when a goroutine locked
//     to it returns, which these tests do not do); mpbench's launcher sets
//     the same for its ranks, so a launcher's ranks die with it;
//   - t's cleanup sends SIGKILL to cmd's process group once the test is
//     over (a command the test already waited for is then gone, and the
//     kill reaches what is left of its group);
//   - shortly before the test binary's -timeout (Alarm), every process
//     group the test process started is killed, since the timeout's panic
//     runs no cleanup and the kernel kills only the direct children.
//
// Fields of cmd.SysProcAttr already set are kept. Bind panics if cmd has
// started.
func Bind(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if cmd.Process != nil {
		panic("proctest.Bind: the command has already started")
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	dieWithParent(cmd.SysProcAttr)
	t.Cleanup(func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	armAlarm(t)
}

// Command is exec.Command(name, args...) bound to t (Bind).
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	Bind(t, cmd)
	return cmd
}

// Alarm is how long before the test binary's -timeout the processes it
// started are killed, at most: an eighth of the time left when the first
// command is bound, when that is shorter. A test that would have ended in
// that last stretch fails instead; the panic of the timeout must not come
// first.
const Alarm = 5 * time.Second

var alarmOnce sync.Once

// armAlarm starts, once per test binary, the timer that kills the test
// process's children before its -timeout (testing.T.Deadline); a binary
// without a timeout gets none.
func armAlarm(t testing.TB) {
	dl, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return
	}
	deadline, ok := dl.Deadline()
	if !ok {
		return
	}
	alarmOnce.Do(func() {
		left := time.Until(deadline)
		time.AfterFunc(left-min(Alarm, left/8), func() {
			if pids := killChildren(); len(pids) > 0 {
				fmt.Fprintf(os.Stderr, "proctest: the test binary reaches its -timeout: killed the processes it started and their groups, pids %v\n", pids)
			}
		})
	})
}
