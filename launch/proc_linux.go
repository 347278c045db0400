package launch

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr puts a rank in its own process group and has the kernel
// SIGKILL it when the launcher's spawning thread dies (PR_SET_PDEATHSIG).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procState returns the state letter of process pid from /proc/PID/stat
// (R running, S sleeping, D uninterruptible sleep, T stopped, t stopped by
// a tracer, Z zombie; proc(5)), or 0 when it cannot be read.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name in parentheses may contain blanks and parentheses;
	// the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}
