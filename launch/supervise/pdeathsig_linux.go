package supervise

import (
	"os/exec"
	"syscall"
)

// dieWithParent has c killed with SIGKILL when the thread that started it
// ends (PR_SET_PDEATHSIG), as it does when this process dies.
func dieWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
