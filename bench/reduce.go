package bench

import "github.com/mpbench/mpbench/comm"

// Reduce (IMB_reduce.c): MPI_Reduce of bytes/4 MPI_FLOAT elements (or of -red_data_type) with
// MPI_SUM from every rank's send area into the receive area of the root
// (0, or rotating under -root_shift). Sizes are whole elements. Each call
// is timed separately (see timeCalls); t_min/t_max/t_avg over the ranks.
func init() {
	Register(Spec{
		Name: "Reduce", Class: Collective, Default: true, Rooted: true, Collective: "reduce", Reduction: true,
		Fill:     fillReduction,
		Expect:   func(e *Env, rep int, want []byte) { copy(want, reference(e, rep, e.Bytes)) },
		Received: atRoot,
		Kernel:   reduceKernel,
	})
}

// reduceKernel times n calls (timeCalls); a communicator that runs loops
// itself runs them as comm.LoopReduce when its own
// collective is the one to measure.
func reduceKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopReduce, Datatype: e.RedType, Op: reductionOp}, "reduce", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.Reduce(e.Comm, e.Send(i), e.Recv(i), e.RedType, reductionOp, e.Root(i))
	})
}
