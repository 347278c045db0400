package launch

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestReportErrorLeavesRankOut: the launcher names the failing rank (and
// its host) after "launch: ", so ReportError leaves out what a *WorkerError
// says about them and its step, and keeps the cause: the launcher's line
// has one "launch:"; other errors are reported as they are, on one line.
func TestReportErrorLeavesRankOut(t *testing.T) {
	cause := errors.New("PingPong: comm: world closed")
	for _, tc := range []struct {
		err       error
		full, msg string
	}{
		{&WorkerError{Rank: 3, Err: cause}, "rank 3: PingPong: comm: world closed", "PingPong: comm: world closed"},
		{&WorkerError{Op: "launch", Rank: 1, Err: errors.New("EOF")}, "launch: rank 1: EOF", "EOF"},
		{&WorkerError{Op: "launch", Rank: 2, Host: "node2", Err: errors.New("connecting to the rendezvous")},
			"launch: rank 2 on host node2: connecting to the rendezvous", "connecting to the rendezvous"},
		{&printed{&WorkerError{Rank: 0, Err: cause}}, "rank 0: PingPong: comm: world closed", "PingPong: comm: world closed"},
		{fmt.Errorf("bad value\nsecond line"), "bad value\nsecond line", "bad value ; second line"},
	} {
		if got := tc.err.Error(); got != tc.full {
			t.Errorf("Error() = %q, want %q", got, tc.full)
		}
		var b bytes.Buffer
		ReportError(&b, tc.err)
		got, ok := reportedError(b.Bytes())
		if !ok || got.msg != tc.msg || got.code != "" || bytes.Count(b.Bytes(), []byte("\n")) != 1 {
			t.Errorf("ReportError(%q) wrote %q, want the line of %q", tc.full, b.String(), tc.msg)
		}
	}
}

// printed wraps an error without changing its message, as a caller that
// marks an error as printed does.
type printed struct{ err error }

// Error returns the wrapped error's message.
func (p *printed) Error() string { return p.err.Error() }

// Unwrap returns the wrapped error.
func (p *printed) Unwrap() error { return p.err }
