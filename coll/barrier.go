package coll

import "github.com/mpbench/mpbench/comm"

// Barrier algorithms (MPI_Barrier). Costs for p ranks: alpha latency.

// barrierDissemination: in round k = 1, 2, 4, ... each rank sends an empty
// message to rank me+k and waits for one from rank me-k. Cost
// ceil(log2 p) alpha at any p. Hensgen, Finkel & Manber 1988; MPICH's
// barrier (Thakur, Rabenseifner & Gropp 2005, section 4.8) and IMB's
// -imb_barrier.
func barrierDissemination(c comm.Comm) error {
	p, me := c.Size(), c.Rank()
	for k := 1; k < p; k <<= 1 {
		if err := sendrecv(c, nil, (me+k)%p, nil, (me-k+p)%p, tagBarrier); err != nil {
			return err
		}
	}
	return nil
}

// barrierTree: empty messages go up a binomial tree to rank 0 and back down.
// Cost 2 ceil(log2 p) alpha.
func barrierTree(c comm.Comm) error {
	p, me := c.Size(), c.Rank()
	ch := binomialChildren(me, p)
	for i := len(ch) - 1; i >= 0; i-- {
		if err := recv(c, nil, ch[i], tagBarrier); err != nil {
			return err
		}
	}
	if par := binomialParent(me); par >= 0 {
		if err := send(c, nil, par, tagBarrier); err != nil {
			return err
		}
		if err := recv(c, nil, par, tagBarrier); err != nil {
			return err
		}
	}
	for _, x := range ch {
		if err := send(c, nil, x, tagBarrier); err != nil {
			return err
		}
	}
	return nil
}

// barrierLinear: every other rank sends an empty message to rank 0 and
// waits for one back; rank 0 receives from each in rank order, then
// sends to each. Cost 2 alpha plus 2(p-1) per-message overheads at rank
// 0, which releases the others and leaves first. Open MPI's basic linear
// barrier (ompi/mca/coll/base/coll_base_barrier.c), its default for 4 to
// 7 ranks.
func barrierLinear(c comm.Comm) error {
	p, me := c.Size(), c.Rank()
	if me != 0 {
		if err := send(c, nil, 0, tagBarrier); err != nil {
			return err
		}
		return recv(c, nil, 0, tagBarrier)
	}
	for r := 1; r < p; r++ {
		if err := recv(c, nil, r, tagBarrier); err != nil {
			return err
		}
	}
	for r := 1; r < p; r++ {
		if err := send(c, nil, r, tagBarrier); err != nil {
			return err
		}
	}
	return nil
}

// Barrier returns on each rank only after every rank of c has entered it
// (MPI_Barrier), using coll's algorithms on the collective message space
// rather than c's own Barrier method.
func Barrier(c comm.Comm) error { return Algorithms{}.Barrier(c) }

// Barrier is Barrier with a's algorithm selection.
func (a Algorithms) Barrier(c comm.Comm) error {
	if n, ok := nativeOf[NativeBarrier](a, c, "barrier"); ok {
		return runNative(c, "Barrier", n.NativeBarrier)
	}
	return dispatch(c, "Barrier", "barrier", a.choose("barrier", c.Size(), 0), args{})
}

// barrierAlgorithms is Barrier's table (no operands).
var barrierAlgorithms = []algorithm{
	{name: "dissemination", run: func(c comm.Comm, _ args) error { return barrierDissemination(c) }},
	{name: "tree", run: func(c comm.Comm, _ args) error { return barrierTree(c) }},
	{name: "linear", run: func(c comm.Comm, _ args) error { return barrierLinear(c) }},
}
