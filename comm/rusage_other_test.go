//go:build !linux

package comm_test

import "golang.org/x/sys/unix"

// rusageThread: other systems have no per-thread getrusage, so the
// benchmark's thread-cpu-ns/op is the whole process's there.
const rusageThread = unix.RUSAGE_SELF
