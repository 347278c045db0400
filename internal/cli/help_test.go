package cli

import (
	"os"
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

// TestTuneRefusesPlacementFirst: tune passes --map-by, --hostfile, --host
// and --if on to each of its jobs; a bad one is refused once, with exit 2
// and one line, before any job runs or any file is written.
func TestTuneRefusesPlacementFirst(t *testing.T) {
	for _, c := range []struct {
		flag, value, want string
	}{
		{"--map-by", "foo", "--map-by foo"},
		{"--hostfile", "/nonexistent/hosts", "/nonexistent/hosts"},
		{"--host", "a:x", "a:x"},
		{"--if", "nosuch0", "--if nosuch0"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			dir := t.TempDir() + "/out"
			code, _, errOut := runMain(t, "tune", c.flag, c.value, "-o", dir)
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line naming %q", code, errOut, c.want)
			}
			if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
				t.Errorf("%s holds %d files after a refused option", dir, len(entries))
			}
		})
	}
}
