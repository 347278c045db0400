package comm

import "fmt"

// Barrier blocks until every rank of c has entered it (MPI_Barrier). From
// 4 to 7 ranks it is the linear barrier (barrierLinear), as coll's default
// table chooses for the Barrier benchmark; otherwise the dissemination
// barrier (Hensgen, Finkel, Manber, "Two algorithms for
// barrier synchronization", 1988): in round k = 0, 1, ... while 2^k <
// size, rank r sends a 0-byte message to r+2^k and receives one from
// r-2^k (mod size), on c's runtime context with tag k; ceil(log2 size)
// rounds.
func (c *communicator) Barrier() error {
	n := c.size
	ctx := c.ctx(c.kinds.runtime)
	if n >= LinearBarrierMin && n < LinearBarrierMax {
		return c.barrierLinear(ctx)
	}
	for k, round := 1, int32(0); k < n; k, round = k*2, round+1 {
		to := c.world[(c.rank+k)%n]
		from := c.world[(c.rank-k+n)%n]
		if _, err := c.sendrecv(nil, to, ctx, round, nil, from, ctx, round); err != nil {
			return fmt.Errorf("comm: barrier round %d: %w", round, err)
		}
	}
	return nil
}

// The ranks for which Barrier, and coll's default table for the Barrier
// benchmark, take the linear barrier: from LinearBarrierMin up to
// LinearBarrierMax-1, Open MPI 4.1's fixed decision
// (ompi_coll_tuned_barrier_intra_dec_fixed).
const (
	LinearBarrierMin = 4
	LinearBarrierMax = 8
)

// barrierLinear is Open MPI's basic linear barrier, its default for 4 to
// 7 ranks: every other rank sends a 0-byte message to rank 0 and waits
// for one back; rank 0 receives from each, then releases each, and so
// leaves first (tag 0 up, 1 down, on c's runtime context ctx). Rank 0
// leaving first lets a collective rooted there, called right after the
// barrier as IMB's -sync does, find its root running on a host whose
// ranks outnumber its CPUs (docs/runtime-progress.md, "Oversubscribed").
func (c *communicator) barrierLinear(ctx uint32) error {
	root := c.world[0]
	if c.rank != 0 {
		// The receive matches only root's release, sent after every
		// arrival.
		if _, err := c.sendrecv(nil, root, ctx, 0, nil, root, ctx, 1); err != nil {
			return fmt.Errorf("comm: barrier: %w", err)
		}
		return nil
	}
	for r := 1; r < c.size; r++ {
		if _, err := c.recv(nil, c.world[r], ctx, 0); err != nil {
			return fmt.Errorf("comm: barrier: %w", err)
		}
	}
	for r := 1; r < c.size; r++ {
		if err := c.send(nil, c.world[r], ctx, 1); err != nil {
			return fmt.Errorf("comm: barrier: %w", err)
		}
	}
	return nil
}
