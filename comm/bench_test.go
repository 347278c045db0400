package comm_test

import (
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// BenchmarkPingPong measures one round trip (blocking Send then Recv on
// rank 0, Recv then Send on rank 1) over transport/inmem; ns/op is the
// round-trip time, allocs/op the allocations of both ranks together.
func BenchmarkPingPong(b *testing.B) {
	for _, n := range []int{0, 8, 1024, 65536, 1 << 20} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(2 * n))
			b.ReportAllocs()
			commtest.Run(b, 2, comm.Config{}, func(c comm.Comm) error {
				buf := make([]byte, n)
				peer := 1 - c.Rank()
				if err := c.Barrier(); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for range b.N {
					if c.Rank() == 0 {
						if err := c.Send(buf, peer, 1); err != nil {
							return err
						}
						if _, err := c.Recv(buf, peer, 1); err != nil {
							return err
						}
					} else {
						if _, err := c.Recv(buf, peer, 1); err != nil {
							return err
						}
						if err := c.Send(buf, peer, 1); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}
