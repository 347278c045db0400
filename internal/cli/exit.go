package cli

import (
	"context"
	"errors"
)

// Exit statuses of mpbench, decided only by exitStatus.
const (
	ExitOK          = 0   // the command completed
	ExitFailed      = 1   // the run failed (a rank's error is named in the message)
	ExitUsage       = 2   // bad input: options, benchmark names, files
	ExitInterrupted = 130 // interrupted by SIGINT (128+2, as shells report it)
	ExitTerminated  = 143 // stopped by SIGTERM (128+15)
)

// errInterrupted is returned when the user stopped the run.
var errInterrupted = errors.New("interrupted; rows measured so far were kept")

// exitStatus maps an error of a command to the process exit status, by
// the error's type only: a *usageError (bad input; cobra's errors for
// unknown commands, flags and arguments are made usage errors where they
// arise: execute, usageArgs, flagError) is 2, an interruption 130 or 143,
// any other error 1.
func exitStatus(err error) int {
	var in *interrupted
	switch {
	case err == nil:
		return ExitOK
	case isUsage(err):
		return ExitUsage
	case errors.As(err, &in):
		return in.status()
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailed
}
