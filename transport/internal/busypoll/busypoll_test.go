package busypoll

import (
	"testing"
	"time"
)

// TestUntilDone: Until returns true as soon as done holds, having polled
// once per look before it.
func TestUntilDone(t *testing.T) {
	for _, over := range []bool{false, true} {
		polls := 0
		done := func() bool { return polls == 5 }
		poll := func() int { polls++; return 0 }
		if !Until(done, poll, time.Hour, over) || polls != 5 {
			t.Errorf("oversubscribed %v: Until returned after %d polls, want true after 5", over, polls)
		}
	}
}

// TestUntilBudget: with nothing to find Until gives up, not before the
// budget has passed since the first empty look (an upper bound would
// depend on the machine's load); input found restarts the idle stretch.
func TestUntilBudget(t *testing.T) {
	for _, over := range []bool{false, true} {
		start := time.Now()
		polls := 0
		never := func() bool { return false }
		if Until(never, func() int { polls++; return 0 }, 2*time.Millisecond, over) {
			t.Fatalf("oversubscribed %v: Until reported done for a condition that never holds", over)
		}
		// The clock is read every 64 looks (8 oversubscribed): the idle
		// stretch starts at the first read and ends at a later one.
		minPolls := 128
		if over {
			minPolls = 16
		}
		if el := time.Since(start); el < 2*time.Millisecond || polls < minPolls {
			t.Errorf("oversubscribed %v: gave up after %v and %d polls, want >= 2ms and >= %d polls", over, el, polls, minPolls)
		}
		// Input every look for 3 ms: the budget of 1 ms never runs out
		// while it keeps coming.
		start = time.Now()
		busy := func() int {
			if time.Since(start) < 3*time.Millisecond {
				return 1
			}
			return 0
		}
		Until(never, busy, time.Millisecond, over)
		if el := time.Since(start); el < 4*time.Millisecond {
			t.Errorf("oversubscribed %v: gave up %v after the start, want >= 4 ms (3 ms of input, then the 1 ms budget)", over, el)
		}
	}
}
