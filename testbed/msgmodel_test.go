package testbed

import (
	"strings"
	"testing"
	"time"
)

// TestOneWayOfZeroBytes: a 0-byte message is a minimum frame in analysis'
// wire model (54 bytes padded to 60: 84 B of line time) and an 86-byte
// frame from mpbench's runtime (its 32-byte header; captured on a node's
// eth0 during a 0-byte PingPong: 86-byte frames, TCP payload 32, no
// options), 110 B of line time: through a store-and-forward switch at
// 100 Mbit/s 13.44 against 17.60 usec, through a hub once.
func TestOneWayOfZeroBytes(t *testing.T) {
	for _, c := range []struct {
		net              string
		rate             float64
		segment, runtime time.Duration
	}{
		{"switch", 100e6, 13440 * time.Nanosecond, 17600 * time.Nanosecond},
		{"hub", 10e6, 67200 * time.Nanosecond, 88000 * time.Nanosecond},
	} {
		cfg := Config{Name: "t", Nodes: 2, Net: c.net, RateBps: c.rate, MTU: 1500}
		o, err := cfg.OneWayOf(0)
		if err != nil {
			t.Fatal(err)
		}
		if o.SegmentFrame != 54 || o.SegmentWire != 84 || o.RuntimeFrame != 86 || o.RuntimeWire != 110 {
			t.Errorf("%s: frames %d and %d, line bytes %d and %d; want 54, 86, 84, 110", c.net, o.SegmentFrame, o.RuntimeFrame, o.SegmentWire, o.RuntimeWire)
		}
		if o.Segment != c.segment || o.Runtime != c.runtime {
			t.Errorf("%s at %g bit/s: one way %v and %v, want %v and %v", c.net, c.rate, o.Segment, o.Runtime, c.segment, c.runtime)
		}
	}
	o, _ := Config{Name: "t", Nodes: 2, Net: "switch", RateBps: 100e6, MTU: 1500}.OneWayOf(0)
	if s := o.String(); !strings.Contains(s, "wire model 13.44 usec") || !strings.Contains(s, "runtime 17.60 usec") {
		t.Errorf("status line %q", s)
	}
	if _, err := (Config{Name: "t", Nodes: 2, Net: "switch", RateBps: 100e6, MTU: 1500}).OneWayOf(1429); err == nil {
		t.Error("1429 bytes and the header do not fit one 1500-byte segment; got no error")
	}
}
