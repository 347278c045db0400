package bench

import "github.com/mpbench/mpbench/comm"

// Gatherv (IMB_gatherv.c): MPI_Gatherv with IMB's arguments, every count
// bytes and packed displacements, so it moves what Gather does through
// the vector interface.
func init() {
	Register(Spec{
		Name: "Gatherv", Class: Collective, Default: true, Rooted: true, Collective: "gatherv",
		Areas:    gatheredAreas,
		Expect:   ExpectFrom(everyRank),
		Received: atRoot,
		Kernel:   gathervKernel,
	})
}

// gathervKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopGatherv when its own
// collective is the one to measure.
func gathervKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopGatherv}, "gatherv", n); ran {
		return secs, err
	}
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Gatherv(e.Comm, e.Send(i), e.Recv(i), counts, displs, e.Root(i))
	})
}
