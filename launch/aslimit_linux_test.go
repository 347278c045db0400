package launch

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/proctest"
)

// TestExitedAddressSpaceLimit: the limit a process set on itself (ulimit
// -v in a launch agent that then executes the rank) is read after it
// exited and before it is reaped, and the launcher's Wait still reaps it
// with its status; a process of another name (an agent such as ssh) gives
// 0, as does a process without a limit.
func TestExitedAddressSpaceLimit(t *testing.T) {
	for _, tc := range []struct {
		script, name string
		want         uint64
	}{
		{"ulimit -v 1234567 && exec sleep 0.1", "sleep", 1234567 << 10},
		{"ulimit -v 1234567 && exec sleep 0.1", "", 1234567 << 10},
		{"ulimit -v 1234567 && exec sleep 0.1", "ssh", 0},
		{"exec sleep 0.1", "sleep", 0},
	} {
		cmd := proctest.Command(t, "sh", "-c", tc.script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		got := exitedAddressSpaceLimit(cmd.Process.Pid, tc.name)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%q: Wait after the limit was read: %v, want status 0", tc.script, err)
		}
		if got != tc.want {
			t.Errorf("%q as %q: limit %d, want %d", tc.script, tc.name, got, tc.want)
		}
	}
}

// TestAddressSpaceLimit reads the line of /proc/PID/limits (proc(5)).
func TestAddressSpaceLimit(t *testing.T) {
	const limits = `Limit                     Soft Limit           Hard Limit           Units
Max stack size            8388608              unlimited            bytes
Max address space         1536000000           1536000000           bytes
Max file locks            unlimited            unlimited            locks
`
	if got := addressSpaceLimit([]byte(limits)); got != 1536000000 {
		t.Errorf("limit %d, want 1536000000", got)
	}
	if got := addressSpaceLimit([]byte(strings.Replace(limits, "1536000000 ", "unlimited ", 1))); got != 0 {
		t.Errorf("unlimited soft limit read as %d, want 0", got)
	}
}
