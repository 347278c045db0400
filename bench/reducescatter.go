package bench

import (
	"slices"

	"github.com/mpbench/mpbench/comm"
)

// Reduce_scatter (IMB_reduce_scatter.c as IMB-MPI1 2021.x builds it, from
// src_cpp without IMB2018): MPI_Reduce_scatter with MPI_SUM where every
// rank's count is bytes/4 MPI_FLOAT elements (or of -red_data_type), so the
// vector reduced is procs*bytes bytes and every rank receives its own
// bytes-long block of it, as in Reduce_scatter_block (MPI1_benchmark.cpp:
// SENDBUF_SIZE_NP_I, RECVBUF_SIZE_I). #bytes is the block per rank. (IMB
// 2018 and src_c's own build, compiled with -DIMB2018, split a vector of
// #bytes unevenly among the ranks instead, IMB_get_rank_portion.)
func init() {
	Register(Spec{
		Name: "Reduce_scatter", Class: Collective, Default: true, Collective: "reduce_scatter", Reduction: true,
		Areas:  blockAreas,
		Fill:   fillReduction,
		Expect: expectOwnBlock,
		Kernel: reduceScatterKernel,
	})
}

// reduceScatterKernel times n calls (timeCalls) with every rank's count
// e.Bytes (in bytes, whole elements of e.RedType, as the reductions'
// sizes are); a communicator that runs loops itself runs them as
// comm.LoopReduceScatter when its own collective is the one to measure.
func reduceScatterKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopReduceScatter, Datatype: e.RedType, Op: reductionOp}, "reduce_scatter", n); ran {
		return secs, err
	}
	counts := slices.Repeat([]int{int(e.Bytes)}, e.Comm.Size())
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.ReduceScatter(e.Comm, e.Send(i), e.Recv(i), counts, e.RedType, reductionOp)
	})
}
