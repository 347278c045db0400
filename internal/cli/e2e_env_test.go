package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// TestE2EBadTransportSetting: a transport setting in the environment that
// every rank would refuse is bad input, found by the launcher before any
// rank starts: exit status 2 and one line naming the variable, the value
// and what it accepts (not a failed job naming rank 0 with "launch:"
// twice), for run and app alike.
func TestE2EBadTransportSetting(t *testing.T) {
	for _, c := range []struct {
		env, value, want string
	}{
		{tcp.SocketBufferSetting.Env, "abc", tcp.SocketBufferSetting.Want},
		{shm.CMASetting.Env, "zz", shm.CMASetting.Want},
		{shm.CMASetting.Env, "-2", shm.CMASetting.Want},
	} {
		for _, args := range [][]string{{"run", "-np", "2", "pingpong"}, {"app", "matmul", "-np", "2", "-n", "64"}} {
			cmd, out, errb := e2eCmd(t, args...)
			cmd.Env = append(os.Environ(), c.env+"="+c.value)
			code := exitCode(cmd.Run())
			want := fmt.Sprintf("mpbench: %s=%q: want %s\n", c.env, c.value, c.want)
			if code != ExitUsage || errb.String() != want || out.Len() != 0 {
				t.Errorf("%s=%s mpbench %s: exit %d, stderr %q, stdout %q; want exit 2 and %q",
					c.env, c.value, strings.Join(args, " "), code, errb.String(), out.String(), want)
			}
		}
	}
}

// TestEnvErrorIsUsage: ExitStatus maps a *launch.EnvError, wrapped or not,
// to bad input.
func TestEnvErrorIsUsage(t *testing.T) {
	err := &launch.EnvError{Err: fmt.Errorf("MPBENCH_BIND=%q: want core or none", "x")}
	for _, e := range []error{err, fmt.Errorf("app: %w", err)} {
		if got := ExitStatus(e); got != ExitUsage {
			t.Errorf("ExitStatus(%v) = %d, want %d", e, got, ExitUsage)
		}
	}
}
