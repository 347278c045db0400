package launch

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// exitedAddressSpaceLimit waits until process pid has exited, without
// reaping it (waitid with WNOWAIT: the caller's Wait reaps it), and
// returns its soft limit on address space (RLIMIT_AS, what ulimit -v
// sets) in bytes from /proc/PID/limits, which the kernel keeps until the
// process is reaped. It returns 0 when the process had no limit, when the
// limit cannot be read, and when name is not "" and the process's command
// name (/proc/PID/comm, at most 15 bytes) is not name's: a rank started
// through a launch agent is the agent's process, which is the rank only
// when the agent ended by executing it (sh -c '... exec "$@"'), not when
// it runs the rank elsewhere (ssh).
func exitedAddressSpaceLimit(pid int, name string) uint64 {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			return 0
		}
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	if name != "" {
		comm, err := os.ReadFile(dir + "comm")
		if err != nil || string(bytes.TrimSpace(comm)) != name[:min(len(name), 15)] {
			return 0
		}
	}
	b, err := os.ReadFile(dir + "limits")
	if err != nil {
		return 0
	}
	return addressSpaceLimit(b)
}

// addressSpaceLimit reads the soft limit on address space from the text of
// /proc/PID/limits (proc(5): a header, then one line per limit, "Max
// address space  <soft>  <hard>  bytes", "unlimited" for none): bytes, 0
// for none or a text without the line.
func addressSpaceLimit(limits []byte) uint64 {
	for _, line := range bytes.Split(limits, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("Max address space"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseUint(string(f[0]), 10, 64)
		if err != nil {
			return 0
		}
		return n
	}
	return 0
}
