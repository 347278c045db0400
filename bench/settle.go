package bench

import (
	"fmt"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// DefaultSettle is the default Options.Settle: long enough to cover the
// start-up activity measured on a 2-CPU host (about 40 ms), short next to
// any run.
const DefaultSettle = 100 * time.Millisecond

// MaxSettle bounds Options.Settle: far beyond any start-up, well under the
// 2 minutes of the command line's default --stall limit, which would end a
// longer one.
const MaxSettle = time.Minute

// settleBatch is the number of barriers between two of rank 0's decisions
// whether to go on settling.
const settleBatch = 64

// tagSettle is the tag of rank 0's decision during settle.
const tagSettle = tagResult - 1

// settle keeps every rank of c busy with barriers for about d of rank 0's
// time before the first benchmark, so that what a job does only while it
// starts is over before anything is timed: the Go runtime's start-up
// (its monitor thread wakes every 20 us at first), the MPI library's
// first-use set-up and the kernel's work for new processes. Measured on a
// 2-CPU host under Open MPI: the first 20-40 ms of a job ran a 1 KiB
// PingPong up to 2x slower than the rest (0.5-0.9 usec against 0.29-0.31);
// with this phase the first sample is as fast as the later ones. IMB has no
// such phase; its first sizes bear the same start-up costs. Barriers run
// in batches of settleBatch, after each of which rank 0 tells the others
// whether to go on. d <= 0 skips the phase.
func settle(c comm.Comm, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	start := time.Now()
	for {
		for range settleBatch {
			if err := c.Barrier(); err != nil {
				return fmt.Errorf("bench: settle: barrier: %w", err)
			}
		}
		var more record
		if c.Rank() == 0 && time.Since(start) < d {
			more.count = 1
		}
		more, err := bcast(c, more, tagSettle)
		if err != nil {
			return fmt.Errorf("bench: settle: %w", err)
		}
		if more.count == 0 {
			return nil
		}
	}
}
