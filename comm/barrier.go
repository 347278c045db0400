package comm

import "fmt"

// Barrier blocks until every rank of c has entered it (MPI_Barrier). It is
// the dissemination barrier (Hensgen, Finkel, Manber, "Two algorithms for
// barrier synchronization", 1988): in round k = 0, 1, ... while 2^k <
// size, rank r sends a 0-byte message to r+2^k and receives one from
// r-2^k (mod size), on c's runtime context with tag k; ceil(log2 size)
// rounds.
func (c *communicator) Barrier() error {
	n := c.size
	ctx := c.ctx(c.kinds.runtime)
	for k, round := 1, int32(0); k < n; k, round = k*2, round+1 {
		to := c.world[(c.rank+k)%n]
		from := c.world[(c.rank-k+n)%n]
		if _, err := c.sendrecv(nil, to, ctx, round, nil, from, ctx, round); err != nil {
			return fmt.Errorf("comm: barrier round %d: %w", round, err)
		}
	}
	return nil
}
