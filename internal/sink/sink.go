// Package sink implements bench.Sink for mpbench's outputs: the IMB-MPI1
// text format on standard output, the JSON Lines and CSV result files, a
// progress display, and a fan-out that feeds several sinks at once. Every
// sink writes each row as it arrives, so a run that fails or is
// interrupted keeps every row measured before.
package sink

import (
	"errors"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
)

// Finisher is a bench.Sink that must be told how the run ended: Finish
// writes the closing part of the output (IMB's MPI_Finalize line, the
// JSON/CSV end record, the last progress frame). runErr is nil for a
// complete run.
type Finisher interface {
	bench.Sink
	Finish(runErr error) error
}

// Fanout feeds every row to each of its sinks in order. Begin, End and
// Finish call every sink, even after one failed, and return the errors
// joined (nil when all succeed), so that one broken output does not lose
// the others' closing parts. Row stops at the first sink that fails to take
// the row and returns its error: a sink later in the list never shows a
// row that an earlier one could not keep, so with the result files before
// the terminal (as the worker orders them) every row printed is in the
// files, also when a disk fills.
type Fanout []Finisher

// Begin calls Begin on every sink.
func (f Fanout) Begin(b bench.Block) error {
	var errs []error
	for _, s := range f {
		errs = append(errs, s.Begin(b))
	}
	return errors.Join(errs...)
}

// Row calls Row on each sink in order until one fails.
func (f Fanout) Row(b bench.Block, r result.Row) error {
	for _, s := range f {
		if err := s.Row(b, r); err != nil {
			return err
		}
	}
	return nil
}

// End calls End on every sink.
func (f Fanout) End(b bench.Block) error {
	var errs []error
	for _, s := range f {
		errs = append(errs, s.End(b))
	}
	return errors.Join(errs...)
}

// Finish calls Finish on every sink.
func (f Fanout) Finish(runErr error) error {
	var errs []error
	for _, s := range f {
		errs = append(errs, s.Finish(runErr))
	}
	return errors.Join(errs...)
}
