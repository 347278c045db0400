package transfer

import (
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/analysis"
)

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("0,1,1K,1M,10M,100M,1Ki,2MiB,3g")
	want := []int64{0, 1, 1000, 1e6, 10e6, 100e6, 1024, 2 << 20, 3e9}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseSizes: %v %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("size %d: %d, want %d", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "x", "-1", "1T", "100G"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
	if FormatSize(10e6) != "10M" || FormatSize(1024) != "1024" || FormatSize(0) != "0" {
		t.Error("FormatSize")
	}
}

func TestSummarise(t *testing.T) {
	m, err := analysis.EthernetModel(10, 1500, false)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	// 10 MB in a median of 8500 ms: 9.412 Mbit/s (the study's switch at
	// 10 Mbit/s measured 9.41).
	r := Summarise(10e6, []time.Duration{8400 * ms, 8600 * ms, 8500 * ms, 9000 * ms, 8450 * ms}, &m)
	if r.MinMs != 8400 || r.MaxMs != 9000 || r.MedMs != 8500 || r.Repeats != 5 {
		t.Errorf("times: %+v", r)
	}
	if math.Abs(r.Mbps-9.4118) > 1e-3 {
		t.Errorf("Mbit/s %.4f, want 9.4118", r.Mbps)
	}
	if math.Abs(r.LinePct-94.118) > 1e-2 {
		t.Errorf("%% of line rate %.3f, want 94.118", r.LinePct)
	}
	// The model carries 10 MB in 6850 frames of 1460 bytes: 10e6 + 6850 x
	// 78 bytes at 0.8 us/B = 8.427 s, 9.493 Mbit/s.
	if want := 100 * 9.4118 / (10e6 * 8 / m.WireUsec(10e6)); math.Abs(r.ModelPct-want) > 1e-2 || math.Abs(r.ModelPct-99.14) > 0.05 {
		t.Errorf("%% of model %.3f, want %.3f", r.ModelPct, want)
	}
	// An even count takes the mean of the middle two.
	if r := Summarise(1, []time.Duration{ms, 3 * ms}, nil); r.MedMs != 2 || r.LinePct != 0 {
		t.Errorf("even count: %+v", r)
	}
}

func TestServeAndSendOverLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go Serve(ln)
	dial := func() (net.Conn, error) { return net.Dial("tcp", ln.Addr().String()) }
	for _, size := range []int64{0, 1, 1000, 3 << 20} {
		d, err := Send(dial, size)
		if err != nil || d <= 0 {
			t.Errorf("size %d: %v %v", size, d, err)
		}
	}
	// A server that closes early is reported with the byte count.
	bad, _ := net.Listen("tcp", "127.0.0.1:0")
	defer bad.Close()
	go func() {
		c, err := bad.Accept()
		if err == nil {
			c.Close()
		}
	}()
	_, err = Send(func() (net.Conn, error) { return net.Dial("tcp", bad.Addr().String()) }, 1000)
	if err == nil || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("server closing early: %v", err)
	}
}
