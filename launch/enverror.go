package launch

import "strings"

// EnvError is a variable in the environment of a job's ranks whose value
// every rank refuses: the binding (MPBENCH_BIND), the interface address
// (MPBENCH_IFADDR), the transport mode (MPBENCH_TRANSPORT) or a
// transport's own setting (a transport.IntSetting such as MPBENCH_SOCKBUF
// or MPBENCH_SHM_CMA). Its message is one line naming the variable, the
// value and what it accepts, e.g. `MPBENCH_SOCKBUF="abc": want a socket
// buffer size in bytes > 0, or -1 for the kernel default`. Run returns it
// before it starts any rank (CheckEnv, for all but the transport mode,
// which the ranks check); a command line maps it to its usage status
// (mpbench: exit status 2).
type EnvError struct {
	Err error // the problem; Error returns its message
}

// Error returns the problem's message.
func (e *EnvError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *EnvError) Unwrap() error { return e.Err }

// CheckEnv checks, through getenv, the variables a rank reads besides its
// bootstrap and its transport mode (MPBENCH_BIND, MPBENCH_IFADDR and every
// launchable transport's settings, transport.ReadSettings) as the rank
// will read them, and returns the first bad one as an *EnvError. Run calls
// it on the environment its ranks get, before it starts any; a rank that
// another launcher started (srun, mpiexec: ConnectPMI) may call it before
// it joins the job, so that the error is bad input rather than a failed
// job. MPBENCH_TRANSPORT is left to the ranks, which know the transports
// they can prepare (a command line checks its --transport against the
// same registry).
func CheckEnv(getenv func(string) string) error {
	var w workerEnv
	return w.readSettings(getenv)
}

// lookupEnv returns a getenv over env ("KEY=value" entries, as
// exec.Cmd.Env takes them): the value of the last entry for a key, as the
// process started with env sees it, "" for none.
func lookupEnv(env []string) func(string) string {
	return func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	}
}
