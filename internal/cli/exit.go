package cli

import (
	"context"
	"errors"
	"strings"
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

// exitStatus maps an error of a command to the process exit status.
// cobra's own errors for unknown commands and arguments count as usage.
func exitStatus(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case isUsage(err):
		return ExitUsage
	}
	var in *interrupted
	switch {
	case errors.As(err, &in):
		return in.status()
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "unknown flag"),
		strings.Contains(err.Error(), "accepts "), strings.HasPrefix(err.Error(), "invalid argument"):
		return ExitUsage
	}
	return ExitFailed
}
