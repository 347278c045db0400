package bench

import "github.com/mpbench/mpbench/comm"

// Reduce_scatter_block (IMB_reduce_scatter_block.c, IMB 2019 Update 1 and
// later): MPI_Reduce_scatter_block with MPI_SUM; every rank receives
// bytes/4 MPI_FLOAT elements (or of -red_data_type), so the vector reduced is procs*bytes bytes
// and #bytes is the block per rank.
func init() {
	Register(Spec{
		Name: "Reduce_scatter_block", Class: Collective, Default: true, Collective: "reduce_scatter_block", Reduction: true,
		Areas:  blockAreas,
		Fill:   fillReduction,
		Expect: expectOwnBlock,
		Kernel: reduceScatterBlockKernel,
	})
}

// blockAreas is (procs*bytes, bytes): a block for every rank reduced, one
// received (Reduce_scatter, Reduce_scatter_block).
func blockAreas(bytes int64, procs int) (int64, int64) { return int64(procs) * bytes, bytes }

// expectOwnBlock is the -check expectation of Reduce_scatter and
// Reduce_scatter_block: the calling rank's block of the sum of every
// rank's procs*bytes vector.
func expectOwnBlock(e *Env, rep int, want []byte) {
	all := reference(e, rep, int64(e.Comm.Size())*e.Bytes)
	copy(want, all[int64(e.Comm.Rank())*e.Bytes:])
}

// reduceScatterBlockKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopReduceScatterBlock when its own
// collective is the one to measure.
func reduceScatterBlockKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopReduceScatterBlock, Datatype: e.RedType, Op: reductionOp}, "reduce_scatter_block", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.ReduceScatterBlock(e.Comm, e.Send(i), e.Recv(i), e.RedType, reductionOp)
	})
}
