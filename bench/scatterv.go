package bench

import "github.com/mpbench/mpbench/comm"

// Scatterv (IMB_scatterv.c): MPI_Scatterv with IMB's arguments, every
// count bytes and packed displacements, so it moves what Scatter does
// through the vector interface.
func init() {
	Register(Spec{
		Name: "Scatterv", Class: Collective, Default: true, Rooted: true, Collective: "scatterv",
		Areas:  scatteredAreas,
		Expect: expectScattered,
		Kernel: scattervKernel,
	})
}

// scattervKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopScatterv when its own
// collective is the one to measure.
func scattervKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopScatterv}, "scatterv", n); ran {
		return secs, err
	}
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Scatterv(e.Comm, e.Send(i), counts, displs, e.Recv(i), e.Root(i))
	})
}
