package cli

import (
	"strings"
	"testing"
)

// TestCobraCommands: the commands cobra adds itself (help, completion and
// the hidden __complete a shell calls for completions) are found by the
// unknown-command check and work: each exits 0 with its own output.
func TestCobraCommands(t *testing.T) {
	cases := []struct {
		args []string
		want string // substring of stdout
	}{
		{[]string{"help"}, "Available Commands:"},
		{[]string{"help", "run"}, "mpbench run"},
		{[]string{"completion", "bash"}, "bash completion"},
		{[]string{"__complete", "run", "--transp"}, "--transport"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := runMain(t, c.args...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, stdout has %q: %v; stderr: %s", code, c.want, strings.Contains(out, c.want), errOut)
			}
		})
	}
	if code, _, errOut := runMain(t, "helpp"); code != 2 || !strings.Contains(errOut, `unknown command "helpp"`) {
		t.Errorf("helpp: exit %d, stderr %q; want 2 and unknown command", code, errOut)
	}
}
