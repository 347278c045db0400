package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
)

// Resource exhaustion (docs/reliability.md): a job that runs out of a
// resource ends with one line naming it and exit status 1, never a Go
// stack dump on the terminal.

// shellCmd runs script with sh, $MPBENCH the mpbench binary and env
// ("KEY=value") in its environment, in a temporary working directory.
func shellCmd(t *testing.T, env []string, script string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	if mpbenchBin == "" {
		t.Fatal("mpbench binary was not built (see TestMain output)")
	}
	cmd := proctest.Command(t, "sh", "-c", script)
	cmd.Env = append(append(os.Environ(), "MPBENCH="+mpbenchBin), env...)
	cmd.Dir = t.TempDir()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// needRootUnshare skips t without root or unshare(1).
func needRootUnshare(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a mount or network namespace (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare(1) from util-linux (CI installs it)")
	}
}

// runExhausted runs script (with env) and checks the outcome: exit status 1 within
// 60 s, one line on stderr containing every want (or one of its
// alternatives separated by "|"), no goroutine stack.
func runExhausted(t *testing.T, env []string, script string, want ...string) *exec.Cmd {
	t.Helper()
	cmd, _, errb := shellCmd(t, env, script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 60*time.Second); code != ExitFailed {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, ExitFailed, errb)
	}
	msg := errb.String()
	if strings.Count(msg, "\n") != 1 || goroutineHeader.MatchString(msg) {
		t.Errorf("stderr should be one line without a stack, got:\n%s", msg)
	}
	for _, w := range want {
		if !anyIn(msg, strings.Split(w, "|")) {
			t.Errorf("stderr lacks %q:\n%s", w, msg)
		}
	}
	return cmd
}

// goroutineHeader starts a goroutine's stack in a Go crash report.
var goroutineHeader = regexp.MustCompile(`(?m)^goroutine \d+ .*\[`)

// anyIn reports whether s contains one of subs.
func anyIn(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestE2EShmFull: a /dev/shm too small for the job's segments (a private
// 64 KiB tmpfs) fails at start-up naming /dev/shm and the fixes, instead
// of a rank dying of SIGBUS at its first write to an unbacked page.
func TestE2EShmFull(t *testing.T) {
	needRootUnshare(t)
	runExhausted(t, nil, `exec unshare -m sh -c 'mount -t tmpfs -o size=64k none /dev/shm && exec "$MPBENCH" run -np 4 -msglog 0:10 -time 0.2 --timeout 60s Sendrecv'`,
		"/dev/shm has no room for rank ", "--transport tcp")
}

// TestE2EResultDiskFull: a result file on a full disk (/dev/full) fails
// the run at its first write, in one line; the end record is not retried
// on the device (reading /dev/full to its end would never finish).
func TestE2EResultDiskFull(t *testing.T) {
	runExhausted(t, nil, `exec "$MPBENCH" run -np 2 -msglog 0:3 -time 0.1 --timeout 60s PingPong --json /dev/full`,
		"write /dev/full: no space left on device")
}

// TestE2EOutOfDescriptors: an open-file limit too low for -np fails while
// the ranks start, naming the limit.
func TestE2EOutOfDescriptors(t *testing.T) {
	runExhausted(t, nil, `ulimit -n 24 && exec "$MPBENCH" run -np 8 -msglog 0:3 -time 0.1 --timeout 60s Sendrecv`,
		"too many open files", "ulimit -n")
}

// TestE2ERankOutOfDescriptors: ranks whose open-file limit is too low for
// their TCP connections (set on the ranks of a second "host" only, through
// its launch agent) fail at wire-up in one line naming the rank, the lack
// of descriptors and the fix.
func TestE2ERankOutOfDescriptors(t *testing.T) {
	agent := `AGENT=sh -c 'ulimit -n 10 && exec "$@"' {host}`
	runExhausted(t, []string{agent}, `exec "$MPBENCH" run --transport tcp --host localhost,limited:7 --launch-agent "$AGENT" --if 127.0.0.0/8 -msglog 0:2 -time 0.1 --timeout 60s Sendrecv`,
		"on host limited: ", "too many open files", "(raise the open-file limit, ulimit -n, or lower -np)")
}

// TestE2ERankOutOfMemory: a rank whose buffers (two 512 MiB messages) do
// not fit under ulimit -v crashes in the Go runtime; the launcher prints
// one line naming the cause, the address-space limit the rank ran under
// (read from the exited rank's /proc/PID/limits), and keeps its crash
// report in a file in the working directory. The limit applies to rank 1
// only, started on a "host" whose launch agent sets it: a launcher under
// the same limit may itself fail to start a thread on a busy host.
func TestE2ERankOutOfMemory(t *testing.T) {
	agent := `AGENT=sh -c 'ulimit -v 1500000 && exec "$@"' {host}`
	cmd := runExhausted(t, []string{agent}, `exec "$MPBENCH" run --host localhost,limited --launch-agent "$AGENT" --if 127.0.0.0/8 -msglog 29:29 -mem 2 -iter 2 -iter_policy off --timeout 60s PingPong`,
		"rank 1 on host limited: out of memory under the address-space limit (ulimit -v 1500000): runtime: out of memory: cannot allocate ", "; raise the limit or lower -np or the largest message size; its goroutine stacks are in ", "(exited with status 2)")
	files, _ := filepath.Glob(filepath.Join(cmd.Dir, "mpbench-crash-rank1-*.txt"))
	if len(files) != 1 {
		t.Fatalf("crash reports %v in %s, want rank 1's", files, cmd.Dir)
	}
	report, _ := os.ReadFile(files[0])
	if !strings.Contains(string(report), "out of memory") || !goroutineHeader.Match(report) {
		t.Errorf("crash report %s:\n%s", files[0], report)
	}
}

// TestE2EAddressSpaceTooLow: under an address-space limit that lets Go's
// runtime start but is below what a job needs (minAddressSpace), the
// launcher refuses in one line naming the limit and the minimum, and a rank
// under such a limit (set by its launch agent) is named by the launcher
// with the same line, instead of either aborting later with a Go stack
// dump on the terminal.
func TestE2EAddressSpaceTooLow(t *testing.T) {
	const low = "1400000" // KiB: Go's runtime reaches main (from 1200000 to 1300000 it does not), below minAddressSpace
	want := "the address-space limit (ulimit -v " + low + ") is below the " + strconv.Itoa(minAddressSpace>>10) + " KiB mpbench needs"
	runExhausted(t, nil, `ulimit -v `+low+` && exec "$MPBENCH" run -np 2 -msglog 0:0 --timeout 60s PingPong`,
		"mpbench: "+want, "raise the limit (ulimit -v")
	agent := `AGENT=sh -c 'ulimit -v ` + low + ` && exec "$@"' {host}`
	runExhausted(t, []string{agent}, `exec "$MPBENCH" run --host localhost,limited --launch-agent "$AGENT" --if 127.0.0.0/8 -msglog 0:0 --timeout 60s PingPong`,
		"rank 1 on host limited: "+want, "(exited with status 1)")
}

// TestE2ENoLocalPort: TCP ranks in a network namespace with 4 local ports
// for 4 ranks fail at wire-up naming the port they could not get (a
// listening port or a connection's, whichever runs out first).
func TestE2ENoLocalPort(t *testing.T) {
	needRootUnshare(t)
	runExhausted(t, nil, `exec unshare -n sh -c 'ip link set lo up && echo "40000 40003" > /proc/sys/net/ipv4/ip_local_port_range && exec "$MPBENCH" run -np 4 --transport tcp -msglog 0:3 -time 0.1 --timeout 60s Sendrecv'`,
		"cannot assign requested address|address already in use")
}
