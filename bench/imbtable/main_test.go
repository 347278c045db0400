package main

import (
	"bytes"
	"github.com/mpbench/mpbench/result"
	"math"
	"strings"
	"testing"
)

func TestLoadMedianRatio(t *testing.T) {
	tb, err := load("testdata", []string{"shm", "tcp"})
	if err != nil {
		t.Fatal(err)
	}
	if tb.rounds["shm"] != 2 || tb.rounds["tcp"] != 1 {
		t.Fatalf("rounds %v, want shm 2, tcp 1", tb.rounds)
	}
	k := key{"PingPong", 8}
	// PingPong 8 B: 1.33 and 2.79 usec over shm, 29.03 over tcp.
	if m := tb.median("shm", k); math.Abs(m-(1.33+2.79)/2) > 1e-9 {
		t.Errorf("shm median %v, want %v", m, (1.33+2.79)/2)
	}
	if m := tb.median("tcp", k); m != 29.03 {
		t.Errorf("tcp median %v, want 29.03", m)
	}
	if tb.order[0] != (key{"PingPong", 0}) || tb.order[len(tb.order)-1].bench != "Barrier" {
		t.Errorf("order starts %v, ends %v; want PingPong 0 first and Barrier last", tb.order[0], tb.order[len(tb.order)-1])
	}
	var out bytes.Buffer
	rs, err := parseRatios("tcp=shm")
	if err != nil {
		t.Fatal(err)
	}
	write(&out, tb, []string{"shm", "tcp"}, rs, 3)
	want := "PingPong          8        2.06 (x 2.10)       29.03 (x 1.00)          14.09"
	if !strings.Contains(out.String(), want) {
		t.Errorf("table lacks the line\n%s\n in\n%s", want, out.String())
	}
}

func TestParseRatios(t *testing.T) {
	rs, err := parseRatios("a=b|c, d=e")
	if err != nil || len(rs) != 2 || rs[0].a != "a" || strings.Join(rs[0].bs, ",") != "b,c" || rs[1].a != "d" {
		t.Errorf("parseRatios = %+v, %v", rs, err)
	}
	for _, bad := range []string{"a", "a=", "=b"} {
		if _, err := parseRatios(bad); err == nil {
			t.Errorf("parseRatios(%q): no error", bad)
		}
	}
}

// TestRowTimeOfBandwidthRows checks the time per message of Uniband and
// Biband rows, which print Msg/sec and no time.
func TestRowTimeOfBandwidthRows(t *testing.T) {
	r := result.NewRow("Uniband", 2, 1024)
	r.MsgRate = 2e6
	if got := rowTime(&r); got != 0.5 {
		t.Errorf("Uniband at 2e6 Msg/sec: time %v usec, want 0.5", got)
	}
	p := result.NewRow("PingPong", 2, 1024)
	p.TMax = 1.25
	if got := rowTime(&p); got != 1.25 {
		t.Errorf("PingPong: time %v, want t_max 1.25", got)
	}
}

// TestShortRowsNamed checks that a row medianed over fewer rounds than its
// configuration ran says so, and that a complete row says nothing.
func TestShortRowsNamed(t *testing.T) {
	k := key{"Uniband", 4096}
	tb := &table{
		samples: map[string]map[key][]float64{
			"imb": {k: {1, 2, 3}},
			"mpb": {k: {1, 2, 3, 4, 5}},
		},
		rounds: map[string]int{"imb": 5, "mpb": 5},
	}
	if got, want := short(tb, []string{"imb", "mpb"}, k), "  # fewer rounds: imb 3/5"; got != want {
		t.Errorf("short = %q, want %q", got, want)
	}
	tb.samples["imb"][k] = []float64{1, 2, 3, 4, 5}
	if got := short(tb, []string{"imb", "mpb"}, k); got != "" {
		t.Errorf("complete row: short = %q, want empty", got)
	}
}

// TestPairedRatio checks the per-round ratio: tcp ran round 1 only, so
// PingPong 8 B pairs tcp's 29.03 usec with shm's round-1 1.33 usec, not with
// shm's median; a size nobody measured has no paired ratio.
func TestPairedRatio(t *testing.T) {
	tb, err := load("testdata", []string{"shm", "tcp"})
	if err != nil {
		t.Fatal(err)
	}
	k := key{"PingPong", 8}
	if got, want := tb.pairedRatio("tcp", "shm", k), 29.03/1.33; math.Abs(got-want) > 1e-9 {
		t.Errorf("paired tcp/shm %v, want %v", got, want)
	}
	if got := tb.pairedRatio("tcp", "shm", key{"PingPong", 1 << 30}); !math.IsNaN(got) {
		t.Errorf("paired ratio of an unmeasured size %v, want NaN", got)
	}
	rs, _ := parseRatios("tcp=shm")
	tb.paired = true
	var out bytes.Buffer
	write(&out, tb, []string{"shm", "tcp"}, rs, 3)
	want := "PingPong          8        2.06 (x 2.10)       29.03 (x 1.00) 14.09 (p 21.83)"
	if !strings.Contains(out.String(), want) {
		t.Errorf("table lacks the line\n%s\n in\n%s", want, out.String())
	}
}
