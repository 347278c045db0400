package bench

import "github.com/mpbench/mpbench/comm"

// Gather (IMB_gather.c): MPI_Gather of bytes from every rank's send area
// into procs*bytes at the root (0, or rotating under -root_shift), rank
// i's bytes at offset i*bytes. #bytes is the block per rank.
func init() {
	Register(Spec{
		Name: "Gather", Class: Collective, Default: true, Rooted: true, Collective: "gather",
		Areas:    gatheredAreas,
		Expect:   ExpectFrom(everyRank),
		Received: atRoot,
		Kernel:   gatherKernel,
	})
}

// gatherKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopGather when its own
// collective is the one to measure.
func gatherKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopGather}, "gather", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Gather(e.Comm, e.Send(i), e.Recv(i), e.Root(i))
	})
}
