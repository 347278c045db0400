package bench

// Reduce_scatter (IMB_reduce_scatter.c): MPI_Reduce_scatter with MPI_SUM
// of a vector of bytes/4 MPI_FLOAT elements (or of -red_data_type) on every rank; the result is
// split among the ranks as IMB_get_rank_portion does: with e = bytes/4
// elements and p ranks, the first e mod p ranks get floor(e/p)+1 elements
// and the others floor(e/p). #bytes is the whole vector. The receive area
// has room for the whole vector, which bounds the largest portion for any
// -red_data_type.
func init() {
	Register(Spec{
		Name: "Reduce_scatter", Class: Collective, Default: true, Collective: "reduce_scatter", Reduction: true,
		Fill: fillReduction,
		Expect: func(e *Env, rep int, want []byte) {
			counts := portions(e.Bytes, e.Comm.Size(), e.RedType.Size())
			off := 0
			for r := 0; r < e.Comm.Rank(); r++ {
				off += counts[r]
			}
			copy(want, reference(e, rep, e.Bytes)[off:off+counts[e.Comm.Rank()]])
		},
		Received: func(e *Env, _ int) int64 {
			return int64(portions(e.Bytes, e.Comm.Size(), e.RedType.Size())[e.Comm.Rank()])
		},
		Kernel: reduceScatterKernel,
	})
}

// portions are Reduce_scatter's receive counts in bytes for a vector of
// bytes on procs ranks (IMB_get_rank_portion in units of elem bytes, the
// reduction's element size).
func portions(bytes int64, procs int, elem int) []int {
	elems := int(bytes) / elem
	counts := make([]int, procs)
	for i := range counts {
		counts[i] = elems / procs
		if i < elems%procs {
			counts[i]++
		}
		counts[i] *= elem
	}
	return counts
}

func reduceScatterKernel(e *Env, n int) (float64, error) {
	counts := portions(e.Bytes, e.Comm.Size(), e.RedType.Size())
	mine := counts[e.Comm.Rank()]
	return timeCalls(e, n, func(i int) error {
		return e.Algorithms.ReduceScatter(e.Comm, e.Send(i), e.Recv(i)[:mine], counts, e.RedType, reductionOp)
	})
}
