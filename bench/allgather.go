package bench

import "github.com/mpbench/mpbench/comm"

// Allgather (IMB_allgather.c): MPI_Allgather of bytes from every rank's
// send area; every rank receives procs*bytes, rank i's bytes at offset
// i*bytes. #bytes is the block per rank.
func init() {
	Register(Spec{
		Name: "Allgather", Class: Collective, Default: true, Collective: "allgather",
		Areas:  gatheredAreas,
		Expect: ExpectFrom(everyRank),
		Kernel: allgatherKernel,
	})
}

// gatheredAreas is (bytes, procs*bytes): one block sent, one received from
// every rank.
func gatheredAreas(bytes int64, procs int) (int64, int64) { return bytes, int64(procs) * bytes }

// allgatherKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopAllgather when its own
// collective is the one to measure.
func allgatherKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopAllgather}, "allgather", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Allgather(e.Comm, e.Send(i), e.Recv(i))
	})
}
