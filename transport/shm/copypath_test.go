//go:build linux

package shm

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/hybrid"
	"github.com/mpbench/mpbench/transport/inmem"
)

// TestDescribeCopyPaths: the "# Single copy" line counts reader-sender
// pairs on one host, and when some copy through the rings it names why
// and which ranks (field case B35: single copy refused per peer by the
// kernel's ptrace policy).
func TestDescribeCopyPaths(t *testing.T) {
	const (
		N = PathNone
		S = PathSingle
		O = PathOff
		R = PathRefused
		U = PathUnsupported
	)
	for _, c := range []struct {
		name  string
		paths [][]CopyPath
		want  string
	}{
		{"tcp only", [][]CopyPath{nil, nil}, ""},
		{"one rank per host", [][]CopyPath{{N, N}, {N, N}}, ""},
		{"all single", [][]CopyPath{{N, S, S}, {S, N, S}, {S, S, N}},
			"process_vm_readv for every pair of ranks on one host (6 reader-sender pairs)"},
		{"off", [][]CopyPath{{N, O}, {O, N}},
			"turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (2 reader-sender pairs)"},
		{"refused between siblings", [][]CopyPath{{N, R, R, R}, {R, N, S, R}, {R, S, N, N}, {U, R, N, N}},
			"process_vm_readv for 2 of 10 reader-sender pairs on one host, the rings for 8; " +
				"process_vm_readv refused by the kernel's ptrace policy (EPERM: Yama ptrace_scope, a container's seccomp profile, or no CAP_SYS_PTRACE) for 7: " +
				"rank 0 from 1-3, rank 1 from 0,3, rank 2 from 0, rank 3 from 1; " +
				"process_vm_readv not available (ENOSYS: a kernel without cross-memory attach, or a seccomp profile) for 1: rank 3 from 0"},
	} {
		if got := describeCopyPaths(c.paths); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	many := make([][]CopyPath, 12)
	for r := range many {
		many[r] = make([]CopyPath, 12)
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

// TestCopyPathReport: the registered transport's report gives each
// rank's copy paths as its facts, also through a hybrid endpoint whose
// shared-memory part it is, none for another transport's endpoint, and
// describes the gathered facts as describeCopyPaths does.
func TestCopyPathReport(t *testing.T) {
	d, ok := transport.Lookup("shm")
	if !ok {
		t.Fatal("shm is not registered")
	}
	rep := d.Properties().Report
	if rep == nil || rep.Header != "Single copy" || rep.Key != "single_copy" {
		t.Fatalf("shm's report: %+v, want the \"Single copy\" line", rep)
	}
	eps, _ := newJob(t, 3, Options{CMABytes: -1})
	facts := make([][]byte, len(eps))
	for r, ep := range eps {
		facts[r] = rep.FactsOf(ep)
		if len(facts[r]) != 3 {
			t.Fatalf("rank %d: facts %v, want one per rank", r, facts[r])
		}
		for src, b := range facts[r] {
			if want := ep.CopyPath(src); CopyPath(b) != want {
				t.Errorf("rank %d's fact about rank %d: %v, want %v", r, src, CopyPath(b), want)
			}
		}
	}
	if got, want := rep.Describe(facts), "turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (6 reader-sender pairs)"; got != want {
		t.Errorf("Describe: %q, want %q", got, want)
	}
	others := inmem.New(2)
	defer func() {
		for _, ep := range others {
			ep.Close()
		}
	}()
	if f := rep.FactsOf(others[0]); f != nil {
		t.Errorf("facts of an inmem endpoint: %v, want none", f)
	}
	h, err := hybrid.New(0, 3, []hybrid.Part{{Name: "shm", Endpoint: eps[0]}}, []int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.FactsOf(h); len(f) != 3 || CopyPath(f[1]) != PathOff {
		t.Errorf("facts through a hybrid endpoint: %v, want the shared-memory part's", f)
	}
}
