package main

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestMedianInterval checks the sign-test interval's ranks: 9 samples give
// the 2nd and 8th (96.1%), 6 the extremes (96.9%), 20 the 6th and 15th
// (95.9%; the 7th and 14th would cover 88.5%), and 5 none (93.8% at most).
func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1)
		}
		return x
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{9, 2, 8}, {6, 1, 6}, {20, 6, 15}, {7, 1, 7}} {
		lo, hi, ok := medianInterval(seq(c.n), verdictLevel)
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("n %d: interval %v-%v (ok %v), want %v-%v", c.n, lo, hi, ok, c.lo, c.hi)
		}
	}
	if lo, hi, ok := medianInterval(seq(5), verdictLevel); ok {
		t.Errorf("n 5: interval %v-%v, want none", lo, hi)
	}
}

// TestJudgeRatios checks the four outcomes on 9 per-round ratios, in any
// order: an interval inside 0.95-1.05, one wholly above, one too wide (the
// Biband 1 KiB ratios of a quiet run on Open MPI, 2026-12-02), and a narrow
// one reaching past 1.05.
func TestJudgeRatios(t *testing.T) {
	for _, c := range []struct {
		rs     []float64
		text   string
		median float64
		spread float64
	}{
		{[]float64{1.04, 0.97, 0.98, 0.99, 1.0, 1.0, 1.01, 1.02, 1.03}, "within 5%", 1.0, 0.025},
		{[]float64{1.06, 1.07, 1.08, 1.09, 1.10, 1.11, 1.12, 1.13, 1.20}, "outside 5%", 1.10, 0.03 / 1.10},
		{[]float64{0.44, 0.65, 0.78, 0.99, 1.01, 1.06, 1.35, 1.82, 2.46}, "no verdict: spread 57.9% > 5%", 1.01, (1.82 - 0.65) / 2 / 1.01},
		{[]float64{1.00, 1.02, 1.03, 1.03, 1.04, 1.04, 1.05, 1.06, 1.07}, "no verdict: interval 1.020-1.060 reaches past 1.05", 1.04, 0.02 / 1.04},
		{[]float64{0.9, 1.1, 1.0}, "no verdict: 3 of the 6 rounds a 95% interval needs", 1.0, math.NaN()},
	} {
		v := judgeRatios(c.rs, 0.05)
		if v.text != c.text || math.Abs(v.median-c.median) > 1e-9 || !(math.Abs(v.spread-c.spread) < 1e-9 || math.IsNaN(c.spread) && math.IsNaN(v.spread)) {
			t.Errorf("%v: %q median %v spread %v, want %q %v %v", c.rs, v.text, v.median, v.spread, c.text, c.median, c.spread)
		}
	}
	if v := judgeRatios([]float64{1.04, 0.97, 0.98, 0.99, 1.0, 1.0, 1.01, 1.02, 1.03}, 0.01); v.text != "no verdict: spread 2.5% > 1%" {
		t.Errorf("tolerance 1%%: %q", v.text)
	}
}

// TestWriteVerdicts checks the section on a table of 9 rounds: Biband
// 1 KiB pairs round i of mpi with round i of imb (not their medians), 512 B
// is below -verdict-from, PingPong is not judged, and the count line adds
// the sizes up.
func TestWriteVerdicts(t *testing.T) {
	tb := &table{byRound: map[string]map[key]map[string]float64{"mpi": {}, "imb": {}}}
	k1, k2, small, pp := key{"Biband", 1024}, key{"Biband", 1 << 20}, key{"Biband", 512}, key{"PingPong", 1024}
	tb.order = []key{pp, small, k1, k2}
	for _, k := range tb.order {
		tb.byRound["mpi"][k] = map[string]float64{}
		tb.byRound["imb"][k] = map[string]float64{}
	}
	// imb's rounds swing 1-3x; mpi's are imb's times 1.0000-1.0408 at
	// 1 KiB and 1.1000-1.2008 at 1 MiB, in steps of 0.0051 and 0.0126.
	for i := range 9 {
		r := strconv.Itoa(i + 1)
		base := 1 + float64(i%3)
		for _, k := range tb.order {
			tb.byRound["imb"][k][r] = base
		}
		tb.byRound["mpi"][k1][r] = base * (1 + 0.0051*float64(i))
		tb.byRound["mpi"][k2][r] = base * (1.10 + 0.0126*float64(i))
		tb.byRound["mpi"][small][r] = base * 3
		tb.byRound["mpi"][pp][r] = base * 3
	}
	j, err := parseJudge("mpi=imb", "Uniband,Biband", 1024, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeVerdicts(&out, tb, j)
	s := out.String()
	var rows []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "mpi/imb ") {
			rows = append(rows, strings.Join(strings.Fields(line), " "))
		}
	}
	want := []string{
		// A/B bench bytes rounds B A medians paired interval spread per-round verdict
		"mpi/imb Biband 1024 9 2.00 (x 3.00) 2.04 (x 3.12) 1.02 1.02 1.005-1.036 1.5% 1.000-1.041 within 5%",
		"mpi/imb Biband 1048576 9 2.00 (x 3.00) 2.30 (x 3.27) 1.15 1.15 1.113-1.188 3.3% 1.100-1.201 outside 5%",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdict rows\n%s\nwant\n%s\nin\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"), s)
	}
	if !strings.Contains(s, "# mpi/imb Biband: within 5% at 1 sizes, outside at 1, no verdict at 0; ratio of medians inside 0.95-1.05 at 1 of 2, paired ratio at 1 of 2") {
		t.Errorf("no count line in\n%s", s)
	}
}

// TestParseJudge checks the refusals: several B's, a tolerance given in
// percent or 0, a negative size, no benchmark.
func TestParseJudge(t *testing.T) {
	if _, err := parseJudge("a=b,c=d", "Biband", 1024, 0.05); err != nil {
		t.Errorf("a=b,c=d: %v", err)
	}
	for _, c := range []struct {
		pairs, benches string
		from           int64
		tol            float64
		msg            string
	}{
		{"a=b|c", "Biband", 1024, 0.05, "one configuration"},
		{"a=b", "Biband", 1024, 5, "between 0 and 1"},
		{"a=b", "Biband", 1024, 0, "between 0 and 1"},
		{"a=b", "Biband", -1, 0.05, "0 or more"},
		{"a=b", " ", 1024, 0.05, "name the benchmarks"},
		{"a", "Biband", 1024, 0.05, "want A=B"},
	} {
		if _, err := parseJudge(c.pairs, c.benches, c.from, c.tol); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want one containing %q", c, err, c.msg)
		}
	}
}
