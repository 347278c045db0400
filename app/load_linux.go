package app

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill c when the thread that started it
// exits (PR_SET_PDEATHSIG), so that no load process outlives its rank.
func dieWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
