package testbed

import "fmt"

// Refusal is the error of a testbed that cannot be built: Reason is
// ErrUnsupported (this host lacks something) or ErrBusy (a testbed of the
// name is up), and Msg the one line naming the problem and the fix. Its
// Error is "<Reason>: <Msg>"; errors.Is finds the Reason, and a command
// line shows Msg alone (the reason is its exit status).
type Refusal struct {
	Reason error
	Msg    string
}

// Error returns "<Reason>: <Msg>".
func (r *Refusal) Error() string { return r.Reason.Error() + ": " + r.Msg }

// Unwrap returns Reason, for errors.Is(err, ErrUnsupported) and ErrBusy.
func (r *Refusal) Unwrap() error { return r.Reason }

// refuse returns a *Refusal for reason with a formatted message.
func refuse(reason error, format string, args ...any) error {
	return &Refusal{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}
