package launch

import "syscall"

// sysProcAttr puts a rank in its own process group and has the kernel
// SIGKILL it when the launcher's spawning thread dies (PR_SET_PDEATHSIG).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
