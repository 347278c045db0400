package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
)

// TestPlan: the counts of each kind, the ranks hit spread over the job,
// and every benchmark taken in turn.
func TestPlan(t *testing.T) {
	turn := 0
	fs := plan(rand.New(rand.NewPCG(1, 2)), 100, 50, 0, &turn)
	n := map[kind]int{}
	ranks := map[int]int{}
	benches := map[string]bool{}
	for _, f := range fs {
		n[f.kind]++
		if f.np < 2 || f.np > 4 || f.rank < 0 || f.rank >= f.np {
			t.Errorf("%s: rank outside the job", f)
		}
		if f.kind.death() {
			ranks[f.rank]++
		}
		for _, b := range f.benchmarks {
			benches[b] = true
		}
	}
	want := map[kind]int{stopRank: 10, killLarge: 25, killRank: 65, interrupt: 20, terminate: 20, killLauncher: 10}
	for k, w := range want {
		if n[k] != w {
			t.Errorf("%d %s faults, want %d", n[k], k, w)
		}
	}
	for r := range 4 {
		if ranks[r] == 0 {
			t.Errorf("rank %d never hit: %v", r, ranks)
		}
	}
	for _, b := range everyMessage {
		if !benches[b] {
			t.Errorf("%s never run", b)
		}
	}
	if fs := plan(rand.New(rand.NewPCG(1, 2)), 3, 0, 2, &turn); n2(fs, stopRank) != 1 {
		t.Errorf("3 deaths: %d stops, want 1", n2(fs, stopRank))
	}
}

func n2(fs []fault, k kind) int {
	n := 0
	for _, f := range fs {
		if f.kind == k {
			n++
		}
	}
	return n
}

// TestNamesFault: the rank hit and the cause must both be named; a
// collateral rank is not the fault.
func TestNamesFault(t *testing.T) {
	kill := fault{kind: killRank, rank: 2}
	for msg, want := range map[string]bool{
		"mpbench: run failed: launch: rank 2: killed by signal SIGKILL; the job was at Sendrecv":              true,
		"run failed: launch: rank 2 on host chaosb: killed by signal SIGKILL":                                 true,
		"run failed: launch: rank 1: bench: Biband: rank 1: shm: process_vm_readv ... (exited with status 1)": false,
		"run failed: launch: rank 1: killed by signal SIGKILL":                                                false,
		"run failed: launch: rank 12: killed by signal SIGKILL":                                               false,
	} {
		if got := namesFault(msg, kill); got != want {
			t.Errorf("namesFault(%q) = %v, want %v", msg, got, want)
		}
	}
	if !namesFault("mpbench: interrupted by SIGTERM; rows measured so far were kept", fault{kind: terminate}) ||
		namesFault("mpbench: interrupted by SIGINT; rows measured so far were kept", fault{kind: terminate}) {
		t.Error("interrupts are named by their signal")
	}
}

func TestEndRecord(t *testing.T) {
	for _, tc := range []struct {
		text        string
		csv         bool
		status, msg string
	}{
		{`{"type":"meta"}` + "\n" + `{"type":"end","status":"failed","error":"run failed: x"}` + "\n", false, "failed", "run failed: x"},
		{`{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n", false, "", ""},
		{"# format=mpbench-csv\nPingPong,2\n# end=failed: run failed: y\n", true, "failed", "run failed: y"},
		{"# format=mpbench-csv\n# end=ok\n", true, "ok", ""},
	} {
		if s, m := endRecord([]byte(tc.text), tc.csv); s != tc.status || m != tc.msg {
			t.Errorf("endRecord(%q) = %q, %q; want %q, %q", tc.text, s, m, tc.status, tc.msg)
		}
	}
}

// TestPrintedRows: rows of the IMB text printed before a fault, compared
// with a file's rows as multisets.
func TestPrintedRows(t *testing.T) {
	text, err := os.ReadFile("testdata/pingpong-cut.txt")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := printedRows(text)
	if err != nil || len(rows) != 4 {
		t.Fatalf("printedRows: %d rows, %v; want 4", len(rows), err)
	}
	if rows[3].Benchmark != "PingPong" || rows[3].Bytes != 4 || rows[3].Repetitions != 1000 {
		t.Errorf("last row %+v", rows[3])
	}
	if n := missingRows(rows, rows[:3]); n != 1 {
		t.Errorf("missingRows = %d, want 1", n)
	}
	dup := append([]result.Row{}, rows...)
	if n := missingRows(append(dup, rows[0]), rows); n != 1 {
		t.Errorf("a row printed twice but stored once: missingRows = %d, want 1", n)
	}
	if rows, err := printedRows([]byte("")); err != nil || rows != nil {
		t.Errorf("nothing printed: %v, %v", rows, err)
	}
}

func TestIsRow(t *testing.T) {
	for line, want := range map[string]bool{
		"            4         1000         0.34        11.62": true,
		"       #bytes #repetitions      t[usec]   Mbytes/sec": false,
		"# Benchmarking PingPong":                              false,
		"":                                                     false,
	} {
		if isRow(line) != want {
			t.Errorf("isRow(%q) != %v", line, want)
		}
	}
}

// TestCountsOverBound: an end beyond the bound that the load's delay
// allowed is counted apart, not as a hang; the largest delay is kept.
func TestCountsOverBound(t *testing.T) {
	var c counts
	c.add(fault{kind: stopRank}, outcome{endSec: 19.7, boundSec: 18, lagSec: 3.1})
	c.add(fault{kind: killRank}, outcome{endSec: 1.2, boundSec: 8, lagSec: 0.4})
	c.add(fault{kind: killRank}, outcome{endSec: 30, boundSec: 8, lagSec: 1, hang: true})
	if c.overBound != 1 || c.hangs != 1 || c.maxLag != 3.1 || c.maxEndStop != 19.7 || c.maxEnd != 30 {
		t.Errorf("counts %+v: want 1 over the bound, 1 hang, max lag 3.1, max ends 19.7 (stop) and 30", c)
	}
}

// TestSchedule: transports take turns fault by fault, numbered from 1, and
// the same seed gives the same faults (what -skip relies on).
func TestSchedule(t *testing.T) {
	a := schedule(17, modes, 100, 50, 0)
	b := schedule(17, modes, 100, 50, 0)
	if len(a) != 450 {
		t.Fatalf("%d faults, want 450", len(a))
	}
	for i, s := range a {
		if s.n != i+1 || s.tr != modes[i%3] {
			t.Fatalf("fault %d: #%d on %s, want #%d on %s", i, s.n, s.tr, i+1, modes[i%3])
		}
		if s.f.String() != b[i].f.String() || s.f.rank != b[i].f.rank {
			t.Fatalf("#%d differs between two schedules of one seed: %s, %s", s.n, s.f, b[i].f)
		}
	}
	if c := schedule(18, modes, 100, 50, 0); c[0].f.String() == a[0].f.String() && c[1].f.String() == a[1].f.String() && c[2].f.String() == a[2].f.String() {
		t.Error("seeds 17 and 18 start with the same three faults")
	}
}

func TestParseSchedstat(t *testing.T) {
	if w, ok := parseSchedstat("331500775 400177002 1341\n"); !ok || w != 400177002 {
		t.Errorf("parseSchedstat = %d, %v; want 400177002 (the second field)", w, ok)
	}
	if _, ok := parseSchedstat("12\n"); ok {
		t.Error("one field read as a schedstat line")
	}
}

// TestWaitMeter: a process asleep waits for no CPU; processes that
// outnumber the CPUs three to one, each wanting one all the time, wait
// for one most of the time.
func TestWaitMeter(t *testing.T) {
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	pid := sleeper.Process.Pid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if f := statFields(pid); len(f) > 0 && f[0] == "S" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep(1) not asleep after 30 s")
		}
	}
	m := newWaitMeter([]int{pid})
	time.Sleep(300 * time.Millisecond)
	if w := m.sample([]int{pid}); w != 0 {
		t.Errorf("a sleeping process waited %v for a CPU", w)
	}

	n := 3 * runtime.NumCPU()
	var pids []int
	for range n {
		spin := exec.Command("sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { spin.Process.Kill(); spin.Wait() }()
		pids = append(pids, spin.Process.Pid)
	}
	m = newWaitMeter(pids)
	time.Sleep(500 * time.Millisecond)
	// On an idle host n processes on n/3 CPUs wait 2/3 of the time each,
	// about n/3 s in all; other load makes it more.
	if w, want := m.sample(pids), time.Duration(n)*time.Second/12; w < want {
		t.Errorf("%d spinning processes on %d CPUs waited %v for a CPU in 0.5 s, want at least %v", n, runtime.NumCPU(), w, want)
	}
}

// TestStarved: a job is starved when it waited for a CPU at least half of
// the window before its last look.
func TestStarved(t *testing.T) {
	t0 := time.Now()
	s := func(sec, waited int) waitSample {
		return waitSample{at: t0.Add(time.Duration(sec) * time.Second), total: time.Duration(waited) * time.Second}
	}
	m := &waitMeter{samples: []waitSample{s(0, 0), s(60, 10), s(120, 70), s(180, 80)}}
	if w, span := m.waitedIn(2 * time.Minute); w != 70*time.Second || span != 2*time.Minute || !m.starved(2*time.Minute) {
		t.Errorf("last 2 minutes: waited %v of %v, starved %v; want 70s of 2m0s, starved", w, span, m.starved(2*time.Minute))
	}
	if m.starved(time.Minute) {
		t.Error("10 s of wait in the last minute called starved")
	}
	if w, span := m.waitedIn(time.Hour); w != 80*time.Second || span != 3*time.Minute {
		t.Errorf("a window longer than the meter: %v of %v, want 80s of 3m0s", w, span)
	}
	if (&waitMeter{samples: []waitSample{s(0, 0)}}).starved(time.Minute) {
		t.Error("a meter with one look called starved")
	}
}

// TestWatchdogStop: the launcher's lines for --stall and --timeout, not
// a rank's failure.
func TestWatchdogStop(t *testing.T) {
	for line, want := range map[string]bool{
		"mpbench: run failed: no output from rank 0 for 2m0s (--stall): a rank hangs or the transport stalled; the job was at Scatterv": true,
		"mpbench: run failed: the job ran longer than --timeout 5m0s and was stopped":                                                   true,
		"mpbench: run failed: launch: job exceeded its timeout (5m0s); ranks still running: [0 1]":                                      true,
		"mpbench: run failed: launch: rank 1: killed by signal SIGSEGV":                                                                 false,
	} {
		var j job
		j.stderr.WriteString(line + "\n")
		if j.watchdogStop() != want {
			t.Errorf("watchdogStop(%q) = %v", line, !want)
		}
	}
}
