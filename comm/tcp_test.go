package comm_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/transport"
)

// tcpMesh connects n ranks over loopback TCP.
func tcpMesh(t testing.TB, n int) []transport.Endpoint {
	return commtest.Endpoints(t, "tcp", n)
}

// TestOverTCP: symmetric rendezvous exchanges much larger than the socket
// buffers (both ranks' Data in flight at once) and wildcard ordering, over
// real sockets, where a Data write from a reader goroutine would deadlock.
func TestOverTCP(t *testing.T) {
	if commtest.Transport != "inmem" {
		t.Skip("builds its own tcp mesh: runs once, in the inmem pass")
	}
	const n = 16 << 20
	for _, ranks := range []int{2, 3} {
		t.Run(fmt.Sprintf("n%d", ranks), func(t *testing.T) {
			pats := make([][]byte, ranks+10)
			for _, seed := range []int{0, 1, 2, 10, 11, 12} {
				if seed%10 < ranks {
					pats[seed] = pattern(n, seed)
				}
			}
			commtest.RunOn(t, tcpMesh(t, ranks), comm.Config{}, func(c comm.Comm) error {
				me := c.Rank()
				right, left := (me+1)%ranks, (me+ranks-1)%ranks
				buf := make([]byte, n)
				if _, err := c.Sendrecv(pats[me], right, 1, buf, left, 1); err != nil {
					return err
				}
				if !bytes.Equal(buf, pats[left]) {
					return fmt.Errorf("sendrecv payload from rank %d differs", left)
				}
				r, err := c.Isend(pats[me+10], left, 2)
				if err != nil {
					return err
				}
				if _, err := c.Recv(buf, right, 2); err != nil {
					return err
				}
				if _, err := r.Wait(); err != nil {
					return err
				}
				if !bytes.Equal(buf, pats[right+10]) {
					return fmt.Errorf("isend/recv payload from rank %d differs", right)
				}
				for i := range 100 {
					if _, err := c.Sendrecv([]byte{byte(i)}, right, i, buf[:1], comm.AnySource, comm.AnyTag); err != nil {
						return err
					}
					if buf[0] != byte(i) {
						return fmt.Errorf("ring step %d got %d", i, buf[0])
					}
				}
				return c.Barrier()
			})
		})
	}
}
