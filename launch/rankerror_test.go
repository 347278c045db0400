package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestRankErrorDescriptorHint: a rank that failed for lack of file
// descriptors, whether the launcher could not start it, the rank reported
// it or the Go runtime crashed on it, is named with the fix; other
// failures, and messages that only read like it, are left as they are.
func TestRankErrorDescriptorHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		host string
		want string
	}{
		{fmt.Errorf("starting /x/mpbench: %w", &os.PathError{Op: "fork/exec", Path: "/x/mpbench", Err: syscall.EMFILE}), "",
			"launch: rank 4: starting /x/mpbench: fork/exec /x/mpbench: too many open files (raise the open-file limit, ulimit -n, or lower -np)"},
		{&exitError{err: errors.New("exited with status 1"), reported: "tcp: rank 2 accept: accept tcp 127.0.0.1:39103: accept4: too many open files", emfile: true}, "limited",
			"launch: rank 4 on host limited: tcp: rank 2 accept: accept tcp 127.0.0.1:39103: accept4: too many open files (exited with status 1) (raise the open-file limit, ulimit -n, or lower -np)"},
		{&exitError{err: errors.New("exited with status 2"), crash: "crashed: runtime: epollcreate failed with 24; its goroutine stacks are in /tmp/c.txt", emfile: true}, "",
			"launch: rank 4: crashed: runtime: epollcreate failed with 24; its goroutine stacks are in /tmp/c.txt (exited with status 2) (raise the open-file limit, ulimit -n, or lower -np)"},
		{&exitError{err: errors.New("exited with status 1"), reported: "jsonl: write /dev/full: no space left on device"}, "",
			"launch: rank 4: jsonl: write /dev/full: no space left on device (exited with status 1)"},
		{errors.New("too many open files; raise ulimit -n"), "", "launch: rank 4: too many open files; raise ulimit -n"},
	} {
		got := (&RankError{Rank: 4, Host: c.host, Err: c.err}).Error()
		if got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// TestDescriptorCodes: a rank's report of an error wrapping EMFILE
// carries its code, and a crash of the Go runtime for want of descriptors
// is recognised; the exitError of either matches syscall.EMFILE.
func TestDescriptorCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
	}{
		{&WorkerError{Op: "launch", Rank: 2, Err: fmt.Errorf("tcp: rank 2 accept: %w", os.NewSyscallError("accept4", syscall.EMFILE))}, codeEMFILE},
		{errors.New("accept4: too many open files"), ""}, // text alone is not the error
	} {
		var b bytes.Buffer
		ReportError(&b, tc.err)
		rep, ok := reportedError(b.Bytes())
		if !ok || rep.code != tc.code || !strings.HasSuffix(rep.msg, "accept4: too many open files") {
			t.Errorf("ReportError(%v) wrote %q, read as %+v %v; want code %q", tc.err, b.String(), rep, ok, tc.code)
		}
		e := &exitError{err: errors.New("exited with status 1"), reported: rep.msg, emfile: rep.code == codeEMFILE}
		if got, want := errors.Is(e, syscall.EMFILE), tc.code != ""; got != want {
			t.Errorf("report %+v: errors.Is(err, syscall.EMFILE) = %v, want %v", rep, got, want)
		}
	}
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"runtime: epollcreate failed with 24\nfatal error: runtime: netpollinit failed\n", true},
		{"runtime: epollcreate failed with 240\n", false},
		{"panic: runtime error: index out of range\n", false},
	} {
		c := &crashReport{dir: t.TempDir()}
		for _, line := range strings.SplitAfter(tc.head, "\n") {
			if line != "" && (c.started() || c.begins([]byte(line))) {
				c.write([]byte(line))
			}
		}
		c.close()
		if got := c.outOfDescriptors(); got != tc.want {
			t.Errorf("crash %q: out of descriptors %v, want %v", tc.head, got, tc.want)
		}
	}
}

// TestCrashOutOfMemory: a Go runtime abort for want of memory (or of a
// thread) names the rank's address-space limit when it had one, with the
// fix; without a limit an allocation failure keeps the general fix, and a
// thread failure is an ordinary crash (its cause may be ulimit -u).
func TestCrashOutOfMemory(t *testing.T) {
	const limit = 1500000 << 10 // ulimit -v 1500000
	for _, tc := range []struct {
		head  string
		limit uint64
		want  string
		fix   string // Spec.MemoryFix
	}{
		{"runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use)\nfatal error: out of memory\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x9e7ae0 [running]:\n", limit,
			"out of memory under the address-space limit (ulimit -v 1500000): runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use); raise the limit or lower -np or the largest message size; its goroutine stacks are in ", ""},
		{"fatal error: failed to reserve page summary memory\n\nruntime stack:\n", limit,
			"out of memory under the address-space limit (ulimit -v 1500000): fatal error: failed to reserve page summary memory; raise the limit", ""},
		{"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x4a4e21 m=3 sigcode=18446744073709551610\n", limit,
			"out of memory under the address-space limit (ulimit -v 1500000): runtime/cgo: pthread_create failed: Resource temporarily unavailable; raise the limit", ""},
		{"runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use)\nfatal error: out of memory\n", 0,
			"crashed: runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use) (lower -np or the largest message size, or raise the memory limit: ulimit -v, the cgroup's); its goroutine stacks are in ", ""},
		// An application whose memory grows with its size: the job's fix.
		{"runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use)\nfatal error: out of memory\n", limit,
			"out of memory under the address-space limit (ulimit -v 1500000): runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use); raise the limit or lower -n; its goroutine stacks are in ", "lower -n"},
		{"runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use)\nfatal error: out of memory\n", 0,
			"crashed: runtime: out of memory: cannot allocate 536870912-byte block (3735552 in use) (use a smaller --class, or raise the memory limit: ulimit -v, the cgroup's); its goroutine stacks are in ", "use a smaller --class"},
		{"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n", 0,
			"crashed with SIGABRT: runtime/cgo: pthread_create failed: Resource temporarily unavailable; its goroutine stacks are in ", ""},
		{"panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n", limit,
			"crashed: panic: runtime error: index out of range; its goroutine stacks are in ", ""},
	} {
		c := &crashReport{dir: t.TempDir(), asLimit: tc.limit, fix: tc.fix}
		for _, line := range strings.SplitAfter(tc.head, "\n") {
			if line != "" && (c.started() || c.begins([]byte(line))) {
				c.write([]byte(line))
			}
		}
		c.close()
		if got := c.summary(); !strings.HasPrefix(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("crash %q under limit %d:\n%s\nwant it to start with\n%s", tc.head, tc.limit, got, tc.want)
		}
	}
}
