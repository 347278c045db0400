package bench

// Gatherv (IMB_gatherv.c): MPI_Gatherv with IMB's arguments, every count
// bytes and packed displacements, so it moves what Gather does through
// the vector interface.
func init() {
	Register(Spec{
		Name: "Gatherv", Class: Collective, Default: true, Collective: "gatherv",
		Areas:    gatheredAreas,
		Expect:   ExpectFrom(everyRank),
		Received: atRoot,
		Kernel:   gathervKernel,
	})
}

func gathervKernel(e *Env, n int) (float64, error) {
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Gatherv(e.Comm, e.Send(i), e.Recv(i), counts, displs, e.Root(i))
	})
}
