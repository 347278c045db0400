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

// selfStatus returns this process's thread count and resident set size in
// bytes from /proc/self/status (Threads, VmRSS), zeros when unreadable.
func selfStatus() (threads int, rss int64) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(string(f[0]), 10, 64)
		switch string(k) {
		case "Threads":
			threads = int(n)
		case "VmRSS":
			rss = n << 10 // kB
		}
	}
	return threads, rss
}
