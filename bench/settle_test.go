package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// countingComm counts the barriers a rank enters.
type countingComm struct {
	comm.Comm
	barriers int
}

func (c *countingComm) Barrier() error {
	c.barriers++
	return c.Comm.Barrier()
}

// TestSettle checks that every rank leaves settle after the same number of
// barriers, a whole number of batches, no earlier than the duration on rank
// 0's clock, and that a duration of 0 enters no barrier.
func TestSettle(t *testing.T) {
	const d = 30 * time.Millisecond
	counts := make([]int, 3)
	commtest.Run(t, 3, comm.Config{}, func(c comm.Comm) error {
		cc := &countingComm{Comm: c}
		if err := settle(cc, 0); err != nil || cc.barriers != 0 {
			return fmt.Errorf("settle 0: %v after %d barriers, want nil after none", err, cc.barriers)
		}
		start := time.Now()
		if err := settle(cc, d); err != nil {
			return err
		}
		if c.Rank() == 0 && time.Since(start) < d {
			return fmt.Errorf("rank 0 left settle after %v, want at least %v", time.Since(start), d)
		}
		counts[c.Rank()] = cc.barriers
		return nil
	})
	if counts[0] == 0 || counts[0]%settleBatch != 0 || counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("barriers per rank %v: want equal, non-zero multiples of %d", counts, settleBatch)
	}
}
