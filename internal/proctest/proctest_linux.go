package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// dieWithParent has the kernel send the child SIGKILL when its parent
// dies (PR_SET_PDEATHSIG).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// killChildren sends SIGKILL to the process group of every child of this
// process (Bind's commands lead one; a child that leads none has no group
// of its own pid) and to the child itself, and returns their pids. The
// children are those of each thread of this process,
// /proc/self/task/TID/children (proc(5)): a few short files, where a scan
// of every /proc/PID/stat took more than the alarm's 3 s on a host at a
// load of 50.
func killChildren() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(s)
			if err != nil || pid <= 1 {
				continue
			}
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
			pids = append(pids, pid)
		}
	}
	return pids
}
