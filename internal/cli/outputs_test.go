package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/testbed"
)

func TestCheckOutputPaths(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "out")
	for _, tc := range []struct{ json, csv, want string }{
		{f, f, "--json " + f + " and --csv " + f + " name the same file"},
		{f, filepath.Join(dir, ".", "sub", "..", "out"), "name the same file"},
		{"-", "", "--json -: standard output carries the IMB text; expected --json FILE"},
		{"", "-", "--csv -: standard output carries the IMB text; expected --csv FILE"},
		{filepath.Join(dir, "no", "such"), "", "--json " + filepath.Join(dir, "no", "such") + ": cannot create the file"},
	} {
		err := checkOutputPaths(tc.json, tc.csv, stdoutIMB)
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkOutputPaths(%q, %q) = %v, want a usage error containing %q", tc.json, tc.csv, err, tc.want)
		}
	}
	// A symbolic link to the other (existing) file is the same file too.
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := checkOutputPaths(filepath.Join(dir, "link"), f, stdoutIMB); err == nil || !strings.Contains(err.Error(), "same file") {
		t.Errorf("json through a link to the csv file: %v, want rejected", err)
	}
	if err := checkOutputPaths(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.csv"), stdoutIMB); err != nil {
		t.Errorf("two different files: %v", err)
	}
}

func TestExitStatusSignals(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&interrupted{sig: syscall.SIGINT}, ExitInterrupted},
		{&interrupted{sig: syscall.SIGTERM}, ExitTerminated},
		{errInterrupted, ExitInterrupted},
		{fmt.Errorf("joining: %w", &launch.BootstrapError{Msg: "host h has mpbench 1.0, the launcher 1.1"}), ExitUsage},
		{&launch.LauncherLostError{Rank: 2, Where: "10.0.0.1:4000", Err: io.EOF}, ExitFailed},
	} {
		if got := ExitStatus(tc.err); got != tc.want {
			t.Errorf("ExitStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if !errors.Is(&interrupted{sig: syscall.SIGTERM}, errInterrupted) {
		t.Error("an *interrupted must match errInterrupted")
	}
}

// TestTestbedErrorTellsTheRefusal checks that a testbed refused by the host
// or by a busy name is bad input told by its own line, found through any
// wrapping, and that other errors pass unchanged.
func TestTestbedErrorTellsTheRefusal(t *testing.T) {
	for _, reason := range []error{testbed.ErrUnsupported, testbed.ErrBusy} {
		r := &testbed.Refusal{Reason: reason, Msg: `testbed "a" is up; remove it with mpbench testbed down --name a`}
		err := testbedError(fmt.Errorf("up: %w", r))
		if ExitStatus(err) != ExitUsage || err.Error() != r.Msg {
			t.Errorf("%v: status %d, %q; want %d and the refusal's line", reason, ExitStatus(err), err, ExitUsage)
		}
		if !errors.Is(r, reason) || r.Error() != reason.Error()+": "+r.Msg {
			t.Errorf("Refusal %q does not name and wrap %v", r, reason)
		}
	}
	other := errors.New("ip link add: exit status 2")
	if err := testbedError(other); err != other {
		t.Errorf("other error became %v", err)
	}
}

// TestRefusedOptionKeepsFiles checks that an option refused after
// --json/--csv were checked leaves the files of an earlier run as they
// were: files are emptied only once every check has passed.
func TestRefusedOptionKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	js, cs := filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "old.csv")
	const old = "rows of an earlier run\n"
	for _, args := range [][]string{
		{"run", "--json", js, "--csv", cs, "-thread_level", "single", "PingPong"},
		{"run", "--json", js, "--csv", cs, "-dumpfile", "-", "PingPong"},
		{"app", "ep", "--class", "S", "--json", js, "--csv", cs, "--trace", "-"},
	} {
		for _, p := range []string{js, cs} {
			if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errs := runMain(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit status %d, want %d (stderr %q)", args, code, ExitUsage, errs)
		}
		for _, p := range []string{js, cs} {
			if b, err := os.ReadFile(p); err != nil || string(b) != old {
				t.Errorf("%v: %s now holds %q (%v), want the earlier run's %q", args, filepath.Base(p), b, err, old)
			}
		}
	}
}
