package launch

import "fmt"

// fatal carries the first error after which this process must end at once
// (see Fatal); later ones are dropped.
var fatal = make(chan error, 1)

// Fatal returns the channel on which a rank reports, from a goroutine, an
// error after which the process must end at once and cannot wait for its
// run to return, which may be blocked waiting for a peer that is gone:
// package launch's watcher of the launcher sends a *LauncherLostError (so
// that no rank outlives its launcher); rank 0 of a job on an MPI library,
// signalled while it waits inside the library, sends the interrupt
// (ReportFatal). The message has been printed and the result files closed
// by then. A program that runs ranks receives from it in its main package
// and exits with the status it maps the error to (cmd/mpbench:
// internal/cli's ExitStatus).
func Fatal() <-chan error { return fatal }

// ReportFatal sends err on Fatal's channel unless an error is already
// waiting there.
func ReportFatal(err error) {
	select {
	case fatal <- err:
	default:
	}
}

// LauncherLostError reports that the launcher of this rank went away: the
// rank's control connection to it ended, or, on a host reached through a
// launch agent, standard input (the agent's connection) ended.
type LauncherLostError struct {
	Rank  int    // this rank, or -1 when not known yet
	Where string // the launcher's rendezvous address, or the host's name
	Err   error  // what ended the connection (io.EOF when it was closed)
}

// Error names the rank and the launcher's address, or the host whose
// standard input closed.
func (e *LauncherLostError) Error() string {
	if e.Rank < 0 {
		return fmt.Sprintf("host %s: the launcher's connection (standard input) closed", e.Where)
	}
	return fmt.Sprintf("rank %d: lost the control connection to the launcher at %s (%v)", e.Rank, e.Where, e.Err)
}

// Unwrap returns Err, what ended the connection.
func (e *LauncherLostError) Unwrap() error { return e.Err }

// BootstrapError is BootstrapFromStdin's refusal: the launcher's bootstrap
// line could not be read, or this executable is not the launcher's build
// (another version or build on this host). It is bad input: the fix is to
// install the launcher's build at the same path.
type BootstrapError struct {
	Msg string // one line naming the problem and the fix
}

// Error returns Msg.
func (e *BootstrapError) Error() string { return e.Msg }
