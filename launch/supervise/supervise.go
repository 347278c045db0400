// Package supervise watches a running job from outside its ranks, for the
// process that started it (mpbench's launcher, package launch, or an MPI
// library's launcher such as mpirun): it reads rank 0's IMB text as it is
// printed (result/imb's Scanner) to say where a failed job was, stops a
// job whose rank 0 prints nothing for too long (the stall watchdog) or
// that runs past its time limit, and gives a failed job's row files its
// account as their end record (result/rowfile's Files). Every child
// process a command starts, an MPI library's launcher or mpbench itself
// running one job of a sweep, runs as a Command: stopped with the user's
// signal, then SIGKILL, its failure told as an *ExitError.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result/rowfile"
)

// Watch is how a job is supervised.
type Watch struct {
	// Stdout receives rank 0's text unchanged (nil: discarded).
	Stdout io.Writer
	// Stall stops the job with a *StalledError when rank 0 has printed
	// nothing for this long; 0 never does.
	Stall time.Duration
	// Timeout stops the job when it has run this long; 0 never does. A
	// job started by package launch has its own (launch.Spec.Timeout),
	// which also names stopped ranks.
	Timeout time.Duration
	// Files are the job's row files (--json, --csv), which rank 0 writes.
	// When the job fails, Run ends each with the failed end record of its
	// account once the job is over (rowfile.Files.Seal: where rank 0 wrote
	// none, as when it was killed).
	Files rowfile.Files
	// Replace makes the account replace an end record rank 0 wrote
	// (rowfile.Files.Reseal). Set it when the launcher's error names the
	// failing rank and its signal (package launch's), which rank 0 cannot
	// know (it saw a peer vanish or its world close); an MPI library's
	// launcher says only its exit status, and rank 0's record stays.
	Replace bool
	// Label names what failed in the account: "run" when empty, e.g.
	// "app ep" for an application.
	Label string
	// Hosts is the job's rank-to-host map (nil: every rank on this host).
	// When rank 0 runs on another host the files are written there, and
	// files of the same names here are left alone.
	Hosts []string
}

// Run runs job under ctx and w: job starts the ranks with rank 0's
// standard output going to stdout, waits for them and returns the
// launcher's error, or nil. Run stops the job by cancelling the context
// it gives job (with a *StalledError cause, or the timeout's) and returns
// the launcher's account of the job:
//   - nil when it succeeded;
//   - the cause of ctx, unchanged, when ctx ended (e.g. an interrupt);
//   - Label (default "run") and " failed: " and the watchdog's or
//     timeout's cause when Run stopped the job;
//   - job's error, unchanged, when it is a *launch.EnvError: bad input
//     that launch.Run refused before it started any rank, so no job ran;
//   - else Label, " failed: " and job's error, followed by where the job was
//     ("; the job was at PingPong on 2 processes, last row #bytes 1024")
//     once rank 0 had printed a benchmark table.
//
// When the account is an error of a job that ran, w.Files get it as their
// end record.
func (w Watch) Run(ctx context.Context, job func(ctx context.Context, stdout io.Writer) error) error {
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if w.Timeout > 0 {
		var cancelT context.CancelFunc
		jctx, cancelT = context.WithTimeoutCause(jctx, w.Timeout, fmt.Errorf("the job ran longer than --timeout %v and was stopped", w.Timeout))
		defer cancelT()
	}
	progress := NewProgress(w.Stdout, time.Now())
	if w.Stall > 0 {
		go WatchStall(jctx, cancel, progress, w.Stall, time.Second)
	}
	label := w.Label
	if label == "" {
		label = "run"
	}
	jobErr := job(jctx, progress)
	var refused *launch.EnvError
	if errors.As(jobErr, &refused) && jctx.Err() == nil {
		return jobErr
	}
	err := account(ctx, jctx, jobErr, progress, label)
	if err != nil {
		w.seal(err)
	}
	return err
}

// seal gives w.Files the end record of a job that failed with err. Errors
// are ignored: err is the one to report.
func (w Watch) seal(err error) {
	if len(w.Hosts) > 0 && !launch.IsLocalHost(w.Hosts[0]) {
		return
	}
	if w.Replace {
		_ = w.Files.Reseal(err)
	} else {
		_ = w.Files.Seal(err)
	}
}

// account is the launcher's account of a job that ended with err under
// jctx, a context derived from ctx (see Watch.Run); label names the job.
func account(ctx, jctx context.Context, err error, progress *Progress, label string) error {
	if jctx.Err() != nil {
		cause := context.Cause(jctx)
		if ctx.Err() != nil && cause == context.Cause(ctx) {
			return cause
		}
		return fmt.Errorf("%s failed: %w", label, cause)
	}
	if err == nil {
		return nil
	}
	if where := progress.Where(); where != "" {
		return fmt.Errorf("%s failed: %w; %s", label, err, where)
	}
	return fmt.Errorf("%s failed: %w", label, err)
}

// EndStuck ends the files of a job whose rank 0 is signalled while it may
// be unable to stop by itself: a rank waiting inside a blocking MPI call
// for a peer that died never returns to Go. It waits until ctx ends (the
// signal) or done is closed (the run ended by itself), then grace more for
// done. If the run has still not ended, it gives files the failed end
// record of ctx's cause where none was written (rowfile.Files.Seal, as
// Watch.Run does for a failed job) and returns that cause: the caller
// reports it and ends the process. Otherwise it returns nil.
func EndStuck(ctx context.Context, done <-chan struct{}, grace time.Duration, files rowfile.Files) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
	}
	cause := context.Cause(ctx)
	_ = files.Seal(cause) // cause is the one to report
	return cause
}
