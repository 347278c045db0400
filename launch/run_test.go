package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/proctest"
)

// syncBuffer is a bytes.Buffer safe for the launcher's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// quickExit makes race-enabled workers exit without the race runtime's 1 s
// exit delay.
const quickExit = "GORACE=atexit_sleep_ms=0"

func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// waitPids waits until n workers have written their pid files in dir.
func waitPids(t *testing.T, dir string, n int, runErr <-chan error) []int {
	t.Helper()
	pids, err := joinedPids(t, dir, n, runErr)
	if pids == nil {
		t.Fatalf("job ended before all %d ranks joined: %v", n, err)
	}
	return pids
}

// joinedPids is waitPids returning, instead of failing t, nil pids and
// Run's error when the job ends before all n ranks joined.
func joinedPids(t *testing.T, dir string, n int, runErr <-chan error) ([]int, error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var pids []int
		for r := range n {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.pid", r)))
			if err != nil {
				break
			}
			pid, _ := strconv.Atoi(string(b))
			pids = append(pids, pid)
		}
		if len(pids) == n {
			return pids, nil
		}
		select {
		case err := <-runErr:
			return nil, err
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d ranks joined within 20 s", len(pids), n)
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// assertReaped fails if any pid still exists at all (running or zombie):
// Run must have reaped its children.
func assertReaped(t *testing.T, pids []int) {
	t.Helper()
	for r, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("rank %d (pid %d) still exists after Run returned", r, pid)
		}
	}
}

// assertJoinedReaped checks that every one of n ranks that wrote a pid file
// in dir is gone.
func assertJoinedReaped(t *testing.T, dir string, n int) {
	t.Helper()
	for r := range n {
		if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.pid", r))); err == nil {
			pid, _ := strconv.Atoi(string(b))
			assertReaped(t, []int{pid})
		}
	}
}

// startJob runs Run in the background and returns its result channel.
func startJob(ctx context.Context, s Spec) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- Run(ctx, s) }()
	return ch
}

func await(t *testing.T, ch <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(within):
		t.Fatalf("Run did not return within %v", within)
	}
	return nil
}

func TestRunExchange(t *testing.T) {
	for _, tr := range []string{TransportAuto, "tcp", "shm"} {
		for _, np := range []int{1, 2, 3, 4} {
			t.Run(fmt.Sprintf("%s/np%d", tr, np), func(t *testing.T) { testRunExchange(t, tr, np) })
		}
	}
}

func testRunExchange(t *testing.T, tr string, np int) {
	var stdout, stderr syncBuffer
	err := Run(context.Background(), Spec{NP: np, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=exchange", EnvTransport + "=" + tr},
		Timeout: 60 * time.Second, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, stderr.String())
	}
	if want := fmt.Sprintf("exchange ok np=%d\n", np); stdout.String() != want {
		t.Errorf("stdout %q, want %q (rank 0 only)", stdout.String(), want)
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	want := map[string]bool{"rank 0: done": true}
	for r := 1; r < np; r++ {
		want[fmt.Sprintf("[rank %d] rank %d: done", r, r)] = true
	}
	for _, l := range lines {
		if !want[l] {
			t.Errorf("unexpected stderr line %q", l)
		}
		delete(want, l)
	}
	if len(want) > 0 {
		t.Errorf("stderr lacks %v; got:\n%s", want, stderr.String())
	}
}

func TestRunRankFails(t *testing.T) {
	dir := t.TempDir()
	var stderr syncBuffer
	start := time.Now()
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Stderr: &stderr,
		Env: []string{quickExit, envMode + "=fail", envFailRank + "=1", envDir + "=" + dir}})
	err := await(t, ch, 30*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 {
		t.Fatalf("got %v, want a *RankError for rank 1", err)
	}
	for _, want := range []string{"rank 1", "exited with status 3", `"rank 1: giving up: boom"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run took %v to report a failed rank", d)
	}
	if !strings.Contains(stderr.String(), "[rank 1] rank 1: giving up: boom\n") {
		t.Errorf("stderr lacks the prefixed line; got:\n%s", stderr.String())
	}
	assertJoinedReaped(t, dir, 3) // ranks 0 and 2 were stopped: they must not linger
}

// TestRunTimeout runs ranks that hang and ignore SIGTERM: the timeout must
// stop them (SIGKILL after the grace period) and name them.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	ch := startJob(context.Background(), Spec{NP: 2, Argv: []string{testExe(t)}, Timeout: 3 * time.Second,
		Env: []string{quickExit, envMode + "=hang", envIgnoreTerm + "=1", envDir + "=" + dir}})
	err := await(t, ch, 30*time.Second)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "ranks still running: [0 1]") {
		t.Fatalf("got %v, want ErrTimeout naming ranks [0 1]", err)
	}
	assertJoinedReaped(t, dir, 2)
}

func TestRunKilledRank(t *testing.T) {
	dir := t.TempDir()
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=hang", envDir + "=" + dir}})
	pids := waitPids(t, dir, 3, ch)
	if err := syscall.Kill(pids[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := await(t, ch, 15*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 || !strings.Contains(err.Error(), "killed by signal SIGKILL") {
		t.Fatalf("got %v, want a *RankError for rank 1 killed by SIGKILL", err)
	}
	assertReaped(t, pids)
}

// TestRunKilledRankOutranksCollateral: a rank that exits with an error
// status (as a rank reporting a lost peer does) and, within the stopping
// grace, another killed by a signal the launcher did not send: the killed
// rank is named, whichever exit the reaper saw first (on a busy host the
// consequence is often seen before its cause).
func TestRunKilledRankOutranksCollateral(t *testing.T) {
	dir := t.TempDir()
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=collateral", envDir + "=" + dir}})
	err := await(t, ch, 15*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 0 || !strings.Contains(err.Error(), "killed by signal SIGKILL") {
		t.Fatalf("got %v, want a *RankError for rank 0 killed by SIGKILL", err)
	}
}

// TestRunRelayedFailureNamesOrigin: ranks 1 and 2 stop with rank 0's
// failure relayed to them (a full disk under rank 0's result file) and
// end first; rank 0, ending 150 ms later with its own report, is the rank
// named, and a relayed report alone never outranks it.
func TestRunRelayedFailureNamesOrigin(t *testing.T) {
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=relayed"}})
	err := await(t, ch, 15*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 0 || err.Error() != "launch: rank 0: csv: write: no space left on device (exited with status 1)" {
		t.Fatalf("got %v, want rank 0's own report", err)
	}
	own := exitEvent{err: &RankError{Err: &exitError{err: errors.New("x")}}, at: time.Unix(2, 0)}
	relay := exitEvent{err: &RankError{Err: &exitError{err: errors.New("x"), relayed: true}}, at: time.Unix(1, 0)}
	killed := exitEvent{err: own.err, at: time.Unix(3, 0), sig: syscall.SIGTERM}
	if !own.outranks(relay) || relay.outranks(own) || killed.outranks(relay) {
		t.Errorf("outranks: own over relayed %v (want true), relayed over own %v, stopped over relayed %v (want false)",
			own.outranks(relay), relay.outranks(own), killed.outranks(relay))
	}
}

// TestRunCrashedRank: a rank's Go crash report goes to a file, not to the
// job's stderr; the failure names the signal, the report's first line and
// the file.
func TestRunCrashedRank(t *testing.T) {
	dir := t.TempDir()
	var stderr syncBuffer
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Stderr: &stderr, CrashDir: dir,
		Env: []string{quickExit, envMode + "=crash"}})
	err := await(t, ch, 30*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 {
		t.Fatalf("got %v, want a *RankError for rank 1", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "mpbench-crash-rank1-*.txt"))
	if len(files) != 1 {
		t.Fatalf("crash files %v, want one for rank 1", files)
	}
	want := "launch: rank 1: crashed with SIGSEGV: panic: runtime error: invalid memory address or nil pointer dereference; its goroutine stacks are in " + files[0] + " (exited with status 2)"
	if err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	if strings.Contains(stderr.String(), "goroutine ") || !strings.Contains(stderr.String(), "[rank 1] rank 1: about to crash\n") {
		t.Errorf("the job's stderr should have rank 1's own line and no stack:\n%s", stderr.String())
	}
	report, _ := os.ReadFile(files[0])
	if !bytes.HasPrefix(report, []byte("panic: runtime error: invalid memory address")) || !bytes.Contains(report, []byte("goroutine ")) || !bytes.Contains(report, []byte("testWorker")) {
		t.Errorf("crash file %s:\n%s", files[0], report)
	}
}

func TestRunCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := startJob(ctx, Spec{NP: 3, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=hang", envDir + "=" + dir}})
	pids := waitPids(t, dir, 3, ch)
	cancel()
	if err := await(t, ch, 15*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	assertReaped(t, pids)
}

func TestRunStartFailure(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	err := Run(context.Background(), Spec{NP: 2, Argv: []string{missing}})
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 0 || !strings.Contains(err.Error(), missing) {
		t.Fatalf("got %v, want a *RankError for rank 0 naming %s", err, missing)
	}
}

func TestRunBadSpec(t *testing.T) {
	for _, s := range []Spec{{NP: 0, Argv: []string{"x"}}, {NP: 2}} {
		if err := Run(context.Background(), s); err == nil || !strings.HasPrefix(err.Error(), "launch: ") {
			t.Errorf("Spec %+v: got %v, want a launch: error", s, err)
		}
	}
}

// TestLauncherKilled kills a launcher process with SIGKILL: its workers must
// die with it (parent-death signal, control connection).
func TestLauncherKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := execTest(t, "launcher", envDir+"="+dir)
	pids := waitPids(t, dir, 3, nil)
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for r, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("rank %d (pid %d) still running 5 s after its launcher was killed", r, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestRunReportedErrorPrintedOnce(t *testing.T) {
	var stderr syncBuffer
	err := Run(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Stderr: &stderr, Timeout: 30 * time.Second,
		Env: []string{quickExit, envMode + "=report"}})
	var re *RankError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a *RankError", err)
	}
	want := fmt.Sprintf("launch: rank %d: problem seen by rank %d ; second line (exited with status 1)", re.Rank, re.Rank)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got := stderr.String(); strings.Contains(got, "problem seen") || strings.Contains(got, reportPrefix) {
		t.Errorf("reported errors leaked into the job's stderr:\n%s", got)
	}
	// Which ranks write theirs before the first report stops the job
	// depends on scheduling; the first rank to fail wrote its own.
	if got := stderr.String(); !strings.Contains(got, fmt.Sprintf("rank %d: an ordinary line\n", re.Rank)) {
		t.Errorf("ordinary stderr lines must still pass; got:\n%s", got)
	}
}

// stopRank starts a 3-rank job of hanging workers without a timeout and
// stops rank 1 with SIGSTOP once all joined.
func stopRank(t *testing.T) (<-chan error, []int) {
	dir := t.TempDir()
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)},
		Env: []string{quickExit, envMode + "=hang", envDir + "=" + dir}})
	pids := waitPids(t, dir, 3, ch)
	if err := syscall.Kill(pids[1], syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	return ch, pids
}

func TestRunStoppedRankFails(t *testing.T) {
	defer func(d time.Duration) { stoppedLimit = d }(stoppedLimit)
	stoppedLimit = time.Second
	ch, pids := stopRank(t)
	err := await(t, ch, 20*time.Second)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 || !strings.Contains(err.Error(), "stopped (process state T") {
		t.Fatalf("got %v, want a *RankError for rank 1 stopped", err)
	}
	assertReaped(t, pids)
}

// stopBeforeTimeout starts a 3-rank job of hanging workers with this
// timeout and stops rank 1 with SIGSTOP once all joined. It returns the
// ranks' pids, how long after the job's start /proc showed rank 1 stopped
// (timeout or more when it did not before the timeout passed) and Run's
// error; nil pids when the job ended before all ranks joined (those that
// did are checked reaped).
func stopBeforeTimeout(t *testing.T, timeout time.Duration) (pids []int, stoppedIn time.Duration, err error) {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	ch := startJob(context.Background(), Spec{NP: 3, Argv: []string{testExe(t)}, Timeout: timeout,
		Env: []string{quickExit, envMode + "=hang", envDir + "=" + dir}})
	pids, err = joinedPids(t, dir, 3, ch)
	if pids == nil {
		assertJoinedReaped(t, dir, 3)
		return nil, timeout, err
	}
	if err := syscall.Kill(pids[1], syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for procState(pids[1]) != 'T' && time.Since(start) < timeout {
		time.Sleep(5 * time.Millisecond)
	}
	stoppedIn = time.Since(start)
	return pids, stoppedIn, await(t, ch, timeout+30*time.Second)
}

// TestRunTimeoutNamesStoppedRank: a job whose timeout passes while rank 1
// is stopped names it. The timeout runs from the start of Run, and on a
// loaded host the ranks may take longer than it to start: a try in which
// rank 1 was not yet seen stopped when the timeout passed tells nothing
// and is repeated with twice the timeout (4 s, then 8, 16, 32). A try in
// which it was must name it.
func TestRunTimeoutNamesStoppedRank(t *testing.T) {
	defer func(d time.Duration) { stoppedLimit = d }(stoppedLimit)
	stoppedLimit = time.Hour
	for timeout := 4 * time.Second; timeout <= 32*time.Second; timeout *= 2 {
		pids, stoppedIn, err := stopBeforeTimeout(t, timeout)
		if stoppedIn < timeout {
			if !errors.Is(err, ErrTimeout) || !strings.HasSuffix(err.Error(), "ranks still running: [0 1 2]; rank 1 is stopped (state T)") {
				t.Fatalf("got %v, want ErrTimeout naming stopped rank 1 (stopped %v into a %v timeout)", err, stoppedIn, timeout)
			}
			assertReaped(t, pids)
			return
		}
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want ErrTimeout", err)
		}
		assertReaped(t, pids)
		if pids == nil {
			t.Logf("the ranks had not all joined when the %v timeout passed: trying again", timeout)
		} else {
			t.Logf("rank 1 was seen stopped %v into the job, not before its %v timeout: trying again", stoppedIn, timeout)
		}
	}
	t.Fatal("the ranks never started and stopped within a 32 s timeout")
}

// TestRunOutOfDescriptors: a launcher that runs out of file descriptors
// while ranks connect ends the job at once with one error saying so,
// instead of letting every rank wait for the table until its timeout.
func TestRunOutOfDescriptors(t *testing.T) {
	cmd := proctest.Command(t, testExe(t))
	cmd.Env = append(cmd.Environ(), envMode+"=lowfd", quickExit)
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Without the check every rank waits for the table until the job's
	// 60 s timeout; starting 30 race-built ranks takes up to 25 s on a
	// loaded 2-CPU host, so the bound lies between the two.
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("the job took %v to fail, as long as waiting for the 60 s timeout", d)
	}
	if got := string(out); !strings.HasPrefix(got, "launch: the launcher stopped accepting ranks (") || !strings.Contains(got, "too many open files") || strings.Count(got, "\n") != 1 {
		t.Errorf("Run error %q: want one line saying the launcher stopped accepting ranks, naming too many open files", got)
	}
}

// TestSuperviseTimeoutAfterRanksEnded: the timeout fires when every
// rank's process has ended but their exit events (sent once their output
// is drained) have not arrived: the job finished in time, and supervise
// returns its result (success), not ErrTimeout.
func TestSuperviseTimeoutAfterRanksEnded(t *testing.T) {
	j := &job{spec: Spec{NP: 2, Timeout: time.Nanosecond}, exits: make(chan exitEvent, 2),
		procs: []*rankProc{{rank: 0}, {rank: 1}}}
	for _, p := range j.procs {
		p.ended.Store(true)
	}
	go func() {
		time.Sleep(100 * time.Millisecond) // the timer has fired by now
		j.exits <- exitEvent{rank: 1, at: time.Now()}
		j.exits <- exitEvent{rank: 0, at: time.Now()}
	}()
	if err := j.supervise(context.Background(), nil); err != nil {
		t.Fatalf("a job whose ranks had all ended: %v", err)
	}
}
