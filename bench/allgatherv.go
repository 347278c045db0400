package bench

import "github.com/mpbench/mpbench/comm"

// Allgatherv (IMB_allgatherv.c): MPI_Allgatherv with IMB's arguments,
// every count bytes and packed displacements, so it moves what Allgather
// does through the vector interface.
func init() {
	Register(Spec{
		Name: "Allgatherv", Class: Collective, Default: true, Collective: "allgatherv",
		Areas:  gatheredAreas,
		Expect: ExpectFrom(everyRank),
		Kernel: allgathervKernel,
	})
}

// allgathervKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopAllgatherv when its own
// collective is the one to measure.
func allgathervKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopAllgatherv}, "allgatherv", n); ran {
		return secs, err
	}
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Allgatherv(e.Comm, e.Send(i), e.Recv(i), counts, displs)
	})
}
