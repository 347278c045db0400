package bench

import "github.com/mpbench/mpbench/comm"

// Alltoallv (IMB_alltoallv.c): MPI_Alltoallv with IMB's arguments, every
// count bytes and packed displacements, so it moves what Alltoall does
// through the vector interface.
func init() {
	Register(Spec{
		Name: "Alltoallv", Class: Collective, Default: true, Collective: "alltoallv",
		Areas:  exchangedAreas,
		Expect: expectExchanged,
		Kernel: alltoallvKernel,
	})
}

// alltoallvKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopAlltoallv when its own
// collective is the one to measure.
func alltoallvKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopAlltoallv}, "alltoallv", n); ran {
		return secs, err
	}
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Alltoallv(e.Comm, e.Send(i), counts, displs, e.Recv(i), counts, displs)
	})
}
