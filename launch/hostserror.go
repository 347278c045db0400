package launch

// HostsError is bad input about where ranks run, from ParseHostfile,
// ReadHostfile, ParseHostList, MapRanks and ParseAgent: a hostfile that
// cannot be read or does not parse, a host list that does not parse, more
// ranks than the hosts' slots, an unknown mapping policy, a --launch-agent
// template that does not split into words. Its message is one line naming
// the input (file and line, list, option) and the accepted form. A command
// line maps it to its usage status (mpbench: exit status 2).
type HostsError struct {
	Err error // the problem; Error returns its message
}

// Error returns the problem's message.
func (e *HostsError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *HostsError) Unwrap() error { return e.Err }

// asHostsError makes the error *err, when not nil, a *HostsError.
func asHostsError(err *error) {
	if *err != nil {
		*err = &HostsError{Err: *err}
	}
}
