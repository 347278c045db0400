package commtest

import (
	"testing"
	"time"
)

// TestRunClockLeavesOutStalls: regular ticks count in full; a 70 s gap
// (the process stopped) counts as five ticks, the rest is a stall.
func TestRunClockLeavesOutStalls(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := newRunClock(2*time.Minute, t0)
	if c.tick != time.Second || c.maxGap != 5*time.Second {
		t.Fatalf("tick %v, max gap %v; want 1s, 5s for a 2m budget", c.tick, c.maxGap)
	}
	c.advance(t0.Add(1 * time.Second))
	c.advance(t0.Add(2 * time.Second))
	c.advance(t0.Add(72 * time.Second))
	c.advance(t0.Add(75 * time.Second)) // late tick under load: counts
	if c.ran != 10*time.Second || c.stalled != 65*time.Second {
		t.Errorf("ran %v, stalled %v; want 10s, 1m5s", c.ran, c.stalled)
	}
	if s := newRunClock(200*time.Millisecond, t0); s.tick != 10*time.Millisecond {
		t.Errorf("tick for a 200ms budget %v, want the 10ms floor", s.tick)
	}
}
