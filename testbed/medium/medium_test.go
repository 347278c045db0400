package medium

import (
	"math"
	"testing"
	"time"
)

const us = time.Microsecond

func mustNew(t *testing.T, kind string, ports int, rate float64, lat time.Duration) Medium {
	t.Helper()
	m, err := New(kind, Params{Ports: ports, RateBps: rate, Latency: lat}, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWireBytes(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{1514, 1538}, // full 1500-byte IP packet: 1460 payload + 78
		{54, 84},     // pure TCP ACK, padded to the 64-byte minimum frame
		{42, 84},     // ARP
		{60, 84},
		{61, 85},
	} {
		if got := WireBytes(c.in); got != c.want {
			t.Errorf("WireBytes(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestSwitchStoreAndForward(t *testing.T) {
	s := mustNew(t, "switch", 4, 100e6, 5*us)
	tx := 123040 * time.Nanosecond // 1538 bytes at 100 Mbit/s
	a := s.Send(0, 1, 1514, 0)
	if len(a) != 1 || a[0].Port != 1 || a[0].At != 2*tx+5*us {
		t.Fatalf("one frame: %+v, want port 1 at %v", a, 2*tx+5*us)
	}
	// Full duplex: the reverse direction does not wait.
	if a := s.Send(1, 0, 1514, 0); a[0].At != 2*tx+5*us {
		t.Errorf("reverse frame at %v, want %v", a[0].At, 2*tx+5*us)
	}
	// Another pair is independent.
	if a := s.Send(2, 3, 1514, 0); a[0].At != 2*tx+5*us {
		t.Errorf("other pair at %v, want %v", a[0].At, 2*tx+5*us)
	}
	// Two senders to one receiver queue on the receiver's line.
	if a := s.Send(2, 1, 1514, 0); a[0].At != 3*tx+5*us {
		t.Errorf("second frame to port 1 at %v, want %v", a[0].At, 3*tx+5*us)
	}
	// A second frame from port 0 waits for port 0's line.
	if a := s.Send(0, 3, 1514, 0); a[0].At != 3*tx+5*us {
		t.Errorf("second frame from port 0 at %v, want %v", a[0].At, 3*tx+5*us)
	}
}

func TestSwitchBroadcast(t *testing.T) {
	s := mustNew(t, "switch", 3, 10e6, 0)
	a := s.Send(1, Broadcast, 42, 0)
	tx := 67200 * time.Nanosecond // 84 bytes at 10 Mbit/s
	if len(a) != 2 || a[0].Port != 0 || a[1].Port != 2 || a[0].At != 2*tx || a[1].At != 2*tx {
		t.Fatalf("broadcast: %+v", a)
	}
}

func TestHubSerialisesEveryone(t *testing.T) {
	h := mustNew(t, "hub", 4, 10e6, 0)
	tx := 1230400 * time.Nanosecond // 1538 bytes at 10 Mbit/s
	if a := h.Send(0, 1, 1514, 0); a[0].At != tx {
		t.Errorf("first frame at %v, want %v (a hub repeats, no store and forward)", a[0].At, tx)
	}
	if a := h.Send(2, 3, 1514, 0); a[0].At != 2*tx {
		t.Errorf("other pair at %v, want %v", a[0].At, 2*tx)
	}
	if a := h.Send(1, 0, 1514, 0); a[0].At != 3*tx {
		t.Errorf("reverse direction at %v, want %v (half duplex)", a[0].At, 3*tx)
	}
	if a := h.Send(1, 0, 1514, 10*tx); a[0].At != 11*tx {
		t.Errorf("idle medium: %v, want %v", a[0].At, 11*tx)
	}
}

func TestWifiAirtime(t *testing.T) {
	// DIFS 28 + 7.5 x 9 + 20 + 57 x 4 + 6, then SIFS 10 + ACK 20 + 2 x 4 + 6.
	if got, want := WifiAirtime(1514, 7.5, true), 3935*us/10; got != want {
		t.Errorf("1514-byte frame: %v, want %v", got, want)
	}
	// A 54-byte TCP ACK: MPDU 76 bytes = 630 bits = 3 symbols.
	if got, want := WifiAirtime(54, 0, false), 28*us+20*us+12*us+6*us; got != want {
		t.Errorf("54-byte frame without backoff and ACK: %v, want %v", got, want)
	}
}

func TestWifiRelayAndScale(t *testing.T) {
	air := WifiAirtime(1514, 7.5, true)
	w, _ := NewWifi(Params{Ports: 3, RateBps: 54e6}, WifiOptions{})
	if a := w.Send(0, 1, 1514, 0); a[0].At != air {
		t.Errorf("ad hoc: %v, want %v", a[0].At, air)
	}
	r, _ := NewWifi(Params{Ports: 3, RateBps: 27e6}, WifiOptions{Relay: true})
	if a := r.Send(0, 1, 1514, 0); a[0].At != 4*air {
		t.Errorf("through the AP at half the rate: %v, want %v", a[0].At, 4*air)
	}
	// Broadcast through the AP: acked up, not acked down.
	r2, _ := NewWifi(Params{Ports: 3, RateBps: 54e6}, WifiOptions{Relay: true})
	want := WifiAirtime(42, 7.5, true) + WifiAirtime(42, 7.5, false)
	if a := r2.Send(0, Broadcast, 42, 0); len(a) != 2 || a[1].At != want {
		t.Errorf("broadcast: %+v, want 2 arrivals at %v", a, want)
	}
}

func TestWifiJitter(t *testing.T) {
	w, _ := NewWifi(Params{Ports: 2, RateBps: 54e6}, WifiOptions{Jitter: true, Seed: 7})
	seen := map[time.Duration]bool{}
	var prev, sum time.Duration
	const n = 4000
	for range n {
		end := w.Send(0, 1, 1514, prev)[0].At
		seen[end-prev] = true
		sum += end - prev
		prev = end
	}
	if len(seen) != WifiCWMin+1 {
		t.Errorf("%d distinct airtimes, want %d (backoff 0..15 slots)", len(seen), WifiCWMin+1)
	}
	mean := sum / n
	if d := mean - WifiAirtime(1514, 7.5, true); d < -2*us || d > 2*us {
		t.Errorf("mean airtime %v, want within 2 usec of the mean-backoff airtime", mean)
	}
}

func TestBulkPayloadMatchesWireModel(t *testing.T) {
	// analysis' wire model: 1460 / 1538 of 100 Mbit/s = 94.93 Mbit/s.
	got := BulkPayloadBps(mustNew(t, "switch", 2, 100e6, 0), 0, 1, 1500, 100e6)
	if math.Abs(got/1e6-94.93) > 0.1 { // end effect: the last frame crosses two lines, then its ACK
		t.Errorf("switch bulk payload %.3f Mbit/s, want 94.93", got/1e6)
	}
	// A hub carries the ACKs on the same medium: 2 x 1538 + 84 bytes per
	// 2 x 1460 of payload.
	got = BulkPayloadBps(mustNew(t, "hub", 2, 10e6, 0), 0, 1, 1500, 10e6)
	if want := 10 * 2920.0 / (2*1538 + 84); math.Abs(got/1e6-want) > 0.01 {
		t.Errorf("hub bulk payload %.3f Mbit/s, want %.3f", got/1e6, want)
	}
	// Wifi through an AP: each segment and each ACK crosses the air twice.
	got = BulkPayloadBps(mustNew(t, "wifi", 2, 54e6, 0), 0, 1, 1500, 54e6)
	per2 := 2*(2*WifiAirtime(1514, 7.5, true)) + 2*WifiAirtime(54, 7.5, true)
	if want := 2920 * 8 / per2.Seconds() / 1e6; math.Abs(got/1e6-want) > 0.01 {
		t.Errorf("wifi bulk payload %.3f Mbit/s, want %.3f", got/1e6, want)
	}
}

func TestOneWay(t *testing.T) {
	// A zero-byte segment is a 54-byte frame, padded to 84 bytes on the
	// wire: 6.72 usec per line at 100 Mbit/s, two lines on a switch.
	if got := OneWay(mustNew(t, "switch", 2, 100e6, 50*us), 0, 1, 0); got != 13440*time.Nanosecond+50*us {
		t.Errorf("one way: %v", got)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"100mbit": 1e8, "10Mbit": 1e7, "54mbit": 54e6, "1gbit": 1e9, "2.5kbit": 2500, "800bit": 800} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "100", "100mbps", "-1mbit", "0mbit", "fastmbit"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
	if got := FormatRate(54e6); got != "54mbit" {
		t.Errorf("FormatRate(54e6) = %q", got)
	}
}

func TestParamsRejected(t *testing.T) {
	for _, p := range []Params{{Ports: 1, RateBps: 1e6}, {Ports: 2, RateBps: 0}, {Ports: 2, RateBps: 1e6, Latency: -1}} {
		if _, err := New("switch", p, false, 0); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if _, err := New("token-ring", Params{Ports: 2, RateBps: 1e6}, false, 0); err == nil {
		t.Error("unknown network kind accepted")
	}
}

func TestFlowsShareOrNot(t *testing.T) {
	one := BulkPayloadBps(mustNew(t, "switch", 4, 20e6, 0), 1, 0, 1500, 20e6)
	two := FlowsPayloadBps(mustNew(t, "switch", 4, 20e6, 0), []Flow{{1, 0}, {3, 2}}, 1500, 20e6)
	if math.Abs(two[0]-one) > 1e3 || math.Abs(two[1]-one) > 1e3 {
		t.Errorf("switch: two pairs %.0f %.0f bit/s, one pair %.0f: want each the same", two[0], two[1], one)
	}
	// Opposite directions of one port pair: full duplex, but each
	// direction's ACKs queue behind the other's data on the same line.
	opp := FlowsPayloadBps(mustNew(t, "switch", 2, 20e6, 0), []Flow{{0, 1}, {1, 0}}, 1500, 20e6)
	if want := 20 * 2920.0 / (2*1538 + 84); math.Abs(opp[0]/1e6-want) > 0.01 {
		t.Errorf("switch both ways: %.3f Mbit/s, want %.3f", opp[0]/1e6, want)
	}
	for _, kind := range []string{"hub", "wifi"} {
		one := BulkPayloadBps(mustNew(t, kind, 4, 20e6, 0), 1, 0, 1500, 20e6)
		two := FlowsPayloadBps(mustNew(t, kind, 4, 20e6, 0), []Flow{{1, 0}, {3, 2}}, 1500, 20e6)
		if r := (two[0] + two[1]) / one; math.Abs(r-1) > 0.05 { // end effects: the flows finish one frame apart
			t.Errorf("%s: two pairs carry %.3f x one pair, want 1 (one shared medium)", kind, r)
		}
	}
}

func TestTxFree(t *testing.T) {
	tx := 123040 * time.Nanosecond // 1538 bytes at 100 Mbit/s
	s := mustNew(t, "switch", 3, 100e6, 5*us)
	s.Send(0, 1, 1514, 0)
	s.Send(0, 2, 1514, 0)
	if got := s.TxFree(0); got != 2*tx {
		t.Errorf("switch: port 0's line free at %v, want %v (two frames sent)", got, 2*tx)
	}
	if got := s.TxFree(1); got != 0 {
		t.Errorf("switch: port 1's line free at %v, want 0 (it sent nothing; full duplex)", got)
	}
	for _, kind := range []string{"hub", "wifi"} {
		m := mustNew(t, kind, 3, 100e6, 0)
		end := m.Send(0, 1, 1514, 0)[0].At
		for p := range 3 {
			if got := m.TxFree(p); got != end {
				t.Errorf("%s: port %d may send at %v, want %v (one medium, busy until the frame's end)", kind, p, got, end)
			}
		}
	}
}
