package testbed

import (
	"testing"
	"time"
)

// TestAfterFramePollsWithinWindow: polling starts with a delivery and ends
// the window after it, or when the node's answer is read; a zero window
// never polls.
func TestAfterFramePollsWithinWindow(t *testing.T) {
	a := newAfterFrame(50*time.Microsecond, 2)
	us := time.Microsecond
	a.delivered(0, 100*us)
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{110 * us, true}, {149 * us, true}, {150 * us, false}, {400 * us, false}} {
		if got := a.poll(c.at); got != c.want {
			t.Errorf("delivery at 100 usec, poll at %v: %v, want %v", c.at, got, c.want)
		}
	}
	a.delivered(1, 500*us)
	a.heard(0, 510*us) // another node: the window stays open
	if !a.poll(520 * us) {
		t.Error("a frame of another node closed the window")
	}
	a.heard(1, 530*us)
	if a.poll(531 * us) {
		t.Error("polled after the node's answer was read")
	}
	var off afterFrame
	off.delivered(0, 0)
	if off.poll(time.Microsecond) {
		t.Error("a zero window polled")
	}
}

// TestAfterFrameSkipsSilentNode: a node that answers within the window is
// polled for after every delivery; one whose answer comes only after the
// window (its process waited for the forwarder's CPU) is polled for after
// one delivery in PollReprobe, and after every one again once it answers
// in time.
func TestAfterFrameSkipsSilentNode(t *testing.T) {
	us := time.Microsecond
	a := newAfterFrame(50*us, 2)
	now := time.Duration(0)
	// exchange delivers to port, reads its answer after reply, and reports
	// whether the forwarder polled after the delivery.
	exchange := func(port int, reply time.Duration) bool {
		now += time.Millisecond // the budget refills
		a.poll(now)
		a.delivered(port, now)
		polled := a.poll(now + us)
		a.heard(port, now+reply)
		a.poll(now + reply + us)
		return polled
	}
	for i := range 3 * PollReprobe {
		if !exchange(0, 10*us) {
			t.Fatalf("exchange %d with a node answering in 10 usec: not polled", i)
		}
	}
	polled := 0
	for range 3 * PollReprobe {
		if exchange(1, 80*us) {
			polled++
		}
	}
	if polled != 3 {
		t.Errorf("node answering after the window: polled after %d of %d deliveries, want 3", polled, 3*PollReprobe)
	}
	for exchange(1, 80*us) {
	}
	for !exchange(1, 10*us) { // the next probe finds it answering
	}
	for i := range PollReprobe {
		if !exchange(1, 10*us) {
			t.Fatalf("exchange %d after the node answered in time again: not polled", i)
		}
	}
}

// TestAfterFrameBudget: deliveries 60 usec apart, each answered after 45
// usec, would keep the forwarder polling 3/4 of the time; the budget holds
// it to PollShare of the time (plus PollBurst), and deliveries 1 ms apart
// poll 45 usec after each.
func TestAfterFrameBudget(t *testing.T) {
	for _, c := range []struct {
		gap      time.Duration
		min, max float64 // share of the second spent polling
	}{
		{60 * time.Microsecond, PollShare - 0.02, PollShare + float64(PollBurst)/float64(time.Second)},
		{time.Millisecond, 0.044, 0.046},
	} {
		a := newAfterFrame(50*time.Microsecond, 1)
		var polled time.Duration
		step := time.Microsecond
		for now := time.Duration(0); now < time.Second; now += step {
			if now%c.gap == 0 {
				a.delivered(0, now)
			}
			if now%c.gap == 45*time.Microsecond {
				a.heard(0, now)
			}
			if a.poll(now) {
				polled += step
			}
		}
		if s := polled.Seconds(); s < c.min || s > c.max {
			t.Errorf("deliveries %v apart: polled %.3f of a second, want %.3f..%.3f", c.gap, s, c.min, c.max)
		}
	}
}
