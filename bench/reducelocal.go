package bench

import (
	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// Reduce_local (IMB_reduce_local.c, IMB 2019 Update 2 and later):
// MPI_Reduce_local of bytes/4 MPI_FLOAT elements (or of -red_data_type) with MPI_SUM, receive
// area op= send area, on every rank without communication: it measures
// the reduction kernel that the reducing collectives apply (their gamma
// term). Each call is timed separately, with IMB's barrier after it under
// -sync. No -check: the result depends on the receive area's previous
// contents.
func init() {
	Register(Spec{
		Name: "Reduce_local", Class: Collective, Default: true, Reduction: true,
		Kernel: reduceLocalKernel,
	})
}

// reduceLocalKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopReduceLocal when its own
// collective is the one to measure.
func reduceLocalKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopReduceLocal, Datatype: e.RedType, Op: reductionOp}, "", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return coll.ReduceLocal(e.RedType, reductionOp, e.Recv(i), e.Send(i))
	})
}
