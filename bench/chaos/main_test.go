package main

import (
	"math/rand/v2"
	"os"
	"testing"

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
