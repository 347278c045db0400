package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is the error of a run stopped by SIGINT or SIGTERM. It
// matches errInterrupted (errors.Is) and gives exit status 128+signal, as
// shells report a process killed by that signal (130 for SIGINT, 143 for
// SIGTERM).
type interrupted struct{ sig syscall.Signal }

// Error names the signal and says that the rows measured were kept.
func (e *interrupted) Error() string {
	name := "SIGINT"
	if e.sig == syscall.SIGTERM {
		name = "SIGTERM"
	}
	return "interrupted by " + name + "; rows measured so far were kept"
}

// Is makes errors.Is(err, errInterrupted) true.
func (e *interrupted) Is(target error) bool { return target == errInterrupted }

// Signal is the signal, which makes an *interrupted a launch.Interrupt:
// the launcher passes it on to the ranks.
func (e *interrupted) Signal() syscall.Signal { return e.sig }

// status is the exit status 128+signal.
func (e *interrupted) status() int { return 128 + int(e.sig) }

// notifyInterrupt returns a context that is cancelled at the first SIGINT
// or SIGTERM with an *interrupted cause (context.Cause), and a function
// that stops listening.
func notifyInterrupt(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			sig, _ := s.(syscall.Signal)
			cancel(&interrupted{sig: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// cancelCause is ctx's cause (an *interrupted naming the signal) when ctx
// was cancelled with one, else err.
func cancelCause(ctx context.Context, err error) error {
	var in *interrupted
	if cause := context.Cause(ctx); errors.As(cause, &in) {
		return cause
	}
	return err
}
