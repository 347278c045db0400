package testbed

import "time"

// DefaultPoll is how long the forwarder keeps polling its TAP devices
// after delivering a frame before it sleeps (Config.Poll, up's --poll). A
// reply to a frame (a rank's next message of a PingPong, an
// acknowledgement) comes within tens of microseconds; read by a polling
// thread it costs no wake-up, which on a busy or virtualised host costs
// tens of microseconds per crossing (docs/testbed.md, "Timing").
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

// PollReprobe is how often the forwarder polls after a delivery to a node
// that did not answer within the window the last time: once in this many
// deliveries to it (see afterFrame).
const PollReprobe = 8

// afterFrame decides when the forwarder polls instead of sleeping: within
// window of a delivery to a node that answers, while its budget lasts. A
// node answers when a frame of its comes within the window after a
// delivery to it. A node that did not is polled for again only once in
// PollReprobe deliveries: its reply did not come while the forwarder
// polled, either because it had none to send soon or because the node's
// process shares the forwarder's CPU and could not run until the
// forwarder slept; either way polling only held the CPU. The budget is a
// token bucket: it fills at share of the time that passes, up to burst,
// and every interval spent polling is taken from it. The zero value never
// polls. Times are the forwarder's clock (forwarder.now).
type afterFrame struct {
	window  time.Duration // poll this long after a delivery; 0 never
	share   float64       // budget's fill rate, CPU time per time
	burst   time.Duration // budget's size
	budget  time.Duration
	at      time.Duration   // time of the previous call of poll
	polling bool            // the previous call chose to poll
	quiet   []int           // per node: deliveries since it last answered
	open    []time.Duration // per node: end of the window awaiting its answer, 0 none
	until   time.Duration   // the latest end of an open window
}

// newAfterFrame returns the policy of Config.Poll for nodes nodes with
// PollShare and PollBurst, its budget full.
func newAfterFrame(window time.Duration, nodes int) afterFrame {
	return afterFrame{window: window, share: PollShare, burst: PollBurst, budget: PollBurst,
		quiet: make([]int, nodes), open: make([]time.Duration, nodes)}
}

// delivered records that a frame was delivered to node port at now, and
// opens (or extends) a window awaiting its answer unless the node has not
// been answering.
func (a *afterFrame) delivered(port int, now time.Duration) {
	if a.window <= 0 || port < 0 || port >= len(a.quiet) {
		return
	}
	if end := a.open[port]; end != 0 && now >= end {
		a.quiet[port]++ // its last window closed without an answer
		a.open[port] = 0
	}
	if a.open[port] == 0 && a.quiet[port]%PollReprobe != 0 {
		a.quiet[port]++
		return
	}
	a.open[port] = now + a.window
	a.until = max(a.until, a.open[port])
}

// heard records that a frame of node port was read at now: the answer
// awaited by its window, if one is open.
func (a *afterFrame) heard(port int, now time.Duration) {
	if port < 0 || port >= len(a.open) || a.open[port] == 0 {
		return
	}
	if now < a.open[port] {
		a.quiet[port] = 0
	} else {
		a.quiet[port]++
	}
	a.open[port] = 0
	a.until = 0
	for _, end := range a.open {
		a.until = max(a.until, end)
	}
}

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
	a.polling = now < a.until && a.budget > 0
	return a.polling
}
