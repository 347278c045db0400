package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
)

// The files of mpbench's own runtime over TCP: one PingPong across two
// nodes of an emulated 100 Mbit/s switch, its IMB text and its JSON Lines
// (testdata/README.md gives the command and the host).
const (
	tcpRunText  = "mpbench-tcp-testbed-switch100-pingpong.txt"
	tcpRunJSONL = "mpbench-tcp-testbed-switch100-pingpong.jsonl"
)

// ethLineBytes is the line time in bytes of a TCP segment carrying n
// bytes under eth:100m, computed here from IEEE 802.3 and the IPv4/TCP
// headers: n + 40 (IPv4, TCP) padded to the 46-byte minimum client data,
// plus MAC header 14, FCS 4, preamble 8, gap 12, per 1460-byte segment.
func ethLineBytes(n int64) int64 {
	frames := max((n+1459)/1460, 1)
	last := n - (frames-1)*1460
	return n - last + max(last+40, 46) + 38 + 78*(frames-1)
}

// TestWireChargesMpbenchTCPHeader: under --wire eth:100m, mpbench's runs
// over TCP (both file formats) are charged the runtime's 32-byte header
// before every message (a 0-byte message is 110 bytes of line time, 8.80
// usec), IMB's and OSU's files from MPI libraries and mpbench's
// shared-memory run are not (84 bytes, 6.72 usec). Their latency is the
// mean of t - wire over the first 7 sizes, computed from the rows.
func TestWireChargesMpbenchTCPHeader(t *testing.T) {
	eth, err := analysis.ParseWireModel("eth:100m")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file   string
		class  bool  // testdata/classes, else the corpus
		header int64 // bytes charged before each message
		zero   int64 // line bytes of a 0-byte message
		bench  string
	}{
		{tcpRunText, true, 32, 110, "PingPong"},
		{tcpRunJSONL, true, 32, 110, "PingPong"},
		{"mpbench-pingpong-allreduce-spread.jsonl", true, 0, 84, "PingPong"},
		{pingPongFile, false, 0, 84, "PingPong"},
		{"004-osu532-latency.txt", false, 0, 84, "osu_latency"},
	} {
		var path string
		var runs []result.Run
		if c.class {
			path, runs = classRuns(t, c.file)
		} else {
			path, runs = corpusRuns(t, c.file)
		}
		rep := Analyze(path, 1, 1, runs[0], Options{Wire: &eth, K: 7})
		var s *SeriesReport
		for i := range rep.Series {
			if rep.Series[i].Benchmark == c.bench {
				s = &rep.Series[i]
			}
		}
		if s == nil || len(s.Wire) < 7 {
			t.Fatalf("%s: no %s series with 7 sizes or more", c.file, c.bench)
		}
		if s.Model.MessageHeader != c.header {
			t.Errorf("%s (tool %q, transport %q): header %d B charged, want %d", c.file, runs[0].Meta.Tool, runs[0].Meta.Transport, s.Model.MessageHeader, c.header)
		}
		if w := s.Wire[0]; w.Bytes != 0 || w.TotalBytes != c.zero || fmt.Sprintf("%.2f", w.WireUsec) != fmt.Sprintf("%.2f", float64(c.zero)*0.08) {
			t.Errorf("%s: first row %d B, %d B on the wire, %.3f usec; want 0 B, %d B, %.2f usec", c.file, w.Bytes, w.TotalBytes, w.WireUsec, c.zero, float64(c.zero)*0.08)
		}
		sum := 0.0
		for _, r := range s.Rows[:7] {
			sum += r.Time() - float64(ethLineBytes(r.Bytes+c.header))*0.08
		}
		if want := sum / 7; math.Abs(s.LatencyUsec-want) > 1e-9 {
			t.Errorf("%s: latency %.4f usec, want %.4f (the rows' t less the wire time with %d header bytes)", c.file, s.LatencyUsec, want, c.header)
		}
	}
}

// TestWireHeaderLowersLatencyByItsLineTime: the same mpbench TCP run read
// as if an MPI library had written it is charged no header, and its
// latency rises by the header's mean line time over sizes 0..32: 26, 27,
// 28, 30, 32, 32, 32 bytes (the bare segment's padding absorbs part of
// it), 207/7 x 0.08 = 2.366 usec.
func TestWireHeaderLowersLatencyByItsLineTime(t *testing.T) {
	eth, err := analysis.ParseWireModel("eth:100m")
	if err != nil {
		t.Fatal(err)
	}
	path, runs := classRuns(t, tcpRunJSONL)
	with := Analyze(path, 1, 1, runs[0], Options{Wire: &eth, K: 7})
	run := runs[0]
	run.Meta.Tool = "IMB-MPI1"
	without := Analyze(path, 1, 1, run, Options{Wire: &eth, K: 7})
	if len(with.Series) == 0 || len(without.Series) == 0 {
		t.Fatal("no series")
	}
	d := without.Series[0].LatencyUsec - with.Series[0].LatencyUsec
	if want := 207.0 / 7 * 0.08; math.Abs(d-want) > 1e-9 {
		t.Errorf("latency without the header - with it = %.4f usec, want %.4f", d, want)
	}
	if got := with.Series[0].Model.Name; got != "eth:100m:mtu=1500 + mpbench's 32-byte TCP frame header" {
		t.Errorf("model name %q", got)
	}
}
