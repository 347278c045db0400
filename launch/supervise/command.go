package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// killDelay is how long a launcher has to end its ranks after SIGTERM
// before it is sent SIGKILL.
const killDelay = 5 * time.Second

// Command describes an MPI library's launcher to run, e.g. "mpirun.openmpi
// --allow-run-as-root --oversubscribe -np 4 mpbench run ...".
type Command struct {
	// Argv is the launcher's command line; Argv[0] is found in PATH.
	Argv []string
	// Env is its whole environment ("KEY=value").
	Env []string
	// Stdout and Stderr receive its output.
	Stdout, Stderr io.Writer
	// Install says how to install the launcher when it cannot be started,
	// e.g. "Debian: openmpi-bin".
	Install string
}

// Run runs the launcher until it exits or ctx ends; then it is sent
// SIGTERM, which it forwards to its ranks, and SIGKILL 5 s later. The
// error says "ARGV0 exited with status N (its ranks' messages are
// above)", or "starting ARGV0: ... (install the MPI library's launcher,
// INSTALL)"; when ctx ended the error is exec's, and Watch.Run's account
// names the cause instead.
func (c Command) Run(ctx context.Context) error {
	job := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	job.Env = c.Env
	job.Stdout, job.Stderr = c.Stdout, c.Stderr
	job.Cancel = func() error { return job.Process.Signal(syscall.SIGTERM) }
	job.WaitDelay = killDelay
	err := job.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		return fmt.Errorf("%s exited with status %d (its ranks' messages are above)", c.Argv[0], ee.ExitCode())
	case err != nil && ctx.Err() == nil:
		return fmt.Errorf("starting %s: %w (install the MPI library's launcher, %s)", c.Argv[0], err, c.Install)
	}
	return err
}
