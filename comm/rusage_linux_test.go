package comm_test

import "golang.org/x/sys/unix"

// rusageThread asks getrusage for the calling thread's CPU time.
const rusageThread = unix.RUSAGE_THREAD
