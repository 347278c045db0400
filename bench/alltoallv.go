package bench

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

func alltoallvKernel(e *Env, n int) (float64, error) {
	counts, displs := blockCounts(e.Comm.Size(), e.Bytes)
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Alltoallv(e.Comm, e.Send(i), counts, displs, e.Recv(i), counts, displs)
	})
}
