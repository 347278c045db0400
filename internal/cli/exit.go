package cli

import (
	"context"
	"errors"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/launch/supervise"
)

// Exit statuses of mpbench, decided only by ExitStatus.
const (
	ExitOK          = 0   // the command completed
	ExitFailed      = 1   // the run failed (a rank's error is named in the message)
	ExitUsage       = 2   // bad input: options, benchmark names, files
	ExitInterrupted = 130 // interrupted by SIGINT (128+2, as shells report it)
	ExitTerminated  = 143 // stopped by SIGTERM (128+15)
)

// errInterrupted is returned when the user stopped the run.
var errInterrupted = errors.New("interrupted; rows measured so far were kept")

// ExitStatus maps an error of a command, or one received from
// launch.Fatal, to the process exit status, by the error's type only: bad
// input is 2: a *usageError (cobra's errors for unknown commands, flags
// and arguments are made usage errors where they arise: execute,
// usageArgs, flagError), a *bench.OptionError (a benchmark option bench's
// parsers or checks refuse), a *launch.HostsError (a hostfile, host list
// or launch agent that does not parse), a *launch.EnvError (a variable in
// the environment that every rank would refuse, e.g. MPBENCH_SOCKBUF=abc,
// found before any rank starts) or a *launch.BootstrapError (a host with
// another build); an interruption is 130 or 143; any other error (a
// *launch.LauncherLostError included) 1. It is the only place that
// decides an exit status.
func ExitStatus(err error) int {
	var in *interrupted
	var boot *launch.BootstrapError
	var env *launch.EnvError
	switch {
	case err == nil:
		return ExitOK
	case isUsage(err), errors.As(err, &boot), errors.As(err, &env):
		return ExitUsage
	case errors.As(err, &in):
		return in.status()
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailed
}

// childUsage reports whether err is a child mpbench's exit with status 2
// (a *supervise.ExitError): bad input, which the child explained on its
// stderr. A command that runs mpbench jobs (testbed run, scaling) returns
// it as bad input too, so it exits 2 as the child did.
func childUsage(err error) bool {
	var ee *supervise.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == ExitUsage
}
