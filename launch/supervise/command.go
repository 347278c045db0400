package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/mpbench/mpbench/launch"
)

// killDelay is how long a child has to end (and end its own ranks) after
// its stop signal before it is sent SIGKILL.
const killDelay = 5 * time.Second

// Command is a child process a command starts and supervises: an MPI
// library's launcher (e.g. "mpirun.openmpi --allow-run-as-root
// --oversubscribe -np 4 mpbench run ..."), or mpbench itself running one
// job of a sweep ("mpbench run" for mpbench tune, "mpbench app" for mpbench
// scaling, "mpbench testbed exec" for mpbench testbed run). Every one is
// stopped, and its end described, the same way (Run).
type Command struct {
	// Argv is the command line; Argv[0] is found in PATH.
	Argv []string
	// Name names the child in errors; "" means Argv[0].
	Name string
	// Env is its whole environment ("KEY=value"); nil means this
	// process's.
	Env []string
	// Stdout and Stderr receive its output (nil: discarded).
	Stdout, Stderr io.Writer
	// Install says how to install Argv[0] when it cannot be started, e.g.
	// "install the MPI library's launcher, Debian: openmpi-bin".
	Install string
	// Note follows the description of a child that failed, in
	// parentheses, e.g. "its ranks' messages are above".
	Note string
}

// ExitError is a child that failed by itself: it exited with a non-zero
// status or was killed by a signal Run did not send. Its message is "NAME
// exited with status N" or "NAME killed by signal SIGKILL" (as launch
// describes a rank's end), followed by the Command's Note.
type ExitError struct {
	Name string
	Err  *exec.ExitError
	Note string
}

// Error returns "NAME exited with status N[ (NOTE)]".
func (e *ExitError) Error() string {
	msg := e.Name + " " + e.Exit()
	if e.Note != "" {
		msg += " (" + e.Note + ")"
	}
	return msg
}

// Exit is how the child ended: "exited with status N" or "killed by
// signal SIGNAME" (launch.DescribeExit).
func (e *ExitError) Exit() string { return launch.DescribeExit(e.Err) }

// ExitCode is the child's exit status, -1 when a signal killed it.
func (e *ExitError) ExitCode() int { return e.Err.ExitCode() }

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// Run runs the child until it exits or ctx ends; then it is sent the
// signal of ctx's cause (launch.StopSignal: SIGINT when the user pressed
// Ctrl-C, else SIGTERM), which an MPI launcher forwards to its ranks and
// mpbench answers by ending its job in order, and SIGKILL 5 s later.
// The error is an *ExitError when the child failed by itself, or
// "starting NAME: ...[ (INSTALL)]" when it could not be
// started; when ctx ended the error is exec's, and the caller names the
// cause instead (Watch.Run's account does).
func (c Command) Run(ctx context.Context) error {
	r, err := c.Start(ctx)
	if err != nil {
		return err
	}
	return r.Wait()
}

// Running is a child started by Command.Start.
type Running struct {
	c   Command
	ctx context.Context
	job *exec.Cmd
}

// Start starts the child and returns at once; it is stopped as Run stops
// it, when ctx ends, and Wait waits for its end. Its error is Run's for a
// child that could not be started.
func (c Command) Start(ctx context.Context) (*Running, error) {
	job := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	job.Env = c.Env
	job.Stdout, job.Stderr = c.Stdout, c.Stderr
	job.Cancel = func() error { return job.Process.Signal(launch.StopSignal(ctx)) }
	job.WaitDelay = killDelay
	if err := job.Start(); err != nil {
		if c.Install != "" {
			return nil, fmt.Errorf("starting %s: %w (%s)", c.name(), err, c.Install)
		}
		return nil, fmt.Errorf("starting %s: %w", c.name(), err)
	}
	return &Running{c: c, ctx: ctx, job: job}, nil
}

// Wait waits for the child to end and returns Run's error: nil, an
// *ExitError when it failed by itself, exec's error when ctx ended.
func (r *Running) Wait() error {
	err := r.job.Wait()
	if err == nil || r.ctx.Err() != nil {
		return err
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &ExitError{Name: r.c.name(), Err: ee, Note: r.c.Note}
	}
	return fmt.Errorf("%s: %w", r.c.name(), err)
}

// name is the child's name in errors: Name, else Argv[0].
func (c Command) name() string {
	if c.Name == "" {
		return c.Argv[0]
	}
	return c.Name
}
