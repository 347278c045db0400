package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2EOneProcessParallelTransfer runs Sendrecv and Exchange on one
// process, as IMB does: without -npmin the sweep starts at min(2, -np).
func TestE2EOneProcessParallelTransfer(t *testing.T) {
	cmd, out, errb := e2eCmd(t, "run", "-np", "1", "-msglog", "0:2", "-time", "1", "--all-sizes", "sendrecv", "exchange", "--timeout", "60s")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, name := range []string{"Sendrecv", "Exchange"} {
		if n := tableRows(out.String(), name, "# #processes = 1 \n"); n != 4 {
			t.Errorf("%s on 1 process: %d rows, want 4:\n%s", name, n, out)
		}
	}
}

// checkOneLine checks that stderr is one line starting with want.
func checkOneLine(t *testing.T, stderr, want string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr should be one line starting %q, got:\n%s", want, stderr)
	}
}

// TestE2ESignals: SIGINT exits 130 and SIGTERM 143, each with one line on
// stderr (not one per rank).
func TestE2ESignals(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
		line string
	}{
		{os.Interrupt, ExitInterrupted, "mpbench: interrupted by SIGINT; rows measured so far were kept\n"},
		{syscall.SIGTERM, ExitTerminated, "mpbench: interrupted by SIGTERM; rows measured so far were kept\n"},
	} {
		cmd, _, errb, jf, kids := startLongRun(t, 3)
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd, 15*time.Second); code != tc.code {
			t.Errorf("%v: exit status %d, want %d", tc.sig, code, tc.code)
		}
		if errb.String() != tc.line {
			t.Errorf("%v: stderr %q, want %q", tc.sig, errb, tc.line)
		}
		checkGone(t, kids)
		checkKeptRows(t, jf)
		checkEndRecord(t, jf, strings.TrimPrefix(strings.TrimSpace(tc.line), "mpbench: "))
	}
}

// TestE2EKilledRankZero: rank 0 cannot write the end record when it is
// killed; the launcher appends it, and prints the failure once.
func TestE2EKilledRankZero(t *testing.T) {
	cmd, _, errb, jf, kids := startLongRun(t, 2)
	killRankAndWait(t, cmd, kids, 0)
	checkOneLine(t, errb.String(), "mpbench: run failed: launch: rank 0: killed by signal SIGKILL; the job was at Sendrecv on 2 processes, last row #bytes ")
	checkGone(t, kids)
	checkKeptRows(t, jf)
	checkEndRecord(t, jf, "run failed: launch: rank 0: killed by signal SIGKILL")
}

// killRankAndWait kills the process of rank (one of kids, the ranks of
// the job cmd runs) with SIGKILL and waits up to 15 s for mpbench to exit
// with status 1, as a job with a failed rank does.
func killRankAndWait(t *testing.T, cmd *exec.Cmd, kids []int, rank int) {
	t.Helper()
	killed := false
	for _, pid := range kids {
		if rankOf(pid) == rank {
			killed = syscall.Kill(pid, syscall.SIGKILL) == nil
		}
	}
	if !killed {
		t.Fatalf("no process of rank %d among %v to kill", rank, kids)
	}
	if code := waitExit(t, cmd, 15*time.Second); code != ExitFailed {
		t.Errorf("exit status %d after rank %d was killed, want %d", code, rank, ExitFailed)
	}
}

// TestE2EStoppedRankNamed stops rank 1 with SIGSTOP: the job fails within
// seconds, in one line naming rank 1 as stopped and where the job was.
func TestE2EStoppedRankNamed(t *testing.T) {
	cmd, _, errb, _, kids := startLongRun(t, 3)
	for _, pid := range kids {
		if rankOf(pid) == 1 {
			syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	if code := waitExit(t, cmd, 30*time.Second); code != ExitFailed {
		t.Errorf("exit status %d, want %d", code, ExitFailed)
	}
	checkOneLine(t, errb.String(), "mpbench: run failed: launch: rank 1: stopped (process state T, e.g. by SIGSTOP) for more than 10s; ")
	if !strings.Contains(errb.String(), "; the job was at Sendrecv on 3 processes, last row #bytes ") {
		t.Errorf("stderr does not say where the job was: %s", errb)
	}
	checkGone(t, kids)
}

// TestE2EAppKilledRankZero: an application's job is supervised as a
// benchmark run is: when rank 0 is killed, the launcher ends the --json
// file with its account, naming the rank and the signal.
func TestE2EAppKilledRankZero(t *testing.T) {
	jf := filepath.Join(t.TempDir(), "app.jsonl")
	cmd, _, errb := e2eCmd(t, "app", "ep", "--class", "B", "-np", "2", "--json", jf, "--timeout", "120s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		data, _ := os.ReadFile(jf)
		if kids = childPids(t, cmd.Process.Pid); strings.Contains(string(data), `"type":"meta"`) && len(kids) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no meta record and 2 ranks after 30 s; stderr:\n%s", errb)
		}
	}
	killRankAndWait(t, cmd, kids, 0)
	checkOneLine(t, errb.String(), "mpbench: app ep failed: launch: rank 0: killed by signal SIGKILL")
	// The surviving rank ends with its peer gone, not with a crash (its
	// report would be a crash file in the working directory).
	if crashes, _ := filepath.Glob("mpbench-crash-*"); len(crashes) > 0 {
		t.Errorf("a rank crashed: %v", crashes)
		for _, c := range crashes {
			os.Remove(c)
		}
	}
	checkEndRecord(t, jf, "app ep failed: launch: rank 0: killed by signal SIGKILL")
}
