package cli

import (
	"strings"
	"testing"
)

// TestRunHostOptionsRefusedBeforeLaunch: host options that cannot work are
// bad input, refused in one line before any rank starts.
func TestRunHostOptionsRefusedBeforeLaunch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--host", "localhost,nodeb", "--transport", "shm", "PingPong"}, "--transport shm: the ranks are on 2 hosts"},
		{[]string{"run", "--host", "localhost,nodeb", "--if", "10.0.0.0/33", "PingPong"}, "--if 10.0.0.0/33: not a network"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
