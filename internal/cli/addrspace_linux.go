package cli

import (
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// addressSpaceLimit returns this process's soft limit on its address space
// (RLIMIT_AS, ulimit -v) in bytes, 0 for none.
func addressSpaceLimit() uint64 {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &r); err != nil || r.Cur == unix.RLIM_INFINITY {
		return 0
	}
	return r.Cur
}

// checkAddressSpace returns addressSpaceError when this process runs under
// an address-space limit below minAddressSpace, nil without a limit or
// above it. Where Go's runtime fails before main (100000-700000 and
// 1200000-1300000 KiB) a cgo build has refused already, in the same line,
// when the program was loaded; this check serves builds without cgo.
func checkAddressSpace() error {
	if lim := addressSpaceLimit(); lim > 0 && lim < minAddressSpace {
		return addressSpaceError(lim)
	}
	return nil
}

// envMallocArenaMax is glibc's variable bounding the number of its malloc
// arenas (mallopt(3), M_ARENA_MAX).
const envMallocArenaMax = "MALLOC_ARENA_MAX"

// LimitMallocArenas executes this program again, in place and once, with
// MALLOC_ARENA_MAX=1 added to its environment when it runs under an
// address-space limit (ulimit -v) and neither that variable nor
// GLIBC_TUNABLES sets glibc's arenas. glibc gives every thread that calls
// malloc an arena of its own, a 64 MiB reservation, and each thread Go's
// runtime starts through cgo does so: a launcher of 2 ranks held 9 such
// arenas, 575 MiB of its 1.9 GiB of address space, so that jobs needed a
// limit of 2.2 GB; with one arena they run under 1.5 GB
// (minAddressSpace). Its ranks inherit the variable. The process keeps its
// pid, arguments, command name, process group and parent-death signal. LimitMallocArenas
// returns without a limit, when the variable is set, or when the exec
// failed (the program then runs as it is); otherwise it does not return.
// Call it first in main, before the program starts goroutines or opens
// files.
func LimitMallocArenas() {
	if addressSpaceLimit() == 0 || os.Getenv(envMallocArenaMax) != "" || strings.Contains(os.Getenv("GLIBC_TUNABLES"), "arena_max") {
		return
	}
	// The executable's path, not /proc/self/exe, whose name would become
	// the process's command name ("exe" in ps, and to the launcher).
	if exe, err := os.Executable(); err == nil {
		syscall.Exec(exe, os.Args, append(os.Environ(), envMallocArenaMax+"=1"))
	}
}
