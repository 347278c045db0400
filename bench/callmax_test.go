package bench

import (
	"math"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/result"
)

// TestCallMax checks the mean of the per-repetition maxima against t_max
// on two ranks whose slowest alternates: rank 0 takes 1, 5, 2 usec and
// rank 1 4, 1, 2 usec; the calls lasted 4, 5 and 2 (mean 11/3), where the
// slowest mean is rank 0's 8/3. A longer slice's extra repetition is
// ignored, and no samples give NaN.
func TestCallMax(t *testing.T) {
	got := CallMax([][]float64{{1, 5, 2}, {4, 1, 2, 100}})
	if math.Abs(got-11.0/3) > 1e-12 {
		t.Errorf("CallMax = %g, want 11/3", got)
	}
	if !math.IsNaN(CallMax(nil)) || !math.IsNaN(CallMax([][]float64{{}, {1}})) {
		t.Errorf("CallMax without samples: want NaN")
	}
}

// barrierCounter counts Barrier calls by communicator size, on the
// communicator it wraps and every one split from it.
type barrierCounter struct {
	comm.Comm
	mu     *sync.Mutex
	bySize map[int]int
}

func (c *barrierCounter) Barrier() error {
	c.mu.Lock()
	c.bySize[c.Size()]++
	c.mu.Unlock()
	return c.Comm.Barrier()
}

func (c *barrierCounter) Split(color, key int) (comm.Comm, error) {
	n, err := c.Comm.Split(color, key)
	if n == nil || err != nil {
		return n, err
	}
	return &barrierCounter{Comm: n, mu: c.mu, bySize: c.bySize}, nil
}

// TestSyncAllJoinsGroups runs Multi-Bcast (-multi 0, 2 groups of 2 on 4
// ranks, sizes 0-8 bytes, 20 repetitions each) with and without SyncAll:
// with it the barrier after every call joins all 4 ranks, so the groups'
// 2-rank communicators see no barrier at all and the 4-rank one at least
// one per timed call of every rank (5 sizes x 20 x 4 ranks); without it
// they do, once per call. Only SyncAll's rows carry t_callmax_usec, which
// is at least their t_max.
func TestSyncAllJoinsGroups(t *testing.T) {
	for _, all := range []bool{false, true} {
		o := quick("Bcast")
		o.Multi, o.NPMin, o.SyncAll = result.MultiWorst, 2, all
		var mu sync.Mutex
		counts := map[int]int{}
		sink, errs := runAll(t, 4, o, func(c comm.Comm) comm.Comm { return &barrierCounter{Comm: c, mu: &mu, bySize: counts} })
		for r, err := range errs {
			if err != nil {
				t.Fatalf("SyncAll %v: rank %d: %v", all, r, err)
			}
		}
		if all && (counts[2] != 0 || counts[4] < 5*20*4) {
			t.Errorf("SyncAll: barriers by communicator size %v, want none on the 2-rank groups and >= 400 on all 4", counts)
		}
		if !all && counts[2] < 5*20*4 {
			t.Errorf("without SyncAll: barriers by communicator size %v, want >= 400 on the 2-rank groups", counts)
		}
		rows := sink.rowsOf("Bcast", 2)
		if len(rows) != 5 {
			t.Fatalf("SyncAll %v: %d rows of 2 groups of 2, want 5", all, len(rows))
		}
		for _, r := range rows {
			v, ok := r.Extra[result.ExtraCallMax]
			if ok != all || (all && !(v >= r.TMax*(1-1e-9))) {
				t.Errorf("SyncAll %v, %d B: t_callmax_usec %v (present %v), t_max %v", all, r.Bytes, v, ok, r.TMax)
			}
		}
	}
}
