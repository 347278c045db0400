package coll

import (
	"fmt"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// Benchmarks of Bcast and Allreduce per algorithm on 4 goroutine ranks over
// transport/inmem (default eager limit). Besides ns/op (wall time of b.N
// calls on the slowest path) each reports t_avg_us: the per-call time
// averaged over the ranks, as IMB's t_avg[usec], after a barrier.
//
//	go test -run '^$' -bench 'Bcast|Allreduce' ./coll/

var benchSizes = []int{8, 64 << 10, 4 << 20}

func benchColl(b *testing.B, p int, op func(a Algorithms, c comm.Comm, buf, out []byte) error, a Algorithms, n int) {
	var mu sync.Mutex
	var sum float64
	b.SetBytes(int64(n))
	commtest.Run(b, p, comm.Config{}, func(c comm.Comm) error {
		buf, out := make([]byte, n), make([]byte, n)
		if err := op(a, c, buf, out); err != nil { // warm-up, makes the collective view
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		t0 := c.Wtime()
		for i := 0; i < b.N; i++ {
			if err := op(a, c, buf, out); err != nil {
				return err
			}
		}
		dt := c.Wtime() - t0
		mu.Lock()
		sum += dt / float64(b.N)
		mu.Unlock()
		return nil
	})
	b.ReportMetric(sum/float64(p)*1e6, "t_avg_us")
}

func benchAll(b *testing.B, collective string, op func(a Algorithms, c comm.Comm, buf, out []byte) error) {
	for _, alg := range specOf(collective).names() {
		a, err := ParseAlgorithms(collective + "=" + alg)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", alg, n), func(b *testing.B) { benchColl(b, 4, op, a, n) })
		}
	}
}

func BenchmarkBcast(b *testing.B) {
	benchAll(b, "bcast", func(a Algorithms, c comm.Comm, buf, _ []byte) error { return a.Bcast(c, buf, 0) })
}

func BenchmarkAllreduce(b *testing.B) {
	benchAll(b, "allreduce", func(a Algorithms, c comm.Comm, buf, out []byte) error {
		return a.Allreduce(c, buf, out, Float32, Sum)
	})
}

// BenchmarkCombine times the reduction kernel alone on a 64 KiB vector
// (IMB's MPI_FLOAT sum, and float64), in place (reduce) and with a
// separate destination (combine, which replaces a copy and a reduce):
//
//	go test -run '^$' -bench Combine ./coll/
func BenchmarkCombine(b *testing.B) {
	const n = 64 << 10
	for _, dt := range []Datatype{Float32, Float64} {
		x, y, z := vec(dt, 0, n/dt.Size()), vec(dt, 1, n/dt.Size()), make([]byte, n)
		b.Run(fmt.Sprintf("%s/inplace", dt), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				reduce(dt, Sum, x, y)
			}
		})
		b.Run(fmt.Sprintf("%s/separate", dt), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				combine(dt, Sum, z, x, y)
			}
		})
		b.Run(fmt.Sprintf("%s/copy+inplace", dt), func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				copy(z, x)
				reduce(dt, Sum, z, y)
			}
		})
	}
}
