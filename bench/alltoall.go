package bench

import "github.com/mpbench/mpbench/comm"

// Alltoall (IMB_alltoall.c): MPI_Alltoall; every rank sends block j
// (bytes at offset j*bytes of its send area) to rank j and receives rank
// i's block for it at offset i*bytes. #bytes is the block per destination.
func init() {
	Register(Spec{
		Name: "Alltoall", Class: Collective, Default: true, Collective: "alltoall",
		Areas:  exchangedAreas,
		Expect: expectExchanged,
		Kernel: alltoallKernel,
	})
}

// exchangedAreas is (procs*bytes, procs*bytes): a block to and from every
// rank.
func exchangedAreas(bytes int64, procs int) (int64, int64) {
	return int64(procs) * bytes, int64(procs) * bytes
}

// expectExchanged: block i of the receive area is block (this rank) of
// rank i's send area.
func expectExchanged(e *Env, rep int, want []byte) {
	b, me := e.Bytes, int64(e.Comm.Rank())
	for i := 0; i < e.Comm.Size(); i++ {
		Pattern(want[int64(i)*b:int64(i+1)*b], i, b, rep, me*b)
	}
}

// alltoallKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopAlltoall when its own
// collective is the one to measure.
func alltoallKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopAlltoall}, "alltoall", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Alltoall(e.Comm, e.Send(i), e.Recv(i))
	})
}
