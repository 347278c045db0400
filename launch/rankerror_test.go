package launch

import (
	"errors"
	"strings"
	"testing"
)

// TestRankErrorDescriptorHint: a rank that failed for lack of file
// descriptors, whether the launcher could not start it, the rank reported
// it or the Go runtime crashed on it, is named with the fix; other
// failures, and lines that name the fix already, are left as they are.
func TestRankErrorDescriptorHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		host string
		want string
	}{
		{errors.New("starting /x/mpbench: fork/exec /x/mpbench: too many open files"), "",
			"launch: rank 4: starting /x/mpbench: fork/exec /x/mpbench: too many open files (raise the open-file limit, ulimit -n, or lower -np)"},
		{&exitError{err: errors.New("exited with status 1"), reported: "launch: tcp: rank 2 accept: accept tcp 127.0.0.1:39103: accept4: too many open files"}, "limited",
			"launch: rank 4 on host limited: launch: tcp: rank 2 accept: accept tcp 127.0.0.1:39103: accept4: too many open files (exited with status 1) (raise the open-file limit, ulimit -n, or lower -np)"},
		{&exitError{err: errors.New("exited with status 2"), crash: "crashed: runtime: epollcreate failed with 24; its goroutine stacks are in /tmp/c.txt"}, "",
			"launch: rank 4: crashed: runtime: epollcreate failed with 24; its goroutine stacks are in /tmp/c.txt (exited with status 2) (raise the open-file limit, ulimit -n, or lower -np)"},
		{errors.New("crashed: runtime: epollcreate failed with 240"), "", "launch: rank 4: crashed: runtime: epollcreate failed with 240"},
		{errors.New("jsonl: write /dev/full: no space left on device"), "", "launch: rank 4: jsonl: write /dev/full: no space left on device"},
		{errors.New("too many open files; raise ulimit -n"), "", "launch: rank 4: too many open files; raise ulimit -n"},
	} {
		got := (&RankError{Rank: 4, Host: c.host, Err: c.err}).Error()
		if got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
		if strings.Count(got, "ulimit -n") > 1 {
			t.Errorf("fix named twice: %q", got)
		}
	}
}
