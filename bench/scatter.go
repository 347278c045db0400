package bench

import "github.com/mpbench/mpbench/comm"

// Scatter (IMB_scatter.c): MPI_Scatter of procs*bytes from the root's send
// area (root 0, or rotating under -root_shift); rank i receives the bytes
// at offset i*bytes. #bytes is the block per rank.
func init() {
	Register(Spec{
		Name: "Scatter", Class: Collective, Default: true, Rooted: true, Collective: "scatter",
		Areas:  scatteredAreas,
		Expect: expectScattered,
		Kernel: scatterKernel,
	})
}

// scatteredAreas is (procs*bytes, bytes): a block for every rank sent by
// the root, one block received.
func scatteredAreas(bytes int64, procs int) (int64, int64) { return int64(procs) * bytes, bytes }

// expectScattered: rank i receives block i of the root's send area.
func expectScattered(e *Env, rep int, want []byte) {
	Pattern(want, e.rootAt(rep), e.Bytes, rep, int64(e.Comm.Rank())*e.Bytes)
}

// scatterKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopScatter when its own
// collective is the one to measure.
func scatterKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopScatter}, "scatter", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Scatter(e.Comm, e.Send(i), e.Recv(i), e.Root(i))
	})
}
