package bench

import "github.com/mpbench/mpbench/comm"

// Sendrecv (IMB_sendrecv.c): the group forms a periodic chain; every rank
// sends to rank+1 and receives from rank-1 with one MPI_Sendrecv per
// iteration. t = time per iteration; Mbytes/sec = 2*bytes/t_max because
// each rank both sends and receives bytes (IMB's scale_bw 2; on 2 ranks it
// reports twice PingPing's figure for the same traffic).
func init() {
	Register(Spec{
		Name: "Sendrecv", Class: ParallelTransfer, Default: true, LibraryBarrier: true,
		ScaleTime: 1, ScaleBW: 2,
		Expect: ExpectFrom(func(rank, procs int) []int { return []int{left(rank, procs)} }),
		Kernel: sendRecv,
	})
}

// sendRecv times n iterations of the chain's Sendrecv; a communicator that
// runs loops itself runs them as comm.LoopSendrecv.
func sendRecv(e *Env, n int) (float64, error) {
	c := e.Comm
	dest, src := right(c.Rank(), c.Size()), left(c.Rank(), c.Size())
	if secs, ran, err := e.runLoop(comm.Loop{Kind: comm.LoopSendrecv, Left: src, Right: dest}, n); ran {
		return secs, err
	}
	start := c.Wtime()
	last := start
	for i := 0; i < n; i++ {
		if _, err := c.Sendrecv(e.Send(i), dest, 0, e.Recv(i), src, 0); err != nil {
			return 0, err
		}
		e.tick(i, &last)
	}
	return c.Wtime() - start, nil
}

// left and right are a rank's neighbours in the periodic chain of procs ranks.
func left(rank, procs int) int  { return (rank - 1 + procs) % procs }
func right(rank, procs int) int { return (rank + 1) % procs }
