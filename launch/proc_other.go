//go:build unix && !linux

package launch

import "syscall"

// sysProcAttr puts a rank in its own process group. Without a parent-death
// signal, ranks rely on the control connection to exit with the launcher.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// procState is not available without /proc: 0 (unknown).
func procState(pid int) byte { return 0 }

// selfStatus is not available without /proc: zeros.
func selfStatus() (threads int, rss int64) { return 0, 0 }
