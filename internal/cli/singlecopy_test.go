package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ESingleCopyHeader: a job on shared memory says in its header and
// metadata how its ranks read large payloads from each other, per pair;
// with MPBENCH_SHM_CMA=-1 that single copy is off; a TCP job has no such
// line. Single copy is set on explicitly (from 32 KiB), whatever the
// default threshold.
func TestE2ESingleCopyHeader(t *testing.T) {
	for _, c := range []struct {
		name, env string
		args      []string
		want      []string // one of them
	}{
		{"shm", "MPBENCH_SHM_CMA=32768", nil, []string{
			"process_vm_readv for every pair of ranks on one host (6 reader-sender pairs)",
			"the rings for 6; process_vm_readv refused by the kernel's ptrace policy"}}, // a container without CAP_SYS_PTRACE
		{"shm-off", "MPBENCH_SHM_CMA=-1", nil, []string{"turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (6 reader-sender pairs)"}},
		{"tcp", "", []string{"--transport", "tcp"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			jf := filepath.Join(t.TempDir(), "r.jsonl")
			args := append([]string{"run", "-np", "3", "-msglog", "0:1", "-iter", "10", "PingPong", "--json", jf, "--timeout", "60s"}, c.args...)
			cmd, out, errb := e2eCmd(t, args...)
			cmd.Env = os.Environ()
			if c.env != "" {
				cmd.Env = append(cmd.Env, c.env)
			}
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, errb)
			}
			var line string
			for l := range strings.Lines(out.String()) {
				if v, ok := strings.CutPrefix(l, "# Single copy "); ok {
					line = strings.TrimSpace(strings.TrimLeft(v, " :"))
				}
			}
			run := readOneRun(t, jf)
			if meta := run.Meta.Info["single_copy"]; meta != line {
				t.Errorf("metadata single_copy %q, header %q", meta, line)
			}
			if c.want == nil {
				if line != "" {
					t.Errorf("a TCP job's header says single copy %q", line)
				}
				return
			}
			for _, w := range c.want {
				if strings.Contains(line, w) {
					return
				}
			}
			t.Errorf("header line %q, want one of %q:\n%s", line, c.want, out)
		})
	}
}
