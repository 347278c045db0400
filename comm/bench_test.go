package comm_test

import (
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// BenchmarkPingPong measures one round trip (blocking Send then Recv on
// rank 0, Recv then Send on rank 1) over transport/inmem; ns/op is the
// round-trip time, allocs/op the allocations of both ranks together.
func BenchmarkPingPong(b *testing.B) {
	benchPingPong(b, func() []transport.Endpoint { return inmem.New(2) })
}

// BenchmarkPingPongTCP is BenchmarkPingPong over loopback TCP.
func BenchmarkPingPongTCP(b *testing.B) {
	benchPingPong(b, func() []transport.Endpoint { return tcpMesh(b, 2) })
}

func benchPingPong(b *testing.B, endpoints func() []transport.Endpoint) {
	for _, n := range []int{0, 8, 1024, 65536, 1 << 20} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(2 * n))
			b.ReportAllocs()
			commtest.RunOn(b, endpoints(), comm.Config{}, func(c comm.Comm) error {
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

// BenchmarkStream measures a window of 64 eager messages of 1 KiB from
// rank 0 to rank 1 followed by a 0-byte acknowledgement; many messages
// arrive before their receive (the unexpected-message path). ns/op and
// allocs/op are per window.
func BenchmarkStream(b *testing.B) {
	const window, n = 64, 1024
	b.SetBytes(window * n)
	b.ReportAllocs()
	commtest.Run(b, 2, comm.Config{}, func(c comm.Comm) error {
		buf := make([]byte, n)
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if c.Rank() == 0 {
				for range window {
					if err := c.Send(buf, 1, 1); err != nil {
						return err
					}
				}
				if _, err := c.Recv(nil, 1, 2); err != nil {
					return err
				}
				continue
			}
			for range window {
				if _, err := c.Recv(buf, 0, 1); err != nil {
					return err
				}
			}
			if err := c.Send(nil, 0, 2); err != nil {
				return err
			}
		}
		return nil
	})
}
