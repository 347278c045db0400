package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result/rowfile"
	"github.com/mpbench/mpbench/transport/shm"
)

// TestDescribeCopyPaths: the "# Single copy" line counts reader-sender
// pairs on one host, and when some copy through the rings it names why
// and which ranks (field case B35: single copy refused per peer by the
// kernel's ptrace policy).
func TestDescribeCopyPaths(t *testing.T) {
	const (
		N = shm.PathNone
		S = shm.PathSingle
		O = shm.PathOff
		R = shm.PathRefused
		U = shm.PathUnsupported
	)
	for _, c := range []struct {
		name  string
		paths [][]shm.CopyPath
		want  string
	}{
		{"tcp only", [][]shm.CopyPath{nil, nil}, ""},
		{"one rank per host", [][]shm.CopyPath{{N, N}, {N, N}}, ""},
		{"all single", [][]shm.CopyPath{{N, S, S}, {S, N, S}, {S, S, N}},
			"process_vm_readv for every pair of ranks on one host (6 reader-sender pairs)"},
		{"off", [][]shm.CopyPath{{N, O}, {O, N}},
			"turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (2 reader-sender pairs)"},
		{"refused between siblings", [][]shm.CopyPath{{N, R, R, R}, {R, N, S, R}, {R, S, N, N}, {U, R, N, N}},
			"process_vm_readv for 2 of 10 reader-sender pairs on one host, the rings for 8; " +
				"process_vm_readv refused by the kernel's ptrace policy (EPERM: Yama ptrace_scope, a container's seccomp profile, or no CAP_SYS_PTRACE) for 7: " +
				"rank 0 from 1-3, rank 1 from 0,3, rank 2 from 0, rank 3 from 1; " +
				"process_vm_readv not available (ENOSYS: a kernel without cross-memory attach, or a seccomp profile) for 1: rank 3 from 0"},
	} {
		if got := describeCopyPaths(c.paths); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	many := make([][]shm.CopyPath, 12)
	for r := range many {
		many[r] = make([]shm.CopyPath, 12)
		for s := range many[r] {
			if s != r {
				many[r][s] = R
			}
		}
	}
	got := describeCopyPaths(many)
	if !strings.Contains(got, "for 132: rank 0 from 1-11, rank 1 from 0,2-11,") || !strings.HasSuffix(got, "rank 7 from 0-6,8-11, 4 more ranks") {
		t.Errorf("12 ranks refused everywhere: %q", got)
	}
}

// TestE2ESingleCopyHeader: a job on shared memory says in its header and
// metadata how its ranks read large payloads from each other, per pair;
// with MPBENCH_SHM_CMA=-1 that single copy is off; a TCP job has no such
// line.
func TestE2ESingleCopyHeader(t *testing.T) {
	for _, c := range []struct {
		name, env string
		args      []string
		want      []string // one of them
	}{
		{"shm", "", nil, []string{
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
			f, err := os.Open(jf)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			runs, err := rowfile.ReadJSONL(f, jf)
			if err != nil || len(runs) != 1 {
				t.Fatalf("%s: %v, %d runs", jf, err, len(runs))
			}
			if meta := runs[0].Meta.Info["single_copy"]; meta != line {
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
