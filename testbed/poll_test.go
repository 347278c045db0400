package testbed

import (
	"testing"
	"time"
)

// TestAfterFramePollsWithinWindow: polling starts with a frame and ends
// the window after the last one; a zero window never polls.
func TestAfterFramePollsWithinWindow(t *testing.T) {
	a := newAfterFrame(50 * time.Microsecond)
	us := time.Microsecond
	a.frame(100 * us)
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{110 * us, true}, {149 * us, true}, {150 * us, false}, {400 * us, false}} {
		if got := a.poll(c.at); got != c.want {
			t.Errorf("frame at 100 usec, poll at %v: %v, want %v", c.at, got, c.want)
		}
	}
	var off afterFrame
	off.frame(0)
	if off.poll(time.Microsecond) {
		t.Error("a zero window polled")
	}
}

// TestAfterFrameBudget: frames 60 usec apart would keep a 50-usec window
// polling 5/6 of the time; the budget holds it to PollShare of the time
// (plus PollBurst), and a stream of frames 1 ms apart polls its full
// window after each.
func TestAfterFrameBudget(t *testing.T) {
	for _, c := range []struct {
		gap      time.Duration
		min, max float64 // share of the second spent polling
	}{
		{60 * time.Microsecond, PollShare - 0.02, PollShare + float64(PollBurst)/float64(time.Second)},
		{time.Millisecond, 0.049, 0.051},
	} {
		a := newAfterFrame(50 * time.Microsecond)
		var polled time.Duration
		step := time.Microsecond
		for now := time.Duration(0); now < time.Second; now += step {
			if now%c.gap == 0 {
				a.frame(now)
			}
			if a.poll(now) {
				polled += step
			}
		}
		if s := polled.Seconds(); s < c.min || s > c.max {
			t.Errorf("frames %v apart: polled %.3f of a second, want %.3f..%.3f", c.gap, s, c.min, c.max)
		}
	}
}
