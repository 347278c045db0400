package bench

import "github.com/mpbench/mpbench/comm"

// Bcast (IMB_bcast.c): MPI_Bcast of bytes from the root (0, or rotating
// under -root_shift), which sends from its send area while every other
// rank receives into its receive area. Each call is timed separately (see
// timeCalls); t_min/t_max/t_avg over the ranks, no bandwidth column.
func init() {
	Register(Spec{
		Name: "Bcast", Class: Collective, Default: true, Rooted: true, Collective: "bcast",
		Expect: func(e *Env, rep int, want []byte) { Pattern(want, e.rootAt(rep), e.Bytes, rep, 0) },
		Received: func(e *Env, rep int) int64 {
			if e.Comm.Rank() == e.rootAt(rep) {
				return 0
			}
			return e.Bytes
		},
		Kernel: bcastKernel,
	})
}

// bcastKernel times n Bcast calls (timeCalls); a communicator that runs
// loops itself runs them as comm.LoopBcast when its own Bcast is the one
// to measure.
func bcastKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopBcast}, "bcast", n); ran {
		return secs, err
	}
	return timeCalls(e, n, func(i int) error {
		root := e.Root(i)
		buf := e.Recv(i)
		if e.Comm.Rank() == root {
			buf = e.Send(i)
		}
		return e.Algorithms.Bcast(e.Comm, buf, root)
	})
}
