package textline

import (
	"strings"
	"unicode/utf8"
)

// abortMarks are substrings of messages printed when a job dies: MPI
// libraries' abort and signal reports (Open MPI, MPICH/Hydra, Intel MPI),
// the kernel's and shells' kill messages, and batch systems' cancellations.
var abortMarks = []string{
	"mpi_abort",
	"segmentation fault",
	"process received signal",
	"exited on signal",
	"killed by signal",
	"bad termination",
	"application terminated",
	"due to time limit",
	"cancelled at",
	"core dumped",
	"fatal error in",
	"mpirun noticed",
	"srun: error",
	"aborting job",
	"prte_abort",
	"job aborted",
	"out of memory",
	"oom-kill",
}

// IsAbort reports whether s is a message telling that the job or one of its
// processes died (abort, signal, kill, batch-system cancellation).
func IsAbort(s string) bool {
	l := strings.ToLower(s)
	for _, m := range abortMarks {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// notableMarks are substrings of error and warning messages that a reader
// keeps as a result.Problem even where it otherwise skips foreign lines
// (before the first table, after the end of a run).
var notableMarks = []string{"error", "warning", "fail", "abort", "cannot", "invalid", "fatal", "denied", "timeout", "time limit"}

// IsNotable reports whether s is an error or warning message (or an abort,
// see IsAbort) that a reader should report rather than skip.
func IsNotable(s string) bool {
	if IsAbort(s) {
		return true
	}
	l := strings.ToLower(s)
	for _, m := range notableMarks {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// Quote shortens s to at most 200 bytes for a problem message and quotes it.
func Quote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		cut := 197
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}
