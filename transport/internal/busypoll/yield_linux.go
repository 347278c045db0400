package busypoll

import "golang.org/x/sys/unix"

// Yield gives up the calling thread's CPU to any other runnable thread of
// the host (sched_yield); it returns at once when there is none. It is a
// raw system call: the Go scheduler does not see the thread leave, so it
// neither hands the rank's processor to another thread nor wakes one to
// poll the network meanwhile, which on an oversubscribed host would add
// threads competing with the ranks for the CPUs.
func Yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
