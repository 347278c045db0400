package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
	"github.com/mpbench/mpbench/transport/shm"
)

// mpbenchBin is the mpbench executable built by TestMain for the
// end-to-end tests ("" when the build failed: those tests then fail).
var mpbenchBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mpbench-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, "mpbench")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/mpbench/mpbench/cmd/mpbench").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building mpbench for end-to-end tests: %v\n%s", err, out)
	} else {
		mpbenchBin = bin
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// e2eCmd returns a command running the built mpbench with args.
func e2eCmd(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	if mpbenchBin == "" {
		t.Fatal("mpbench binary was not built (see TestMain output)")
	}
	cmd := proctest.Command(t, mpbenchBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// exitCode returns the exit status of a finished command.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// tableRows counts the data rows under the "# Benchmarking <title> " header
// with the given process line (tables with a #bytes, Group or, for
// Barrier, #repetitions first column).
func tableRows(text, title, procLine string) int {
	i := strings.Index(text, "# Benchmarking "+title+" \n"+procLine)
	if i < 0 {
		return -1
	}
	lines := strings.Split(text[i:], "\n")
	n := 0
	k := 1
	for ; k < len(lines) && !strings.HasPrefix(lines[k], "       #bytes") && !strings.HasPrefix(lines[k], "        Group") &&
		!strings.HasPrefix(lines[k], " #repetitions"); k++ {
	}
	for k++; k < len(lines) && strings.TrimSpace(lines[k]) != "" && !strings.HasPrefix(lines[k], "#"); k++ {
		n++
	}
	return n
}

// TestE2ERun runs real jobs of 2, 3 and 4 processes and checks the IMB
// text on stdout and the JSON Lines and CSV files.
func TestE2ERun(t *testing.T) {
	for _, tr := range e2eTransports {
		for _, np := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("%s/np%d", tr.name, np), func(t *testing.T) { testE2ERun(t, tr, np) })
		}
	}
}

// e2eTransport is a transport the end-to-end tests run over.
type e2eTransport struct {
	name string   // as the output header names it
	args []string // options selecting it
}

// e2eTransports: the default (auto: shared memory on one host) and TCP.
var e2eTransports = []e2eTransport{{"shm", nil}, {"tcp", []string{"--transport", "tcp"}}}

func testE2ERun(t *testing.T, tr e2eTransport, np int) {
	dir := t.TempDir()
	jf, cf := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.csv")
	n := strconv.Itoa(np)
	args := append([]string{"run", "-np", n, "-npmin", n, "-msglog", "0:3", "-time", "0.5", "-iter", "50", "--all-sizes",
		"PINGPONG", "sendrecv", "--json", jf, "--csv", cf, "--timeout", "60s"}, tr.args...)
	cmd, out, errb := e2eCmd(t, args...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errb)
	}
	text := out.String()
	if !strings.HasPrefix(text, "#-----") || !strings.HasSuffix(text, "\n# All processes entering MPI_Finalize\n\n") {
		t.Errorf("output is not a complete IMB file:\n%s", text)
	}
	idle := ""
	if np > 2 {
		idle = fmt.Sprintf("# ( %d additional process", np-2)
	}
	if got := tableRows(text, "PingPong", "# #processes = 2 \n"+idle); got != 5 {
		t.Errorf("PingPong rows = %d, want 5 (sizes 0,1,2,4,8):\n%s", got, text)
	}
	if got := tableRows(text, "Sendrecv", "# #processes = "+n+" \n#---"); got != 5 {
		t.Errorf("Sendrecv rows = %d, want 5:\n%s", got, text)
	}
	imbRuns, err := imb.Read(strings.NewReader(text), "stdout")
	if err != nil || len(imbRuns) != 1 || imbRuns[0].Aborted || len(imbRuns[0].Rows) != 10 || len(imbRuns[0].Problems) != 0 {
		t.Fatalf("IMB reader on the output: %v, runs %+v", err, imbRuns)
	}
	if m := imbRuns[0].Meta; m.Tool != "mpbench" || m.MByte != 1e6 || m.Transport != tr.name {
		t.Errorf("IMB reader meta %+v", m)
	}
	checkTimerWarning(t, text, imbRuns[0])
	for _, rd := range []struct {
		path string
		read func(io.Reader, string) ([]result.Run, error)
	}{{jf, rowfile.ReadJSONL}, {cf, rowfile.ReadCSV}} {
		f, err := os.Open(rd.path)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := rd.read(f, rd.path)
		f.Close()
		if err != nil || len(runs) != 1 || runs[0].Aborted || len(runs[0].Rows) != 10 || len(runs[0].Problems) != 0 {
			t.Fatalf("%s: %v, runs %+v", rd.path, err, runs)
		}
		m := runs[0].Meta
		if m.Tool != "mpbench" || m.MByte != 1e6 || m.Options["np"] != n || m.Info["go"] == "" || m.Info["cores"] == "" {
			t.Errorf("%s: meta %+v", rd.path, m)
		}
		last := runs[0].Rows[9]
		if last.Benchmark != "Sendrecv" || last.Bytes != 8 || last.Processes != np || !(last.TMax > 0) {
			t.Errorf("%s: last row %+v", rd.path, last)
		}
	}
}

// TestE2EMulti checks the -multi layouts of a real 4-process job.
func TestE2EMulti(t *testing.T) {
	for _, c := range []struct {
		multi, heading string
	}{
		{"0", "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n"},
		{"1", "        Group       #bytes #repetitions      t[usec]   Mbytes/sec\n\n"},
	} {
		cmd, out, errb := e2eCmd(t, "run", "-np", "4", "-multi", c.multi, "-msglog", "0:1", "-time", "0.5", "-iter", "20", "--all-sizes", "pingpong", "--timeout", "60s")
		if err := cmd.Run(); err != nil {
			t.Fatalf("-multi %s: %v\n%s", c.multi, err, errb)
		}
		text := out.String()
		for _, want := range []string{
			"\n# List of Benchmarks to run:\n\n# PingPong\n\n",
			"# Benchmarking Multi-PingPong \n# ( 2 groups of 2 processes each running simultaneous ) \n# Group  0:     0    1\n# \n# Group  1:     2    3\n# \n",
			c.heading,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("-multi %s: output lacks %q:\n%s", c.multi, want, text)
			}
		}
	}
}

// TestE2EMiB checks that --mib changes Mbytes/sec to 2^20-byte Mbytes and
// says so in the header, so readers get the unit right.
func TestE2EMiB(t *testing.T) {
	cmd, out, errb := e2eCmd(t, "run", "-np", "2", "-msglog", "20:20", "-time", "0.5", "-iter", "5", "--all-sizes", "--mib", "pingpong", "--timeout", "60s")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	runs, err := imb.Read(strings.NewReader(out.String()), "stdout")
	if err != nil || len(runs) != 1 || len(runs[0].Rows) != 2 {
		t.Fatalf("%v %+v", err, runs)
	}
	if runs[0].Meta.MByte != result.MiB || !strings.Contains(out.String(), "# Mbyte                 : 1048576 bytes\n") {
		t.Errorf("Mbyte not stated as 2^20:\n%s", out)
	}
	r := runs[0].Rows[1] // 1 MiB message: Mbytes/sec = 2^20 / 2^20 / t[usec] * 1e6
	if want := 1e6 / r.TMax; r.Bytes != 1<<20 || (r.MBps-want)/want > 0.01 || (want-r.MBps)/want > 0.01 {
		t.Errorf("1 MiB row: %v Mbytes/sec at t=%v usec, want about %.2f", r.MBps, r.TMax, want)
	}
}

// childPids returns the pids whose parent is ppid (scanning /proc).
func childPids(t *testing.T, ppid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold blanks, so cut after ')'.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndex(s, ")")+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// rankOf reads MPBENCH_RANK from a process's environment (-1 when it
// cannot).
func rankOf(pid int) int {
	v, ok := envOf(pid, launch.EnvRank)
	if !ok {
		return -1
	}
	r, _ := strconv.Atoi(v)
	return r
}

// envOf reads the variable name from the environment process pid started
// with (/proc/PID/environ); ok is false when it cannot.
func envOf(pid int, name string) (value string, ok bool) {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return "", false
	}
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// startLongRun starts a job that runs for minutes unless stopped, and
// waits until its JSON file holds a measured row. It returns the command,
// its outputs, the JSON path and the rank processes.
func startLongRun(t *testing.T, np int, extra ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, string, []int) {
	t.Helper()
	jf := filepath.Join(t.TempDir(), "long.jsonl")
	args := append([]string{"run", "-np", strconv.Itoa(np), "-npmin", strconv.Itoa(np), "-msglog", "0:22", "-time", "10",
		"sendrecv", "--json", jf, "--timeout", "120s"}, extra...)
	cmd, out, errb := startUntilRow(t, jf, 30*time.Second, args...)
	kids := childPids(t, cmd.Process.Pid)
	if len(kids) != np {
		t.Fatalf("found %d rank processes, want %d", len(kids), np)
	}
	return cmd, out, errb, jf, kids
}

// startUntilRow starts mpbench with args, whose --json file is jf, and
// waits up to limit until jf holds a measured row. The command is killed
// when the test ends.
func startUntilRow(t *testing.T, jf string, limit time.Duration, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd, out, errb := e2eCmd(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	deadline := time.Now().Add(limit)
	for {
		data, _ := os.ReadFile(jf)
		if strings.Count(string(data), `"type":"row"`) >= 1 {
			return cmd, out, errb
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no row after %v; stderr:\n%s", limit, errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkEndedBy checks that rank 0 itself ended a run interrupted by the
// signal named sig ("SIGINT"): its IMB text ends with the interrupt's
// comment and the JSON file jf keeps its rows and ends with an end record
// naming the signal.
func checkEndedBy(t *testing.T, stdout, jf, sig string) {
	t.Helper()
	msg := "interrupted by " + sig + "; rows measured so far were kept"
	if !strings.HasSuffix(stdout, "# mpbench: run failed: "+msg+"\n") {
		t.Errorf("rank 0's output does not end with the interrupt:\n%s", stdout)
	}
	checkKeptRows(t, jf)
	data, _ := os.ReadFile(jf)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if last, want := lines[len(lines)-1], `{"type":"end","status":"failed","error":"`+msg+`"}`; last != want {
		t.Errorf("last record of %s is %s, want %s", jf, last, want)
	}
}

// waitExit waits for cmd with a limit and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err)
	case <-time.After(limit):
		t.Fatalf("mpbench still running %v after the event", limit)
	}
	return -1
}

// checkGone verifies that none of the rank processes is left.
func checkGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("rank process %d is still alive after mpbench exited", pid)
		}
	}
}

// readOneRun reads the JSON Lines result file path (rowfile.ReadJSONL)
// and returns its one run; a file that cannot be opened or read, or that
// holds other than one run, fails the test.
func readOneRun(t *testing.T, path string) result.Run {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, err := rowfile.ReadJSONL(f, path)
	if err != nil || len(runs) != 1 {
		t.Fatalf("%s: %v, %d runs; want one run", path, err, len(runs))
	}
	return runs[0]
}

// checkKeptRows verifies the JSON file kept the measured rows and reads as
// an aborted run.
func checkKeptRows(t *testing.T, path string) {
	t.Helper()
	if run := readOneRun(t, path); len(run.Rows) < 1 || !run.Aborted {
		t.Errorf("want one aborted run with the rows measured, got %+v", run)
	}
}

// checkEndRecord verifies that the JSON file ends with a failed end record
// whose error starts with want: the launcher's account of the failure, not
// what rank 0 saw of it (a peer gone, a closed world).
func checkEndRecord(t *testing.T, path, want string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	prefix := `{"type":"end","status":"failed","error":` + strconv.Quote(want)
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, prefix[:len(prefix)-1]) {
		t.Errorf("last record of %s is %s, want one starting %s", path, last, prefix[:len(prefix)-1])
	}
}

// TestE2EKilledRank kills one rank of a running job, over each transport:
// mpbench must exit non-zero within seconds, name the rank, leave no
// process and no shared-memory segment behind and keep the rows already
// written.
func TestE2EKilledRank(t *testing.T) {
	for _, tr := range e2eTransports {
		t.Run(tr.name, func(t *testing.T) { testE2EKilledRank(t, tr) })
	}
}

// jobSegments returns the path pattern of the shared-memory segment files
// of the job whose rank process is pid: the launcher gives every rank the
// job's secret, and the segments' names derive from it (shm.JobPrefix).
// Other jobs' segments, such as those of other packages' tests running at
// the same time, do not match.
func jobSegments(t *testing.T, pid int) string {
	t.Helper()
	secret, ok := envOf(pid, launch.EnvSecret)
	if !ok || secret == "" {
		t.Fatalf("rank process %d has no %s in its environment", pid, launch.EnvSecret)
	}
	return filepath.Join(shm.DefaultDir, shm.JobPrefix([]byte(secret))+"*")
}

// linkedSegments returns the files matching pattern (jobSegments), waiting
// up to 3 s for them to go: a rank unlinks its segment once every rank on
// its host has mapped it, in its own time, so only a file that stays is
// one left behind.
func linkedSegments(pattern string) []string {
	deadline := time.Now().Add(3 * time.Second)
	for {
		left, _ := filepath.Glob(pattern)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testE2EKilledRank(t *testing.T, tr e2eTransport) {
	cmd, _, errb, jf, kids := startLongRun(t, 3, tr.args...)
	segments := jobSegments(t, kids[0])
	if left := linkedSegments(segments); len(left) > 0 {
		t.Errorf("segment files still linked while the job runs: %v", left)
	}
	victim := -1
	for _, pid := range kids {
		if rankOf(pid) == 1 {
			victim = pid
		}
	}
	if victim < 0 {
		t.Fatal("rank 1 not found")
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code := waitExit(t, cmd, 15*time.Second)
	t.Logf("exit %d after %v", code, time.Since(start))
	if code != ExitFailed {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, ExitFailed, errb)
	}
	if !strings.Contains(errb.String(), "rank 1") {
		t.Errorf("stderr should name rank 1:\n%s", errb)
	}
	checkGone(t, kids)
	checkKeptRows(t, jf)
	checkEndRecord(t, jf, "run failed: launch: rank 1: killed by signal SIGKILL")
	for _, name := range linkedSegments(segments) {
		t.Errorf("shared-memory segment %s left behind", name)
	}
}

// TestE2EInterrupt sends SIGINT to mpbench (Ctrl-C): exit status 130, no
// rank left, rows kept.
func TestE2EInterrupt(t *testing.T) {
	cmd, _, errb, jf, kids := startLongRun(t, 2)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 15*time.Second)
	if code != ExitInterrupted {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, ExitInterrupted, errb)
	}
	checkGone(t, kids)
	checkKeptRows(t, jf)
}
