package testbed

import "time"

// DefaultPoll is how long the forwarder keeps polling its TAP devices
// after a frame before it sleeps (Config.Poll, up's --poll). A reply to a
// frame (an ICMP echo answered by the receiving kernel, a rank's next
// message of a PingPong) comes within tens of microseconds; read by a
// polling thread it costs no wake-up, which on a busy or virtualised host
// costs 50-80 usec per crossing (docs/testbed.md, "Timing").
const DefaultPoll = 50 * time.Microsecond

// PollShare bounds the CPU time spent polling after frames: at most this
// share of one CPU over time, with PollBurst of polling saved up at most.
// Beyond it the forwarder sleeps until the next frame or event, as without
// polling, so a steady stream of frames just farther apart than the poll
// window cannot keep the forwarder's real-time thread on a CPU the ranks
// need.
const (
	PollShare = 0.5
	PollBurst = 5 * time.Millisecond
)

// afterFrame decides when the forwarder polls instead of sleeping: within
// window of the last frame read or delivered, while its budget lasts. The
// budget is a token bucket: it fills at share of the time that passes, up
// to burst, and every interval spent polling is taken from it. The zero
// value never polls. Times are the forwarder's clock (forwarder.now).
type afterFrame struct {
	window  time.Duration // poll this long after a frame; 0 never
	share   float64       // budget's fill rate, CPU time per time
	burst   time.Duration // budget's size
	budget  time.Duration
	at      time.Duration // time of the previous call of poll
	last    time.Duration // time of the last frame
	polling bool          // the previous call chose to poll
}

// newAfterFrame returns the policy of Config.Poll with PollShare and
// PollBurst, its budget full.
func newAfterFrame(window time.Duration) afterFrame {
	return afterFrame{window: window, share: PollShare, burst: PollBurst, budget: PollBurst}
}

// frame records that a frame was read or delivered at now.
func (a *afterFrame) frame(now time.Duration) { a.last = now }

// poll is called once per round of the forwarder's loop, before it waits
// for its devices: it charges the time since the previous call to the
// budget if that round polled, and reports whether this round polls
// (waits with a zero timeout) rather than sleeps.
func (a *afterFrame) poll(now time.Duration) bool {
	if a.window <= 0 {
		return false
	}
	elapsed := max(now-a.at, 0)
	a.at = now
	if a.polling {
		a.budget -= elapsed
	}
	a.budget = min(a.budget+time.Duration(float64(elapsed)*a.share), a.burst)
	a.polling = now-a.last < a.window && a.budget > 0
	return a.polling
}
