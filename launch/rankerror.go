package launch

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// RankError reports the first rank of a job that failed: it exited with a
// non-zero status, was killed by a signal, or could not be started.
type RankError struct {
	Rank int    // the failing rank
	Host string // the rank's host when the job names hosts (Spec.Hosts), else ""
	Err  error  // what happened, e.g. "exited with status 3; last stderr line: ..."
}

// Error returns "launch: rank N: <what happened>", or "launch: rank N on
// host H: <what happened>" when the job names hosts. When what happened is
// a lack of file descriptors (Err is or wraps syscall.EMFILE: in the
// launcher, or in the rank as its report or its crash says), the fix
// follows: "(raise the open-file limit, ulimit -n, or lower -np)".
func (e *RankError) Error() string {
	what := e.Err.Error()
	if errors.Is(e.Err, syscall.EMFILE) {
		what += descriptorHint
	}
	if e.Host != "" {
		return fmt.Sprintf("launch: rank %d on host %s: %s", e.Rank, e.Host, what)
	}
	return fmt.Sprintf("launch: rank %d: %s", e.Rank, what)
}

// descriptorHint is the fix for a rank that ran out of file descriptors.
const descriptorHint = " (raise the open-file limit, ulimit -n, or lower -np)"

// Unwrap returns Err.
func (e *RankError) Unwrap() error { return e.Err }

// WorkerError is an error this rank of a job ran into, as the rank itself
// tells it: Error is "[Op: ]rank N[ on host H]: <Err>", e.g. "launch: rank
// 1: reading the job table: EOF" (JoinJob) or "rank 0: PingPong: ..." (a
// run). ReportError leaves Op, the rank and the host out, since the
// launcher's *RankError ("launch: rank N: ...") names them.
type WorkerError struct {
	Op   string // the package or step that failed ("launch" for joining the job), "" for the run itself
	Rank int    // this rank
	Host string // this rank's host when worth naming, else ""
	Err  error  // what happened
}

// Error returns "[Op: ]rank N[ on host H]: <Err>".
func (e *WorkerError) Error() string {
	where := fmt.Sprintf("rank %d", e.Rank)
	if e.Host != "" {
		where += " on host " + e.Host
	}
	return e.opPrefix() + where + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *WorkerError) Unwrap() error { return e.Err }

// opPrefix is "Op: ", or "" without Op.
func (e *WorkerError) opPrefix() string {
	if e.Op == "" {
		return ""
	}
	return e.Op + ": "
}

// ErrTimeout is wrapped by the error Run returns when the job ran longer
// than Spec.Timeout.
var ErrTimeout = errors.New("launch: job exceeded its timeout")

// exitError describes how a rank's process ended; it wraps the
// *exec.ExitError, and matches syscall.EMFILE (errors.Is) when the rank
// ran out of file descriptors.
type exitError struct {
	err      error
	lastLine string
	reported string // the rank's own account (ReportError), "" if none
	crash    string // the rank's crash report in one phrase (crashReport.summary), "" if none
	oom      string // who most likely sent its SIGKILL (oomWatch.note), "" if not known
	emfile   bool   // the rank had no file descriptor left: its report's code, or its crash
	relayed  bool   // its report is another rank's failure (codeRelayed)
}

// newExitError is how a rank's process ended (err, from Wait), with what
// its stderr said: its last line, its report and its crash report.
func newExitError(err error, s *stderrCopier) *exitError {
	rep := s.report()
	return &exitError{err: err, lastLine: s.lastLine(), reported: rep.msg, crash: s.crash.summary(),
		emfile: rep.code == codeEMFILE || s.crash.outOfDescriptors(), relayed: rep.code == codeRelayed}
}

// Is reports whether target is syscall.EMFILE and the rank ran out of
// file descriptors.
func (e *exitError) Is(target error) bool {
	errno, ok := target.(syscall.Errno)
	return ok && errno == syscall.EMFILE && e.emfile
}

// Error describes the rank's end (launch.DescribeExit) after its crash
// summary or its own report when it left one, else with an out-of-memory
// note and its last stderr line.
func (e *exitError) Error() string {
	if e.crash != "" {
		return e.crash + " (" + DescribeExit(e.err) + ")"
	}
	if e.reported != "" {
		return e.reported + " (" + DescribeExit(e.err) + ")"
	}
	msg := DescribeExit(e.err)
	if e.oom != "" {
		msg += " (" + e.oom + ")"
	}
	if e.lastLine != "" {
		msg += fmt.Sprintf("; last stderr line: %q", e.lastLine)
	}
	return msg
}

// Relayed reports whether the rank's own report is another rank's failure
// relayed to it (codeRelayed).
func (e *exitError) Relayed() bool { return e.relayed }

// Unwrap returns the Wait error (an *exec.ExitError).
func (e *exitError) Unwrap() error { return e.err }

// DescribeExit turns a Wait error (an *exec.ExitError) into "exited with
// status N" or "killed by signal SIGNAME"; any other error keeps its text.
func DescribeExit(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ee.ExitCode())
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("%d (%v)", int(s), s)
}
