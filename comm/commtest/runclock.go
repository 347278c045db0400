package commtest

import "time"

// runClock measures how long the test process has been running, leaving
// out stalls. It is advanced by a ticker; a gap between two ticks longer
// than maxGap means the process did not run (stopped by SIGSTOP or job
// control, its machine or container paused, or so starved that not even a
// timer goroutine ran), and counts as maxGap only. A plain wall-clock
// timer fires the moment such a process resumes and blames the stall on
// whatever test was running, naming all of its ranks as hung.
type runClock struct {
	tick, maxGap time.Duration
	last         time.Time
	ran, stalled time.Duration
}

// newRunClock starts a clock at now for measuring up to d: it ticks every
// d/20 (between 10 ms and 1 s) and counts gaps up to 5 ticks.
func newRunClock(d time.Duration, now time.Time) *runClock {
	tick := min(max(d/20, 10*time.Millisecond), time.Second)
	return &runClock{tick: tick, maxGap: 5 * tick, last: now}
}

// advance records a tick at now.
func (c *runClock) advance(now time.Time) {
	gap := now.Sub(c.last)
	c.last = now
	counted := min(gap, c.maxGap)
	c.ran += counted
	c.stalled += gap - counted
}
