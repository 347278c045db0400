package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
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
	return runEnding(t, ExitFailed, env, script, want...)
}

// runEnding is runExhausted with the exit status wanted.
func runEnding(t *testing.T, status int, env []string, script string, want ...string) *exec.Cmd {
	t.Helper()
	cmd, _, errb := shellCmd(t, env, script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 60*time.Second); code != status {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, status, errb)
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
// 64 KiB tmpfs) is refused before any rank starts, naming /dev/shm, what
// the rings need and the fixes, instead of a rank dying of SIGBUS at its
// first write to an unbacked page.
func TestE2EShmFull(t *testing.T) {
	needRootUnshare(t)
	runEnding(t, ExitUsage, nil, `exec unshare -m sh -c 'mount -t tmpfs -o size=64k none /dev/shm && exec "$MPBENCH" run -np 4 -msglog 0:10 -time 0.2 --timeout 60s Sendrecv'`,
		"mpbench: -np 4: this host cannot hold 4 ranks: 4 ranks' shared-memory rings need 16 MiB in /dev/shm, which has 64 KiB free; free space there or mount it larger (mount -o remount,size=17m /dev/shm), or run with --transport tcp; the largest -np that fits is 1 ")
}

// TestE2EResultDiskFull: a result file on a full disk (/dev/full) fails
// the run at its first write, in one line; the end record is not retried
// on the device (reading /dev/full to its end would never finish).
func TestE2EResultDiskFull(t *testing.T) {
	runExhausted(t, nil, `exec "$MPBENCH" run -np 2 -msglog 0:3 -time 0.1 --timeout 60s PingPong --json /dev/full`,
		"write /dev/full: no space left on device")
}

// TestE2EResultDiskFullPartWay: the disk of the --csv file (a private
// 8 KiB tmpfs) fills in the middle of a run: the run fails in one line
// naming rank 0 (whose writer failed, not a rank that stopped with it),
// the file and the full disk, and the --json file on another disk
// keeps every row printed before the failure, closed by the launcher's end
// record with the same account.
func TestE2EResultDiskFullPartWay(t *testing.T) {
	needRootUnshare(t)
	cmd := runExhausted(t, nil, `mkdir small && exec unshare -m sh -c 'mount -t tmpfs -o size=8k none small && exec "$MPBENCH" run -np 2 -msglog 0:22 -iter 5 -iter_policy off --settle 0 --timeout 60s PingPong Sendrecv --json r.jsonl --csv small/r.csv'`,
		"launch: rank 0: bench: ", "csv: write: write small/r.csv: no space left on device", "the job was at ")
	printed, err := imb.Read(strings.NewReader(cmd.Stdout.(*strings.Builder).String()), "stdout")
	if err != nil || len(printed) == 0 {
		t.Fatalf("stdout: %v, %d runs", err, len(printed))
	}
	var rows []result.Row
	for _, r := range printed {
		rows = append(rows, r.Rows...)
	}
	jf := filepath.Join(cmd.Dir, "r.jsonl")
	kept := readOneRun(t, jf)
	// 48 rows in all (24 sizes of each benchmark); the CSV's 8 KiB hold far fewer.
	if len(rows) == 0 || len(kept.Rows) < len(rows) || len(kept.Rows) >= 48 {
		t.Errorf("%d rows printed, %d in %s: want every printed row kept, the run stopped part-way", len(rows), len(kept.Rows), jf)
	}
	for i, r := range rows {
		if i < len(kept.Rows) && (kept.Rows[i].Benchmark != r.Benchmark || kept.Rows[i].Bytes != r.Bytes) {
			t.Errorf("row %d: printed %s %d bytes, %s has %s %d bytes", i, r.Benchmark, r.Bytes, jf, kept.Rows[i].Benchmark, kept.Rows[i].Bytes)
		}
	}
	if !kept.Aborted || !strings.Contains(kept.EndError, "small/r.csv: no space left on device") {
		t.Errorf("%s: aborted %v, end record %q: want the launcher's account of the full disk", jf, kept.Aborted, kept.EndError)
	}
}

// TestE2ECgroupMemoryLimit: a job in a memory cgroup limited to 200 MiB
// whose ranks each need 256 MiB of buffers (128 MiB messages) loses a rank
// to the kernel's OOM killer; the launcher's line names the OOM killer,
// the cgroup and its limit, where a kill -9 reads "killed by signal
// SIGKILL" alone. The cgroup is a child of the test's own memory cgroup
// (cgroup v1's memory controller, or v2's memory.max).
func TestE2ECgroupMemoryLimit(t *testing.T) {
	cg := limitedCgroup(t, 200<<20)
	runExhausted(t, []string{"CG=" + cg}, `echo $$ > "$CG/cgroup.procs" && exec "$MPBENCH" run -np 2 -msglog 27:27 -mem 2 -iter 2 -iter_policy off --settle 0 --timeout 60s PingPong`,
		": killed by signal SIGKILL (by the kernel's OOM killer: memory cgroup "+cg+" reached its limit of 200 MiB; raise the limit or lower -np or the largest message size)",
		"the job was at PingPong on 2 processes")
}

// limitedCgroup creates a memory cgroup of limit bytes under this
// process's own (removed when t ends, after the processes t started are
// killed) and returns its directory; it skips t where the cgroup cannot
// be made (no root, a read-only cgroup file system, v2 without the memory
// controller delegated).
func limitedCgroup(t *testing.T, limit int64) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and Linux cgroups for a memory cgroup (CI runs as root)")
	}
	var parent, limitFile string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		switch {
		case len(f) != 3:
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			parent, limitFile = filepath.Join("/sys/fs/cgroup/memory", f[2]), "memory.limit_in_bytes"
		case f[0] == "0" && f[1] == "" && parent == "":
			parent, limitFile = filepath.Join("/sys/fs/cgroup", f[2]), "memory.max"
		}
	}
	dir := filepath.Join(parent, "mpbench-test-oom-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup: %v", err)
	}
	t.Cleanup(func() { // registered first, so it runs after the processes' cleanups
		for deadline := time.Now().Add(10 * time.Second); os.Remove(dir) != nil && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	})
	if err := os.WriteFile(filepath.Join(dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		t.Skipf("cannot limit the memory of cgroup %s: %v", dir, err)
	}
	return dir
}

// TestE2EFewerCPUsThanRanks: 4 ranks allowed one CPU (taskset) run to
// their end: every size of both benchmarks measured, nothing on stderr.
func TestE2EFewerCPUsThanRanks(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("needs taskset(1) from util-linux (CI installs it)")
	}
	cmd, out, errb := shellCmd(t, nil, `exec taskset -c 0 "$MPBENCH" run -np 4 -npmin 4 -msglog 0:6 -iter 20 -iter_policy off --settle 0 --timeout 120s Sendrecv Allreduce`)
	if err := cmd.Run(); err != nil || errb.Len() != 0 {
		t.Fatalf("run on one CPU: %v; stderr:\n%s", err, errb)
	}
	// Sendrecv at 0, 1, 2, ..., 64 bytes; Allreduce at whole floats, 0, 4, ..., 64.
	for b, want := range map[string]int{"Sendrecv": 8, "Allreduce": 6} {
		if n := tableRows(out.String(), b, "# #processes = 4 \n"); n != want {
			t.Errorf("%s: %d rows, want %d\n%s", b, n, want, out)
		}
	}
}

// TestE2EOutOfDescriptors: an open-file limit too low for -np (the
// launcher holds 3 descriptors per rank) is refused before any rank starts
// or any result file is made, in one line naming the limit, the fix and
// the largest -np it holds; so is it by app, by scaling before its first
// run, and by testbed run before it builds a testbed.
func TestE2EOutOfDescriptors(t *testing.T) {
	want := "mpbench: -np 8: this host cannot hold 8 ranks: 8 ranks need about 32 open files per process, and the limit is 24; raise it (ulimit -n 32); the largest -np that fits is 5 "
	cmd := runEnding(t, ExitUsage, nil, `ulimit -n 24 && exec "$MPBENCH" run -np 8 -msglog 0:3 -time 0.1 --timeout 60s Sendrecv --json r.jsonl`, want)
	if _, err := os.Stat(filepath.Join(cmd.Dir, "r.jsonl")); err == nil {
		t.Error("r.jsonl was created for a job refused before it started")
	}
	runEnding(t, ExitUsage, nil, `ulimit -n 24 && exec "$MPBENCH" app ep --class S -np 8 --timeout 60s`, want)
	runEnding(t, ExitUsage, nil, `ulimit -n 24 && exec "$MPBENCH" scaling --np 1,2,8 -- app ep --class S`, "-np 8: this host cannot hold 8 ranks")
	// A testbed's nodes are namespaces of this host: refused before one is built.
	runEnding(t, ExitUsage, nil, `ulimit -n 24 && exec "$MPBENCH" testbed run --net switch --nodes 8 --rate 10mbit -- -msglog 0:3 Sendrecv`, want)
}

// TestE2EOutOfDescriptorsFiles: a launcher that runs out of open files
// while it starts the ranks (ulimit -n 16, above the floor checked before)
// leaves --json and --csv files with a header and the end record naming
// the failure, where they were left empty.
func TestE2EOutOfDescriptorsFiles(t *testing.T) {
	cmd := runExhausted(t, nil, `ulimit -n 16 && exec "$MPBENCH" run -np 2 -msglog 0:3 -time 0.1 --timeout 60s PingPong --json r.jsonl --csv r.csv`,
		"too many open files")
	for _, name := range []string{"r.jsonl", "r.csv"} {
		path := filepath.Join(cmd.Dir, name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		read := rowfile.ReadJSONL
		if strings.HasSuffix(name, ".csv") {
			read = rowfile.ReadCSV
		}
		runs, err := read(f, path)
		f.Close()
		if err != nil || len(runs) != 1 || runs[0].Meta.Tool != "mpbench" || !runs[0].Aborted || !strings.Contains(runs[0].EndError, "too many open files") {
			t.Errorf("%s: %v, %d runs %+v: want a header and the failed end record", name, err, len(runs), runs)
		}
	}
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

// TestE2EAddressSpaceTooLow: under an address-space limit below what a
// job needs (minAddressSpace), whether Go's runtime starts or not, the
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
	// Limits under which Go's runtime fails before main (a fatal error and
	// its stack): refused by the check that runs when the program is
	// loaded, in the same line.
	for _, low := range []string{"100000", "300000", "700000", "1250000", "1300000"} {
		want := "mpbench: the address-space limit (ulimit -v " + low + ") is below the " + strconv.Itoa(minAddressSpace>>10) + " KiB mpbench needs"
		runExhausted(t, nil, `ulimit -v `+low+` && exec "$MPBENCH" run -np 2 -msglog 0:0 --timeout 60s PingPong`, want, "raise the limit (ulimit -v")
	}
}

// TestE2ENoLocalPort: TCP ranks in a network namespace with 4 local ports
// for 4 ranks fail at wire-up naming the port they could not get (a
// listening port or a connection's, whichever runs out first).
func TestE2ENoLocalPort(t *testing.T) {
	needRootUnshare(t)
	runExhausted(t, nil, `exec unshare -n sh -c 'ip link set lo up && echo "40000 40003" > /proc/sys/net/ipv4/ip_local_port_range && exec "$MPBENCH" run -np 4 --transport tcp -msglog 0:3 -time 0.1 --timeout 60s Sendrecv'`,
		"cannot assign requested address|address already in use", "net.ipv4.ip_local_port_range")
}
