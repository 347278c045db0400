package busypoll

import "golang.org/x/sys/unix"

// Yield gives up the calling thread's CPU to any other runnable thread of
// the host (sched_yield); it returns at once when there is none.
func Yield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
