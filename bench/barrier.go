package bench

import "github.com/mpbench/mpbench/comm"

// Barrier (IMB_barrier.c): MPI_Barrier (package coll's algorithm, or the
// library's own where the communicator offers coll.NativeBarrier), each
// call timed separately.
// Class Sync: one row without #bytes.
func init() {
	Register(Spec{
		Name: "Barrier", Class: Sync, Default: true, Collective: "barrier",
		Areas:  func(int64, int) (int64, int64) { return 0, 0 },
		Kernel: barrierKernel,
	})
}

// barrierKernel times n Barrier calls, each on its own; a communicator that
// runs loops itself runs them as comm.LoopBarrier when its own Barrier is
// the one to measure.
func barrierKernel(e *Env, n int) (float64, error) {
	if secs, ran, err := e.collectiveLoop(comm.Loop{Kind: comm.LoopBarrier}, "barrier", n); ran {
		return secs, err
	}
	c := e.Comm
	total := 0.0
	for i := 0; i < n; i++ {
		start := c.Wtime()
		if err := e.Algorithms.Barrier(c); err != nil {
			return 0, err
		}
		dt := c.Wtime() - start
		total += dt
		if e.reps != nil {
			e.reps[i] = dt
		}
	}
	return total, nil
}
