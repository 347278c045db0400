package bench

import "fmt"

// OptionError is bad benchmark input: an option value the parsers
// (ParseMsgLog, ParseIter, ParseMem, ParseMap, ...) cannot read, a -msglen
// file without sizes, or options that Validate or CheckPlan refuse (a
// benchmark on too few processes, buffers above -mem). Its message is one
// line naming the option as IMB spells it and the accepted form, e.g.
// "-msglog 4:2: expected -msglog a:b with integers 0 <= a <= b <= 30". A
// command line maps it to its usage status (mpbench: exit status 2).
type OptionError struct {
	Err error // the problem; Error returns its message
}

// Error returns the problem's message.
func (e *OptionError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *OptionError) Unwrap() error { return e.Err }

// optionErrorf makes an *OptionError; %w wraps as in fmt.Errorf.
func optionErrorf(format string, args ...any) error {
	return &OptionError{Err: fmt.Errorf(format, args...)}
}
