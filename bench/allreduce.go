package bench

import "github.com/mpbench/mpbench/comm"

// Allreduce (IMB_allreduce.c): MPI_Allreduce of bytes/4 MPI_FLOAT elements (or of -red_data_type)
// with MPI_SUM from the send area into the receive area of every rank.
// Sizes are whole elements (0, 4, 8, ...). Each call is timed separately
// (see timeCalls); t_min/t_max/t_avg over the ranks, no bandwidth column.
func init() {
	Register(Spec{
		Name: "Allreduce", Class: Collective, Default: true, Collective: "allreduce", Reduction: true,
		Fill:   fillReduction,
		Expect: func(e *Env, rep int, want []byte) { copy(want, reference(e, rep, e.Bytes)) },
		Kernel: allreduceKernel,
	})
}

// allreduceKernel times n Allreduce calls (timeCalls); a communicator that
// runs loops itself runs them as comm.LoopAllreduce when its own Allreduce
// is the one to measure.
func allreduceKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopAllreduce, Datatype: e.RedType, Op: reductionOp}, "allreduce", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Allreduce(e.Comm, e.Send(i), e.Recv(i), e.RedType, reductionOp)
	})
}
